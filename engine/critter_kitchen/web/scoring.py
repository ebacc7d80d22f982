"""Records sent to the score pad, read and scored as ``critter-kitchen score`` reads and scores files.

A request body is untrusted input: it goes through the engine's own readers (the size limit,
UTF-8, duplicate keys, nesting, the record's every rule), and its problems are the messages
``score`` gives, located by line and column and by record path. The result is the very
JSON text ``score --format json`` prints for the same record.
"""

from __future__ import annotations

import threading

from ..errors import EvaluationError, InputError, Problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ..loading.yamlpos import Document
    from ..model.ruleset import Ruleset

SOURCE = "record"  # how messages name a record sent in a request


class Rulesets:
    """The rulesets of a server, loaded once each: the base pack, the packs a record names,
    then the server's ``--pack`` packs. Calling it with pack ids gives that ruleset.

    Loading runs under a lock: the pack loader is not meant to run twice at once, and a
    ruleset once loaded is only read.
    """

    def __init__(self, packs: Sequence[str] = ()) -> None:
        from ..loading.discovery import pack_folders

        self.server_folders = pack_folders(list(packs))  # a wrong --pack fails at start
        self.loaded: dict[tuple[str, ...], Ruleset] = {}
        self.lock = threading.Lock()

    def __call__(self, packs: Sequence[str] = (), source: str = SOURCE) -> Ruleset:
        ids = tuple(packs)
        found = self.loaded.get(ids)
        if found is not None:
            return found
        with self.lock:
            if ids not in self.loaded:
                from ..loading.cached import load_ruleset
                from ..loading.discovery import load_order, record_pack_folders

                named = record_pack_folders(ids, source, self.server_folders) if ids else []
                self.loaded[ids] = load_ruleset(load_order(named, self.server_folders))
            return self.loaded[ids]

    def for_record(self, data: Any, source: str = SOURCE) -> Ruleset:
        """The ruleset to read ``data`` with: the packs it names (``packs: [...]``) and the server's."""
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
    try:
        result = score_game(game, source)
    except EvaluationError as e:  # a card in play cannot score this game: a problem of this record
        raise InputError([Problem(source, 0, 0, str(e), "CK301")]) from e
    # `score --format json` prints exactly this text (and a line end) for one record
    return Scored(data, json_text(result_json(result), indent=2) + "\n")


def messages(error: InputError) -> list[str]:
    """An error's problems as ``score --format json`` gives them for a record of a batch."""
    return [p.format() for p in error.problems]
