"""`critter-kitchen validate` on whole packs, in each output format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
BROKEN = sorted(p for p in (ROOT / "tests" / "packs").glob("broken-*") if p.is_dir())


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("pack", BROKEN, ids=[p.name for p in BROKEN])
def test_broken_pack_text(pack, capsys):
    status, out, err = run(capsys, "validate", str(pack.relative_to(ROOT)))
    assert (status, out) == (1, "")
    assert err == (pack / "validate.expected").read_text("utf-8")


@pytest.mark.parametrize("pack", BROKEN, ids=[p.name for p in BROKEN])
def test_broken_pack_github(pack, capsys):
    status, out, _ = run(capsys, "validate", str(pack.relative_to(ROOT)), "--format", "github")
    assert status == 1
    assert out == (pack / "validate-github.expected").read_text("utf-8")
    assert all(line.startswith("::error file=") for line in out.splitlines())


def test_json_format_lists_every_problem(capsys):
    status, out, _ = run(capsys, "validate", "tests/packs/broken-conflicts", "--format", "json")
    rows = json.loads(out)
    assert status == 1
    assert [set(r) for r in rows] == [{"path", "line", "column", "code", "message"}] * 4
    assert {r["code"] for r in rows} == {"CK205"}


def test_clean_tree_and_records(capsys):
    status, out, err = run(capsys, "validate", "cards", "examples/two-players.yaml", "--format", "json")
    assert (status, json.loads(out), err) == (0, [], "")


def test_invalid_record_through_validate(capsys):
    status, out, err = run(capsys, "validate", "tests/records/invalid/only-soup.yaml")
    assert status == 1
    assert err == (
        "tests/records/invalid/only-soup.yaml:12:9: challenge_meals.round3.Ana.harbor-stew: "
        "CK302 no required ingredient, only soup\n"
    )


def test_a_pack_checked_and_named_with_pack_loads_once(capsys, tmp_path):
    status, out, err = run(capsys, "validate", "tests/packs/fixtures", "--pack", "tests/packs/fixtures")
    assert (status, out, err) == (0, "ok: 1 checked, no problems\n", "")


def test_a_pack_named_twice_with_pack_is_loaded_twice(capsys, tmp_path):
    fixtures = ["--pack", "tests/packs/fixtures"]
    status, _, err = run(capsys, "validate", "examples/two-players.yaml", *fixtures, *fixtures)
    assert (status, err) == (1, "tests/packs/fixtures/pack.yaml:1:5: CK104 pack 'fixtures' is loaded twice\n")


def test_missing_path(capsys):
    status, _, err = run(capsys, "validate", "no/such/place")
    assert (status, err) == (1, "no/such/place: CK001 no such file or folder\n")


SIBLINGS = "tests/packs/siblings"  # two packs; a game kept in one names the other by id


@pytest.mark.parametrize(
    "args",
    [
        [SIBLINGS],  # was: this record needs pack 'sibling-fan'; load it with --pack sibling-fan
        [SIBLINGS, "--pack", f"{SIBLINGS}/fan"],  # was: pack 'sibling-fan' is loaded twice
        [f"{SIBLINGS}/house"],
    ],
)
def test_a_game_kept_in_a_pack_finds_the_packs_it_names_beside_it_by_id(args, capsys):
    status, out, err = run(capsys, "validate", *args)
    checked = 2 if args == [f"{SIBLINGS}/house"] else 3  # the packs and the game
    assert (status, out, err) == (0, f"ok: {checked} checked, no problems\n", "")


def test_a_game_kept_in_a_pack_named_alone_finds_its_packs_beside_it(capsys):
    status, out, err = run(capsys, "validate", f"{SIBLINGS}/house/games/two-players.yaml")
    assert (status, out, err) == (0, "ok: 1 checked, no problems\n", "")


def test_a_game_naming_a_pack_found_nowhere_still_says_so(tmp_path, capsys):
    home = tmp_path / "house"
    (home / "games").mkdir(parents=True)
    (home / "pack.yaml").write_text("id: lonely-house\nname: Lonely\n", "utf-8")
    game = (ROOT / SIBLINGS / "house" / "games" / "two-players.yaml").read_text("utf-8")
    (home / "games" / "game.yaml").write_text(game.replace("late-supper", "underdog"), "utf-8")
    status, _, err = run(capsys, "validate", str(tmp_path))
    assert status == 1
    assert err == (
        f"{home / 'games' / 'game.yaml'}:2:9: packs[0]: CK301 this record needs pack 'sibling-fan'; "
        "load it with --pack sibling-fan\n"
    )


def _places(file: str, text: str) -> list[tuple[int, int]]:
    """Where ``text`` stands in ``file`` (line, column), each time."""
    lines = (ROOT / file).read_text("utf-8").splitlines()
    return [(i, line.index(text) + 1) for i, line in enumerate(lines, 1) if text in line]


def test_a_house_rule_that_takes_a_round_out_is_told_where_it_does(tmp_path, capsys):
    pack = tmp_path / "one-day"
    pack.mkdir()
    (pack / "pack.yaml").write_text("id: one-day\nname: One challenge day\n", "utf-8")
    (pack / "rules.yaml").write_text(
        "id: one-day-rules\nkind: rules\nname: One challenge day\nparameters:\n  challenge_rounds:\n"
        "    value: [round3]\n",
        "utf-8",
    )
    broken = [
        (file, line, column + len("meals("))
        for file in ("cards/base/rules.yaml", "cards/base/rumors/fresh-in-mind.yaml")
        for line, column in _places(file, "meals(round6)")
    ]
    assert len(broken) == 3
    status, out, _ = run(capsys, "validate", str(pack), "--format", "github")
    assert status == 1
    assert out == "".join(
        f"::error file={pack / 'rules.yaml'},line=5,col=3::CK202 this makes round 'round6' unknown to "
        f"{file}:{line}:{column} (unknown round 'round6'; did you mean 'round3'?)\n"
        for file, line, column in broken
    )


def test_a_problem_in_an_installed_pack_that_no_file_explains_is_told_at_the_pack_checked(capsys):
    # the base deal's supply names bisque, which the house rule's token_values took out
    (line, column), *_ = _places("cards/base/rules.yaml", "bisque: 7")
    column += len("bisque: ")  # the number the unknown key holds
    status, out, _ = run(capsys, "validate", "tests/packs/broken-no-bisque", "--format", "github")
    assert status == 1
    assert out.splitlines()[0] == (
        "::error file=tests/packs/broken-no-bisque/pack.yaml,line=1,col=1::CK206 with this pack loaded, "
        f"cards/base/rules.yaml:{line}:{column}: unknown token 'bisque'"
    )
    assert "file=cards/" not in out


def test_an_annotation_never_points_into_the_installed_packs_from_any_working_folder(tmp_path, capsys, monkeypatch):
    # Outside the repository, the base pack's files are still shown as cards/base/...: the
    # problem the house rule causes there is told at the pack checked all the same.
    import shutil

    shutil.copytree(ROOT / "tests" / "packs" / "broken-no-bisque", tmp_path / "no-bisque")
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "validate", "no-bisque", "--format", "github")
    assert status == 1
    assert out.splitlines()[0].startswith(
        "::error file=no-bisque/pack.yaml,line=1,col=1::CK206 with this pack loaded, cards/base/rules.yaml:"
    )
    assert "file=cards/" not in out


def test_a_stage_removed_by_one_pack_is_told_where_for_the_pack_whose_card_names_it(tmp_path, capsys):
    fan, house = tmp_path / "fan", tmp_path / "house"
    fan.mkdir()
    house.mkdir()
    (fan / "pack.yaml").write_text("id: fan\nname: Fan\n", "utf-8")
    (fan / "echo.yaml").write_text(
        "id: echo\nkind: rumor\nname: Echo\neffects:\n  - after: critic.rumors\n    do: |\n"
        '      for p in players:\n          award stage_stars(p, "critic.best_course") stars to p\n',
        "utf-8",
    )
    (house / "pack.yaml").write_text("id: house\nname: House\nrequires: [fan]\n", "utf-8")
    (house / "rules.yaml").write_text(
        "id: house-rules\nkind: rules\nname: House\nremove_stages: [critic.best_course]\n", "utf-8"
    )
    status, out, _ = run(capsys, "validate", str(tmp_path), "--format", "github")
    assert status == 1
    (line, column), *_ = _places("cards/base/critics/sir-reginald-crumb.yaml", '"critic.best_course"')
    said = "unknown stage 'critic.best_course'; did you mean 'critic.all_courses'?"
    at = f"::error file={house / 'rules.yaml'},line=4,col=17::CK202 this makes stage 'critic.best_course' unknown to"
    assert out == (  # in the order of their messages
        f"{at} {fan / 'echo.yaml'}:8:32 ({said})\n"
        f"{at} cards/base/critics/sir-reginald-crumb.yaml:{line}:{column} ({said})\n"
    )
