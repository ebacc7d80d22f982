"""What the planner remembers stays within its caps, whatever the pantries planned (plan/work.py).

A pantry at the balance lab's limits (about 100 items) made each table keep up to 200,000
verdicts of check_meal, 256 such tables a thread, and an exact critic plan remember millions of
partial meals: one simulated game held 755 MiB, one critic plan 900 MiB. These tests plan such
pantries with a smaller work budget (to stay quick) and count the entries kept.
"""

from __future__ import annotations

import random

from critter_kitchen.plan import exact, question
from critter_kitchen.plan.critic_exact import ExactCriticSearch
from critter_kitchen.plan.critic_search import NODE_LIMIT, finish
from critter_kitchen.plan.search import plan_round
from critter_kitchen.plan.work import (
    CHECKS_KEPT,
    LEGAL_KEPT,
    PLANS_KEPT,
    SEARCHED_KEPT,
    SINGLE_KEPT,
    TABLE_MEMORY_KEPT,
)

KINDS = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]
ROUND3 = ["harbor-stew", "forest-risotto", "farmhouse-pie"]
# Restaurateurs whose stars do not add up over meals: every plan is scored whole, each meal checked
TABLES = ["harbor-master", "spice-merchant", "the-collector"]


def large(restaurateur: str) -> dict:
    """95 ingredients of every type, valued 2 to 5, and a few spices: as a lab player at the limits holds."""
    ingredients = [{"type": KINDS[i % 7], "value": 2 + i % 4} for i in range(95)]
    return {
        "for": "round3",
        "cards": {"challenges": {"round3": ROUND3}},
        "player": {"name": "Ana", "restaurateur": restaurateur},
        "pantry": {"ingredients": ingredients, "spices": ["fish", "allspice", "carrot", "bread"], "soup": 1},
    }


def test_the_tables_memories_stay_within_their_caps(base):
    """Each table's memories hold at most their caps of entries; the tables not in use, at most
    TABLE_MEMORY_KEPT entries times the items of their largest pantry, in all."""
    exact.CONTEXTS.clear()
    for restaurateur in TABLES:
        asked = question(large(restaurateur), base)
        items = len(asked.ingredients) + len(asked.spices)
        plan = plan_round(asked, budget=2_000_000)
        assert not plan.optimal  # the budget ended it: tens of thousands of meals were judged
        for table in exact.CONTEXTS.values():
            assert len(table.checks) <= CHECKS_KEPT
            assert len(table.legal) <= LEGAL_KEPT
            assert len(table.single) <= SINGLE_KEPT
            assert len(table.scorer.cache) <= PLANS_KEPT
        *resting, _ = exact.CONTEXTS.values()  # the last is the table in use
        kept = sum(len(t.checks) + len(t.legal) + len(t.single) + len(t.scorer.cache) for t in resting)
        assert kept * (1 + items) <= TABLE_MEMORY_KEPT
    exact.CONTEXTS.clear()


def test_an_exact_critic_plan_remembers_at_most_its_cap_of_partial_meals(base):
    """90 spices and 10 ingredients: the exact critic search met 2.5 million partial meals (900 MiB)."""
    rng = random.Random(100)
    kinds = list(base.base_params()["course_types"])
    data = {
        "for": "critic",
        "cards": {"critic": "baron-pepperpot", "rumors": ["bisque-lover", "cheese-fanatic", "fashionably-late"]},
        "player": {"name": "Ana"},
        "pantry": {
            "ingredients": [{"type": rng.choice(kinds), "value": rng.randint(1, 60)} for _ in range(10)],
            "spices": [rng.choice([*kinds, "allspice"]) for _ in range(90)],
            "soup": 5,
            "bisque": 5,
        },
    }
    search = ExactCriticSearch(question(data, base), NODE_LIMIT, 2_500_000)
    seen = 0
    walk = search.walk

    def counting(*args: object) -> None:
        nonlocal seen
        seen = max(seen, len(search.searched))
        walk(*args)  # type: ignore[arg-type]

    search.walk = counting  # type: ignore[method-assign]
    plan = finish(search, None)
    assert search.work.steps >= 2_500_000 and not plan.optimal  # the budget ended it
    assert 0 < seen <= SEARCHED_KEPT
