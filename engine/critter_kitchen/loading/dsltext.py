"""DSL text inside YAML files: mapping its positions to the file, and excerpts with carets."""

from __future__ import annotations

from ..dsl.nodes import Locate
from ..errors import MAX_MESSAGE, escaped
from .yamlpos import Document, Path

INDENT = "    "
ELLIPSIS = "..."
CONTEXT = 40  # characters kept after the carets when a long line is cut (if it has them)


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
    """The file line and a caret run under the columns ``column .. column+width-1``.

    The line is shown with its control characters escaped (the carets move with them) and,
    when long, only a window of it around the carets, so that each line stays within the
    message length.
    """
    lines = doc.text.split("\n")
    if not 1 <= line <= len(lines):
        return ()
    text = lines[line - 1].rstrip()
    stripped = text.lstrip()
    shift = len(text) - len(stripped)
    start = max(0, column - 1 - shift)
    width = max(1, min(width, len(stripped) - start))
    before, marked, after = (
        escaped(part) for part in (stripped[:start], stripped[start : start + width], stripped[start + width :])
    )
    room = MAX_MESSAGE - len(INDENT) - 2 * len(ELLIPSIS)
    marked = marked[:room]
    if len(before) + len(marked) + len(after) > room:
        lead = min(len(before), max(0, room - len(marked) - min(len(after), CONTEXT)))
        tail = room - lead - len(marked)
        before = (ELLIPSIS if lead < len(before) else "") + before[len(before) - lead :]
        after = after[:tail] + (ELLIPSIS if tail < len(after) else "")
    past_end = max(0, start - len(stripped))  # a place just after the text still gets its caret
    return (INDENT + before + marked + after, INDENT + " " * (len(before) + past_end) + "^" * max(1, len(marked)))
