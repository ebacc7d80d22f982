"""Game record files: YAML or JSON, held to the same limits."""

from __future__ import annotations

from ..errors import InputError, Problem
from ..values import WrittenFloat
from .yamlpos import Document, parse, read_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Sequence
    from typing import Any

    from .yamlpos import Mark, Path


def is_record(data: Any) -> bool:
    """Whether parsed data is a game record: it has players, and no card kind.

    A record may be kept in a pack folder (a pack's example games): there it is a record,
    not a card file that lacks its fields.
    """
    return isinstance(data, dict) and "players" in data and "kind" not in data


def may_be_record(text: str) -> bool:
    """Whether YAML or JSON text may hold a game record: ``players:`` begins a line (a YAML
    key) or ``"players":`` is in it (JSON). Cheap, so that card files need not be read twice."""
    import re  # validate only

    return re.search(r"""(?m)^['"]?players['"]?[ \t]*:|"players"\s*:""", text) is not None


def load_data(path: str, shown: str) -> Any:
    """A record file's data: JSON files through the JSON reader, anything else as YAML."""
    return load_record(path, shown).data


def load_record(path: str, shown: str) -> Document:
    """A record file as a :class:`Document`, which can tell where each of its values is."""
    return _document(path, shown, read_file(path, shown))


def record_document(path: str, shown: str) -> Document | None:
    """The file as a :class:`Document` if it is a game record, else None (read once, and
    parsed only if :func:`may_be_record`); InputError if it cannot be read or parsed."""
    text = read_file(path, shown)
    if not may_be_record(text):
        return None
    document = _document(path, shown, text)
    return document if is_record(document.data) else None


def _document(path: str, shown: str, text: str) -> Document:
    if path.endswith(".json"):
        return JsonDocument(shown, text, parse_json(shown, text))
    return parse(shown, text)


class JsonDocument(Document):
    """A JSON file read by the JSON reader: the places of its values are found only when asked."""

    def places(self, wanted: Sequence[tuple[Path, bool]]) -> list[Mark]:
        from .jsonpos import json_marks  # only a JSON record with a problem needs it

        self.marks, self.key_marks = json_marks(self.text, [path for path, _ in wanted])
        return super().places(wanted)


def parse_json(source: str, text: str) -> Any:
    """JSON text to data: duplicate keys and oversized numbers are refused, as in YAML.

    Deep nesting needs no limit of its own here: the reader walks only the record's known
    shape, and nesting past the interpreter's limit is caught below.

    The duplicate check is a hook on every object (about a third of the parse's time on a
    5-player record). Counting keys instead (the text's colons against those of the parsed
    data's ``repr``) was measured too: it costs more than the hook. orjson reads most
    records in a third of the time, and :mod:`critter_kitchen.fastjson` takes its answer
    only where it is the json module's; everything else, and every error, is read here.
    """
    fastjson = _fastjson()
    data = fastjson.read(text)
    if data is fastjson.UNREAD:
        data = json_module_read(source, text)
        _refuse_lone_surrogates(source, text)  # orjson refuses half a pair itself: what it read holds none
    return data


_fastjson_module: Any = None


def _fastjson() -> Any:
    """critter_kitchen.fastjson, imported when a JSON record is first read (a JSON Lines batch
    reads one a line: an import statement there cost a microsecond a record)."""
    global _fastjson_module
    if _fastjson_module is None:
        from .. import fastjson

        _fastjson_module = fastjson
    return _fastjson_module


def json_module_read(source: str, text: str) -> Any:
    """JSON text to data by the json module: the reference reading, and every error's message."""
    import json  # JSON records only

    try:
        # fractions (and the NaN and Infinity json accepts) keep their text for messages
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_float=WrittenFloat, parse_constant=WrittenFloat)
    except json.JSONDecodeError as e:
        raise InputError([Problem(source, e.lineno, e.colno, f"JSON syntax error: {e.msg}", "CK002")]) from None
    except _DuplicateKey as e:
        raise InputError([Problem(source, 0, 0, f"duplicate key '{e.key}'", "CK003")]) from None
    except ValueError:  # an integer past Python's digit limit
        raise InputError([Problem(source, 0, 0, "a number has too many digits", "CK005")]) from None
    except RecursionError:
        raise InputError([Problem(source, 1, 1, "nesting is too deep", "CK005")]) from None
    return data


def _refuse_lone_surrogates(source: str, text: str) -> None:
    half = _lone_surrogate(text)
    if half is not None:
        line = text.count("\n", 0, half.start()) + 1
        column = half.start() - text.rfind("\n", 0, half.start())
        message = f"JSON syntax error: {half.group(0)} is half a surrogate pair, not a character"
        raise InputError([Problem(source, line, column, message, "CK002")])


def _lone_surrogate(text: str) -> re.Match[str] | None:
    """The first escape of half a UTF-16 surrogate pair that lacks its other half, if any.

    JSON allows such an escape, but the string it makes is not Unicode text: it could be
    neither printed nor written as UTF-8 (YAML refuses the same escape as a syntax error).
    """
    if "\\u" not in text:  # no escape of a character at all: the common case, and quick to see
        return None
    import re  # JSON records only; json has loaded it already

    if re.search(r"\\u[dD][89a-fA-F]", text) is None:  # the common case: no such escape at all
        return None
    high: re.Match[str] | None = None  # a high half, waiting for its low half
    # Every escape in order (an escaped backslash is one), so that a pair is told from two halves.
    for m in re.finditer(r"\\(?:u([0-9a-fA-F]{4})|.)", text, re.DOTALL):
        code = int(m.group(1), 16) if m.group(1) else 0
        is_low = 0xDC00 <= code <= 0xDFFF
        if high is not None and not (is_low and m.start() == high.end()):
            return high
        if high is None and is_low:
            return m
        high = m if high is None and 0xD800 <= code <= 0xDBFF else None
    return high


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out
