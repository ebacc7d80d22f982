"""The planner's games of one table share their player and what the stages run (made by the first
game): each game starts its player afresh, so a plan scored after many others gets the stars,
the critic quality and the work it gets from a new scorer that scores nothing else."""

from __future__ import annotations

import itertools
import random

import pytest
from test_plan import random_critic_pantry
from test_plan_fast_cost import asked, pantry

from critter_kitchen.plan.critic_search import CriticSearch
from critter_kitchen.plan.listing import CardMeals
from critter_kitchen.plan.pareto import Items
from critter_kitchen.plan.plans import tally
from critter_kitchen.plan.scorer import Scorer
from critter_kitchen.plan.work import PLAN_BUDGET


def some_plans(one, rng: random.Random, count: int) -> list[tuple]:
    """Up to ``count`` random plans of the round: one listed meal or none for each card."""
    scorer = Scorer(one)
    meals = CardMeals(one, Items(one), scorer.params, [60], {})
    each = []
    for i, card in enumerate(one.challenges):
        meals.budget[0] = 60
        each.append([None, *(m for m, _ in meals.options(card, i == len(one.challenges) - 1))])
    plans = [tuple(m for m in chosen if m is not None) for chosen in itertools.product(*each)]
    return rng.sample(plans, min(count, len(plans)))


@pytest.mark.parametrize("fixture", ["base", "alc"])
def test_a_scorer_scores_each_plan_as_a_new_one_would(fixture, request):
    ruleset = request.getfixturevalue(fixture)
    rng = random.Random(53)
    scored = 0
    for n in range(40):
        one = asked(pantry(rng, ruleset, rng.randint(3, 9), True), ruleset)
        shared = Scorer(one)
        for plan in some_plans(one, rng, 12):
            assert shared.run(plan) == Scorer(one).run(plan), n
            scored += 1
    assert scored > 200


@pytest.mark.parametrize("fixture", ["base", "alc"])
def test_a_critic_search_scores_each_meal_as_a_new_one_would(fixture, request):
    ruleset = request.getfixturevalue(fixture)
    packs = ["a-la-carte"] if fixture == "alc" else []
    rng = random.Random(59)
    scored = 0
    for n in range(40):
        one = asked(random_critic_pantry(rng, ruleset, packs), ruleset)
        shared = CriticSearch(one, 1, PLAN_BUDGET)
        ingredients, spices = tally(one.ingredients), tally(one.spices)
        choices = [
            [
                None,
                *(course for course, _, _ in shared.choices(kind, ingredients, spices, dict(one.tokens))),
            ]
            for kind in shared.params["course_types"]
        ]
        for _ in range(10):
            courses = {c.type: c for c in (rng.choice(options) for options in choices) if c is not None}
            tokens = {name: rng.randint(0, n) for name, n in one.tokens.items()}
            assert shared.outcome(courses, tokens) == CriticSearch(one, 1, PLAN_BUDGET).outcome(courses, tokens), n
            scored += 1
    assert scored == 400
