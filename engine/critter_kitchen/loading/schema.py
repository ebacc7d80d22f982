"""JSON Schema checks whose problems point at the line of the offending YAML node."""

from __future__ import annotations

import json
import os
from functools import cache, lru_cache
from typing import Any

from ..errors import Problem, did_you_mean, shown
from ..regular import read_regular
from . import packschema, remember
from .discovery import MAX_FILE_BYTES
from .paths import schemas
from .yamlpos import Document, Path

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
    """The compiled validator of a shipped schema file (raises OSError or ValueError if unusable)."""
    return validator_of(read_regular(file, MAX_FILE_BYTES))


@lru_cache(maxsize=64)
def validator_of(raw: bytes) -> Any:
    """The compiled validator of a schema file's bytes (raises ValueError if unusable).

    Keyed by the bytes, not the file name, so that an edited schema is never checked
    with its old text.
    """
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
    try:
        schema = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise ValueError("nesting is too deep") from None
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as e:
        raise ValueError(f"not a valid JSON Schema: {e.message}") from None
    return Draft202012Validator(schema)


@cache
def engine_fields() -> Any:
    """The compiled schema of the fields the engine itself reads from any card, as the shipped schemas define them.

    A pack's own schema may allow anything; the loader still needs an id, a name and
    well-formed effects, requirements and parameters.
    """
    from jsonschema import Draft202012Validator

    card = json.loads(read_regular(shipped("card"), MAX_FILE_BYTES))
    challenge = json.loads(read_regular(shipped("challenge"), MAX_FILE_BYTES))
    fields = {
        name: card["properties"][name] for name in ("id", "name", "parameters", "constraints", "effects", "stages")
    }
    fields.update(kind={"type": "string"})
    fields.update({name: challenge["properties"][name] for name in ("requires", "different_types")})
    return Draft202012Validator({"type": "object", "properties": fields, "required": ["id", "kind", "name"]})


def shipped_names() -> list[str]:
    """The names of the schemas that ship with the engine, e.g. ``card``."""
    return sorted(name.removesuffix(".schema.json") for name in os.listdir(schemas()) if name.endswith(".schema.json"))


def check(doc: Document, file: str, data: Any = None, base: Path = ()) -> list[Problem]:
    """Every problem of ``data`` (default: the whole document) under a shipped schema, located in ``doc``."""
    return check_with(doc, validator(file), data, base)


# A whole file's problems under a schema, remembered by the file (its name and whole text)
# and the compiled schema (kept beside them, so that its id is not reused): see .remember.
_checked = remember.Store()


def check_with(doc: Document, compiled: Any, data: Any = None, base: Path = ()) -> list[Problem]:
    """Every problem of ``data`` under a compiled schema (shipped, or a pack's), located in ``doc``."""
    if data is not None or base or not remember.is_on():
        return _check_with(doc, compiled, data, base)
    key = (doc.path, doc.text, id(compiled))
    held = _checked.get(key)
    if held is None or held[0] is not compiled:
        held = (compiled, _check_with(doc, compiled, data, base))
        _checked.put(key, held)
    return list(held[1])


def _check_with(doc: Document, compiled: Any, data: Any, base: Path) -> list[Problem]:
    target = doc.data if data is None else data
    try:
        errors = packschema.check(compiled, target, len(doc.marks))
    except packschema.UnsafeSchema as e:
        return [doc.problem(base, f"cannot check this file against its schema: {e}", "CK106")]
    problems = []
    for error in errors:
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
        patterns = list(error.schema.get("patternProperties", {}))
        out = []
        for key in error.instance:
            if key not in known and not packschema.matches_any(patterns, key):
                out.append((f"unknown key '{key}'{did_you_mean(key, known)}", (*path, key), True))
        return out
    if v == "type":
        wanted = [error.validator_value] if isinstance(error.validator_value, str) else error.validator_value
        want = " or ".join(_WORDS.get(w, w) for w in wanted)
        how = f"; {error.schema['x-type-error']}" if "x-type-error" in error.schema else ""
        return [(f"{where}expected {want}, got {shown(error.instance)}{how}", path, False)]
    if v == "enum":
        choices = ", ".join(c if isinstance(c, str) else shown(c) for c in error.validator_value)
        return [(f"{where}{shown(error.instance)} is not one of: {choices}", path, False)]
    if v == "const":
        return [(f"{where}expected {shown(error.validator_value)}, got {shown(error.instance)}", path, False)]
    if v in ("oneOf", "anyOf", "not") and isinstance(error.schema, dict) and "x-error" in error.schema:
        return [(f"{where}{error.schema['x-error']}", path, False)]
    if v == "pattern" and "description" in error.schema:
        return [(f"{where}{shown(error.instance)} is not valid: {error.schema['description']}", path, False)]
    if v in _LIMITS:
        return [(f"{where}{_LIMITS[v].format(error.validator_value)}", path, False)]
    if v in ("minimum", "maximum"):
        side = "at least" if v == "minimum" else "at most"
        return [(f"{where}{shown(error.instance)} is not {side} {error.validator_value}", path, False)]
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
