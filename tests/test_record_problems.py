"""Record problems a designer can act on: located by line, all in one pass, found in folders."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from critter_kitchen.cli import main
from critter_kitchen.loading.jsonpos import json_marks

ROOT = Path(__file__).resolve().parent.parent

TABLE = """\
players:
  - name: Ana
  - name: Ben
cards:
  challenges:
    round3: [harbor-stew, forest-risotto, farmhouse-pie]
    round6: [toasted-cheese, river-chowder, braised-shank]
"""

# An unknown critic (line 8) and a course value that is not positive (line 12, column 21).
YAML_RECORD = (
    TABLE
    + """\
  critic: no-such-critic
critic_meals:
  Ana:
    courses:
      fish: {value: 0}
"""
)

# The same in JSON, with an escaped slash ('\\/' is '/') in the critic's id.
JSON_RECORD = """\
{
  "players": [{"name": "Ana"}, {"name": "Ben"}],
  "cards": {
    "challenges": {
      "round3": ["harbor-stew", "forest-risotto", "farmhouse-pie"],
      "round6": ["toasted-cheese", "river-chowder", "braised-shank"]
    },
    "critic": "no-such\\/critic"
  },
  "critic_meals": {"Ana": {"courses": {"fish": {"value": 0}}}}
}
"""

VALUE = "expected a positive whole number up to 1000000, got 0"


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def test_a_yaml_record_problem_names_its_line_in_every_format(capsys):
    Path("game.yaml").write_text(YAML_RECORD, "utf-8")
    status, out, err = run(capsys, "validate", "game.yaml")
    assert (status, out) == (1, "")
    assert err == (
        "game.yaml:8:11: cards.critic: CK301 unknown critic card 'no-such-critic'\n"
        f"game.yaml:12:21: critic_meals.Ana.courses.fish.value: CK301 {VALUE}\n"
    )
    _, out, _ = run(capsys, "validate", "game.yaml", "--format", "github")
    assert out == (
        "::error file=game.yaml,line=8,col=11::CK301 cards.critic: unknown critic card 'no-such-critic'\n"
        f"::error file=game.yaml,line=12,col=21::CK301 critic_meals.Ana.courses.fish.value: {VALUE}\n"
    )
    _, out, _ = run(capsys, "validate", "game.yaml", "--format", "json")
    assert json.loads(out) == [
        {
            "path": "game.yaml",
            "line": 8,
            "column": 11,
            "code": "CK301",
            "message": "cards.critic: unknown critic card 'no-such-critic'",
        },
        {
            "path": "game.yaml",
            "line": 12,
            "column": 21,
            "code": "CK301",
            "message": f"critic_meals.Ana.courses.fish.value: {VALUE}",
        },
    ]


def test_score_names_the_line_too(capsys):
    Path("game.yaml").write_text(YAML_RECORD, "utf-8")
    status, out, err = run(capsys, "score", "game.yaml")
    assert (status, out) == (1, "")
    assert err == (
        "game.yaml:8:11: cards.critic: unknown critic card 'no-such-critic'\n"
        f"game.yaml:12:21: critic_meals.Ana.courses.fish.value: {VALUE}\n"
    )


def test_a_json_record_problem_names_its_line_in_every_format(capsys):
    Path("game.json").write_text(JSON_RECORD, "utf-8")
    status, out, err = run(capsys, "validate", "game.json")
    assert (status, out) == (1, "")
    assert err == (
        "game.json:8:15: cards.critic: CK301 unknown critic card 'no-such/critic'\n"
        f"game.json:10:58: critic_meals.Ana.courses.fish.value: CK301 {VALUE}\n"
    )
    _, out, _ = run(capsys, "validate", "game.json", "--format", "github")
    assert out == (
        "::error file=game.json,line=8,col=15::CK301 cards.critic: unknown critic card 'no-such/critic'\n"
        f"::error file=game.json,line=10,col=58::CK301 critic_meals.Ana.courses.fish.value: {VALUE}\n"
    )
    _, out, _ = run(capsys, "validate", "game.json", "--format", "json")
    assert [(p["line"], p["column"]) for p in json.loads(out)] == [(8, 15), (10, 58)]


def test_json_places_are_those_of_the_values():
    # the column of each value, counted by hand: strings holding braces, commas, colons and
    # escaped quotes must not throw the scan off, nor a key repeated at another depth
    text = '{"a": "x{,]:\\"", "b": [1, {"a": [true, null]}],\n "c\\/d": {"e": -2.5e3}}'
    values, keys = json_marks(text, [("b", 1, "a", 1), ("c/d", "e"), ("a",)])
    assert {path: (m.line, m.column) for path, m in values.items()} == {
        (): (1, 1),
        ("a",): (1, 7),
        ("b",): (1, 23),
        ("b", 1): (1, 27),
        ("b", 1, "a"): (1, 33),
        ("b", 1, "a", 1): (1, 40),
        ("c/d",): (2, 10),
        ("c/d", "e"): (2, 16),
    }
    assert (keys[("c/d", "e")].line, keys[("c/d", "e")].column) == (2, 11)


def test_a_key_problem_points_at_the_key(capsys):
    Path("game.yaml").write_text(TABLE + "critc_meals: {}\n", "utf-8")
    _, _, err = run(capsys, "score", "game.yaml")
    assert err == "game.yaml:8:1: critc_meals: unknown key 'critc_meals'; did you mean 'critic_meals'?\n"


@pytest.mark.parametrize(
    ("key", "path"),
    [("' '", "[' ']"), ("''", "['']"), ("' name'", "[' name']")],
)
def test_a_key_of_no_name_or_with_spaces_at_its_ends_is_shown_in_brackets(capsys, key, path):
    Path("game.yaml").write_text(TABLE + f"{key}: 1\n", "utf-8")
    _, _, err = run(capsys, "score", "game.yaml")
    shown = key.strip("'")
    assert err == f"game.yaml:8:1: {path}: unknown key '{shown}'\n"


def test_a_nested_key_with_spaces_at_its_ends_is_shown_in_brackets(capsys):
    Path("game.yaml").write_text(TABLE.replace("  - name: Ben\n", "  - name: Ben\n    ' kept': []\n"), "utf-8")
    _, _, err = run(capsys, "score", "game.yaml")
    assert err == "game.yaml:4:5: players[1][' kept']: unknown key ' kept'; did you mean 'kept'?\n"


# every problem in one pass

ONE_PASS = """\
players:
  - name: Ana
  - name: Ben
  - name: "Cy\\tD"
cards:
  challenges:
    round3: [harbor-stew, forest-risoto, farmhouse-pie]
    round6: [toasted-cheese, river-chowder, braised-shank]
  rumors: [fish-fanatic]
challenge_meals:
  round3:
    Ana:
      forest-risoto: {ingredients: [{type: fish, value: 3}]}
      harbor-stew: {ingredients: [{type: fish, value: 3, spice: carrot}]}
    Ann:
      farmhouse-pie: {ingredients: [{type: bread, value: 2}]}
critic_meals:
  "Cy\\tD": {courses: {fish: {value: 3}}}
"""


def test_an_unknown_challenge_hides_no_other_problem(capsys):
    """The unknown challenge's own meal, and the meals of a refused name, are not reported again."""
    Path("game.yaml").write_text(ONE_PASS, "utf-8")
    status, _, err = run(capsys, "score", "game.yaml")
    assert status == 1
    assert err.splitlines() == [
        "game.yaml:4:11: players[2].name: a player name must be printable text; "
        "this one has the control character '\\t': 'Cy\\tD'",
        "game.yaml:7:27: cards.challenges.round3[1]: unknown challenge card 'forest-risoto'; "
        "did you mean 'forest-risotto'?",
        "game.yaml:14:65: challenge_meals.round3.Ana.harbor-stew.ingredients[0].spice: "
        "carrot spice does not match fish; use fish or allspice",
        "game.yaml:15:5: challenge_meals.round3.Ann: unknown player 'Ann'; did you mean 'Ana'?",
    ]


def test_an_unknown_critic_leaves_only_the_problems_no_rule_decides(capsys):
    """A critic may change the spice limits: with an unknown one, a spice is not judged, a value is."""
    meals = "critic_meals:\n  Ana:\n    courses:\n      fish: {value: 0}\n      meat: {value: 2, spice: [meat, meat]}\n"
    Path("game.yaml").write_text(TABLE.replace("Ben", '""') + "  critic: no-such-critic\n" + meals, "utf-8")
    status, _, err = run(capsys, "score", "game.yaml")
    assert status == 1
    assert err.splitlines() == [
        "game.yaml:3:11: players[1].name: a player needs a name of 1 to 100 characters",
        "game.yaml:8:11: cards.critic: unknown critic card 'no-such-critic'",
        f"game.yaml:12:21: critic_meals.Ana.courses.fish.value: {VALUE}",
    ]
    Path("game.yaml").write_text(TABLE + "  critic: chef-cinnamon\n" + meals, "utf-8")
    _, _, err = run(capsys, "score", "game.yaml")
    assert err.splitlines() == [
        f"game.yaml:12:21: critic_meals.Ana.courses.fish.value: {VALUE}",
        "game.yaml:13:31: critic_meals.Ana.courses.meat.spice: 2 spices on one ingredient; at most 1 allowed",
    ]


def test_an_unknown_held_challenge_leaves_its_round_unjudged(capsys):
    """Which meal the Hold token helps is unknown: the round's meals are not judged, not misjudged."""
    record = TABLE.replace("farmhouse-pie]", "farmhouse-py]") + (
        "challenge_meals:\n  round3:\n    Ana:\n      harbor-stew: {ingredients: [{type: fish, value: 3}]}\n"
        "  round6:\n    Ana:\n      toasted-cheese: {ingredients: [{type: chese, value: 3}]}\n"
    )
    Path("game.yaml").write_text(record, "utf-8")
    _, _, err = run(capsys, "score", "game.yaml")
    assert err.splitlines() == [
        "game.yaml:6:43: cards.challenges.round3[2]: unknown challenge card 'farmhouse-py'; "
        "did you mean 'farmhouse-pie'?",
        "game.yaml:14:45: challenge_meals.round6.Ana.toasted-cheese.ingredients[0].type: "
        "unknown ingredient type 'chese'; did you mean 'cheese'?",
    ]


def test_without_players_the_meals_are_not_read(capsys):
    Path("game.yaml").write_text("players: Ana\n" + TABLE.split("\n", 3)[3] + "critic_meals: {Ana: {}}\n", "utf-8")
    _, _, err = run(capsys, "score", "game.yaml")
    assert err == "game.yaml:1:10: players: expected a list, got 'Ana'\n"


# folders of records, and records in pack folders


def games_folder() -> None:
    Path("games/league").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "two-players.yaml", "games/two-players.yaml")
    Path("games/notes.yaml").write_text("venue: the old mill\n", "utf-8")  # not a record: left alone


def test_validate_a_folder_of_records(capsys):
    games_folder()
    status, out, err = run(capsys, "validate", "games")
    assert (status, out, err) == (0, "ok: 1 checked, no problems\n", "")
    Path("games/league/week1.json").write_text(JSON_RECORD, "utf-8")
    Path("games/league/week2.yaml").write_text("players:\n  - name: [Ana\n", "utf-8")
    status, out, err = run(capsys, "validate", "games")
    assert (status, out) == (1, "")
    assert err == (
        "games/league/week1.json:8:15: cards.critic: CK301 unknown critic card 'no-such/critic'\n"
        f"games/league/week1.json:10:58: critic_meals.Ana.courses.fish.value: CK301 {VALUE}\n"
        "games/league/week2.yaml:3:1: CK002 YAML syntax error: did not find expected ',' or ']'\n"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_folder_walk_opens_no_link_pipe_or_device(capsys):
    """Only regular files are read: a named pipe would block, a link may lead anywhere."""
    games_folder()
    os.mkfifo("games/pipe.yaml")
    os.symlink("/dev/zero", "games/zero.yaml")
    os.symlink(ROOT / "examples" / "two-players.yaml", "games/league/linked.yaml")
    assert run(capsys, "validate", "games") == (0, "ok: 1 checked, no problems\n", "")


def test_a_folder_with_neither_packs_nor_records(capsys):
    Path("empty").mkdir()
    Path("empty/notes.yaml").write_text("venue: the old mill\n", "utf-8")
    status, _, err = run(capsys, "validate", "empty")
    assert (status, err) == (1, "empty: CK104 no pack.yaml and no game record in or below this folder\n")


def fan_pack() -> None:
    Path("fan/games").mkdir(parents=True)
    Path("fan/pack.yaml").write_text("id: fan\nname: Fan pack\n", "utf-8")
    shutil.copy(ROOT / "examples" / "two-players.yaml", "fan/games/good.yaml")


def test_a_record_in_a_pack_folder_is_checked_as_a_record(capsys):
    fan_pack()
    assert run(capsys, "validate", "fan") == (0, "ok: 2 checked, no problems\n", "")
    assert run(capsys, "validate", "fan/games/good.yaml") == (0, "ok: 1 checked, no problems\n", "")
    Path("fan/games/bad.yaml").write_text(YAML_RECORD, "utf-8")
    expected = (
        "fan/games/bad.yaml:8:11: cards.critic: CK301 unknown critic card 'no-such-critic'\n"
        f"fan/games/bad.yaml:12:21: critic_meals.Ana.courses.fish.value: CK301 {VALUE}\n"
    )
    assert run(capsys, "validate", "fan") == (1, "", expected)
    assert run(capsys, "validate", "fan/games/bad.yaml") == (1, "", expected)


def test_a_pack_that_keeps_records_still_loads(capsys):
    fan_pack()
    status, out, _ = run(capsys, "score", str(ROOT / "examples" / "two-players.yaml"), "--pack", "fan")
    assert status == 0
    assert out.startswith("  ")  # the score table
