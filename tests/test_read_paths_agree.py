"""The record reader's plain path (one walk over each meal, course checks remembered per
game) against its detailed checks: the same games and the same problems, whatever the
parameters in force for each player."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import gen
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_meal_rules import corpus, packs_for, read_both_ways, snapshot, varied

from critter_kitchen import InputError, load_ruleset
from critter_kitchen.loading.files import load_data
from critter_kitchen.loading.records import RecordReader
from critter_kitchen.model.ruleset import Ruleset

ROOT = Path(__file__).resolve().parent.parent
HOLDER_CARD = "spice-merchant"  # a restaurateur: here it also lets its holder put two spices on a course
OTHER_CARD = "lucky-cat"


@pytest.fixture(scope="module")
def held_rules() -> Ruleset:
    """The base rules, but the Spice Merchant's holder may put two spices on a critic course
    and serves no wine course: the players of one game read their courses under different
    parameters."""
    rules = load_ruleset()
    rules.cards[HOLDER_CARD].parameters = {
        "spices_per_course": 2,
        "course_types": ["carrot", "fish", "cheese", "mushroom", "meat", "bread"],
    }
    return rules


def critic_game(ana: dict[str, Any], ben: dict[str, Any], holder: str = "Ana") -> dict[str, Any]:
    """A two-player game with only critic meals; ``holder`` holds the Spice Merchant."""
    players: list[dict[str, Any]] = [{"name": "Ana"}, {"name": "Ben"}]
    players[0 if holder == "Ana" else 1]["restaurateur"] = HOLDER_CARD
    players[1 if holder == "Ana" else 0]["restaurateur"] = OTHER_CARD
    return {
        "players": players,
        "cards": {
            "challenges": {
                "round3": ["harbor-stew", "garden-gratin", "braised-shank"],
                "round6": ["farmhouse-pie", "forest-risotto", "hunters-ragout"],
            }
        },
        "critic_meals": {"Ana": ana, "Ben": ben},
    }


TWO_SPICES = {"courses": {"fish": {"value": 3, "spice": ["fish", "allspice"]}, "carrot": {"value": 2}}}
WINE = {"courses": {"wine": {"value": 4}, "carrot": {"value": 2, "spice": "carrot"}}}


def read_problems(rules: Ruleset, data: dict[str, Any], *, plain: bool = True) -> list[tuple[str, str, str]]:
    try:
        RecordReader(rules, "game.yaml", plain=plain).read(copy.deepcopy(data))
    except InputError as e:
        return [(p.where, p.message, p.code) for p in e.problems]
    return []


def test_a_course_legal_for_its_holder_is_checked_again_for_another_player(held_rules: Ruleset) -> None:
    # Ana (first) may serve two spices; Ben's same course is not legal for him
    data = critic_game(TWO_SPICES, TWO_SPICES)
    assert read_problems(held_rules, data) == [
        ("critic_meals.Ben.courses.fish.spice", "2 spices on one ingredient; at most 1 allowed", "CK301")
    ]
    read_both_ways(held_rules, data)
    # and the other way round: Ben's refusal is not what Ana's course is judged by
    data = critic_game(TWO_SPICES, TWO_SPICES, holder="Ben")
    assert read_problems(held_rules, data) == [
        ("critic_meals.Ana.courses.fish.spice", "2 spices on one ingredient; at most 1 allowed", "CK301")
    ]
    read_both_ways(held_rules, data)


def test_a_course_type_one_player_may_not_serve_stays_legal_for_the_others(held_rules: Ruleset) -> None:
    data = critic_game(WINE, WINE, holder="Ben")
    assert read_problems(held_rules, data) == [("critic_meals.Ben.courses.wine", "unknown course 'wine'", "CK303")]
    read_both_ways(held_rules, data)
    game = RecordReader(held_rules, "game.yaml").read(copy.deepcopy(critic_game(WINE, {}, holder="Ben")))
    assert [(kind, c.quality) for kind, c in game.players[0].courses.items()] == [("carrot", 4), ("wine", 4)]


def test_two_spices_count_for_the_holder_only(held_rules: Ruleset) -> None:
    game = RecordReader(held_rules, "game.yaml").read(copy.deepcopy(critic_game(TWO_SPICES, {})))
    ana = game.players[0]
    assert [(kind, c.value, c.spices, c.quality) for kind, c in ana.courses.items()] == [
        ("carrot", 2, (), 2),
        ("fish", 3, ("fish", "allspice"), 12),
    ]


MEAL_SHAPES: list[Any] = [
    None,
    {},
    {"ingredients": None},
    {"ingredients": []},
    {"ingredients": [{"type": "fish", "value": 3, "spice": None}]},
    {"ingredients": [{"type": "fish", "value": 3, "spice": "fish", "x": 1}]},
    {"ingredients": [{"type": "fish", "value": 3, "x": 1}]},
    {"ingredients": [{"type": "fish", "value": 3, "spice": []}], "soup": 1},
    {"ingredients": [{"type": "fish", "value": 3}], "soup": 2, "bisque": 0},
    {"ingredients": [{"type": "fish", "value": 3}], "soup": None},
    {"soup": 1, "ingredients": [{"type": "fish", "value": 3, "spice": ["fish"]}], "x": 0},
    {"ingredients": [{"value": 3, "type": "fish", "spice": "allspice"}, {"type": "fish", "value": 0}]},
]

COURSE_SHAPES: list[Any] = [
    None,
    {},
    {"courses": None},
    {"courses": {"fish": None}},
    {"courses": {"fish": {"value": 3, "spice": None}}},
    {"courses": {"fish": {"value": 3, "spice": "fish"}, "soup": {"value": 1}}},
    {"courses": {"fish": {"token": "soup"}}},
    {"courses": {"fish": {"value": 3}}, "soup": 1, "bisque": None},
    {"courses": {"fish": {"value": 3, "spice": "fish"}, "carrot": {"value": 3, "spice": "fish"}}},
]


# What a player left unused (a critic meal's ``left``), well formed or not.
LEFT_SHAPES: list[Any] = [
    None,
    {},
    [],
    "fish",
    {"ingredients": None},
    {"ingredients": []},
    {"spices": []},
    {"ingredients": [{"type": "fish", "value": 3}, {"value": 2, "type": "wine"}], "spices": ["fish", "allspice"]},
    {"spices": ["fish"], "ingredients": [{"type": "fish", "value": 3}]},
    {"ingredients": [{"type": "fish", "value": 3, "spice": "fish"}]},
    {"ingredients": [{"type": "fish"}]},
    {"ingredients": [{"type": "fosh", "value": 2}]},
    {"ingredients": [{"type": "fish", "value": True}]},
    {"ingredients": [{"type": "fish", "value": 0}]},
    {"ingredients": {"type": "fish", "value": 3}},
    {"spices": "fish"},
    {"spices": ["nutmeg"]},
    {"spices": [None]},
    {"x": 1},
    {"ingredients": [], "spices": [], "x": []},
]


@pytest.mark.parametrize("left", LEFT_SHAPES)
def test_what_was_left_reads_as_the_detailed_checks_read_it(held_rules: Ruleset, left: Any) -> None:
    meal = {"courses": {"fish": {"value": 3}}, "soup": 1, "left": left}
    read_both_ways(held_rules, critic_game(meal, {"left": left}))


def test_the_plain_path_reads_what_was_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """A well-formed ``left`` is read by the plain path alone, as the detailed checks read it."""
    rules = load_ruleset()
    left = {"ingredients": [{"type": "wine", "value": 4}, {"type": "fish", "value": 2}], "spices": ["fish", "allspice"]}
    data = critic_game({"courses": {"fish": {"value": 3}}, "left": left}, {"left": {}})
    detailed = snapshot(RecordReader(rules, "game", plain=False).read(copy.deepcopy(data)))

    def refused(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the detailed checks were asked")

    monkeypatch.setattr(RecordReader, "critic_meal", refused)
    game = RecordReader(rules, "game").read(copy.deepcopy(data))
    assert snapshot(game) == detailed
    assert [len(p.left_ingredients) for p in game.players] == [2, 0]
    assert [p.left_recorded for p in game.players] == [True, True]


@pytest.mark.parametrize("meal", MEAL_SHAPES)
def test_odd_challenge_meals_read_as_the_detailed_checks_read_them(held_rules: Ruleset, meal: Any) -> None:
    data = critic_game({}, {})
    data["challenge_meals"] = {"round3": {"Ana": {"harbor-stew": meal}, "Ben": {"braised-shank": meal}}}
    read_both_ways(held_rules, data)


@pytest.mark.parametrize("meal", COURSE_SHAPES)
def test_odd_critic_meals_read_as_the_detailed_checks_read_them(held_rules: Ruleset, meal: Any) -> None:
    read_both_ways(held_rules, critic_game(meal, meal))
    read_both_ways(held_rules, critic_game(meal, meal, holder="Ben"))


def test_the_plain_path_reads_every_golden_game_without_the_detailed_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fast path that always fell back would pass every comparison: the golden games must
    be read by it alone, and give the game the detailed checks give."""
    records = []
    for path in corpus():
        if "golden" not in path.parts:
            continue
        data = load_data(str(path), path.name)
        if isinstance(data, dict) and "players" in data:
            records.append((load_ruleset(packs_for(path)), data))
    detailed = [snapshot(RecordReader(rules, "game", plain=False).read(copy.deepcopy(data))) for rules, data in records]

    def refused(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the detailed checks were asked")

    for name in ("round_meals", "meal", "critic_meal", "course"):
        monkeypatch.setattr(RecordReader, name, refused)
    plain = [snapshot(RecordReader(rules, "game").read(copy.deepcopy(data))) for rules, data in records]
    assert plain == detailed
    assert len(records) >= 8


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=gen.full_games(), seed=st.integers(0, 2**32))
def test_random_games_under_a_held_card_read_the_same_both_ways(
    held_rules: Ruleset, data: dict[str, Any], seed: int
) -> None:
    rng = random.Random(seed)
    for entry in data["players"]:  # the Spice Merchant's holder reads under parameters of its own
        if rng.random() < 0.4 and not any(p.get("restaurateur") == HOLDER_CARD for p in data["players"]):
            entry["restaurateur"] = HOLDER_CARD
    read_both_ways(held_rules, data)
    for _ in range(9):
        read_both_ways(held_rules, varied(data, rng))


def test_what_a_reader_knows_of_a_ruleset_follows_a_change_made_in_place() -> None:
    rules = load_ruleset()
    reader = RecordReader(rules, "game.yaml")
    assert reader.owned_fields["restaurateur"] == "restaurateur" and "fish" in reader.types
    rules.card_kinds["restaurateur"] = "cards.owners"  # now a field of the record's cards
    rules.ingredient_types = tuple(t for t in rules.ingredient_types if t != "fish")
    rules.changed()
    reader = RecordReader(rules, "game.yaml")
    assert "restaurateur" not in reader.owned_fields and reader.table_fields["owners"] == "restaurateur"
    assert "fish" not in reader.types and "restaurateur" not in reader.player_keys
