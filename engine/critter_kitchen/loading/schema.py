"""JSON Schema checks whose problems point at the line of the offending YAML node."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path as FsPath
from typing import Any

from ..errors import Problem, did_you_mean
from .paths import schemas
from .yamlpos import Document, Path

_JSON_TYPES = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
    type(None): "null",
}
_WORDS = {
    "boolean": "true or false",
    "integer": "a whole number",
    "number": "a number",
    "string": "text",
    "array": "a list",
    "object": "a mapping",
    "null": "nothing",
}


def shipped(name: str) -> str:
    """The file of a schema that ships with the engine, e.g. ``card``."""
    return os.path.join(schemas(), f"{name}.schema.json")


@cache
def validator(file: str) -> Any:
    """The compiled validator of a schema file (raises OSError or ValueError if unusable)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    schema = json.loads(FsPath(file).read_text("utf-8"))
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as e:
        raise ValueError(f"not a valid JSON Schema: {e.message}") from None
    return Draft202012Validator(schema)


def check(doc: Document, file: str, data: Any = None, base: Path = ()) -> list[Problem]:
    """Every schema problem of ``data`` (default: the whole document), located in ``doc``."""
    target = doc.data if data is None else data
    problems = []
    for error in validator(file).iter_errors(target):
        path: Path = (*base, *error.absolute_path)
        for message, where, at_key in _explain(error, path):
            problems.append(doc.problem(where, message, "CK101", at_key=at_key))
    return sorted(problems)


def _label(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _explain(error: Any, path: Path) -> list[tuple[str, Path, bool]]:
    where = f"{_label(path)}: " if path else ""
    v = error.validator
    if v == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return [(f"{where}missing required key '{k}'", path, False) for k in missing]
    if v == "additionalProperties" and isinstance(error.instance, dict):
        known = list(error.schema.get("properties", {}))
        out = []
        for key in error.instance:
            if key not in known:
                out.append((f"unknown key '{key}'{did_you_mean(key, known)}", (*path, key), True))
        return out
    if v == "type":
        got = _WORDS.get(_JSON_TYPES.get(type(error.instance), ""), "a value")
        wanted = [error.validator_value] if isinstance(error.validator_value, str) else error.validator_value
        want = " or ".join(_WORDS.get(w, w) for w in wanted)
        how = f"; {error.schema['x-type-error']}" if "x-type-error" in error.schema else ""
        return [(f"{where}expected {want}, got {got} {_short(error.instance)}{how}", path, False)]
    if v == "enum":
        choices = ", ".join(map(str, error.validator_value))
        return [(f"{where}{_short(error.instance)} is not one of: {choices}", path, False)]
    if v in ("oneOf", "anyOf", "not") and isinstance(error.schema, dict) and "x-error" in error.schema:
        return [(f"{where}{error.schema['x-error']}", path, False)]
    if v == "pattern" and "description" in error.schema:
        return [(f"{where}{_short(error.instance)} is not valid: {error.schema['description']}", path, False)]
    if v in _LIMITS:
        return [(f"{where}{_LIMITS[v].format(error.validator_value)}", path, False)]
    if v in ("minimum", "maximum"):
        side = "at least" if v == "minimum" else "at most"
        return [(f"{where}{_short(error.instance)} is not {side} {error.validator_value}", path, False)]
    if v in ("anyOf", "oneOf") and error.context:
        best = min(error.context, key=lambda e: len(list(e.absolute_path)))
        return _explain(best, (*path, *best.relative_path))
    return [(f"{where}{error.message}", path, False)]


# Messages for size limits; jsonschema's own would repeat the whole offending value.
_LIMITS = {
    "maxLength": "longer than {} characters",
    "minLength": "shorter than {} character(s)",
    "maxItems": "more than {} items",
    "minItems": "fewer than {} item(s)",
    "maxProperties": "more than {} keys",
}


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
