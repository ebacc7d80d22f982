"""The exact planner's listing by steps: the facts of the meal rules it rests on hold for the engine,
its proof that stars rise with quality is right, and its plans equal the exhaustive search's."""

from __future__ import annotations

import random

import pytest
from test_plan_fast import (
    RESTAURATEURS,
    TEST_RESTAURATEURS,
    TEST_RUMORS,
    engine_stars,
    listed_kinds,
    order,
    random_pantry,
)

from critter_kitchen import Ingredient, check_meal, rule_parameters
from critter_kitchen.dsl.parser import parse_program
from critter_kitchen.model.ruleset import WILD_SLOT
from critter_kitchen.plan import bands, question
from critter_kitchen.plan.exact import FastSearch, context
from critter_kitchen.plan.exhaustive import plan_round_exhaustive
from critter_kitchen.plan.meal_facts import capped_quality, check_spices, ingredient_quality, meal_types, token_quality
from critter_kitchen.plan.plans import PlannedMeal
from critter_kitchen.plan.programs import program_of, programs
from critter_kitchen.plan.reads import quality_only, separable, stars_rise_with_quality
from critter_kitchen.plan.search import plan_round


def random_meal(rng: random.Random, ruleset, params: dict) -> tuple:
    """A challenge card, whether the Hold token is on it, and a random meal for it (any types, spices, tokens)."""
    card = rng.choice([c for c in ruleset.cards.values() if c.kind == "challenge"])
    types = list(ruleset.ingredient_types)
    near = [kind for kind in card.requires if kind != WILD_SLOT] * 2 + types
    spices = [*types, params["wild_spice"]]
    ingredients = [
        Ingredient(
            rng.choice(near), rng.randint(0, 9), tuple(rng.choice(spices) for _ in range(rng.choice((0, 0, 1, 2))))
        )
        for _ in range(rng.randint(0, 5))
    ]
    tokens = {name: rng.randint(0, 2) for name in params["token_values"]}
    return card, rng.random() < 0.5, ingredients, tokens


def meal_rule_facts(ruleset, meals: int, seed: int) -> int:
    """Check the facts the listing by steps rests on against check_meal; how many meals were legal."""
    rng = random.Random(seed)
    params = rule_parameters(ruleset)
    legal = 0
    for _ in range(meals):
        card, held, ingredients, tokens = random_meal(rng, ruleset, params)
        problems, quality = check_meal(ruleset, card, ingredients, tokens, params, held=held)
        if not problems:
            legal += 1
            parts = sum(ingredient_quality(i, params) for i in ingredients)
            parts += sum(n * token_quality(t, params) for t, n in tokens.items())
            assert quality == capped_quality(parts)
        allowed = meal_types(card, params, held=held)
        if allowed is not None and any(i.type not in allowed for i in ingredients):
            assert problems  # meal_types: a meal with another type is refused
        if any(check_spices(ruleset, i, params) for i in ingredients):
            assert problems  # check_spices: a meal with such an ingredient is refused
            continue
        # Legality depends only on the counts of each type and token: other values, other
        # allowed spicings (none here) give the same verdict.
        others = [Ingredient(i.type, rng.randint(0, 9), ()) for i in ingredients]
        rng.shuffle(others)
        again, _ = check_meal(ruleset, card, others, tokens, params, held=held)
        assert bool(again) == bool(problems), (card.id, held, ingredients, others, tokens)
    return legal


@pytest.mark.parametrize("fixture", ["base", "alc", "repeated_no_hold", "planner_cards", "slots", "slots_loose"])
def test_the_facts_of_the_meal_rules_hold_for_the_engine(fixture, request):
    legal = meal_rule_facts(request.getfixturevalue(fixture), 3000, 7)
    assert legal > 100  # the random meals are legal often enough for the quality fact to be checked


def proof(*texts: str, bands_table: list | None = None) -> tuple[bool, bool, bool]:
    trees = [program_of(parse_program(text, lambda line, column: (line, column))) for text in texts]
    params = {"challenge_bands": bands_table if bands_table is not None else [[0, 0], [6, 1], [12, 2], [21, 4]]}
    return separable(trees), quality_only(trees), stars_rise_with_quality(trees, [params])


BASE_STAGE = "for m in meals(round3):\n    award band(meal_quality(m), challenge_bands) stars to player_of(m)"


def test_stars_rise_with_quality_only_when_the_programs_say_so():
    assert proof(BASE_STAGE) == (True, True, True)
    assert proof(BASE_STAGE, bands_table=[[0, 0], [6, 2], [12, 1]]) == (True, True, False)  # a band pays less
    # band() gives 0 below every minimum: a first band below 0 would fall from 0
    assert proof(BASE_STAGE, bands_table=[[0, -1], [6, 1]]) == (True, True, False)
    rising = (
        "for m in meals(round3):\n    if meal_quality(m) >= 12 and player_of(m) == owner:\n"
        "        award 1 star to owner"
    )
    assert proof(rising) == (True, True, True)
    falling = "for m in meals(round3):\n    if meal_quality(m) < 12:\n        award 1 star to player_of(m)"
    assert proof(falling) == (True, True, False)
    exactly = "for m in meals(round3):\n    if meal_quality(m) == 7:\n        award 3 stars to player_of(m)"
    assert proof(exactly) == (True, True, False)
    otherwise = (
        "for m in meals(round3):\n    if meal_quality(m) >= 12:\n        award 1 star to player_of(m)\n"
        "    else:\n        award 2 stars to player_of(m)"
    )
    assert proof(otherwise) == (True, True, False)
    penalty = "for m in meals(round3):\n    if meal_quality(m) >= 12:\n        award -1 stars to player_of(m)"
    assert proof(penalty) == (True, True, False)
    less = "for m in meals(round3):\n    award 10 - meal_quality(m) stars to player_of(m)"
    assert proof(less) == (True, True, False)
    more = "for m in meals(round3):\n    let q = meal_quality(m)\n    award q // 10 + 1 stars to player_of(m)"
    assert proof(more) == (True, True, True)
    tokens = "for m in meals(round3):\n    award meal_tokens(m) stars to player_of(m)"
    assert proof(tokens) == (True, False, False)  # a meal seen by more than its quality: neither proof
    # a card's own bands written out
    own = "for m in meals(round3):\n    award band(meal_quality(m), [[0, 0], [6, 1], [12, 3]]) stars to player_of(m)"
    assert proof(own) == (True, True, True)
    own_falling = (
        "for m in meals(round3):\n    award band(meal_quality(m), [[0, 0], [6, 3], [12, 1]]) stars to player_of(m)"
    )
    assert proof(own_falling) == (True, True, False)


def test_the_cards_in_play_decide_whether_the_meals_are_listed_by_steps(planner_cards):
    def proved(*ids: str) -> tuple[bool, bool, bool]:
        trees = programs(planner_cards, [planner_cards.cards[i] for i in ids])
        return separable(trees), quality_only(trees), stars_rise_with_quality(trees, [planner_cards.base_params()])

    assert proved() == (True, True, True)
    assert proved("grand-caterer") == (True, True, True)  # one more star at the top band
    assert proved("lucky-seven") == (True, True, False)
    assert proved("two-bite-special")[:2] == (True, False)
    assert proved("soup-snob")[0] is False


def test_a_meal_of_a_quality_tells_the_stars_of_every_meal_of_that_quality(base):
    rng = random.Random(3)
    params = rule_parameters(base)
    checked = 0
    while checked < 40:
        card, held, ingredients, tokens = random_meal(rng, base, params)
        problems, quality = check_meal(base, card, ingredients, tokens, params, held=held)
        if problems:
            continue
        pantry = random_pantry(random.Random(checked), base)
        pantry["cards"]["challenges"]["round3"] = [
            card.id,
            *[c for c in pantry["cards"]["challenges"]["round3"] if c != card.id][:2],
        ]
        search = FastSearch(question({k: v for k, v in pantry.items() if not k.startswith("_")}, base), 1000)
        meal = PlannedMeal(card, tuple(ingredients), tokens, quality)
        assert search.stars_at(card, quality) == search.scorer.stars((meal,), search.work)
        checked += 1


def listings(monkeypatch) -> list[int]:
    """Counts the cards whose meals are listed by steps (the list grows as plans are made); every
    card's, however few its meals (by default those with few are listed plainly)."""
    monkeypatch.setattr(bands, "FEW_MEALS", 0)
    calls: list[int] = []
    listing = bands.BandMeals.listing

    def counted(self, card, held):
        calls.append(1)
        return listing(self, card, held)

    monkeypatch.setattr(bands.BandMeals, "listing", counted)
    return calls


def agree_by_steps(ruleset, seeds: range, **kinds: tuple[str, ...]) -> int:
    """Plans equal the exhaustive search's and the engine's stars; how many were listed by steps."""
    by_steps = 0
    for seed in seeds:
        pantry = random_pantry(random.Random(seed), ruleset, **kinds)
        asked = question({k: v for k, v in pantry.items() if not k.startswith("_")}, ruleset)
        by_steps += context(asked).rising
        fast, reference = plan_round(asked), plan_round_exhaustive(asked)
        assert (fast.optimal, reference.optimal) == (True, True)
        assert order(fast) == order(reference), (seed, pantry)
        assert engine_stars(pantry, fast, ruleset) == fast.stars, (seed, pantry)
    return by_steps


@pytest.mark.parametrize("fixture", ["base", "alc", "repeated_no_hold", "slots", "slots_loose"])
def test_plans_listed_by_steps_equal_the_exhaustive_search(fixture, request, monkeypatch):
    calls = listings(monkeypatch)
    ruleset = request.getfixturevalue(fixture)
    kinds = {"held": RESTAURATEURS} if fixture == "repeated_no_hold" else {}
    by_steps = agree_by_steps(ruleset, range(60_000, 60_150), **kinds)
    assert by_steps >= 50 and len(calls) >= 3 * 50


def test_plans_with_cards_for_and_against_the_steps_equal_the_exhaustive_search(planner_cards, monkeypatch):
    calls = listings(monkeypatch)
    by_steps = agree_by_steps(planner_cards, range(61_000, 61_150), held=TEST_RESTAURATEURS, rumors=TEST_RUMORS)
    assert 0 < by_steps < 150 and len(calls) >= 3 * by_steps


def test_plans_at_tables_with_meal_constraints_equal_the_exhaustive_search(constraints, monkeypatch):
    """A meal constraint may read what the listing by steps assumes legality never reads (values,
    spices, quality): the meals are then listed plainly, each judged whole, and the plans are
    the exhaustive search's (tests/packs/constraints: a rumor refusing meals above quality 20,
    the owner's no-wine and no-spice constraints)."""
    listings(monkeypatch)  # every card's meals would be listed by steps, were they not constrained
    held = ("test-teetotaller", "test-plain-cooking", "harbor-master")
    for seed in range(64_000, 64_030):
        rng = random.Random(seed)
        pantry = larger_pantry(rng, constraints, 6)
        pantry["cards"]["rumors"] = ["test-modest-portions"]
        pantry["player"] = {"name": "Ana", "restaurateur": rng.choice(held)}
        asked = question(pantry, constraints)
        fast, reference = plan_round(asked), plan_round_exhaustive(asked)
        assert (fast.optimal, reference.optimal) == (True, True)
        assert order(fast) == order(reference), (seed, pantry)


def larger_pantry(rng: random.Random, ruleset, size: int) -> dict:
    """A round-3 pantry of ``size`` items (ingredients of the cards' types, spices, soup and bisque)."""
    cards = rng.sample(sorted(c.id for c in ruleset.cards.values() if c.kind == "challenge"), 3)
    kinds = listed_kinds(ruleset, cards)
    wild = ruleset.base_params()["wild_spice"]
    items: dict = {"ingredients": [], "spices": [], "soup": 0, "bisque": 0}
    for _ in range(size):
        roll = rng.random()
        if roll < 0.7:
            items["ingredients"].append({"type": rng.choice(kinds), "value": rng.randint(1, 8)})
        elif roll < 0.85:
            items["spices"].append(rng.choice([*kinds, wild]))
        else:
            items[rng.choice(["soup", "bisque"])] += 1
    return {"for": "round3", "cards": {"challenges": {"round3": cards}}, "player": {"name": "Ana"}, "pantry": items}


@pytest.mark.parametrize("fixture", ["base", "alc"])
def test_larger_plans_listed_by_steps_equal_the_plain_listing(fixture, request, monkeypatch):
    """At 7-10 items (beyond the exhaustive search), the steps agree with listing every legal meal."""
    calls = listings(monkeypatch)
    ruleset = request.getfixturevalue(fixture)
    rng = random.Random(62_000)
    for n in range(40):
        asked = question(larger_pantry(rng, ruleset, 7 + n % 4), ruleset)
        plan = plan_round(asked)
        key, _ = FastSearch(asked, 10**7).run()  # every legal meal of each card, as before the steps
        assert plan.optimal and order(plan) == key, n
    assert len(calls) == 3 * 40


def test_cards_with_few_meals_are_listed_plainly(base, monkeypatch):
    calls: list[int] = []
    listing = bands.BandMeals.listing
    monkeypatch.setattr(
        bands.BandMeals, "listing", lambda self, card, held: calls.append(1) or listing(self, card, held)
    )
    small = question(larger_pantry(random.Random(8), base, 4), base)
    assert plan_round(small).optimal and calls == []
    large = question(larger_pantry(random.Random(8), base, 16), base)
    assert plan_round(large).optimal and calls


def test_a_cut_listing_by_steps_leaves_the_round_to_the_plain_listing(base, monkeypatch):
    calls = listings(monkeypatch)
    asked = question(larger_pantry(random.Random(5), base, 16), base)
    plan = plan_round(asked, limit=30)
    assert calls and not plan.optimal and plan.nodes <= 30  # the plain listing's count, within the limit
    assert order(plan) <= order(plan_round(asked))
