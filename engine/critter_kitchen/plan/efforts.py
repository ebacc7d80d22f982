"""One table picks the search each effort of the planner runs: for a challenge round and for the
critic meal, ``"exact"`` (proved best unless cut short) or ``"fast"`` (for simulations).

The searches sit below it and know nothing of one another's efforts; the planner's entry
points (:func:`.search.plan_round`, :func:`.critic.plan_critic`) ask it which search to run.
"""

from __future__ import annotations

from .critic_exact import ExactCriticSearch
from .critic_quick import FAST_LIMIT, QuickCriticSearch
from .exact import plan_round_fast_exact
from .plans import NODE_LIMIT, plan_order
from .quick import plan_round_quick
from .work import FAST_RESERVE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from .critic_search import CriticSearch
    from .pantry import Question
    from .plans import Plan

    Search = TypeVar("Search")

EFFORTS = ("exact", "fast")


def exact_round(question: Question, limit: int, budget: int) -> Plan:
    """The exact search's plan; cut short by its work (not by a meal limit asked for), the fast
    effort's plan from the work left when it is better (the exact search has then seen the
    smallest meals only). The exact search may spend all but ``1/FAST_RESERVE`` of the budget,
    so that the fast effort always has work left to run on."""
    plan = plan_round_fast_exact(question, limit=limit, budget=budget - budget // FAST_RESERVE)
    if not plan.optimal and plan.steps < budget and limit >= NODE_LIMIT:
        quick = plan_round_quick(question, budget=budget - plan.steps)
        quick.steps += plan.steps
        if plan_order(quick) > plan_order(plan):
            quick.optimal = False
            plan = quick
        else:
            plan.steps = quick.steps
    return plan


def fast_round(question: Question, limit: int, budget: int) -> Plan:
    """The fast effort's plan (:func:`.quick.plan_round_quick`; its meal limit is its own)."""
    return plan_round_quick(question, budget=budget)


def fast_critic(question: Question, limit: int, budget: int) -> CriticSearch:
    """The fast effort's critic search, scoring at most ``FAST_LIMIT`` meals."""
    return QuickCriticSearch(question, min(limit, FAST_LIMIT), budget)


# effort -> the search: (question, meal limit, work budget) -> the plan, or the critic search to run
ROUND_SEARCHES: dict[str, Callable[[Question, int, int], Plan]] = {"exact": exact_round, "fast": fast_round}
CRITIC_SEARCHES: dict[str, Callable[[Question, int, int], CriticSearch]] = {
    "exact": ExactCriticSearch,
    "fast": fast_critic,
}


def search_for(table: dict[str, Search], effort: str) -> Search:
    """The search ``table`` gives ``effort``; CritterError names the efforts when it gives none."""
    found = table.get(effort)
    if found is None:
        from ..errors import CritterError

        raise CritterError(f"unknown effort {effort!r}; use one of {', '.join(EFFORTS)}")
    return found
