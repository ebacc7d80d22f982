"""Problems found in input, and the few exception types that carry them."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

# Every problem has a stable code: (what it means, an example message). The README
# table is generated from this; a test finds each example in the error corpora.
CODES: dict[str, tuple[str, str]] = {
    "CK001": ("file cannot be read", "file is not UTF-8 text"),
    "CK002": ("YAML or JSON syntax error", "YAML syntax error: did not find expected ',' or ']'"),
    "CK003": ("duplicate key", "duplicate key 'name' (first at line 3)"),
    "CK004": ("unsupported YAML tag or value", "unsupported YAML tag '!!python/name:os.system'"),
    "CK005": ("input too large or too deeply nested", "more than 200000 values (alias expansion?)"),
    "CK101": ("schema violation", "unknown key 'effect'; did you mean 'effects'?"),
    "CK102": ("unknown card kind", "unknown card kind 'critc'; did you mean 'critic'?"),
    "CK103": ("duplicate card id", "duplicate card id 'fish-fanatic' (also in cards/base/rumors/fish-fanatic.yaml:1)"),
    "CK104": (
        "pack problem",
        "pack 'broken-requires' requires pack 'a-la-carte', which is not loaded; load it first with --pack",
    ),
    "CK201": ("DSL syntax error", "unknown statement 'awrd'; did you mean 'award'?"),
    "CK202": ("unknown name", "unknown function 'qualty'; did you mean 'quality'?"),
    "CK203": ("wrong argument type or count", "expected a player, got a list of players"),
    "CK204": ("unknown stage", "unknown stage 'critic.best_courses'; did you mean 'critic.best_course'?"),
    "CK205": (
        "conflicting stage changes",
        "stage 'critic.most_soup' is also replaced by card 'soup-a', and both can be in play",
    ),
    "CK206": (
        "unknown parameter or wrong parameter value",
        "unknown parameter 'spice_factr'; did you mean 'spice_factor'?",
    ),
    "CK207": ("reference to a missing card", "unknown card 'fish-fanatik'; did you mean 'fish-fanatic'?"),
    "CK301": ("invalid game record", "unknown critic card 'no-such-critic'"),
    "CK302": ("illegal meal", "no required ingredient, only soup"),
    "CK303": ("illegal critic course", "soup cannot fill a critic course"),
}


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with one input, located as precisely as the input allows."""

    path: str
    line: int = 0  # 1-based; 0 when only a record path is known
    column: int = 0
    message: str = ""
    code: str = "CK101"
    where: str = ""  # record path such as ``challenge_meals.round3.Ana.harbor-stew``
    excerpt: tuple[str, ...] = field(default=(), compare=False)

    def location(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}:{self.column}"
        if self.where:
            return f"{self.path}: {self.where}"
        return self.path

    def format(self, *, with_code: bool = False) -> str:
        code = f"{self.code} " if with_code else ""
        head = f"{printable(self.location())}: {code}{printable(self.message)}"
        return "\n".join((head, *self.excerpt))


MAX_MESSAGE = 300  # characters of a message; input echoed in it may be far longer


def printable(text: str) -> str:
    """One line of reasonable length: control characters escaped, long text cut."""
    if text.isprintable() and len(text) <= MAX_MESSAGE:
        return text
    clean = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text[: MAX_MESSAGE + 1])
    return clean if len(clean) <= MAX_MESSAGE else clean[: MAX_MESSAGE - 3] + "..."


class CritterError(Exception):
    """Base of every error the engine raises on purpose."""


class InputError(CritterError):
    """Input that cannot be used; carries every problem found, not only the first."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(p.format() for p in problems))
        self.problems = problems


class EvaluationError(CritterError):
    """A card effect failed while scoring (for example a division by zero)."""


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest known name, or nothing when none is close."""
    guess = difflib.get_close_matches(name, list(dict.fromkeys(known)), n=1)
    return f"; did you mean '{guess[0]}'?" if guess else ""
