"""The engine's Python interface: load packs once, score many records."""

from __future__ import annotations

import os

from .loading.cached import load_ruleset
from .loading.records import read_record
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

    Raises :class:`~critter_kitchen.errors.InputError` listing every problem of an
    invalid record; nothing is scored then.
    """
    rules = ruleset if ruleset is not None else load_ruleset(packs)
    return score_game(read_record(rules, record, source), source)
