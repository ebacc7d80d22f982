"""The meal planner: a player's best legal meals from their pantry, as the engine scores them.

A library first (the balance lab and the score pad call it), the ``plan`` command second.
It reads the rules of the packs and cards in play and knows no rule of its own.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ..loading.yamlpos import Document
    from ..model.ruleset import Ruleset
    from .critic import CriticPlan
    from .pantry import Question
    from .search import Plan


def pantry_ruleset(data: Any, packs: Sequence[str | os.PathLike[str]] = (), source: str = "<pantry>") -> Ruleset:
    """The rules a parsed pantry plans under: the base pack, the packs it names (ids), then ``packs``."""
    from ..loading.resolve import Resolver

    return Resolver(packs).for_record(data, source)


def question(
    data: Any,
    ruleset: Ruleset | None = None,
    *,
    packs: Sequence[str | os.PathLike[str]] = (),
    source: str = "<pantry>",
    document: Document | None = None,
) -> Question:
    """A parsed pantry read into a :class:`Question`; InputError lists every problem, located."""
    from .pantry import read_pantry

    rules = ruleset if ruleset is not None else pantry_ruleset(data, packs, source)
    return read_pantry(rules, data, source, document)


def plan(data: Any, ruleset: Ruleset | None = None, **options: Any) -> Plan | CriticPlan:
    """The best plan for a parsed pantry, a challenge round or the critic meal (see
    :func:`question` for the options)."""
    from .critic import plan_critic
    from .pantry import CRITIC
    from .search import plan_round

    asked = question(data, ruleset, **options)
    return plan_critic(asked) if asked.target == CRITIC else plan_round(asked)
