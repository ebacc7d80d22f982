"""The exact planner's exchange of tokens and its combination by bit sets: the engine's statement
that a meal's legality reads only how many tokens it holds holds for check_meal, one card lowers
the tokens, the plans equal the exhaustive search's, and a card's own items grown piece by piece
(their start states told once) give the exhaustive search's plans too."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from test_plan_exact_paths_agree import random_meal
from test_plan_exact_shared import larger_own_pantry, shared_pantry
from test_plan_fast import RESTAURATEURS, engine_stars, order

from critter_kitchen import check_meal, rule_parameters
from critter_kitchen.plan import bands, question
from critter_kitchen.plan.bands import Combination, lowering_tokens
from critter_kitchen.plan.exhaustive import plan_round_exhaustive
from critter_kitchen.plan.meal_facts import exchangeable_tokens
from critter_kitchen.plan.search import plan_round
from critter_kitchen.plan.work import Work


@pytest.mark.parametrize("fixture", ["base", "alc", "repeated_no_hold", "planner_cards"])
def test_a_meals_legality_reads_only_how_many_tokens_it_holds(fixture, request):
    """Random meals, their tokens dealt again among the exchangeable ones (as many in all): the
    same verdict. The tokens matter to many of them (none at all changes the verdict), so a rule
    telling the tokens apart would be caught."""
    ruleset = request.getfixturevalue(fixture)
    held = [ruleset.cards[c] for c in RESTAURATEURS if c in ruleset.cards]
    rng = random.Random(13)
    mattered = 0
    for n in range(3000):
        params = rule_parameters(ruleset, held=[held[n % len(held)]] if n % 3 == 0 and held else [])
        names = sorted(exchangeable_tokens(params))
        assert names == sorted(params["token_values"])  # every token these rules know
        card, on_hold, ingredients, tokens = random_meal(rng, ruleset, params)
        problems, _ = check_meal(ruleset, card, ingredients, tokens, params, held=on_hold)
        dealt = {name: 0 for name in names}
        for _ in range(sum(tokens.values())):
            dealt[rng.choice(names)] += 1
        again, _ = check_meal(ruleset, card, ingredients, dealt, params, held=on_hold)
        assert bool(again) == bool(problems), (card.id, on_hold, ingredients, tokens, dealt)
        none, _ = check_meal(ruleset, card, ingredients, dict.fromkeys(names, 0), params, held=on_hold)
        mattered += bool(none) != bool(problems)
    assert mattered > 100


def test_the_card_with_most_meals_lowers_the_tokens():
    assert lowering_tokens([10, 50, 20]) == 1
    assert lowering_tokens([30, 30, 5]) == 0  # the first of equals
    assert lowering_tokens([0, 0, 0]) is None  # no card listed by steps
    assert lowering_tokens([0, 7, 0]) == 1
    assert lowering_tokens([40]) is None  # one card: nothing to share


def token_pantry(rng: random.Random, ruleset) -> dict:
    """A pantry of :func:`shared_pantry` with more soup and bisque (sometimes none of one)."""
    pantry = shared_pantry(rng, ruleset, RESTAURATEURS if rng.random() < 0.5 else ())
    pantry["pantry"]["soup"] = rng.randint(0, 3)
    pantry["pantry"]["bisque"] = rng.randint(0, 2)
    return pantry


def counting_token_drops(monkeypatch) -> dict[str, int]:
    """Every card listed by steps; counts the meals dropped that only the token exchange drops."""
    monkeypatch.setattr(bands, "FEW_MEALS", 0)
    counts = {"tokens": 0, "lowering": 0}
    lowers = bands.BandMeals.lowers

    def counted(self, *args):
        found = lowers(self, *args)
        if found and self.token_lower:
            kept, self.token_lower = self.token_lower, {}
            counts["tokens"] += not lowers(self, *args)
            self.token_lower = kept
        return found

    token_lowerings = bands.BandMeals.token_lowerings

    def told(self, pieces):
        found = token_lowerings(self, pieces)
        counts["lowering"] += bool(found)
        return found

    monkeypatch.setattr(bands.BandMeals, "lowers", counted)
    monkeypatch.setattr(bands.BandMeals, "token_lowerings", told)
    return counts


@pytest.mark.parametrize(("fixture", "seeds"), [("base", range(0, 200)), ("alc", range(200, 320))])
def test_plans_with_tokens_lowered_equal_the_exhaustive_search(fixture, seeds, request, monkeypatch):
    counts = counting_token_drops(monkeypatch)
    ruleset = request.getfixturevalue(fixture)
    for seed in seeds:
        pantry = token_pantry(random.Random(seed), ruleset)
        asked = question({k: v for k, v in pantry.items() if not k.startswith("_")}, ruleset)
        fast, reference = plan_round(asked), plan_round_exhaustive(asked)
        assert (fast.optimal, reference.optimal) == (True, True)
        assert order(fast) == order(reference), (seed, pantry)
        assert engine_stars(pantry, fast, ruleset) == fast.stars, (seed, pantry)
    assert counts["lowering"] > len(seeds) // 2 and counts["tokens"] > 50  # the rule was put to the test


def test_the_meals_that_fit_are_told_by_bits_as_by_asking_each():
    """Combination.fitting_bits and first_fitting against checking every meal against the items left."""
    rng = random.Random(3)
    for _ in range(200):
        have = tuple(rng.randint(0, 4) for _ in range(rng.randint(1, 7)))
        width = max(have, default=0).bit_length() + 1
        guard = sum(1 << (i * width + width - 1) for i in range(len(have)))
        items = SimpleNamespace(
            have=have,
            width=width,
            guard=guard,
            packed_have=sum(n << (i * width) for i, n in enumerate(have)),
            value_held=10,
            spices_held=0,
        )

        def pack(counts: list[int], w: int = width) -> int:
            return sum(n << (i * w) for i, n in enumerate(counts))

        cards = []
        for _ in range(rng.randint(1, 3)):
            meals = [
                SimpleNamespace(
                    use=pack([rng.randint(0, n) if rng.random() < 0.5 else 0 for n in have]),
                    stars=rng.randint(0, 3),
                    value=rng.randint(0, 5),
                    tokens=0,
                    spices=0,
                )
                for _ in range(rng.randint(0, 40))
            ]
            cards.append(meals)
        combination = Combination(Work(), items, cards)  # type: ignore[arg-type]
        for _ in range(20):
            left = pack([rng.randint(0, n) for n in have])
            for i, meals in enumerate(combination.options):
                fits = [k for k, o in enumerate(meals) if ((left | guard) - o.use) & guard == guard]
                bits = combination.fitting_bits(i, left)
                assert [k for k in range(len(meals)) if bits >> k & 1] == fits
                best = next((meals[k] for k in fits if meals[k].stars > 0), None)
                assert combination.first_fitting(i, left) is best


def test_own_items_grown_piece_by_piece_from_starts_told_once_equal_the_exhaustive_search(base, monkeypatch):
    """Past OWN_WAYS ways, a card's own items are grown piece by piece and what they add from one
    start state (counts, spices left, quality, stars, the other items) is told once
    (bands.BandMeals.own_part): pantries that reach that path against the exhaustive search."""
    monkeypatch.setattr(bands, "FEW_MEALS", 0)
    monkeypatch.setattr(bands, "OWN_WAYS", 0)
    reached = [0]
    own_part = bands.BandMeals.own_part

    def counted(self, j, meal):
        reached[0] += 1
        return own_part(self, j, meal)

    monkeypatch.setattr(bands.BandMeals, "own_part", counted)
    for seed in range(120):
        rng = random.Random(seed)
        pantry = larger_own_pantry(rng, base, 4 + seed % 3) if seed % 2 else shared_pantry(rng, base)
        asked = question({k: v for k, v in pantry.items() if not k.startswith("_")}, base)
        fast, reference = plan_round(asked), plan_round_exhaustive(asked)
        assert (fast.optimal, reference.optimal) == (True, True)
        assert order(fast) == order(reference), (seed, pantry)
    assert reached[0] > 100
