"""The engine's Python interface: load packs once, score many records."""

from __future__ import annotations

import os

from .loading.cached import load_ruleset
from .loading.discovery import load_order, pack_folders, record_pack_folders
from .loading.records import read_record, record_packs
from .stages.runner import score_game

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .model.ruleset import Ruleset
    from .stages.runner import Result


def score_record(
    record: Any,
    ruleset: Ruleset | None = None,
    *,
    packs: Sequence[str | os.PathLike[str]] = (),
    source: str = "<record>",
) -> Result:
    """Score one parsed game record (a dict as read from YAML or JSON).

    Without a ruleset, the packs the record names (``packs: [id, ...]``) load first, then
    ``packs`` (folders, or ids of installed packs).

    Raises :class:`~critter_kitchen.errors.InputError` listing every problem of an
    invalid record; nothing is scored then.
    """
    rules = ruleset if ruleset is not None else load_ruleset(packs_for(record, packs, source))
    return score_game(read_record(rules, record, source), source)


def packs_for(record: Any, packs: Sequence[str | os.PathLike[str]], source: str = "<record>") -> list[str]:
    """The pack folders to load, on top of the base pack, to score ``record`` with ``packs`` added."""
    cli = pack_folders([os.fspath(p) for p in packs])
    return load_order(record_pack_folders(record_packs(record, source), source, cli), cli)
