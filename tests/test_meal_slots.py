"""Requirement slots that are not one fixed type (tests/packs/slots): wildcard slots, slots that
must hold different types, with the Hold token, tokens, "at least one real ingredient" and
only_listed_types; in the record reader, check_meal, the planner and the cards' English.

Every quality below is added up by hand in a comment: each ingredient is worth 3 (see
``served``), a soup 1, a bisque 3.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from test_meal_rules import record, served
from test_plan_fast import engine_stars, order, random_pantry

from critter_kitchen import Ingredient, InputError, check_meal, rule_parameters, score_record
from critter_kitchen.cli import main
from critter_kitchen.loading.records import RecordReader
from critter_kitchen.plan import question
from critter_kitchen.plan.exhaustive import plan_round_exhaustive
from critter_kitchen.plan.search import plan_round
from critter_kitchen.report.cards import card_text, listing_text

ROOT = Path(__file__).resolve().parent.parent
SLOTS = ROOT / "tests" / "packs" / "slots"
FISH_ANY = "test-fish-and-any"  # fish, any
TWO_DIFFERENT = "test-any-two-different"  # any, any; different types
CHEESE_OTHERS = "test-cheese-and-another"  # cheese, any, any; different types
ANY = "test-any"  # any
FISH_BETWEEN = "test-any-fish-any"  # any, fish, any; different types
SLOT_CARDS = (FISH_ANY, TWO_DIFFERENT, CHEESE_OTHERS, ANY, FISH_BETWEEN)


def verdict(ruleset, meal: dict[str, Any], card: str, held: bool = False) -> int | list[str]:
    """The meal's quality when the record reader takes it, else its problems (all at the meal)."""
    try:
        game = RecordReader(ruleset, "game.yaml").read(record(meal, card, held))
    except InputError as e:
        assert {p.where for p in e.problems} == {f"challenge_meals.round3.Ana.{card}"}
        assert {p.code for p in e.problems} == {"CK302"}
        return [p.message for p in e.problems]
    return game.meals["round3"][0].quality


# A wildcard slot takes any type; fixed slots are filled first


def test_a_wildcard_slot_takes_an_ingredient_of_any_type(slots) -> None:
    assert verdict(slots, served("fish", "cheese"), FISH_ANY) == 6  # 3 + 3
    assert verdict(slots, served("fish", "fish"), FISH_ANY) == 6  # the second fish fills the wildcard
    assert verdict(slots, served("fish", "cheese", "meat"), FISH_ANY) == 9  # any type is listed: meat is an extra
    assert verdict(slots, served("fish"), FISH_ANY) == [
        "missing a slot of any type: 1 soup or bisque needed to fill, 0 given"
    ]
    assert verdict(slots, served("fish", soup=1), FISH_ANY) == 4  # 3 + 1
    # no fish: the cheese fills the wildcard and a token the fish slot
    assert verdict(slots, served("cheese"), FISH_ANY) == ["missing fish: 1 soup or bisque needed to fill, 0 given"]
    assert verdict(slots, served("cheese", bisque=1), FISH_ANY) == 6  # 3 + 3
    assert verdict(slots, served(soup=2), FISH_ANY) == ["no required ingredient, only soup"]


def test_the_hold_token_covers_a_rightmost_wildcard(slots) -> None:
    # fish, any with the Hold token on "any": only fish is listed
    assert verdict(slots, served("fish"), FISH_ANY, held=True) == 3
    assert verdict(slots, served("fish", "cheese"), FISH_ANY, held=True) == [
        "cheese is not listed on Test Fish and Anything (fish)"
    ]
    # any alone with the Hold token on it: nothing is listed, so nothing is a required ingredient
    assert verdict(slots, served("fish"), ANY, held=True) == [
        "fish is not listed on Test Anything Goes ()",
        "no required ingredient, nothing served",
    ]


# Different types: the wildcard slots take types no other slot has


def test_two_different_types_fill_two_wildcards(slots) -> None:
    assert verdict(slots, served("fish", "cheese"), TWO_DIFFERENT) == 6  # 3 + 3
    assert verdict(slots, served("fish", "fish"), TWO_DIFFERENT) == [
        "missing 1 of 2 slots of different types: 1 soup or bisque needed to fill, 0 given"
    ]
    assert verdict(slots, served("fish", "fish", soup=1), TWO_DIFFERENT) == 7  # 3 + 3 + 1: the soup fills a slot
    assert verdict(slots, served("fish", "fish", "cheese"), TWO_DIFFERENT) == 9  # the second fish is an extra
    assert verdict(slots, served(bisque=2), TWO_DIFFERENT) == ["no required ingredient, only bisque"]
    # under the Hold token one wildcard is left: one ingredient fills it
    assert verdict(slots, served("fish"), TWO_DIFFERENT, held=True) == 3


def test_a_wildcard_never_takes_the_type_of_a_fixed_slot_with_different_types(slots) -> None:
    # cheese, any, any: a second cheese fills no wildcard
    assert verdict(slots, served("cheese", "cheese", "fish"), CHEESE_OTHERS) == [
        "missing 1 of 2 slots of different types: 1 soup or bisque needed to fill, 0 given"
    ]
    assert verdict(slots, served("cheese", "fish", "meat"), CHEESE_OTHERS) == 9  # 3 + 3 + 3
    assert verdict(slots, served("fish", "meat"), CHEESE_OTHERS) == [
        "missing cheese: 1 soup or bisque needed to fill, 0 given"
    ]
    assert verdict(slots, served("fish", "meat", soup=1), CHEESE_OTHERS) == 7  # 3 + 3 + 1
    # any, fish, any: two fish fill one slot; with the Hold token the last wildcard is not listed
    assert verdict(slots, served("fish", "fish", "wine"), FISH_BETWEEN) == [
        "missing 1 of 2 slots of different types: 1 soup or bisque needed to fill, 0 given"
    ]
    assert verdict(slots, served("fish", "fish", "wine"), FISH_BETWEEN, held=True) == 9  # 3 + 3 + 3
    assert verdict(slots, served("fish", "fish"), FISH_BETWEEN, held=True) == [
        "missing a slot of a type no other slot has: 1 soup or bisque needed to fill, 0 given"
    ]


def test_wildcards_under_looser_rules(slots_loose) -> None:
    # only_listed_types off, two real ingredients needed, two tokens per empty slot
    assert verdict(slots_loose, served("fish", "fish"), TWO_DIFFERENT) == [
        "missing 1 of 2 slots of different types: 2 soup or bisque needed to fill, 0 given"
    ]
    assert verdict(slots_loose, served("fish", "fish", soup=2), TWO_DIFFERENT) == 8  # 3 + 3 + 1 + 1
    assert verdict(slots_loose, served("fish", soup=2), TWO_DIFFERENT) == [
        "fewer than 2 required ingredients, only soup"
    ]
    # fish, any under the Hold token lists fish alone: cheese may be served, but is no required ingredient
    assert verdict(slots_loose, served("fish", "cheese"), FISH_ANY, held=True) == [
        "fewer than 2 required ingredients, nothing served"
    ]
    assert verdict(slots_loose, served("fish", "fish", "cheese"), FISH_ANY, held=True) == 9  # 3 + 3 + 3


def test_check_meal_applies_the_same_slots(slots) -> None:
    params = rule_parameters(slots)
    card = slots.cards[CHEESE_OTHERS]
    cheese, fish, meat = Ingredient("cheese", 4, ("allspice",)), Ingredient("fish", 2), Ingredient("meat", 5)
    assert check_meal(slots, card, [cheese, fish, meat], {}, params) == ([], 15)  # 4 * 2 + 2 + 5
    assert check_meal(slots, card, [cheese, fish, Ingredient("fish", 5)], {}, params) == (
        ["missing 1 of 2 slots of different types: 1 soup or bisque needed to fill, 0 given"],
        0,
    )
    assert check_meal(slots, card, [cheese, fish, Ingredient("fish", 5)], {"soup": 1}, params) == ([], 16)  # 8+2+5+1


def test_a_game_with_slot_cards_scores_as_added_up_by_hand(slots) -> None:
    data = {
        "players": [{"name": "Ana"}, {"name": "Ben"}],
        "cards": {
            "challenges": {
                "round3": [TWO_DIFFERENT, CHEESE_OTHERS, FISH_ANY],
                "round6": ["braised-shank", "farmhouse-pie", "forest-risotto"],
            }
        },
        "challenge_meals": {
            "round3": {
                "Ana": {
                    # fish 5 with fish spice (10) + cheese 3 = 13: 2 stars
                    TWO_DIFFERENT: {
                        "ingredients": [{"type": "fish", "value": 5, "spice": "fish"}, {"type": "cheese", "value": 3}]
                    },
                    # fish 4 under the Hold token (the wildcard is covered) = 4: 0 stars
                    FISH_ANY: {"ingredients": [{"type": "fish", "value": 4}]},
                },
                "Ben": {
                    # cheese 6 + meat 5 + soup 1 for the empty wildcard = 12: 2 stars
                    CHEESE_OTHERS: {
                        "ingredients": [{"type": "cheese", "value": 6}, {"type": "meat", "value": 5}],
                        "soup": 1,
                    },
                    # wine 4 + wine 3 + soup 1 for the slot a second type would fill = 8: 1 star
                    TWO_DIFFERENT: {
                        "ingredients": [{"type": "wine", "value": 4}, {"type": "wine", "value": 3}],
                        "soup": 1,
                    },
                },
            }
        },
    }
    result = score_record(data, slots)
    awards = sorted((a.player, a.stars, a.reason) for a in result.awards if a.stage == "challenge.round3")
    assert awards == [
        ("Ana", 2, "Test Odd Couple meal, quality 13"),
        ("Ben", 1, "Test Odd Couple meal, quality 8"),
        ("Ben", 2, "Test Cheese and Another meal, quality 12"),
    ]
    qualities = sorted((m.player.name, m.card.id, m.quality) for m in result.game.meals["round3"])
    assert qualities == [
        ("Ana", TWO_DIFFERENT, 13),
        ("Ana", FISH_ANY, 4),
        ("Ben", TWO_DIFFERENT, 8),
        ("Ben", CHEESE_OTHERS, 12),
    ]


# The planner never plans a meal the slots refuse, and plans as the exhaustive search does


@pytest.mark.parametrize("fixture", ["slots", "slots_loose"])
def test_plans_with_slot_cards_equal_the_exhaustive_search(fixture, request) -> None:
    ruleset = request.getfixturevalue(fixture)
    with_slot_cards = 0
    for seed in range(62_000, 62_120):
        rng = random.Random(seed)
        pantry = random_pantry(rng, ruleset)
        round3 = pantry["cards"]["challenges"]["round3"]
        if not any(c in SLOT_CARDS for c in round3):  # at least one slot card, at a random place
            free = [c for c in SLOT_CARDS if c not in pantry["_round6"]]
            round3[rng.randrange(3)] = rng.choice(free)
        with_slot_cards += 1
        asked = question({k: v for k, v in pantry.items() if not k.startswith("_")}, ruleset)
        fast, reference = plan_round(asked), plan_round_exhaustive(asked)
        assert (fast.optimal, reference.optimal) == (True, True)
        assert order(fast) == order(reference), (seed, pantry)
        assert engine_stars(pantry, fast, ruleset) == fast.stars, (seed, pantry)
    assert with_slot_cards >= 100


# The cards' English and validation


def test_slot_cards_in_english(slots) -> None:
    assert card_text(slots.cards[CHEESE_OTHERS], slots).splitlines()[-1] == (
        "Requires: cheese, any, any (left to right; 'any' is filled by an ingredient of any type; "
        "each requirement is filled by a different type; the Hold token covers the last)"
    )
    assert card_text(slots.cards[FISH_ANY], slots).splitlines()[-1] == (
        "Requires: fish, any "
        "(left to right; 'any' is filled by an ingredient of any type; the Hold token covers the last)"
    )
    listing = listing_text(slots).splitlines()
    assert "  test-any-two-different   Test Odd Couple  requires any, any, each a different type" in listing


def test_the_slots_pack_validates(capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["validate", "tests/packs/slots", "tests/packs/slots-loose"]) == 0
    assert capsys.readouterr().out == "ok: 2 checked, no problems\n"
