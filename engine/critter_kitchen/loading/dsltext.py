"""DSL text inside YAML files: mapping its positions to the file, and excerpts with carets."""

from __future__ import annotations

from ..dsl.nodes import Locate
from .yamlpos import Document, Path


def locator(doc: Document, path: Path) -> Locate:
    """Map (line, column) in the DSL string at ``path`` to (line, column) in the file."""
    m = doc.mark(path)
    if m.style in ("|", ">"):
        lines = doc.text.split("\n")
        first = next((ln for ln in lines[m.line :] if ln.strip()), "")
        indent = len(first) - len(first.lstrip(" "))
        return lambda line, col: (m.line + line, indent + col)
    quote = 1 if m.style in ("'", '"') else 0
    if m.end_line > m.line:  # plain or quoted text folded from several lines: columns do not map
        return lambda line, col: (m.line, m.column + quote)
    return lambda line, col: (m.line + line - 1, m.column + quote + col - 1 if line == 1 else col)


def excerpt(doc: Document, line: int, column: int, width: int = 1) -> tuple[str, ...]:
    """The file line and a caret run under the columns ``column .. column+width-1``."""
    lines = doc.text.split("\n")
    if not 1 <= line <= len(lines):
        return ()
    text = lines[line - 1].rstrip()
    stripped = text.lstrip()
    shift = len(text) - len(stripped)
    start = max(0, column - 1 - shift)
    width = max(1, min(width, len(stripped) - start))
    return ("    " + stripped, "    " + " " * start + "^" * width)
