"""Problems found in input, and the few exception types that carry them."""

from __future__ import annotations

import functools

from .values import Value, WrittenFloat

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
    "CK105": "schema refers outside its pack",
    "CK106": "schema that cannot run safely (regular expression or checking without bound)",
    "CK201": "DSL syntax error",
    "CK202": "unknown name",
    "CK203": "wrong argument type or count",
    "CK204": "unknown stage",
    "CK205": "conflicting stage changes",
    "CK206": "unknown parameter or wrong parameter value",
    "CK207": "reference to a missing card",
    "CK208": "a name an enclosing block already gave",
    "CK209": "conflicting set effects",
    "CK301": "invalid game record",
    "CK302": "illegal meal",
    "CK303": "illegal critic course",
}


class Problem(Value):
    """One thing wrong with one input, located as precisely as the input allows."""

    _fields = ("path", "line", "column", "message", "code", "where", "excerpt")
    __slots__ = _fields
    _compared = _fields[:-1]  # the excerpt only shows the place again

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
        """``path:line:col``, ``path: record.path`` or both (``path:line:col: record.path``).

        A record problem keeps its record path beside its line: the line is for editors
        and CI annotations, the path says which value of a long record is meant.
        """
        place = f"{self.path}:{self.line}:{self.column}" if self.line else self.path
        return f"{place}: {self.where}" if self.where else place

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


SHOWN = 40  # characters of a value echoed in a message


def shown(value: Any) -> str:
    """A value for a message, as its file writes it: text quoted, ``true``, ``null``, numbers as written.

    Lists and mappings are named (``a list``), not spelled out: they may be any size.
    """
    if isinstance(value, str):
        text = repr(value[: SHOWN + 1])
    elif value is None or isinstance(value, bool):
        return _WORDS[value]
    elif isinstance(value, int):
        # past 40 digits the text would be cut anyway; str() of a huge int is slow, even refused
        return str(value) if -(10**SHOWN) < value < 10**SHOWN else "a huge number"
    elif isinstance(value, WrittenFloat):
        text = value.text
    elif isinstance(value, float):
        text = _FLOAT_WORDS.get(repr(value), repr(value))
    else:
        return _KINDS.get(type(value), "a value")
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


_WORDS: dict[bool | None, str] = {True: "true", False: "false", None: "null"}
_FLOAT_WORDS = {"inf": ".inf", "-inf": "-.inf", "nan": ".nan"}  # as YAML writes them
_KINDS: dict[type, str] = {list: "a list", tuple: "a list", dict: "a mapping"}


class CritterError(Exception):
    """Base of every error the engine raises on purpose."""


class InputError(CritterError):
    """Input that cannot be used; carries every problem found, not only the first."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(p.format() for p in problems))
        self.problems = problems


class EvaluationError(CritterError):
    """A card effect failed while scoring (for example a division by zero)."""


class UsageError(CritterError):
    """A bad value of a command-line option: the command exits 2."""


def whole_number(option: str, value: str, low: int, high: int) -> int:
    """``value``, given to ``option``, as a whole number from ``low`` to ``high``; else UsageError.

    The one check of a ranged whole-number option: argparse's ``type=`` (``commands.Whole``) and
    the checks whose range the loaded packs set (``simulate --players``) both call it."""
    try:
        n = int(value, 10)
    except ValueError:
        n = None
    if n is None or not low <= n <= high:
        raise UsageError(f"{option}: expected a whole number from {low} to {high}, got {shown(value)}")
    return n


MAX_COMPARED = 200  # names one suggestion compares closely: every name of the language, not thousands of ids


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest known name, or nothing when none is close.

    Among many known names only those with the same first letter and about the same length
    are compared, at most MAX_COMPARED of them, so that a record or pack full of unknown
    ids against thousands of cards stays quick.
    """
    import difflib  # only a problem needs it

    names = tuple(dict.fromkeys(known))
    # A close match shares 60% of both lengths (2 * common / total >= 0.6), so it is never
    # under 3/7 of the name's length: a name far longer than any known one (a megabyte
    # of text) is not compared at all, which would take seconds.
    if not any(7 * len(n) >= 3 * len(name) for n in names):
        return ""
    guess = difflib.get_close_matches(name, close_candidates(name, names), n=1)
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
