"""JSON read and written by orjson where that gives exactly what the json module gives.

The json module is the reference: its reading (duplicate keys refused, fractions keeping
their text, its error messages) and its writing (``separators=(",", ":")``,
``ensure_ascii=False``). orjson is several times faster at both, but it keeps the last of
duplicate keys, reads integers past 64 bits as floats, and writes floats by rules of its
own (an infinity as ``null``; some versions ``1e16`` for ``1e+16``). So its answer is
used only where it must be the same, and anything else (an error, a doubt) goes to the
json module, which gives the answer and every message: so no message can differ.

- Read: two tests, either enough, and which is cheaper depends on the build.
  - Interpreted: orjson's data, written back by orjson, must have as many colons as the
    text (every pair has one, and a string's colons are kept, so a dropped duplicate pair
    makes one fewer; an escaped colon ``\\u003a`` would make one more, so such a text is
    not taken), and no float (orjson writes a float with a digit, then ``.`` or ``e``).
  - Compiled: a walk of the data finds only dicts, lists, strings, integers, booleans and
    None, and as many keys as the text has colons (every pair has a colon of its own, so
    a dropped duplicate, or a colon inside a string, makes them differ).
  On a batch record the walk is about 45 k instructions compiled and 280 k interpreted;
  writing back and scanning about 110 k in either.
- Write: interpreted, no float and no null in what orjson wrote (orjson writes an
  infinity as null); compiled, the same walk finds only those types (and no float). Both
  also leave to json what orjson writes and json does not (no dataclass or date).

Without orjson installed everything goes to the json module. tests/test_batch_paths_agree.py
compares both on the test records and JSON files, on generated text and values, and on a
whole batch.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

UNREAD = object()  # what read() gives when the json module must read the text


def _float_marks() -> bytes:
    """A translation that writes every digit as 0x00, ``.`` and ``e`` as 0x01, and 0x00 and 0x01
    (which orjson never writes: it escapes control characters) as a space."""
    table = bytearray(range(256))
    table[0] = table[1] = 0x20
    for digit in b"0123456789":
        table[digit] = 0
    table[ord(".")] = table[ord("e")] = 1
    return bytes(table)


_FLOAT_MARKS = _float_marks()
_orjson: Any = None  # the module once imported; False when it is not installed
_OPTIONS = 0  # orjson's options for write_line, set when it is imported

# Whether this module runs compiled (its functions then have no Python code object): the
# walk of the data is then the cheaper test (see the top of this module).
WALKED = not hasattr(_float_marks, "__code__")


def _module() -> Any:
    global _orjson, _OPTIONS
    if _orjson is None:
        try:
            import orjson
        except ImportError:
            _orjson = False
        else:
            _OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_APPEND_NEWLINE
            _orjson = orjson
    return _orjson


def _floatless(written: bytes) -> bool:
    """Whether JSON written by orjson holds no float (a string may only look like one: then False).

    orjson writes a float with a digit, then ``.`` or ``e``: translated, a 0x00 then a 0x01
    (one translation and one search, where a search for each of ``.`` and ``e`` took twice
    as long).
    """
    return b"\x00\x01" not in written.translate(_FLOAT_MARKS)


def read(text: str) -> Any:
    """``text`` read as the json module reads it (no float in it), or UNREAD."""
    orjson = _module()
    if not orjson:
        return UNREAD
    return read_walked(orjson, text) if WALKED else read_scanned(orjson, text)


def read_scanned(orjson: Any, text: str) -> Any:
    """:func:`read` by the test of orjson's own writing of the data (the interpreted build's)."""
    if "\\" in text and "\\u003" in text:  # a backslash is rare: looked for first
        return UNREAD
    try:
        data = orjson.loads(text)
        written = orjson.dumps(data)
    except (ValueError, TypeError):  # not JSON, too deep, ...: the json module says why
        return UNREAD
    if written.count(b":") != text.count(":") or not _floatless(written):
        return UNREAD
    return data


def read_walked(orjson: Any, text: str) -> Any:
    """:func:`read` by the walk of the data (the compiled build's)."""
    try:
        data = orjson.loads(text)
    except (ValueError, TypeError):  # not JSON, too deep, ...: the json module says why
        return UNREAD
    if plain_keys(data) != text.count(":"):
        return UNREAD
    return data


def write(value: Any) -> str | None:
    """``value`` as compact JSON, as the json module writes it without ASCII escapes; or None."""
    written = write_line(value)
    return None if written is None else written[:-1].decode()


def write_line(value: Any) -> bytes | None:
    """:func:`write`'s text and a newline, as UTF-8; or None."""
    orjson = _module()
    if not orjson:
        return None
    if WALKED and plain_keys(value) < 0:
        return None
    try:
        written: bytes = orjson.dumps(value, option=_OPTIONS)
    except TypeError:  # a type orjson leaves to json, a key that is not a string, an integer past 64 bits, ...
        return None
    # orjson writes an infinity or NaN as null, where json writes Infinity and NaN
    return written if WALKED or (_floatless(written) and b"null" not in written) else None


def plain_keys(value: Any) -> int:
    """How many keys ``value`` holds, if it holds only dicts, lists, strings, integers, booleans
    and None (as the json module reads JSON without a float), nested no deeper than orjson
    writes; else -1."""
    return _keys(value, 0)


_DEPTH = 253  # orjson writes no deeper nesting (and the walk recurses no deeper)


def _keys(item: object, depth: int) -> int:
    """:func:`plain_keys` of ``item``, found ``depth`` containers deep."""
    if isinstance(item, str) or item is None or type(item) is int or type(item) is bool:
        return 0
    if type(item) is dict:
        return _dict_keys(item, depth)
    if type(item) is list:
        return _list_keys(item, depth)
    return -1


def _dict_keys(value: dict[Any, Any], depth: int) -> int:
    if depth > _DEPTH:
        return -1
    found = len(value)
    for item in value.values():
        inner = _keys(item, depth + 1)
        if inner < 0:
            return -1
        found += inner
    return found


def _list_keys(value: list[Any], depth: int) -> int:
    if depth > _DEPTH:
        return -1
    found = 0
    for item in value:
        inner = _keys(item, depth + 1)
        if inner < 0:
            return -1
        found += inner
    return found
