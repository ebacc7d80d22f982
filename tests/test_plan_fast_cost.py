"""The fast effort's cost per decision: its listing of each card's meals (quick.CountedMeals) lists
exactly what the plain listing (listing.CardMeals) does, in the same order and within the same
budget, while asking check_meal once per counts of each type and token rather than once per meal;
its plans are the ones the plain listing gives; and a plan whose meals check_meal does not confirm
is listed again, plainly. Costs are counted (check_meal calls, stage runs), never timed."""

from __future__ import annotations

import random

import pytest
from test_plan_fast import RESTAURATEURS, TEST_RESTAURATEURS, TEST_RUMORS
from test_plan_fast import random_pantry as small_pantry

from critter_kitchen.plan import exact, listing, question, quick, scorer
from critter_kitchen.plan.exact import context
from critter_kitchen.plan.listing import CardMeals
from critter_kitchen.plan.output import plan_record
from critter_kitchen.plan.pareto import Items
from critter_kitchen.plan.quick import BoundedSearch, CountedMeals
from critter_kitchen.plan.search import plan_round


def ids(ruleset, kind: str) -> list[str]:
    return sorted(c.id for c in ruleset.cards.values() if c.kind == kind)


def pantry(rng: random.Random, ruleset, size: int, lab: bool) -> dict:
    """A round-3 pantry of ``size`` items (ingredients, spices, tokens); ``lab``: at a table with a
    critic, three rumors and the player's restaurateur, as the balance lab deals one."""
    cards = rng.sample(ids(ruleset, "challenge"), 6)
    kinds = sorted({k for c in cards[:3] for k in ruleset.cards[c].requires})
    wild = ruleset.base_params()["wild_spice"]
    items: dict = {"ingredients": [], "spices": [], "soup": 0, "bisque": 0}
    for _ in range(size):
        roll = rng.random()
        if roll < 0.65:
            items["ingredients"].append({"type": rng.choice(kinds), "value": rng.randint(1, 8)})
        elif roll < 0.85:
            items["spices"].append(rng.choice([*kinds, wild]))
        else:
            items[rng.choice(["soup", "bisque"])] += 1
    table: dict = {"challenges": {"round3": cards[:3]}}
    player: dict = {"name": "Ana"}
    if lab:
        table |= {"critic": rng.choice(ids(ruleset, "critic")), "rumors": rng.sample(ids(ruleset, "rumor"), 3)}
        player["restaurateur"] = rng.choice(ids(ruleset, "restaurateur"))
    return {"for": "round3", "cards": table, "player": player, "pantry": items}


def asked(data: dict, ruleset):
    return question({k: v for k, v in data.items() if not k.startswith("_")}, ruleset)


def listings(one, budget: int) -> tuple[list, list]:
    """Each card's meals as the plain and the counted listing give them, with the budget left and
    whether the listing stopped, from a fresh memory of verdicts."""
    items, params = Items(one), context(one).scorer.params
    plain, counted = CardMeals(one, items, params, [0], {}), CountedMeals(one, items, params, [0], {}, {})
    found: tuple[list, list] = ([], [])
    for meals, out in zip((plain, counted), found, strict=True):
        for i, card in enumerate(one.challenges):
            meals.budget[0] = budget
            listed = [
                (m.card.id, m.ingredients, m.tokens, m.quality, use)
                for m, use in meals.options(card, i == len(one.challenges) - 1)
            ]
            out.append((listed, meals.budget[0], meals.stopped))
    return found


@pytest.mark.parametrize("lab", [False, True])
@pytest.mark.parametrize("fixture", ["base", "alc"])
def test_the_counted_listing_lists_what_the_plain_listing_lists(fixture, lab, request):
    ruleset = request.getfixturevalue(fixture)
    rng = random.Random(41 + lab)
    meals = 0
    for n in range(120):
        one = asked(pantry(rng, ruleset, rng.randint(1, 11), lab), ruleset)
        for budget in (quick.FAST_MEALS_PER_CARD, rng.randint(1, 40)):  # the second often ends a listing
            plain, counted = listings(one, budget)
            assert counted == plain, (n, budget)
            meals += sum(len(listed) for listed, _, _ in plain)
    assert meals > 2000  # the pantries hold many legal meals, not a few


def test_the_counted_listing_agrees_with_the_test_cards(planner_cards):
    """Cards that change the rule parameters, the Hold token's card and what items add."""
    rng = random.Random(43)
    for n in range(300):
        data = small_pantry(rng, planner_cards, held=TEST_RESTAURATEURS, rumors=TEST_RUMORS)
        one = asked(data, planner_cards)
        plain, counted = listings(one, quick.FAST_MEALS_PER_CARD)
        assert counted == plain, n


def test_a_listing_cut_by_its_budget_stops_where_the_plain_one_does(base):
    rng = random.Random(47)
    cut = 0
    for _ in range(60):
        one = asked(pantry(rng, base, 10, False), base)
        for budget in range(1, 30, 3):
            plain, counted = listings(one, budget)
            assert counted == plain
            cut += sum(stopped for _, _, stopped in plain)
    assert cut > 100  # many listings did stop inside their budget


@pytest.fixture
def check_meal_calls(monkeypatch):
    """How many times the fast effort asks check_meal (a count, not a time)."""
    calls = [0]

    def counting(check):
        def counted(*args, **kwargs):
            calls[0] += 1
            return check(*args, **kwargs)

        return counted

    monkeypatch.setattr(quick, "check_meal", counting(quick.check_meal))
    monkeypatch.setattr(exact, "check_meal", counting(exact.check_meal))
    monkeypatch.setattr(listing, "check_meal", counting(listing.check_meal))
    exact.CONTEXTS.clear()  # a new table: nothing judged yet
    return calls


def test_check_meal_is_asked_once_per_counts_and_once_per_planned_meal(base, check_meal_calls, monkeypatch):
    rng = random.Random(53)
    pantries = [asked(pantry(rng, base, 9, lab), base) for lab in (False, True) for _ in range(30)]
    verdicts: set = set()
    is_legal = CountedMeals.is_legal

    def told(self, card, held, counts, ingredients, tokens):
        verdicts.add((id(self.legal), card.id, held, counts))  # remembered per table
        return is_legal(self, card, held, counts, ingredients, tokens)

    monkeypatch.setattr(CountedMeals, "is_legal", told)
    planned = 0
    for one in pantries:
        planned += len(plan_round(one, effort="fast").meals)
    counted = check_meal_calls[0]
    assert counted == len(verdicts) + planned  # a verdict per counts at the table, then each planned meal once
    monkeypatch.setattr(BoundedSearch, "card_meals", plain)
    exact.CONTEXTS.clear()
    check_meal_calls[0] = 0
    for one in pantries:
        plan_round(one, effort="fast")
    assert counted * 2 < check_meal_calls[0]  # the plain listing asks once per meal


@pytest.mark.parametrize("lab", [False, True])
def test_the_fast_plans_are_those_of_the_plain_listing(base, lab, monkeypatch):
    rng = random.Random(59 + lab)
    pantries = [asked(pantry(rng, base, [4, 6, 8, 10][n % 4], lab), base) for n in range(150)]
    exact.CONTEXTS.clear()
    counted = [plan_record(plan_round(one, effort="fast")) for one in pantries]
    monkeypatch.setattr(BoundedSearch, "card_meals", plain)
    exact.CONTEXTS.clear()
    plainly = [plan_record(plan_round(one, effort="fast")) for one in pantries]
    assert counted == plainly


def plain(search: BoundedSearch) -> CardMeals:
    return CardMeals(search.q, search.items, search.scorer.params, search.budget, search.checks)


@pytest.mark.parametrize("lab", [False, True])
def test_a_plan_check_meal_does_not_confirm_is_listed_again_plainly(base, lab, monkeypatch):
    """Were the facts the counted listing rests on false for some rules, the plan would still be
    the plain listing's: each planned meal is judged by check_meal before the plan is given."""
    rng = random.Random(61 + lab)
    pantries = [asked(pantry(rng, base, 8, lab), base) for _ in range(30)]
    exact.CONTEXTS.clear()
    monkeypatch.setattr(BoundedSearch, "card_meals", plain)
    plainly = [plan_record(plan_round(one, effort="fast")) for one in pantries]
    monkeypatch.undo()
    monkeypatch.setattr(CountedMeals, "quality", lambda self, total: quick.capped_quality(total) + 1)
    listed_again = [0]
    list_plainly = BoundedSearch.list_plainly

    def counted(self):
        listed_again[0] += 1
        list_plainly(self)

    monkeypatch.setattr(BoundedSearch, "list_plainly", counted)
    exact.CONTEXTS.clear()
    again = [plan_record(plan_round(one, effort="fast")) for one in pantries]
    assert again == plainly
    assert listed_again[0] >= 20  # most plans serve a meal, and none of those was confirmed
    assert any(p["challenge_meals"]["round3"]["Ana"] for p in plainly)  # some plans serve meals


def test_a_bounded_search_scores_at_most_its_best_plans_together(base, monkeypatch):
    runs = [0]
    scored = scorer.Scorer.stars

    def counted(self, meals, work):
        if len(meals) > 1:
            runs[0] += 1
        return scored(self, meals, work)

    monkeypatch.setattr(scorer.Scorer, "stars", counted)
    rng = random.Random(67)
    bounded = 0
    for _ in range(40):
        one = asked(pantry(rng, base, 10, True), base)
        exact.CONTEXTS.clear()
        search = BoundedSearch(one, quick.FAST_MEALS_PER_CARD)
        if search.separable:
            continue
        runs[0] = 0
        search.run_bounded()
        if search.bounded:
            bounded += 1
            assert runs[0] <= quick.BEST_SCORED
    assert bounded > 5


def test_restaurateurs_of_the_lab_are_planned_legally(base):
    """The lab's own restaurateurs, which change parameters (quick's plans stay the engine's)."""
    from test_plan_fast import engine_stars

    rng = random.Random(71)
    for n in range(40):
        data = pantry(rng, base, 8, True)
        data["player"]["restaurateur"] = RESTAURATEURS[n % len(RESTAURATEURS)]
        data["cards"].pop("critic")
        data["cards"].pop("rumors")
        data["_round6"] = [c for c in ids(base, "challenge") if c not in data["cards"]["challenges"]["round3"]][:3]
        plan = plan_round(asked(data, base), effort="fast")
        assert engine_stars(data, plan, base) == plan.stars
