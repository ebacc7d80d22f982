"""Records sent to the score pad, read and scored as ``critter-kitchen score`` reads and scores files.

A request body is untrusted input: it goes through the engine's own readers (the size limit,
UTF-8, duplicate keys, nesting, the record's every rule), and its problems are the messages
``score`` gives, located by line and column and by record path. The result is the very
JSON text ``score --format json`` prints for the same record.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from ..errors import EvaluationError, InputError, Problem
from ..loading.resolve import Resolver
from .limits import RULESETS_BYTES, RULESETS_KEPT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

    from ..loading.yamlpos import Document
    from ..model.ruleset import Ruleset

SOURCE = "record"  # how messages name a record sent in a request


class Rulesets(Resolver):
    """The rulesets of a server: the base pack, the packs a record names, then the server's
    ``--pack`` packs (a wrong one fails at start). Calling it with pack ids gives that ruleset.

    The pack resolver's, bounded: at most :data:`~.limits.RULESETS_KEPT` rulesets are kept, of
    at most :data:`~.limits.RULESETS_BYTES` together, the least recently used going first (see
    :class:`~critter_kitchen.loading.resolve.Resolver`).
    """

    def __init__(self, packs: Sequence[str] = (), kept: int = RULESETS_KEPT, size: int = RULESETS_BYTES) -> None:
        super().__init__(list(packs), kept=kept, size=size)

    def __call__(self, packs: Sequence[str] = (), source: str = SOURCE) -> Ruleset:
        return self.ruleset(tuple(dict.fromkeys(packs)), source)

    def for_record(self, data: Any, source: str = SOURCE) -> Ruleset:
        """The ruleset to read ``data`` with: the packs it names (``packs: [...]``) and the server's;
        InputError if its ``packs`` is malformed (not a list of ids, more than a record may name)."""
        return super().for_record(data, source)


@dataclass(frozen=True, slots=True)
class Scored:
    """A record that was read and scored: its data and the engine's JSON text of the result."""

    data: Any
    result_text: str


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


def record_pack_ids(data: Any) -> list[str]:
    """The pack ids a record names, read as a record's ``packs`` are; none if they are malformed
    (for a kept game, whose record was read when it was kept)."""
    from ..loading.records import pack_ids

    packs = data.get("packs") if isinstance(data, dict) else None
    return list(pack_ids(packs, "record")[0]) if packs is not None else []
