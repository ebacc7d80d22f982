"""Checks on the test oracle and the game generator themselves."""

from __future__ import annotations

import json

import pytest
from gen import TYPES, challenge_requirements, effective_requirements, games
from hypothesis import given, settings
from oracle import band_stars, score_record, track_stars

CARDS = {
    "round3": ["harbor-stew", "river-chowder", "garden-gratin"],
    "round6": ["sunday-roast", "toasted-cheese", "forest-risotto"],
}


def record(players, challenge_meals=None, critic_meals=None):
    game = {"players": [{"name": n} for n in players], "cards": {"challenges": CARDS}}
    if challenge_meals is not None:
        game["challenge_meals"] = challenge_meals
    game["critic_meals"] = critic_meals or {}
    return game


def score(game):
    return score_record(game, challenge_requirements())


def stars_of(result):
    return {row["name"]: row["stars"] for row in result["standings"]}


def full_meal(value, spice=None):
    course = {"value": value} if spice is None else {"value": value, "spice": spice}
    return {"courses": {t: dict(course) for t in TYPES}}


def test_worked_example():
    meal = {"ingredients": [{"type": "carrot", "value": 5, "spice": "carrot"}, {"type": "fish", "value": 3}]}
    with_soup = dict(meal, soup=1)
    to_21 = dict(meal, ingredients=meal["ingredients"] + [{"type": "fish", "value": 8}])
    for served, expected in [(meal, 2), (with_soup, 2), (to_21, 4)]:
        game = record(["Ana", "Ben"], {"round3": {"Ana": {"harbor-stew": served}}, "round6": {}})
        result = score(game)
        assert result["stage_stars"]["Ana"] == {"challenge.round3": expected}
        assert result["stage_stars"]["Ben"] == {}


@pytest.mark.parametrize("quality, stars", [(5, 0), (6, 1), (11, 1), (12, 2), (20, 2), (21, 4)])
def test_band_edges(quality, stars):
    assert band_stars(quality) == stars
    meal = {"ingredients": [{"type": "meat", "value": 1}], "soup": quality - 1}
    game = record(["Ana", "Ben"], {"round3": {}, "round6": {"Ben": {"sunday-roast": meal}}})
    assert score(game)["stage_stars"]["Ben"].get("challenge.round6", 0) == stars


@pytest.mark.parametrize("quality, stars", [(0, 0), (9, 0), (10, 1), (69, 6), (70, 10), (75, 10), (84, 11), (140, 20)])
def test_track_passes_seventy(quality, stars):
    assert track_stars(quality) == stars


def test_final_quality_through_record():
    # 7 courses: six of value 5 spiced (60) + one of 9 spiced (18) = 78 -> 10 stars
    ana = full_meal(5, "allspice")
    ana["courses"]["bread"] = {"value": 9, "spice": "bread"}
    result = score(record(["Ana", "Ben"], critic_meals={"Ana": ana}))
    assert result["stage_stars"]["Ana"]["critic.final_quality"] == 10
    assert result["standings"][0]["critic_quality"] == 78


def test_most_soup_with_zero_gives_nothing():
    game = record(["Ana", "Ben"], critic_meals={"Ana": {"courses": {}, "soup": 0, "bisque": 0}, "Ben": {"courses": {}}})
    assert score(game)["stage_stars"] == {"Ana": {}, "Ben": {}}


def test_most_soup_counts_bisque_as_three():
    game = record(["Ana", "Ben"], critic_meals={"Ana": {"courses": {}, "soup": 2}, "Ben": {"courses": {}, "bisque": 1}})
    assert score(game)["stage_stars"] == {"Ana": {}, "Ben": {"critic.most_soup": 1}}


def test_friendly_ties():
    ana = {"courses": {"fish": {"value": 5, "spice": "fish"}}, "soup": 3}
    ben = {"courses": {"fish": {"value": 10}, "cheese": {"value": 2}}, "bisque": 1}
    cleo = {"courses": {"fish": {"value": 4, "spice": "allspice"}}}
    result = score(record(["Ana", "Ben", "Cleo"], critic_meals={"Ana": ana, "Ben": ben, "Cleo": cleo}))
    assert result["stage_stars"]["Ana"] == {"critic.most_soup": 1, "critic.best_course": 1, "critic.final_quality": 1}
    assert result["stage_stars"]["Ben"] == {"critic.most_soup": 1, "critic.best_course": 2, "critic.final_quality": 1}
    assert result["stage_stars"]["Cleo"] == {}


def test_all_courses_every_player():
    result = score(record(["Ana", "Ben"], critic_meals={"Ana": full_meal(2), "Ben": full_meal(3)}))
    assert result["stage_stars"]["Ana"] == {"critic.all_courses": 1, "critic.final_quality": 1}
    assert result["stage_stars"]["Ben"] == {"critic.all_courses": 1, "critic.best_course": 7, "critic.final_quality": 2}


def test_tie_break_on_critic_quality():
    # Both 2 stars; Ben has the higher critic quality (19 vs 15) though Ana is ahead.
    ana = {"courses": {"fish": {"value": 15}}}
    ben = {"courses": {"meat": {"value": 19}}}
    result = score(record(["Ana", "Ben"], critic_meals={"Ana": ana, "Ben": ben}))
    assert stars_of(result) == {"Ana": 2, "Ben": 2}
    assert result["winner"] == "Ben"
    assert [(r["rank"], r["name"]) for r in result["standings"]] == [(1, "Ben"), (2, "Ana")]


def test_tie_break_on_priority():
    same = {"courses": {"fish": {"value": 12}}}
    result = score(record(["Cleo", "Ana", "Ben"], critic_meals={"Ana": same, "Cleo": same}))
    assert stars_of(result) == {"Cleo": 2, "Ana": 2, "Ben": 0}
    assert [r["name"] for r in result["standings"]] == ["Cleo", "Ana", "Ben"]
    assert result["winner"] == "Cleo"


def is_legal_meal(meal, listed):
    kinds = [i["type"] for i in meal["ingredients"]]
    tokens = meal.get("soup", 0) + meal.get("bisque", 0)
    return (
        set(kinds) <= set(listed)
        and bool(kinds)
        and tokens >= len(set(listed) - set(kinds))
        and all(i.get("spice") in (None, i["type"], "allspice") for i in meal["ingredients"])
    )


@settings(max_examples=200, deadline=None)
@given(games())
def test_generated_games_are_consistent(game):
    assert json.loads(json.dumps(game)) == game
    requirements = challenge_requirements()
    rounds = game["cards"]["challenges"]
    assert len(set(rounds["round3"] + rounds["round6"])) == 6
    for rnd, meals in game.get("challenge_meals", {}).items():
        for served in meals.values():
            for card_id, meal in served.items():
                last = card_id == rounds[rnd][-1]
                assert is_legal_meal(meal, effective_requirements(requirements[card_id], last))
    result = score(game)
    assert [r["rank"] for r in result["standings"]] == list(range(1, len(game["players"]) + 1))
    assert [r["name"] for r in result["standings"] if r["rank"] == 1] == [result["winner"]]
    for row in result["standings"]:
        assert row["stars"] == sum(result["stage_stars"][row["name"]].values())
