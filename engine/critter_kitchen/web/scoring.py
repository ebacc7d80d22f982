"""Records sent to the score pad, read and scored as ``critter-kitchen score`` reads and scores files.

A request body is untrusted input: it goes through the engine's own readers (the size limit,
UTF-8, duplicate keys, nesting, the record's every rule), and its problems are the messages
``score`` gives, located by line and column and by record path. The result is the very
JSON text ``score --format json`` prints for the same record.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import threading
from collections import OrderedDict

from ..errors import EvaluationError, InputError, Problem
from .limits import RULESETS_BYTES, RULESETS_KEPT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

    from ..loading.yamlpos import Document
    from ..model.ruleset import Ruleset

SOURCE = "record"  # how messages name a record sent in a request


class Rulesets:
    """The rulesets of a server: the base pack, the packs a record names, then the server's
    ``--pack`` packs. Calling it with pack ids gives that ruleset.

    Pack ids name the same ruleset whatever their order of mention, repetition or the base
    pack among them: a ruleset is kept under the folders it loads, in load order. At most
    :data:`~.limits.RULESETS_KEPT` are kept, of at most :data:`~.limits.RULESETS_BYTES`
    together (each measured by its pickled size once loaded); the least recently used goes
    first. Loading runs under a lock: the pack loader is not meant to run twice at once,
    and a ruleset once loaded is only read.
    """

    def __init__(self, packs: Sequence[str] = (), kept: int = RULESETS_KEPT, size: int = RULESETS_BYTES) -> None:
        from ..loading.discovery import pack_folders

        self.server_folders = pack_folders(list(packs))  # a wrong --pack fails at start
        self.kept, self.size = kept, size
        self.loaded: OrderedDict[tuple[str, ...], tuple[Ruleset, int]] = OrderedDict()
        self.lock = threading.Lock()  # held while loading
        self.using = threading.Lock()  # held while ``loaded`` changes

    def __call__(self, packs: Sequence[str] = (), source: str = SOURCE) -> Ruleset:
        from ..loading.discovery import load_order, record_pack_folders

        named = record_pack_folders(tuple(dict.fromkeys(packs)), source, self.server_folders) if packs else []
        folders = load_order(named, self.server_folders)
        key = tuple(os.path.realpath(f) for f in folders)
        found = self._get(key)
        if found is not None:
            return found
        with self.lock:
            found = self._get(key)
            if found is None:
                from ..loading.cached import load_ruleset

                found = load_ruleset(folders)
                self._keep(key, found, len(pickle.dumps(found, pickle.HIGHEST_PROTOCOL)))
            return found

    def _get(self, key: tuple[str, ...]) -> Ruleset | None:
        with self.using:
            entry = self.loaded.get(key)
            if entry is None:
                return None
            self.loaded.move_to_end(key)
            return entry[0]

    def _keep(self, key: tuple[str, ...], ruleset: Ruleset, size: int) -> None:
        with self.using:
            self.loaded[key] = (ruleset, size)
            while len(self.loaded) > 1 and (
                len(self.loaded) > self.kept or sum(n for _, n in self.loaded.values()) > self.size
            ):
                self.loaded.popitem(last=False)

    def held(self) -> tuple[int, int]:
        """How many rulesets are kept, and their pickled size together."""
        with self.using:
            return len(self.loaded), sum(n for _, n in self.loaded.values())

    def for_record(self, data: Any, source: str = SOURCE) -> Ruleset:
        """The ruleset to read ``data`` with: the packs it names (``packs: [...]``) and the server's;
        InputError if its ``packs`` is malformed (not a list of ids, more than a record may name)."""
        from ..loading.records import record_packs

        return self(record_packs(data, source), source)


class Scored:
    """A record that was read and scored: its data and the engine's JSON text of the result."""

    __slots__ = ("data", "result_text")

    def __init__(self, data: Any, result_text: str) -> None:
        self.data = data
        self.result_text = result_text


def is_yaml(content_type: str) -> bool:
    """Whether a body of this media type is YAML (anything else is read as JSON)."""
    return "yaml" in content_type.split(";", 1)[0].lower()


def parse_body(raw: bytes, content_type: str = "application/json", source: str = SOURCE) -> Document:
    """A request body as a document (its data, and the places of its values); InputError if unreadable."""
    from ..loading.files import JsonDocument, parse_json
    from ..loading.yamlpos import parse, read_text

    text = read_text(source, raw)
    if is_yaml(content_type):
        return parse(source, text)
    return JsonDocument(source, text, parse_json(source, text))


def score_body(rulesets: Rulesets, raw: bytes, content_type: str = "application/json") -> Scored:
    """Read and score one request body; InputError with every problem of a record that is not a legal game."""
    document = parse_body(raw, content_type)
    return score_data(rulesets, document.data, document)


def score_data(rulesets: Rulesets, data: Any, document: Document | None = None, source: str = SOURCE) -> Scored:
    """Score a parsed record as ``score`` does; InputError if it is not a legal game."""
    from ..loading.records import read_record
    from ..report.json import json_text, result_json
    from ..stages.runner import score_game

    game = read_record(rulesets.for_record(data, source), data, source, document)
    with effects_as_problems(source):
        result = score_game(game, source)
    # `score --format json` prints exactly this text (and a line end) for one record
    return Scored(data, json_text(result_json(result), indent=2) + "\n")


@contextlib.contextmanager
def effects_as_problems(source: str) -> Iterator[None]:
    """A card effect that fails (over its budget, a division by zero) while scoring or
    planning for one request: InputError, a problem of what was sent, as ``score`` reports it."""
    try:
        yield
    except EvaluationError as e:
        raise InputError([Problem(source, 0, 0, str(e), "CK301")]) from e


def messages(error: InputError) -> list[str]:
    """An error's problems as ``score --format json`` gives them for a record of a batch."""
    return [p.format() for p in error.problems]
