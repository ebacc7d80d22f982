"""Schemas that packs ship: read within bounds, confined to their pack, run in bounded time.

A card kind's schema file is a stranger's program for jsonschema. Left alone, its
``$ref`` could read any file on the machine or make a web request, its regular
expressions could backtrack for hours and its references could loop without end. A
pack's schema is held here to:

- reading: the size, nesting and value limits of YAML files (``yamlpos``);
- references: only to itself and to ``.json`` files inside its pack folder (CK105). No
  reference is fetched from the network, and not even jsonschema's bundled metaschemas
  are reachable (through them, a ``$dynamicRef`` could hand a pack's subschema to a
  validator with Python's own regular expressions);
- regular expressions: RE2, whose matching time is linear in the text; a pattern RE2
  cannot compile (backreferences, lookaround) is refused (CK106);
- checking: a budget of steps for each checked value, no endless self-reference (CK106),
  and 'uniqueItems' by hashing (jsonschema compares every pair of mappings: hours for a
  long list);
- ``$schema``: draft 2020-12 only, and only at the top of a file (jsonschema switches to
  the stock validator class of whatever ``$schema`` a subschema names).
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path as FsPath
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from ..errors import InputError, Problem
from . import yamlpos
from .files import parse_json
from .yamlpos import MAX_DEPTH, Document, Path

DIALECT = "https://json-schema.org/draft/2020-12/schema"
# jsonschema spends up to a millisecond checking each value of a schema against the
# metaschema, and up to a third of one on each step of checking a card: these bound both.
MAX_VALUES = 2_000  # values in a kind's schema, with the files it refers to (the shipped ones hold < 200)
BASE_STEPS = 5_000  # schema steps one check may take, whatever its size
STEPS_PER_VALUE = 20  # and more for each value of the checked document (a card takes about 3)
REFUSED_KEYWORDS = {
    # jsonschema evaluates the patternProperties it finds below this keyword with Python's
    # regular expressions, and re-walks subschemas for every key.
    "unevaluatedProperties": "use 'additionalProperties'",
}


class UnsafeSchema(Exception):
    """Checking a document against a pack's schema cannot go on safely (CK106)."""


def load(
    file: FsPath, pack: FsPath, shown: Callable[[FsPath], str], read: Callable[[FsPath], bytes]
) -> tuple[Any, list[Problem]]:
    """The validator of a pack's schema ``file`` (None when unusable) and every problem found in it.

    ``read`` gives a file's bytes (OSError when it is none of the pack's), so that a schema
    and the files it refers to come from the same read as the rest of the load.
    """
    loader = _Loader(pack.resolve(), shown, read)
    root = loader.read(file.resolve())
    if root is None:
        return None, loader.problems
    loader.crawl(root)
    if loader.problems:
        return None, loader.problems
    return loader.validator(root), []


def check(validator: Any, data: Any, values: int) -> list[Any]:
    """The errors of ``data`` (holding ``values`` values); UnsafeSchema if checking cannot end safely."""
    token = _BUDGET.set([BASE_STEPS + STEPS_PER_VALUE * values])
    try:
        return list(validator.iter_errors(data))
    except RecursionError:
        raise UnsafeSchema("the schema refers to itself without end") from None
    except _unresolvable() as e:
        raise UnsafeSchema(f"the schema has a reference that cannot be followed: {e}") from None
    except UnsafeSchema:
        raise
    except Exception as e:
        if not isinstance(validator, _safe_class()):
            raise  # a shipped schema: the engine's own bug, not the input's
        # The metaschema checked every schema place at load time; a JSON pointer can still
        # lead into data (a 'const', an unknown keyword) that is no schema at all.
        raise UnsafeSchema("a reference leads to a part that is not a valid schema") from e
    finally:
        _BUDGET.reset(token)


# reading one file


@dataclass
class _File:
    uri: str
    path: FsPath
    doc: Document  # for locating problems; its data is the schema as read
    contents: Any  # the schema as jsonschema sees it: no '$schema'
    base: str  # the URI its relative references resolve against when it is the root


@dataclass
class _Loader:
    root: FsPath
    shown: Callable[[FsPath], str]
    read_bytes: Callable[[FsPath], bytes]
    problems: list[Problem] = field(default_factory=list)
    files: dict[str, _File] = field(default_factory=dict)
    values: int = 0  # read so far, in all files
    prefixes: dict[str, FsPath] = field(default_factory=dict)  # URI folder -> pack folder

    def __post_init__(self) -> None:
        self.prefixes[self.root.as_uri() + "/"] = self.root

    def read(self, path: FsPath) -> _File | None:
        shown = self.shown(path)
        try:
            try:
                raw = self.read_bytes(path)
            except OSError as e:
                raise yamlpos.unreadable(shown, e) from None
            text = yamlpos.read_text(shown, raw)
            data = _parse(shown, text)
        except InputError as e:
            self.problems.extend(e.problems)
            return None
        self.values += _count(data)
        if self.values > MAX_VALUES:
            message = f"a pack schema may hold at most {MAX_VALUES} values, with the files it refers to"
            self.problems.append(Problem(shown, 1, 1, message, "CK005"))
            return None
        doc = _located(shown, text, data)
        found = [*_keyword_problems(doc), *_metaschema_problems(doc)]
        if found:
            self.problems.extend(found)
            return None
        contents = {k: v for k, v in data.items() if k != "$schema"} if isinstance(data, dict) else data
        uri = path.as_uri()
        loaded = _File(uri, path, doc, contents, _base_of(contents, uri))
        self.reached(loaded, uri)
        return loaded

    def reached(self, file: _File, uri: str) -> str:
        """Note that ``file`` is reached through ``uri``; the base URI of its references from there."""
        base = _base_of(file.contents, uri)
        for known in (uri, base):
            self.files.setdefault(known, file)
            if _folder_uri(known):  # 'urn:x' has no folder: it names no file
                self.prefixes.setdefault(_folder_uri(known), file.path.parent)
        return base

    def crawl(self, start: _File) -> None:
        """Follow every reference from ``start``, reading the pack files they name, refusing others.

        A file's relative references resolve against the URI it was reached through (as
        jsonschema will resolve them), so a file is visited once for each such base URI.
        """
        todo = [(start, start.base)]
        seen = {(start.path, start.base)}
        visits = []
        while todo:
            file, base = todo.pop()
            visits.append((file, base))
            for path, ref, ref_base in _references(file.contents, (), base):
                uri = urldefrag(urljoin(ref_base, ref)).url
                target = self.follow(file, path, ref, uri)
                if target is None:
                    continue
                child = self.reached(target, uri)
                if (target.path, child) not in seen:
                    seen.add((target.path, child))
                    todo.append((target, child))
        registry = self.registry().crawl()
        for file, base in visits:
            for path, ref, ref_base in _references(file.contents, (), base):
                if urldefrag(urljoin(ref_base, ref)).url in self.files:  # the others are reported
                    self.resolve(registry, file, path, ref, ref_base)

    def follow(self, file: _File, path: Path, ref: str, uri: str) -> _File | None:
        """The file ``uri`` names (read now if new), or None with a problem if it leads nowhere allowed."""
        if uri in self.files:
            return self.files[uri]
        target = self.pack_file(uri)
        if target is None:
            self.add(file, path, f"'{path[-1]}' leads outside the pack: {_short(ref)}", "CK105")
            return None
        if not target.is_file():
            self.add(file, path, f"'{path[-1]}' names no schema file of the pack: {_short(ref)}", "CK104")
            return None
        return self.files.get(target.as_uri()) or self.read(target)

    def resolve(self, registry: Any, file: _File, path: Path, ref: str, base: str) -> None:
        """A problem if ``ref`` names a part of a schema that is not there."""
        from referencing.exceptions import Unresolvable

        try:
            registry.resolver(base_uri=base).lookup(ref)
        except Unresolvable:
            self.add(file, path, f"'{path[-1]}' names no part of the schema: {_short(ref)}", "CK104")

    def pack_file(self, uri: str) -> FsPath | None:
        """The file inside the pack that ``uri`` names, if it names one."""
        known = sorted(self.prefixes.items(), key=lambda p: len(p[0]), reverse=True)
        match = next(((prefix, folder) for prefix, folder in known if uri.startswith(prefix)), None)
        if match is None:
            return None
        prefix, folder = match
        relative = unquote(uri[len(prefix) :])
        if not relative.endswith(".json") or "?" in relative or "\x00" in relative:
            return None
        candidate = (folder / relative).resolve()  # follows symlinks and '..' before the check
        return candidate if candidate.is_relative_to(self.root) else None

    def add(self, file: _File, path: Path, message: str, code: str) -> None:
        self.problems.append(file.doc.problem(path, message, code))

    def registry(self) -> Any:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        resources = [(uri, Resource.from_contents(f.contents, DRAFT202012)) for uri, f in self.files.items()]
        return Registry(retrieve=_refuse).with_resources(resources)  # type: ignore[call-arg]

    def validator(self, root: _File) -> Any:
        from referencing import Resource
        from referencing.jsonschema import DRAFT202012

        resolver = self.registry().resolver(base_uri=root.uri)
        resolver = resolver.in_subresource(Resource.from_contents(root.contents, DRAFT202012))
        # The resolver is given, not built: jsonschema would add its bundled metaschemas to it.
        return _safe_class()(root.contents, _resolver=resolver)


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(uri)


def _unresolvable() -> type[Exception]:
    from referencing.exceptions import Unresolvable

    return Unresolvable


def _base_of(contents: Any, uri: str) -> str:
    """The base URI of a schema's references when it is reached through ``uri``: its '$id' counts."""
    if isinstance(contents, dict) and isinstance(contents.get("$id"), str):
        return str(urldefrag(urljoin(uri, contents["$id"])).url)
    return uri


def _folder_uri(uri: str) -> str:
    return uri[: uri.rfind("/") + 1]


def _parse(shown: str, text: str) -> Any:
    """JSON text to data, refusing nesting deeper than YAML files may have."""
    deep = _too_deep(text)
    if deep is not None:
        line = text.count("\n", 0, deep) + 1
        column = deep - (text.rfind("\n", 0, deep) + 1) + 1
        raise InputError([Problem(shown, line, column, f"nesting deeper than {MAX_DEPTH} levels", "CK005")])
    try:
        return parse_json(shown, text)
    except InputError as e:
        if any(p.code == "CK003" for p in e.problems):
            yamlpos.parse(shown, text)  # the YAML reader says where the duplicate key is
        raise


def _too_deep(text: str) -> int | None:
    """The offset of the first bracket that opens past MAX_DEPTH levels, if any (checked before parsing)."""
    depth, in_string, escaped = 0, False, False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return i
        elif ch in "]}":
            depth -= 1
    return None


def _count(data: Any) -> int:
    count, todo = 0, [data]
    while todo:
        value = todo.pop()
        count += 1
        if isinstance(value, dict):
            todo.extend(value.values())
        elif isinstance(value, list):
            todo.extend(value)
    return count


def _located(shown: str, text: str, data: Any) -> Document:
    """A document of ``data`` with the place of each value, when the YAML reader can find them."""
    try:
        doc = yamlpos.parse(shown, text)
    except InputError:
        doc = Document(shown, text, data)
    doc.data = data
    return doc


def _keyword_problems(doc: Document) -> list[Problem]:
    found = []
    for path, value in _mappings(doc.data, ()):
        if "$schema" in value:
            if path:
                found.append(
                    doc.problem(
                        (*path, "$schema"), "'$schema' belongs only at the top of a schema file", "CK104", at_key=True
                    )
                )
            elif value["$schema"] != DIALECT:
                message = f"only JSON Schema draft 2020-12 is supported: '$schema' must be '{DIALECT}'"
                found.append(doc.problem(("$schema",), message, "CK104"))
        for keyword, instead in REFUSED_KEYWORDS.items():
            if keyword in value:
                message = f"'{keyword}' is not supported in pack schemas; {instead}"
                found.append(doc.problem((*path, keyword), message, "CK106", at_key=True))
    return found


def _mappings(value: Any, path: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    # Every mapping, not only those in schema places: a JSON pointer can make any of them a schema.
    if isinstance(value, dict):
        yield path, value
        for k, v in value.items():
            yield from _mappings(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _mappings(v, (*path, i))


def _references(value: Any, path: Path, base: str) -> Iterator[tuple[Path, str, str]]:
    """(place, reference, base URI) of every '$ref' and '$dynamicRef' below ``value``."""
    if isinstance(value, dict):
        if path and isinstance(value.get("$id"), str):
            base = urldefrag(urljoin(base, value["$id"])).url
        for keyword in ("$ref", "$dynamicRef"):
            if isinstance(value.get(keyword), str):
                yield (*path, keyword), value[keyword], base
        for k, v in value.items():
            yield from _references(v, (*path, k), base)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _references(v, (*path, i), base)


def _metaschema_problems(doc: Document) -> list[Problem]:
    from jsonschema.exceptions import best_match

    out = []
    for error in _metaschema().iter_errors(doc.data):
        best = best_match([error])
        path: Path = tuple(best.absolute_path)
        label = ".".join(map(str, path)) or "the schema"
        if best.validator == "format" and best.validator_value == "regex":
            # A key of 'patternProperties' is checked through 'propertyNames': point at the key.
            is_key = isinstance(_path_get(doc.data, path), dict)
            where = (*path, best.instance) if is_key else path
            message = f"unsupported regular expression {_short(best.instance)}: {_regex_error(best.instance)}"
            out.append(doc.problem(where, message, "CK106", at_key=is_key))
        else:
            out.append(doc.problem(path, f"not a valid JSON Schema: {label}: {best.message}", "CK104"))
    return sorted(out)


def _path_get(data: Any, path: Path) -> Any:
    for part in path:
        data = data[part]
    return data


@cache
def _metaschema() -> Any:
    from jsonschema import Draft202012Validator, FormatChecker

    formats = FormatChecker(formats=())
    formats.checks("regex", raises=ValueError)(_compiles)
    return Draft202012Validator(Draft202012Validator.META_SCHEMA, format_checker=formats)


# regular expressions


def _compiles(pattern: object) -> bool:
    if isinstance(pattern, str):
        _regex(pattern)
    return True


@lru_cache(maxsize=1024)
def _regex(pattern: str) -> Any:
    """``pattern`` compiled by RE2 (linear-time matching); ValueError if RE2 cannot compile it."""
    import re2  # type: ignore[import-untyped]

    options = re2.Options()
    options.log_errors = False  # RE2 would print its complaint on standard error
    try:
        return re2.compile(pattern, options=options)
    except re2.error as e:
        raise ValueError(_re2_message(e)) from None


def _re2_message(error: Exception) -> str:
    reason = error.args[0] if error.args else error
    text = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
    return text + " (pack schemas use RE2 syntax: no backreferences or lookaround)"


def _regex_error(pattern: object) -> str:
    try:
        _regex(str(pattern))
    except ValueError as e:
        return str(e)
    return "not text"


def matches_any(patterns: list[str], text: str) -> bool:
    """Whether one of the 'patternProperties' keys of a schema whose check has run matches ``text``."""
    import re

    for pattern in patterns:
        try:
            compiled = _regex(pattern)
        except ValueError:
            # Only a shipped schema gets here: a pack's check stops at a pattern RE2 cannot compile.
            compiled = re.compile(pattern)
        if compiled.search(text):
            return True
    return False


def _search(pattern: object, text: str) -> bool:
    if not isinstance(pattern, str):
        raise UnsafeSchema(f"a pattern is not text: {_short(pattern)}")
    try:
        return _regex(pattern).search(text) is not None
    except ValueError as e:
        raise UnsafeSchema(f"unsupported regular expression {_short(pattern)}: {e}") from None


# the validator class


_BUDGET: contextvars.ContextVar[list[int]] = contextvars.ContextVar("schema_steps")  # steps left, per check


def _spend() -> None:
    left = _BUDGET.get(None)
    if left is None:
        return
    left[0] -= 1
    if left[0] < 0:
        raise UnsafeSchema("checking takes too many steps (does the schema fan out through its references?)")


def _counted(keyword: Callable[..., Any]) -> Callable[..., Any]:
    def run(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        _spend()
        return keyword(validator, value, instance, schema)

    return run


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    known = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extras = [k for k in instance if k not in known and not any(_search(p, k) for p in patterns)]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        listed = ", ".join(repr(k) for k in sorted(extras))
        yield ValidationError(f"Additional properties are not allowed ({listed} were unexpected)")


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    # jsonschema compares every pair of items that cannot be sorted (mappings): hours for a long list.
    from jsonschema.exceptions import ValidationError

    if unique and validator.is_type(instance, "array"):
        seen = set()
        for item in instance:
            key = _canonical(item)
            if key in seen:
                yield ValidationError(f"{instance!r} has non-unique elements")
                return
            seen.add(key)


def _canonical(value: Any) -> Any:
    """A hashable form of a JSON value, equal for values JSON Schema calls equal (1 and 1.0; not true and 1)."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, _canonical(v)) for k, v in value.items()))
    return ("other", value)


@cache
def _safe_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    keywords = dict(Draft202012Validator.VALIDATORS)
    keywords.update(
        pattern=_pattern,
        patternProperties=_pattern_properties,
        additionalProperties=_additional_properties,
        uniqueItems=_unique_items,
    )
    counted = {name: _counted(fn) for name, fn in keywords.items()}
    return validators.extend(Draft202012Validator, counted)  # type: ignore[no-untyped-call]


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 100 else text[:97] + "..."
