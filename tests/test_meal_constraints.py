"""Meal constraints (tests/packs/constraints): conditions in the effect language that cards in
play put on challenge meals and critic meals, checked wherever legality is: the record reader,
check_meal and check_critic_meal, the cards' English, validate, the work budget and the lab.
(The planner's comparisons with the brute force are in tests/test_plan.py and
tests/test_plan_exact_paths_agree.py; the score pad's in tests/test_serve_browser_constraints.py.)

The pack: The Minimalist (critic: at most five courses), Short Menu (rumor: at most two
courses; no soup kept with a meat course), Modest Portions (rumor: no challenge meal above
quality 20), The Teetotaller (restaurateur, for its owner: no wine course, no wine in a
challenge meal), Plain Cooking (restaurateur, for its owner: no spice in a challenge meal),
Light Lunch (challenge: carrot, any; its own meals hold at most three ingredients) and Odd
Couple (challenge: any two different types).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from critter_kitchen import (
    EvaluationError,
    Ingredient,
    InputError,
    check_critic_meal,
    check_meal,
    meal_rules,
    rule_parameters,
    score_record,
)
from critter_kitchen.cli import main
from critter_kitchen.dsl import budget
from critter_kitchen.loading.records import RecordReader
from critter_kitchen.report.cards import card_text

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "tests" / "packs" / "constraints"


def game(**changes: Any) -> dict[str, Any]:
    """A legal game under every kind of constraint (scored by hand below), with ``changes``."""
    record: dict[str, Any] = {
        "players": [{"name": "Ana", "restaurateur": "test-teetotaller"}, {"name": "Ben"}],
        "cards": {
            "challenges": {
                "round3": ["test-odd-couple", "harbor-stew", "test-light-lunch"],
                "round6": ["braised-shank", "farmhouse-pie", "forest-risotto"],
            },
            "critic": "test-minimalist",
            "rumors": ["test-modest-portions"],
        },
        "challenge_meals": {
            "round3": {
                "Ana": {
                    "test-light-lunch": {
                        "ingredients": [
                            {"type": "carrot", "value": 5, "spice": "carrot"},
                            {"type": "carrot", "value": 4},
                        ]
                    }
                },
                "Ben": {
                    "test-odd-couple": {"ingredients": [{"type": "wine", "value": 7}, {"type": "fish", "value": 6}]}
                },
            }
        },
        "critic_meals": {
            "Ana": {"courses": {"carrot": {"value": 5}, "fish": {"value": 3}}, "soup": 2},
            "Ben": {
                "courses": {k: {"value": v} for k, v in (("carrot", 4), ("fish", 6), ("cheese", 2), ("mushroom", 1))}
                | {"meat": {"value": 3}},
                "bisque": 1,
            },
        },
    }
    record.update(changes)
    return record


def problems(constraints, record: dict[str, Any]) -> list[tuple[str, str, str]]:
    try:
        RecordReader(constraints, "game.yaml").read(record)
    except InputError as e:
        return [(p.where, p.message, p.code) for p in e.problems]
    return []


def test_the_pack_validates(capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["validate", "tests/packs/constraints"]) == 0
    assert capsys.readouterr().out == "ok: 1 checked, no problems\n"


def test_a_game_meeting_every_constraint_scores_as_added_up_by_hand(constraints) -> None:
    result = score_record(game(), constraints)
    stars = {s.player.name: s.stars for s in result.standings}
    # Round 3: Ana's Light Lunch (under the Hold token: carrot alone is listed) carrot 5 with
    # carrot spice (10) + carrot 4 = 14: 2 stars, two ingredients of at most three, no wine,
    # not above 20. Ben's Odd Couple wine 7 + fish 6 = 13: 2 stars (Ben holds no Teetotaller).
    # Critic (no effects on the cards): most soup Ana 2 against Ben's bisque 3: Ben 1; best
    # course: carrot Ana (5 > 4) 1, fish, cheese, mushroom, meat Ben 4; final quality Ana 8: 0,
    # Ben 4 + 6 + 2 + 1 + 3 = 16: 1. Ana 2 + 1 = 3, Ben 2 + 1 + 4 + 1 = 8 (five courses: allowed).
    assert stars == {"Ana": 3, "Ben": 8}


def test_meals_a_constraint_refuses_are_errors_at_the_meal_naming_the_card(constraints) -> None:
    meals = game()["challenge_meals"]
    meals["round3"]["Ana"]["test-light-lunch"]["ingredients"] += [{"type": "carrot", "value": 1}] * 2
    meals["round3"]["Ana"]["test-odd-couple"] = {
        "ingredients": [{"type": "wine", "value": 2}, {"type": "fish", "value": 1}]
    }
    meals["round3"]["Ben"]["test-odd-couple"]["ingredients"][0]["spice"] = "wine"  # 14 + 6 = 20: allowed
    meals["round3"]["Ben"]["harbor-stew"] = {
        "ingredients": [{"type": t, "value": 8} for t in ("fish", "carrot", "bread")]  # 24
    }
    critic = game()["critic_meals"]
    critic["Ana"]["courses"]["wine"] = {"value": 2}
    critic["Ben"]["courses"]["bread"] = {"value": 1}  # a sixth course
    assert problems(constraints, game(challenge_meals=meals, critic_meals=critic)) == [
        (
            "challenge_meals.round3.Ana.test-odd-couple",
            "The Teetotaller: the teetotaller serves no wine",
            "CK302",
        ),
        (
            "challenge_meals.round3.Ana.test-light-lunch",
            "Light Lunch: a light lunch has at most three ingredients",
            "CK302",
        ),
        (
            "challenge_meals.round3.Ben.harbor-stew",
            "Modest Portions: no challenge meal may be of quality above 20",
            "CK302",
        ),
        ("critic_meals.Ana", "The Teetotaller: the teetotaller serves no wine course", "CK302"),
        ("critic_meals.Ben", "The Minimalist: the critic meal may have at most five courses", "CK302"),
    ]


def test_score_locates_a_refused_meal_at_its_line(tmp_path, capsys, monkeypatch) -> None:
    critic = game()["critic_meals"]
    critic["Ben"]["courses"]["bread"] = {"value": 1}
    path = tmp_path / "six.yaml"
    path.write_text(yaml.safe_dump(game(critic_meals=critic), sort_keys=False))
    monkeypatch.chdir(tmp_path)
    assert main(["score", "six.yaml", "--pack", str(PACK)]) == 1
    out, err = capsys.readouterr()
    where, message = err.split(": ", 1)
    _, line, column = where.split(":")
    assert (out, message) == ("", "critic_meals.Ben: The Minimalist: the critic meal may have at most five courses\n")
    lines = path.read_text().splitlines()
    ben = lines.index("  Ben:", lines.index("critic_meals:"))
    assert (int(line), lines[ben + 1][int(column) - 1 :]) == (ben + 2, "courses:")  # at the meal, its first line


def test_a_rules_cards_constraint_binds_every_meal(capsys, monkeypatch) -> None:
    from critter_kitchen import load_ruleset

    rules = load_ruleset([ROOT / "tests" / "packs" / "constraints-rules"])
    stew = {"ingredients": [{"type": "fish", "value": 3}], "soup": 2, "bisque": 1}  # 3 + 2 + 3 = 8, 3 tokens
    record = {
        "players": [{"name": "Ana"}, {"name": "Ben"}],
        "cards": {
            "challenges": {
                "round3": ["harbor-stew", "garden-gratin", "farmhouse-pie"],
                "round6": ["braised-shank", "river-chowder", "forest-risotto"],
            }
        },
        "challenge_meals": {"round3": {"Ben": {"harbor-stew": stew}}},
    }
    assert problems(rules, record) == [
        (
            "challenge_meals.round3.Ben.harbor-stew",
            "Two tokens at most: a challenge meal holds at most two soup or bisque tokens",
            "CK302",
        )
    ]
    stew["bisque"] = 0  # 3 + 2 = 5, two tokens
    assert RecordReader(rules, "game.yaml").read(record).meals["round3"][0].quality == 5
    monkeypatch.chdir(ROOT)
    assert main(["validate", "tests/packs/constraints-rules"]) == 0
    assert capsys.readouterr().out == "ok: 1 checked, no problems\n"


def test_a_held_cards_constraint_binds_its_owner_only(constraints) -> None:
    meals = game()["challenge_meals"]
    wine = {"ingredients": [{"type": "wine", "value": 3}, {"type": "carrot", "value": 3}]}
    both = {"round3": {"Ana": {"test-odd-couple": wine}, "Ben": {"test-odd-couple": wine}}}
    assert problems(constraints, game(challenge_meals=both)) == [
        ("challenge_meals.round3.Ana.test-odd-couple", "The Teetotaller: the teetotaller serves no wine", "CK302")
    ]
    players = [{"name": "Ana"}, {"name": "Ben", "restaurateur": "test-teetotaller"}]
    assert problems(constraints, game(challenge_meals=both, players=players)) == [
        ("challenge_meals.round3.Ben.test-odd-couple", "The Teetotaller: the teetotaller serves no wine", "CK302")
    ]
    assert meals  # the default game's meals are untouched


def test_a_constraint_waits_for_a_meal_with_problems_of_its_own(constraints) -> None:
    critic = game()["critic_meals"]
    critic["Ben"]["courses"]["bread"] = {"value": 0}  # not a positive value: no meal to judge yet
    found = problems(constraints, game(critic_meals=critic))
    assert [(w, c) for w, _, c in found] == [("critic_meals.Ben.courses.bread.value", "CK301")]


def test_check_meal_and_check_critic_meal_apply_the_constraints_of_the_cards_given(constraints) -> None:
    cards = constraints.cards
    table, owned = [cards["test-modest-portions"]], [cards["test-plain-cooking"]]
    params = rule_parameters(constraints, table, owned)
    stew = cards["harbor-stew"]  # fish, carrot, bread
    spiced = [Ingredient("fish", 4, ("fish",)), Ingredient("carrot", 3), Ingredient("bread", 2)]
    assert check_meal(constraints, stew, spiced, {}, params) == ([], 13)  # 8 + 3 + 2: no cards, no constraint
    assert check_meal(constraints, stew, spiced, {}, params, cards=[*table, *owned]) == (
        ["Plain Cooking: plain cooking puts no spice in a challenge meal"],
        0,
    )
    rules = meal_rules(params, cards=table)  # the rules read once know the cards too
    big = [Ingredient("fish", 9, ("fish",)), Ingredient("carrot", 3), Ingredient("bread", 2)]  # 18 + 3 + 2 = 23
    assert check_meal(constraints, stew, big, {}, rules) == (
        ["Modest Portions: no challenge meal may be of quality above 20"],
        0,
    )
    # a Challenge card's own constraint binds its meals whatever the cards given
    lunch = cards["test-light-lunch"]
    four = [Ingredient("carrot", 1)] * 4
    assert check_meal(constraints, lunch, four, {}, params) == (
        ["Light Lunch: a light lunch has at most three ingredients"],
        0,
    )
    # the critic meal as a whole
    short = [cards["test-short-menu"]]
    courses = {"meat": Ingredient("meat", 4), "fish": Ingredient("fish", 2, ("allspice",))}
    assert check_critic_meal(constraints, courses, {"soup": 0}, params, cards=short) == ([], 8)  # 4 + 2 * 2
    assert check_critic_meal(constraints, courses, {"soup": 1}, params, cards=short) == (
        ["Short Menu: no soup may be kept with a meat course"],
        0,
    )
    three = {**courses, "wine": Ingredient("wine", 1)}
    assert check_critic_meal(constraints, three, {}, params, cards=short) == (
        ["Short Menu: the critic meal may have at most two courses"],
        0,
    )
    assert check_critic_meal(constraints, {"fish": Ingredient("meat", 1)}, {}, params) == (
        ["fish: a meat ingredient cannot be the fish course"],
        0,
    )


def test_a_constraint_runs_within_the_effect_budget(constraints, monkeypatch) -> None:
    # the conditions of one record's meals run under the effect budget together, apart from
    # the scoring of the game (which starts at 0 steps, as for a game without constraints)
    assert RecordReader(constraints, "game.yaml").read(game()).steps == 0
    monkeypatch.setattr(budget, "STEP_BUDGET", 3)
    with pytest.raises(EvaluationError) as raised:
        RecordReader(constraints, "game.yaml").read(game())
    assert "took more than 3 steps" in str(raised.value)
    assert "at stage 'meal constraints'" in str(raised.value)


def test_constraints_in_english(constraints) -> None:
    def tail(card: str) -> list[str]:
        lines = card_text(constraints.cards[card], constraints).splitlines()
        return lines[lines.index("In English, from its data:") + 2 :]  # after the card's own text

    assert tail("test-minimalist") == [
        "While in play, every critic meal must meet:",
        "    the number of items in courses is at most 5",
        "    Otherwise it is refused: the critic meal may have at most five courses.",
    ]
    assert tail("test-teetotaller") == [
        "Every critic meal its owner serves must meet:",
        "    wine is not one of courses",
        "    Otherwise it is refused: the teetotaller serves no wine course.",
        "",
        "Every challenge meal its owner serves must meet:",
        "    the number of wine ingredients in meal is 0",
        "    Otherwise it is refused: the teetotaller serves no wine.",
    ]
    assert tail("test-light-lunch")[2:] == [
        "Every meal served for this card must meet:",
        "    the number of items in the ingredients of meal is at most 3",
        "    Otherwise it is refused: a light lunch has at most three ingredients.",
    ]


def test_the_lab_plays_legal_games_under_constraints(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["simulate", "--pack", str(PACK), "--games", "12", "--seed", "3", "--workers", "1"]
    assert main([*args, "--records", "games.jsonl", "--format", "json"]) == 0
    capsys.readouterr()
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(records) == 12
    in_play = {c for r in records for c in (r["cards"].get("critic"), *r["cards"].get("rumors", []))}
    held = {p.get("restaurateur") for r in records for p in r["players"]}
    assert in_play & {"test-minimalist", "test-short-menu", "test-modest-portions"}
    assert held & {"test-teetotaller", "test-plain-cooking"}
    # every recorded game scores again cleanly: no meal the constraints refuse was played
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((tmp_path / "games.jsonl").read_bytes())))
    assert main(["score", "-", "--pack", str(PACK), "--format", "json"]) == 0
    scored = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(scored) == 12 and not any("errors" in s for s in scored)


def test_a_player_who_serves_no_course_serves_no_critic_meal_to_refuse(constraints, tmp_path, capsys, monkeypatch):
    # The Gourmand asks for at least three courses: a meal of two is refused, but a player
    # who serves no course (and keeps a token) serves no critic meal, as one the record leaves
    # out: nothing to refuse.
    critic = game()["critic_meals"]
    record = game(critic_meals=critic)
    record["cards"]["critic"] = "test-gourmand"
    record["critic_meals"]["Ana"] = {"courses": {"fish": {"value": 3}, "carrot": {"value": 2}}}
    record["critic_meals"]["Ben"] = {"courses": {}, "soup": 1}
    assert [(w, m, c) for w, m, c in problems(constraints, record)] == [
        ("critic_meals.Ana", "The Gourmand: a critic meal must have at least three courses", "CK302")
    ]
    record["critic_meals"]["Ana"] = {"courses": {}}
    assert problems(constraints, record) == []
    # the planner, with two ingredients, can serve no meal of three courses: it serves none
    # (and says so), and the record it writes scores
    monkeypatch.chdir(tmp_path)
    pantry = {
        "for": "critic",
        "cards": {"critic": "test-gourmand"},
        "pantry": {"ingredients": [{"type": "carrot", "value": 5}, {"type": "fish", "value": 3}], "soup": 1},
    }
    (tmp_path / "pantry.yaml").write_text(yaml.safe_dump(pantry), "utf-8")
    assert main(["plan", "pantry.yaml", "--pack", str(PACK), "--format", "json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert (planned["optimal"], planned["courses"], planned["soup"]) == (True, {}, 1)
