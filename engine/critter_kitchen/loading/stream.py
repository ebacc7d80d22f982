"""Game records read from a stream (standard input): one document, or JSON Lines.

The first two non-blank lines decide:

- the first is a complete JSON object on one line and a second follows: JSON Lines;
- the second is a complete JSON object on one line, and the whole input cannot be read as
  one document (past the size limit, not UTF-8, a syntax error): JSON Lines, so that a
  broken first line is only that record's problem;
- anything else: the whole input is one YAML or JSON document named ``-``, held to the
  file size limit.

In JSON Lines every non-blank line is a record of its own, named ``-:N`` for line N, and
a line that cannot be used (not JSON, not UTF-8, longer than the size limit) is a problem
of that record alone. Lines are read one at a time and no more than the size limit of
any line is held, so memory stays flat however long the stream is.
"""

from __future__ import annotations

from ..errors import InputError, Problem
from .files import parse_json
from .yamlpos import MAX_BYTES, parse, read_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, BinaryIO

    from .yamlpos import Document

_READ = MAX_BYTES + 2  # a line of the size limit and its ending ("\r\n") fit in one read
_SKIP = 1 << 16  # the rest of a line past the limit is read and dropped in pieces this size


class Entry:
    """One record from the stream: its data, or the problems that kept it from being read.

    A whole-stream document keeps its :class:`Document`, so that the problems of its record
    name lines; a JSON Lines record is one line, named by its number, and has none.
    """

    def __init__(
        self, source: str, data: Any = None, problems: list[Problem] | None = None, document: Document | None = None
    ) -> None:
        self.source = source
        self.data = data
        self.problems = problems or []
        self.document = document


def read_stream(stream: BinaryIO | None, name: str = "-") -> Iterator[Entry]:
    """The records of ``stream`` in order (``None`` is a closed stream: one problem)."""
    if stream is None:
        yield Entry(name, problems=[Problem(name, 0, 0, "cannot read standard input: it is closed", "CK001")])
        return
    lines = _Lines(stream)
    head = bytearray()  # everything read before the kind of stream is known
    try:
        first = lines.next_filled(head)
        first_number = lines.number
        second = None if first is None else lines.next_filled(head)
    except OSError as e:
        yield Entry(name, problems=[_unreadable(name, e)])
        return
    first_is_object = first is not None and is_object_line(first)
    second_is_object = second is not None and _is_whole(second) and is_object_line(second)
    if first is None or second is None or not (first_is_object or second_is_object):
        yield _document(stream, name, bytes(head))
    elif first_is_object or not _is_whole(first):  # a first line past the limit: never one document
        yield _json_line(f"{name}:{first_number}", first)
        yield _json_line(f"{name}:{lines.number}", second)
        yield from _json_lines(lines, name)
    else:
        yield from _document_or_json_lines(stream, name, bytes(head))


def _document_or_json_lines(stream: BinaryIO, name: str, head: bytes) -> Iterator[Entry]:
    """One document if the input reads as one; else JSON Lines, from its first line again."""
    try:
        raw = head + stream.read(max(0, MAX_BYTES + 1 - len(head)))
    except OSError as e:
        yield Entry(name, problems=[_unreadable(name, e)])
        return
    document = _parsed(name, raw)
    if not document.problems:
        yield document
        return
    yield from _json_lines(_Lines(stream, raw), name)


def is_object_line(line: bytes) -> bool:
    """Whether ``line`` holds a complete JSON object (it may still be a bad record).

    Bytes that are not UTF-8 do not decide: inside a string they leave an object an
    object, and that line's record is refused for them later.
    """
    import json  # JSON Lines only

    text = line.decode("utf-8-sig", "replace").strip()
    if not (text.startswith("{") and text.endswith("}")):
        return False
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    except (ValueError, RecursionError):  # too many digits, too deep: an object all the same
        return True
    return True


class _Lines:
    """The lines of a binary stream, counted from 1, each read with at most MAX_BYTES + 2 held.

    ``replay`` is the stream's start, already read: its lines come first.
    """

    def __init__(self, stream: BinaryIO, replay: bytes = b"") -> None:
        import io

        self.stream = stream
        self.replay = io.BytesIO(replay) if replay else None
        self.number = 0  # the line last read

    def next_filled(self, keep: bytearray | None = None) -> bytes | None:
        """The next non-blank line as read, or None at the end.

        Of a line past the limit only the start is returned; the rest is read and dropped.
        Every line read, blank or not, is added to ``keep`` (a line past the limit: its start).
        """
        while chunk := self._readline(_READ):
            self.number += 1
            if keep is not None:
                keep += chunk
            if not _is_whole(chunk):
                self._skip_rest()
                return chunk
            if chunk.strip():
                return chunk
        return None

    def _skip_rest(self) -> None:
        while (chunk := self._readline(_SKIP)) and not chunk.endswith(b"\n"):
            pass

    def _readline(self, limit: int) -> bytes:
        if self.replay is None:
            return self.stream.readline(limit)
        chunk = self.replay.readline(limit)
        if chunk.endswith(b"\n") or len(chunk) == limit:
            return chunk
        self.replay = None  # used up, perhaps in the middle of a line that the stream goes on with
        return chunk + self.stream.readline(limit - len(chunk))


def _is_whole(chunk: bytes) -> bool:
    """Whether a read of a line got all of it (its ending, or the end of the stream)."""
    return chunk.endswith(b"\n") or len(chunk) < _READ


def _json_lines(lines: _Lines, name: str) -> Iterator[Entry]:
    while True:
        try:
            line = lines.next_filled()
        except OSError as e:
            source = f"{name}:{lines.number + 1}"
            yield Entry(source, problems=[_unreadable(source, e)])
            return
        if line is None:
            return
        yield _json_line(f"{name}:{lines.number}", line)


def _json_line(source: str, line: bytes) -> Entry:
    """One JSON Lines record, from the line as read."""
    raw = line.removesuffix(b"\n").removesuffix(b"\r")
    if not _is_whole(line) or len(raw) > MAX_BYTES:
        return Entry(source, problems=[Problem(source, 0, 0, f"line is longer than {MAX_BYTES} bytes", "CK005")])
    try:
        return Entry(source, parse_json(source, read_text(source, raw)))
    except InputError as e:
        return Entry(source, problems=e.problems)


def _document(stream: BinaryIO, name: str, head: bytes) -> Entry:
    """The whole stream as one document; one byte past the size limit is enough to refuse it."""
    try:
        raw = head + stream.read(max(0, MAX_BYTES + 1 - len(head)))
    except OSError as e:
        return Entry(name, problems=[_unreadable(name, e)])
    return _parsed(name, raw)


def _parsed(name: str, raw: bytes) -> Entry:
    try:
        document = parse(name, read_text(name, raw))
        return Entry(name, document.data, document=document)
    except InputError as e:
        return Entry(name, problems=e.problems)


def _unreadable(source: str, error: OSError) -> Problem:
    return Problem(source, 0, 0, f"cannot read standard input: {error.strerror or error}", "CK001")
