"""Problems found in input, and the few exception types that carry them."""

from __future__ import annotations

from .values import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
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
    "CK208": "conflicting set effects",
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
        """The problem for people: one line, then the excerpt (if any) that shows the place."""
        return "\n".join((self.line_text(with_code=with_code), *(printable(line) for line in self.excerpt)))

    def line_text(self, *, with_code: bool = False) -> str:
        """The problem on one line: location, code, message, each escaped and cut."""
        code = f"{self.code} " if with_code else ""
        return f"{printable(self.location())}: {code}{printable(self.message)}"

    def full_message(self) -> str:
        """The message with its record path in front (for formats that give the file apart)."""
        return printable(f"{self.where}: {self.message}" if self.where else self.message)


MAX_MESSAGE = 300  # characters of a message; input echoed in it may be far longer


def escaped(text: str) -> str:
    """``text`` with each character that is not printable written as its escape (``\\n``, ``\\x1b``).

    Whatever reaches a terminal or a CI log from input goes through here (or :func:`printable`):
    a raw line break would forge output lines, and ESC or OSC sequences would drive the terminal.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def printable(text: str) -> str:
    """One line of reasonable length: control characters escaped, long text cut."""
    if text.isprintable() and len(text) <= MAX_MESSAGE:
        return text
    pieces = [ch if ch.isprintable() else _escape(ch) for ch in text[: MAX_MESSAGE + 1]]
    if sum(map(len, pieces)) <= MAX_MESSAGE:
        return "".join(pieces)
    kept, used = [], 0
    for piece in pieces:  # cut between escapes, never inside one
        if used + len(piece) > MAX_MESSAGE - 3:
            break
        kept.append(piece)
        used += len(piece)
    return "".join(kept) + "..."


def _escape(ch: str) -> str:
    return ascii(ch)[1:-1]


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
    import difflib  # only a problem needs it

    guess = difflib.get_close_matches(name, list(dict.fromkeys(known)), n=1)
    return f"; did you mean '{guess[0]}'?" if guess else ""
