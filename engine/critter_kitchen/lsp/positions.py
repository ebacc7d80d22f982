"""Places in a file: the engine's (``path:line:col``, 1-based, counted in characters) and
the server's (0-based lines and characters). Every engine place the server sends is made
0-based here, and only here; the server's places become the client's units (UTF-16 code
units unless it chose otherwise) by pygls's position codec, in ``server.py``'s two helpers."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..errors import Problem

# what a problem's range covers when it gives no width: the word (an id, a name, a number) at its place
_WORD = re.compile(r"[A-Za-z0-9_.\-]+")
# the characters of an id, a stage or a parameter name, which hovers and definitions look up
_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# (line, character), both 0-based, the character counted in Python characters (code points)
Place = tuple[int, int]


def problem_range(problem: Problem, lines: list[str]) -> tuple[Place, Place]:
    """The 0-based range of ``problem`` in a file of ``lines``, in characters.

    A problem without a line (the file as a whole) covers the first line. One with a place
    covers the carets its excerpt draws when it has one, else the word that starts there,
    else one character.
    """
    if problem.line <= 0 or problem.line > max(len(lines), 1):
        first = lines[0] if lines else ""
        return (0, 0), (0, len(first))
    line = problem.line - 1
    text = lines[line] if line < len(lines) else ""
    start = min(max(problem.column - 1, 0), len(text))
    width = _caret_width(problem.excerpt)
    if width == 0:
        word = _WORD.match(text, start)
        width = len(word.group(0)) if word else 1
    return (line, start), (line, min(start + width, len(text)) if start < len(text) else start)


def _caret_width(excerpt: tuple[str, ...]) -> int:
    if len(excerpt) < 2:
        return 0
    return excerpt[1].count("^")


def name_at(lines: list[str], place: Place) -> tuple[str, str, int] | None:
    """The name under ``place``: the longest run of id characters (``fish-fanatic``,
    ``critic.rumors``), the identifier inside it there (``quality`` in ``quality(p``),
    and where the run starts; None when the place is on none."""
    line, char = place
    if not 0 <= line < len(lines):
        return None
    text = lines[line]
    for m in _NAME.finditer(text):
        if m.start() <= char <= m.end():
            inner = next(
                (i.group(0) for i in _IDENTIFIER.finditer(m.group(0)) if i.start() <= char - m.start() <= i.end()),
                m.group(0),
            )
            return m.group(0), inner, m.start()
        if m.start() > char:
            break
    return None


def prefix_at(lines: list[str], place: Place) -> str:
    """The id characters just before ``place`` (what a completion is asked to finish)."""
    line, char = place
    if not 0 <= line < len(lines):
        return ""
    before = lines[line][:char]
    m = re.search(r"[A-Za-z0-9_.\-]*$", before)
    return m.group(0) if m else ""


def engine_place(line: int, column: int) -> Place:
    """A 1-based engine place (a card's ``pos``, a YAML mark) as a 0-based one."""
    return max(line - 1, 0), max(column - 1, 0)
