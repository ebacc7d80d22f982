"""YAML (and JSON) reading that keeps where every value came from.

PyYAML's composer gives nodes with marks; this module turns them into plain Python
values itself, so that it can refuse duplicate keys, unsafe tags and alias bombs, and
record the line and column of every value and every key.

Plain scalars are read by the YAML 1.2 core schema, not PyYAML's YAML 1.1 one: only
``true``/``false`` (any case form the schema allows) are booleans, so ``no``, ``on`` and
``y`` are text; whole numbers are decimal only, so ``0x10``, ``0o10``, ``1_000`` and
``1:30`` are text; and a leading zero (``010``, octal 8 to YAML 1.1, 10 to YAML 1.2) is
refused rather than guessed. Fractions keep their written text for messages.
"""

from __future__ import annotations

import os
import re

import yaml

from ..errors import InputError, Problem, shown
from ..regular import read_regular
from ..values import Value, WrittenFloat
from .discovery import MAX_FILE_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

try:  # libyaml is much faster where it is available
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

_INF = float("inf")
_BOM = b"\xef\xbb\xbf"  # the byte order mark a UTF-8 file may start with
MAX_BYTES = MAX_FILE_BYTES
MAX_NODES = 200_000
MAX_DEPTH = 64

Path = tuple[str | int, ...]

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_SCALAR_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL}

# The YAML 1.2 core schema, except that integers are decimal only (its 0o and 0x forms
# are text here: nothing in a game is written in octal or hexadecimal).
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT_TEXT = re.compile(r"[-+]?[0-9]+")
_LEADING_ZERO = re.compile(r"[-+]?0[0-9]")
_FLOAT_TEXT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INFINITE = {f"{sign}.{w}": -_INF if sign == "-" else _INF for sign in ("", "+", "-") for w in ("inf", "Inf", "INF")}
_NAN = frozenset((".nan", ".NaN", ".NAN"))
_NUMBER_START = frozenset("0123456789+-.")
_TAG_NEEDS = {
    _INT: "!!int: a whole number is written in decimal digits",
    _FLOAT: "!!float: it is not a number",
    _BOOL: "!!bool: a boolean is written true or false",
    _NULL: "!!null: null is written null, ~ or not at all",
}


def _core_tag(text: str) -> str:
    """The tag the YAML 1.2 core schema (decimal integers only) gives a plain scalar."""
    if text in _NULLS:
        return _NULL
    if text in _BOOLS:
        return _BOOL
    if text == "<<":  # a YAML 1.1 merge key: not in YAML 1.2, and refused rather than read as a key
        return _MERGE
    if text[0] in _NUMBER_START:
        if _INT_TEXT.fullmatch(text):
            return _INT
        if _FLOAT_TEXT.fullmatch(text) or text in _INFINITE or text in _NAN:
            return _FLOAT
    return _STR


def _resolve(kind: Any, value: Any, implicit: Any) -> str:
    """The tag of a node without a tag of its own (or with the bare '!'): YAML 1.2 core tags.

    ``implicit`` is a pair of flags for a scalar, but one flag for a collection (libyaml).
    """
    if kind is yaml.ScalarNode:
        # implicit[0] holds for a plain scalar; a quoted one is text
        return _core_tag(value) if implicit[0] else _STR
    return _MAP if kind is yaml.MappingNode else _SEQ


# libyaml's parser and composer with _resolve in place of PyYAML's YAML 1.1 resolvers. Made
# by a call rather than a class statement so that it stays a Python class in the compiled
# build as well: mypyc cannot make a native class that derives from libyaml's C parser.
_Loader: Any = type("_Loader", (_BaseLoader,), {"resolve": staticmethod(_resolve)})


class Mark(Value):
    _fields = ("line", "column", "style", "end_line")
    __slots__ = _fields

    def __init__(self, line: int, column: int, style: str | None = None, end_line: int = 0) -> None:
        self.line = line  # 1-based
        self.column = column  # 1-based
        self.style = style  # YAML scalar style: None (plain), "'", '"', "|" or ">"
        self.end_line = end_line  # where the value ends (1-based), for text that spans lines


class Document:
    """A parsed file: its text, its data and the place of every value in it."""

    def __init__(self, path: str, text: str, data: Any) -> None:
        self.path = path
        self.text = text
        self.data = data
        self.marks: dict[Path, Mark] = {}
        self.key_marks: dict[Path, Mark] = {}

    def mark(self, path: Path) -> Mark:
        """The place of the value at ``path``, or of its nearest ancestor."""
        while path not in self.marks and path:
            path = path[:-1]
        return self.marks.get(path, Mark(1, 1))

    def key_mark(self, path: Path) -> Mark:
        """The place of the key that holds ``path`` (the value's place if not a key)."""
        return self.key_marks.get(path) or self.mark(path)

    def places(self, wanted: Sequence[tuple[Path, bool]]) -> list[Mark]:
        """The place of each wanted value, or of the key that holds it when its flag is set."""
        return [self.key_mark(path) if at_key else self.mark(path) for path, at_key in wanted]

    def problem(self, path: Path, message: str, code: str, *, at_key: bool = False) -> Problem:
        m = self.key_mark(path) if at_key else self.mark(path)
        return Problem(self.path, m.line, m.column, message, code)


def read_document(path: str | os.PathLike[str], shown: str | None = None) -> Document:
    """Read and parse one YAML or JSON file; raise InputError with its place on failure."""
    name = shown or os.fspath(path)
    return parse(name, read_file(path, name))


def read_file(path: str | os.PathLike[str], shown: str) -> str:
    """A file's text, named ``shown`` in problems: unreadable, too large or not UTF-8 is an InputError.

    Only a regular file is read, and never more than one byte past the limit.
    """
    try:
        raw = read_regular(os.fspath(path), MAX_BYTES)
    except OSError as e:
        raise unreadable(shown, e) from None
    return read_text(shown, raw)


def unreadable(shown: str, error: OSError) -> InputError:
    """The problem of a file that could not be read."""
    return InputError([Problem(shown, 0, 0, f"cannot read file: {error.strerror or error}", "CK001")])


def read_text(path: str, raw: bytes) -> str:
    """Decode a file's bytes, refusing what is too large or not UTF-8."""
    if len(raw) > MAX_BYTES:
        raise InputError([Problem(path, 1, 1, f"file is larger than {MAX_BYTES} bytes", "CK005")])
    # what the utf-8-sig codec gives (tests/test_cold_start.py compares), without importing
    # that codec; a problem's place is counted in the text after the mark, as an editor shows it
    body = raw[len(_BOM) :] if raw.startswith(_BOM) else raw
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as e:
        line = body[: e.start].count(b"\n") + 1
        col = e.start - (body.rfind(b"\n", 0, e.start) + 1) + 1
        raise InputError([Problem(path, line, col, "file is not UTF-8 text", "CK001")]) from None


def parse(path: str, text: str) -> Document:
    """Parse YAML or JSON text into a :class:`Document`; raise InputError on any problem."""
    if len(text) > MAX_BYTES:
        raise InputError([Problem(path, 1, 1, f"text is longer than {MAX_BYTES} characters", "CK005")])
    loader = _Loader(text)
    try:
        if "%YAML" in text:
            _refuse_other_versions(path, text)
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = e.problem or e.context or "syntax error"
        raise InputError([Problem(path, line, col, f"YAML syntax error: {what}", "CK002")]) from None
    except yaml.reader.ReaderError as e:
        line = text.count("\n", 0, e.position) + 1
        col = e.position - (text.rfind("\n", 0, e.position) + 1) + 1
        what = f"unacceptable character #x{ord(e.character) if isinstance(e.character, str) else e.character:04x}"
        raise InputError([Problem(path, line, col, f"YAML syntax error: {what}: {e.reason}", "CK002")]) from None
    except yaml.YAMLError as e:
        first = str(e).splitlines()[0] if str(e) else "syntax error"
        raise InputError([Problem(path, 1, 1, f"YAML syntax error: {first}", "CK002")]) from None
    except RecursionError:
        raise InputError([Problem(path, 1, 1, "nesting is too deep", "CK005")]) from None
    finally:
        loader.dispose()
    doc = Document(path, text, None)
    if node is None:
        return doc
    builder = _Builder(doc)
    doc.data = builder.value(node, (), 0)
    if builder.problems:
        raise InputError(builder.problems)
    return doc


def _refuse_other_versions(path: str, text: str) -> None:
    """Refuse a ``%YAML 1.1`` directive: its document means ``yes`` as true and ``010`` as 8."""
    probe = _BaseLoader(text)
    try:
        probe.get_event()  # the stream's start; the document's start carries the directive
        start = probe.get_event()
    finally:
        probe.dispose()
    version = getattr(start, "version", None)
    if version is not None and tuple(version) != (1, 2):
        mark: Any = getattr(start, "start_mark", None)
        line = mark.line + 1 if mark else 1
        declared = f"%YAML {version[0]}.{version[1]}"
        message = f"{declared} is not read: files are read as YAML 1.2; write %YAML 1.2 or no directive"
        raise InputError([Problem(path, line, 1, message, "CK004")])


def _fraction(text: str) -> WrittenFloat | None:
    """A float-form scalar's number, keeping its text; None if it is not one."""
    if text in _INFINITE:
        return WrittenFloat(text, _INFINITE[text])
    if text in _NAN:
        return WrittenFloat(text, float("nan"))
    return WrittenFloat(text) if _FLOAT_TEXT.fullmatch(text) else None


def _leading_zero(text: str) -> str:
    sign = "-" if text.startswith("-") else ""
    digits = text.lstrip("+-").lstrip("0") or "0"
    return (
        f"{text} has a leading zero, which YAML readers disagree on (octal or decimal): "
        f"write {sign}{digits} for the number, or '{text}' for text"
    )


def _tag(node: yaml.Node) -> str:
    return "'" + str(node.tag).replace("tag:yaml.org,2002:", "!!") + "'"


def _mark(node: yaml.Node) -> Mark:
    style = getattr(node, "style", None)
    return Mark(node.start_mark.line + 1, node.start_mark.column + 1, style, node.end_mark.line + 1)


class _Builder:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.nodes = 0
        self.problems: list[Problem] = []

    def fail(self, node: yaml.Node, message: str, code: str) -> None:
        m = _mark(node)
        self.problems.append(Problem(self.doc.path, m.line, m.column, message, code))

    def value(self, node: yaml.Node, path: Path, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            if self.nodes == MAX_NODES + 1:
                self.fail(node, f"more than {MAX_NODES} values (alias expansion?)", "CK005")
            return None
        if depth > MAX_DEPTH:
            self.fail(node, f"nesting deeper than {MAX_DEPTH} levels", "CK005")
            return None
        self.doc.marks[path] = _mark(node)
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path, depth)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ:
                self.fail(node, f"unsupported YAML tag {_tag(node)}", "CK004")
                return None
            return [self.value(item, (*path, i), depth + 1) for i, item in enumerate(node.value)]
        return self.scalar(node)

    def scalar(self, node: yaml.Node) -> Any:
        """A scalar's value by the YAML 1.2 core schema, whether its tag was resolved or written."""
        tag, text = node.tag, node.value
        if tag == _STR or tag == _TIMESTAMP:  # a date such as 2024-01-01 is read as text
            return text
        if tag == _INT:
            return self.integer(node, text)
        if tag == _FLOAT and (number := _fraction(text)) is not None:
            return number
        if tag == _BOOL and text in _BOOLS:
            return _BOOLS[text]
        if tag == _NULL and text in _NULLS:
            return None
        if tag in _SCALAR_TAGS:  # written with a tag, e.g. !!bool yes
            self.fail(node, f"cannot read {shown(text)} as {_TAG_NEEDS[tag]}", "CK004")
        else:
            self.fail(node, f"unsupported YAML tag {_tag(node)}", "CK004")
        return None

    def integer(self, node: yaml.Node, text: str) -> int | None:
        if not _INT_TEXT.fullmatch(text):
            self.fail(node, f"cannot read {shown(text)} as {_TAG_NEEDS[_INT]}", "CK004")
            return None
        if _LEADING_ZERO.match(text):
            # YAML 1.1 reads 010 as octal 8, YAML 1.2 as 10: refuse rather than pick one
            self.fail(node, _leading_zero(text), "CK004")
            return None
        try:
            return int(text)
        except ValueError:  # past Python's limit on digits
            self.fail(node, "a number has too many digits", "CK005")
            return None

    def mapping(self, node: yaml.MappingNode, path: Path, depth: int) -> dict[str, Any]:
        if node.tag != _MAP:
            self.fail(node, f"unsupported YAML tag {_tag(node)}", "CK004")
            return {}
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                self.fail(key_node, "merge keys ('<<') are not supported", "CK004")
                continue
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag not in _SCALAR_TAGS:
                self.fail(key_node, "keys must be plain text", "CK004")
                continue
            key = str(key_node.value)
            child = (*path, key)
            if key in out:
                first = self.doc.key_marks[child]
                self.fail(key_node, f"duplicate key '{key}' (first at line {first.line})", "CK003")
                continue
            self.doc.key_marks[child] = _mark(key_node)
            out[key] = self.value(value_node, child, depth + 1)
        return out
