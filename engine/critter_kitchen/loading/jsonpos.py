"""The line and column of chosen values of JSON text, for the problems of a JSON record.

The record itself is read by :mod:`json` (its semantics exactly: escapes, numbers,
duplicate keys refused); this module only finds where values are, once a problem needs
it. It scans text that :mod:`json` has already accepted, in one pass, without recursion,
and keeps the places of the wanted paths (and their ancestors) only: memory stays as
small as the list of problems, however large the record.
"""

from __future__ import annotations

import json
import re

from .yamlpos import Mark

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .yamlpos import Path

# One token of valid JSON: a string, a punctuation mark, or a number or literal.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.DOTALL)


class _Open:
    """A mapping or list being scanned: its path, and the key or index of its current value."""

    __slots__ = ("path", "is_mapping", "key", "index", "wants_key")

    def __init__(self, path: Path, is_mapping: bool) -> None:
        self.path = path
        self.is_mapping = is_mapping
        self.key = ""
        self.index = 0
        self.wants_key = is_mapping

    def child(self) -> Path:
        return (*self.path, self.key if self.is_mapping else self.index)


def json_marks(text: str, wanted: Iterable[Path]) -> tuple[dict[Path, Mark], dict[Path, Mark]]:
    """The marks of the values and of the keys at ``wanted`` paths and their ancestors.

    ``text`` must be JSON that :func:`json.loads` accepts; a path that is not in it is left out.
    """
    keep = {path[:n] for path in wanted for n in range(len(path) + 1)}
    values: dict[Path, Mark] = {}
    keys: dict[Path, Mark] = {}
    lines = _LineCounter(text)
    stack: list[_Open] = []
    for m in _TOKEN.finditer(text):
        token = m.group()
        top = stack[-1] if stack else None
        if token in ",:":
            if token == "," and top is not None:
                top.wants_key = top.is_mapping
                top.index += 1
            continue
        if token in "}]":
            stack.pop()
            continue
        if top is not None and top.wants_key:  # a key of the mapping on top
            top.key, top.wants_key = json.loads(token), False
            if top.child() in keep:
                keys[top.child()] = lines.mark(m.start())
            continue
        path = top.child() if top is not None else ()
        if path in keep:
            values[path] = lines.mark(m.start())
        if token in "{[":
            stack.append(_Open(path, token == "{"))
    return values, keys


class _LineCounter:
    """Line and column (1-based, in characters) of offsets met in increasing order."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offset = 0  # where the count below was taken
        self.line = 1
        self.line_start = 0

    def mark(self, offset: int) -> Mark:
        newlines = self.text.count("\n", self.offset, offset)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rfind("\n", self.offset, offset) + 1
        self.offset = offset
        return Mark(self.line, offset - self.line_start + 1)
