"""Game record files: YAML or JSON, held to the same limits."""

from __future__ import annotations

from ..errors import InputError, Problem
from ..values import WrittenFloat
from .yamlpos import read_document, read_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def load_data(path: str, shown: str) -> Any:
    """A record file's data: JSON files through the JSON reader, anything else as YAML."""
    if path.endswith(".json"):
        return parse_json(shown, read_file(path, shown))
    return read_document(path, shown).data


def parse_json(source: str, text: str) -> Any:
    """JSON text to data: duplicate keys and oversized numbers are refused, as in YAML.

    Deep nesting needs no limit of its own here: the reader walks only the record's known
    shape, and nesting past the interpreter's limit is caught below.
    """
    import json  # JSON records only

    try:
        # fractions (and the NaN and Infinity json accepts) keep their text for messages
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_float=WrittenFloat, parse_constant=WrittenFloat)
    except json.JSONDecodeError as e:
        raise InputError([Problem(source, e.lineno, e.colno, f"JSON syntax error: {e.msg}", "CK002")]) from None
    except _DuplicateKey as e:
        raise InputError([Problem(source, 0, 0, f"duplicate key '{e.key}'", "CK003")]) from None
    except ValueError:  # an integer past Python's digit limit
        raise InputError([Problem(source, 0, 0, "a number has too many digits", "CK005")]) from None
    except RecursionError:
        raise InputError([Problem(source, 1, 1, "nesting is too deep", "CK005")]) from None


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
