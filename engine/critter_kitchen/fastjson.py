"""JSON read and written by orjson where that gives exactly what the json module gives.

The json module is the reference: its reading (duplicate keys refused, fractions keeping
their text, its error messages) and its writing (``separators=(",", ":")``,
``ensure_ascii=False``). orjson is several times faster at both, but it keeps the last of
duplicate keys, reads integers past 64 bits as floats, and writes floats by rules of its
own (an infinity as ``null``; some versions ``1e16`` for ``1e+16``). So its answer is
used only where it must be the same, and anything else (an error, a doubt) goes to the
json module, which gives the answer and every message: so no message can differ.

- Read: orjson's data, written back by orjson, must have as many colons as the text
  (every pair has one, and a string's colons are kept, so a dropped duplicate pair makes
  one fewer; an escaped colon ``\\u003a`` would make one more, so such a text is not
  taken), and no float (orjson writes a float with a digit, then ``.`` or ``e``).
- Write: no float and no null (orjson writes an infinity as null), and only what orjson
  writes as json does (no dataclass or date, which json refuses).

Without orjson installed everything goes to the json module. tests/test_batch_speed.py
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


def _module() -> Any:
    global _orjson
    if _orjson is None:
        try:
            import orjson
        except ImportError:
            _orjson = False
        else:
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
    if not orjson or ("\\" in text and "\\u003" in text):  # a backslash is rare: looked for first
        return UNREAD
    try:
        data = orjson.loads(text)
        written = orjson.dumps(data)
    except (ValueError, TypeError):  # not JSON, too deep, ...: the json module says why
        return UNREAD
    if written.count(b":") != text.count(":") or not _floatless(written):
        return UNREAD
    return data


def write(value: Any) -> str | None:
    """``value`` as compact JSON, as the json module writes it without ASCII escapes; or None."""
    orjson = _module()
    if not orjson:
        return None
    try:
        written: bytes = orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME)
    except TypeError:  # a type orjson leaves to json, a key that is not a string, an integer past 64 bits, ...
        return None
    # orjson writes an infinity or NaN as null, where json writes Infinity and NaN
    return written.decode() if _floatless(written) and b"null" not in written else None
