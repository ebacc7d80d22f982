"""Problems found in input, and the few exception types that carry them."""

from __future__ import annotations

import functools

from .values import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

# Every problem has a stable code and a short meaning; the README documents each one
# with an example message taken from the error corpora (tools/update_readme.py).
CODES: dict[str, str] = {
    "CK001": "file cannot be read",
    "CK002": "YAML or JSON syntax error",
    "CK003": "duplicate key",
    "CK004": "unsupported YAML tag or value",
    "CK005": "input too large or too deeply nested",
    "CK101": "schema violation",
    "CK102": "unknown card kind",
    "CK103": "duplicate card id",
    "CK104": "pack problem",
    "CK201": "DSL syntax error",
    "CK202": "unknown name",
    "CK203": "wrong argument type or count",
    "CK204": "unknown stage",
    "CK205": "conflicting stage changes",
    "CK206": "unknown parameter or wrong parameter value",
    "CK207": "reference to a missing card",
    "CK301": "invalid game record",
    "CK302": "illegal meal",
    "CK303": "illegal critic course",
}


class Problem(Value):
    """One thing wrong with one input, located as precisely as the input allows."""

    __slots__ = ("path", "line", "column", "message", "code", "where", "excerpt")
    _compared = __slots__[:-1]  # the excerpt only shows the place again

    def __init__(
        self,
        path: str,
        line: int = 0,  # 1-based; 0 when only a record path is known
        column: int = 0,
        message: str = "",
        code: str = "CK101",
        where: str = "",  # record path such as ``challenge_meals.round3.Ana.harbor-stew``
        excerpt: tuple[str, ...] = (),
    ) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        self.code = code
        self.where = where
        self.excerpt = excerpt

    def __reduce__(self) -> tuple[Any, ...]:
        return Problem, self._key() + (self.excerpt,)

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


MAX_COMPARED = 40  # known names one suggestion compares closely; a loaded pack may hold thousands of ids


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest known name, or nothing when none is close.

    Among many known names only those with the same first letter and about the same length
    are compared, at most MAX_COMPARED of them, so that a record or pack full of unknown
    ids against thousands of cards stays quick.
    """
    import difflib  # only a problem needs it

    guess = difflib.get_close_matches(name, close_candidates(name, tuple(dict.fromkeys(known))), n=1)
    return f"; did you mean '{guess[0]}'?" if guess else ""


def close_candidates(name: str, names: tuple[str, ...]) -> Sequence[str]:
    """The known names worth comparing with ``name``: all of a few, else the likeliest few."""
    if len(names) <= MAX_COMPARED:
        return names
    by_length = _by_initial_and_length(names).get(name[:1].lower(), {})
    size, out = len(name), list[str]()
    # nearest lengths first; difflib's cutoff of 0.6 needs lengths within a factor of 7/3
    for gap in range(size * 4 // 3 + 1):
        for length in {size - gap, size + gap}:
            out.extend(by_length.get(length, ()))
        if len(out) >= MAX_COMPARED:
            return out[:MAX_COMPARED]
    return out


@functools.lru_cache(maxsize=8)  # the same names (a ruleset's cards) are asked about again and again
def _by_initial_and_length(names: tuple[str, ...]) -> dict[str, dict[int, list[str]]]:
    index: dict[str, dict[int, list[str]]] = {}
    for n in names:
        index.setdefault(n[:1].lower(), {}).setdefault(len(n), []).append(n)
    return index
