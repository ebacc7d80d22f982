"""The exact planner at cards sharing ingredient types: the dominance filter keeps what the plain
quadratic one keeps, and the exchange rule (a card lowering the values of a shared type it takes)
leaves the plans equal to the exhaustive search's."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from test_plan_fast import RESTAURATEURS, engine_stars, order

from critter_kitchen.plan import bands, question
from critter_kitchen.plan.bands import Piece, exchangeable, lowered_types
from critter_kitchen.plan.exhaustive import plan_round_exhaustive
from critter_kitchen.plan.pareto import undominated
from critter_kitchen.plan.search import plan_round


def quadratic(options: list, guard: int) -> list:
    """The filter as it was first written: by stars, best first; within them by value, tokens,
    spices; kept unless a kept one (of these stars, then of any) uses no more of every item."""
    by_stars: dict[int, list] = {}
    for option in options:
        by_stars.setdefault(option.stars, []).append(option)

    def covers(a: int, b: int) -> bool:
        return ((b | guard) - a) & guard == guard

    kept: list = []
    for stars in sorted(by_stars, reverse=True):
        group: list = []
        for option in sorted(by_stars[stars], key=lambda o: (o.value, o.tokens, o.spices)):
            if not any(covers(k.use, option.use) for k in group):
                group.append(option)
        for option in group:
            if not any(covers(k.use, option.use) for k in kept):
                kept.append(option)
    return kept


def test_the_dominance_filter_keeps_what_the_quadratic_one_keeps():
    rng = random.Random(5)
    for _ in range(300):
        have = tuple(rng.randint(0, 4) for _ in range(rng.randint(1, 8)))
        width = max(have, default=0).bit_length() + 1
        items = SimpleNamespace(have=have, width=width)
        guard = sum(1 << (i * width + width - 1) for i in range(len(have)))
        uses: dict[tuple[int, ...], None] = {}
        for _ in range(rng.randint(0, 60)):
            uses[tuple(rng.randint(0, n) for n in have)] = None  # distinct uses, as the planner gives
        options = [
            SimpleNamespace(
                use=sum(n << (i * width) for i, n in enumerate(counts)),
                stars=rng.randint(1, 4),
                value=sum(counts[: len(counts) // 2 + 1]) * rng.randint(0, 1),
                tokens=sum(counts[len(counts) // 2 + 1 :]),
                spices=rng.randint(0, 1),
                name=i,
            )
            for i, counts in enumerate(uses)
        ]
        ordered = sorted(options, key=lambda o: (-o.stars, o.value, o.tokens, o.spices))
        assert [o.name for o in undominated(ordered, items)] == [o.name for o in quadratic(options, guard)]


def test_each_shared_type_is_lowered_by_one_card_only():
    types = ["cheese", "fish", "meat", "wine"]
    taken = [frozenset({"fish", "meat"}), frozenset({"meat", "wine"}), None]  # None: any type
    # cheese: only the card taking any type takes it, its own; fish: cards 0 and 2; meat: all three
    assert lowered_types([10, 50, 20], taken, types) == [frozenset(), frozenset({"meat", "wine"}), frozenset({"fish"})]
    assert lowered_types([10, 10, 10], taken, types) == [frozenset({"fish", "meat"}), frozenset({"wine"}), frozenset()]
    # a card listed plainly (0) lowers nothing
    assert lowered_types([0, 0, 5], taken, types) == [frozenset(), frozenset(), frozenset({"fish", "meat", "wine"})]
    assert lowered_types([9, 9], [frozenset({"fish"}), frozenset({"meat"})], types) == [frozenset(), frozenset()]


def test_values_are_exchanged_only_where_every_kind_takes_the_same_spicings_and_more_value_adds_no_less():
    def piece(value: int, spicings: list, adds: list) -> Piece:
        return Piece(0, 1, value, spicings, adds)

    plain, spiced = (), ("fish",)
    assert exchangeable([piece(1, [plain, spiced], [1, 2]), piece(3, [plain, spiced], [3, 6])])
    assert exchangeable([piece(1, [plain], [4]), piece(3, [plain], [4])])  # equal parts: no worse
    assert not exchangeable([piece(1, [plain, spiced], [1, 7]), piece(3, [plain, spiced], [3, 6])])
    assert not exchangeable([piece(1, [plain], [1]), piece(3, [plain, spiced], [3, 6])])


def shared_pantry(rng: random.Random, ruleset, held: tuple[str, ...] = ()) -> dict:
    """A round-3 pantry whose ingredients are mostly of types two or three of the cards take, with
    values repeated (a pantry's values are at least 1), spices of those types and the wild one, soup and bisque."""
    ids = sorted(c.id for c in ruleset.cards.values() if c.kind == "challenge")
    while True:
        cards = rng.sample(ids, 6)
        taken = [set(ruleset.cards[c].requires) for c in cards[:3]]
        shared = sorted({k for i, a in enumerate(taken) for b in taken[i + 1 :] for k in a & b})
        if shared:
            break
    kinds = sorted(set().union(*taken))
    wild = ruleset.base_params()["wild_spice"]
    values = [rng.randint(1, 8) for _ in range(3)]
    ingredients = [
        {"type": rng.choice(shared if rng.random() < 0.75 else kinds), "value": rng.choice(values)}
        for _ in range(rng.randint(3, 6))
    ]
    player: dict = {"name": "Ana"}
    if held and rng.random() < 0.6:
        player["restaurateur"] = rng.choice(held)
    return {
        "for": "round3",
        "cards": {"challenges": {"round3": cards[:3]}},
        "player": player,
        "pantry": {
            "ingredients": ingredients,
            "spices": [rng.choice([*shared, wild]) for _ in range(rng.randint(0, 2))],
            "soup": rng.randint(0, 2),
            "bisque": rng.randint(0, 1),
        },
        "_round6": cards[3:],
    }


def counting(monkeypatch) -> dict[str, int]:
    """Every card listed by steps (however few its meals); counts the meals the exchange rule
    drops and the partial meals whose growing it stops."""
    monkeypatch.setattr(bands, "FEW_MEALS", 0)
    counts = {"dropped": 0, "stopped": 0}
    lowers, windowed = bands.BandMeals.lowers, bands.BandMeals.windowed

    def counted_lowers(self, *args):
        found = lowers(self, *args)
        counts["dropped"] += found
        return found

    def counted_windowed(self, *args):
        found = windowed(self, *args)
        counts["stopped"] += not found
        return found

    monkeypatch.setattr(bands.BandMeals, "lowers", counted_lowers)
    monkeypatch.setattr(bands.BandMeals, "windowed", counted_windowed)
    return counts


@pytest.mark.parametrize(("fixture", "seeds"), [("base", range(0, 200)), ("alc", range(200, 350))])
def test_plans_with_shared_types_lowered_equal_the_exhaustive_search(fixture, seeds, request, monkeypatch):
    counts = counting(monkeypatch)
    ruleset = request.getfixturevalue(fixture)
    for seed in seeds:
        pantry = shared_pantry(random.Random(seed), ruleset, RESTAURATEURS if seed % 2 else ())
        asked = question({k: v for k, v in pantry.items() if not k.startswith("_")}, ruleset)
        fast, reference = plan_round(asked), plan_round_exhaustive(asked)
        assert (fast.optimal, reference.optimal) == (True, True)
        assert order(fast) == order(reference), (seed, pantry)
        assert engine_stars(pantry, fast, ruleset) == fast.stars, (seed, pantry)
    assert counts["dropped"] > 50 and counts["stopped"] > 10  # the rule was put to the test


def test_larger_plans_with_shared_types_lowered_equal_the_plain_listing(base, monkeypatch):
    """At 8-12 items, beyond the exhaustive search: against listing every legal meal of each card."""
    from critter_kitchen.plan.exact import FastSearch

    counts = counting(monkeypatch)
    rng = random.Random(77)
    for n in range(30):
        pantry = shared_pantry(rng, base)
        extra = shared_pantry(rng, base)["pantry"]["ingredients"]
        pantry["pantry"]["ingredients"] += extra[: 2 + n % 4]
        asked = question({k: v for k, v in pantry.items() if not k.startswith("_")}, base)
        plan = plan_round(asked)
        key, _ = FastSearch(asked, 10**7).run()
        assert plan.optimal and order(plan) == key, n
    assert counts["dropped"] > 50


def test_own_items_added_by_their_cheapest_ways_give_the_plans_of_growing_them_piece_by_piece(base, monkeypatch):
    """The cheapest ways to each number of stars (bands.BandMeals.cheapest_own) against growing a
    card's own items piece by piece (its rules as before, used when there are too many ways)."""
    counts = counting(monkeypatch)
    ways: list[int] = []
    cheapest = bands.BandMeals.cheapest_own

    def counted(self, *args):
        ways.append(1)
        return cheapest(self, *args)

    monkeypatch.setattr(bands.BandMeals, "cheapest_own", counted)
    rng = random.Random(91)
    for n in range(60):
        pantry = larger_own_pantry(rng, base, 5 + n % 6)
        asked = question({k: v for k, v in pantry.items() if not k.startswith("_")}, base)
        monkeypatch.setattr(bands, "OWN_WAYS", 512)
        by_ways = plan_round(asked)
        monkeypatch.setattr(bands, "OWN_WAYS", 0)  # every card's own items grown piece by piece
        by_pieces = plan_round(asked)
        assert by_ways.optimal and by_pieces.optimal
        assert order(by_ways) == order(by_pieces), (n, pantry)
        if n % 6 < 2:  # 5 or 6 ingredients: within the exhaustive search's reach
            reference = plan_round_exhaustive(asked)
            assert reference.optimal and order(by_pieces) == order(reference), (n, pantry)
    assert len(ways) > 100 and counts["dropped"] > 0


def larger_own_pantry(rng: random.Random, ruleset, ingredients: int) -> dict:
    """A round-3 pantry with ``ingredients`` ingredients of the cards' types (some only one card
    takes), one or two spices, soup and bisque."""
    ids = sorted(c.id for c in ruleset.cards.values() if c.kind == "challenge")
    cards = rng.sample(ids, 6)
    kinds = sorted({k for c in cards[:3] for k in ruleset.cards[c].requires})
    wild = ruleset.base_params()["wild_spice"]
    return {
        "for": "round3",
        "cards": {"challenges": {"round3": cards[:3]}},
        "player": {"name": "Ana"},
        "pantry": {
            "ingredients": [{"type": rng.choice(kinds), "value": rng.randint(1, 8)} for _ in range(ingredients)],
            "spices": [rng.choice([*kinds, wild]) for _ in range(rng.randint(1, 2))],
            "soup": rng.randint(0, 2),
            "bisque": rng.randint(0, 1),
        },
        "_round6": cards[3:],
    }
