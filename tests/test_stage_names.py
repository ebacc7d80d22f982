"""A stage's short name (``name`` beside ``id`` and ``description`` in a card's ``stages``):
the few words that head its row where room is short (the score pad's result), its
description one tap away. Optional: a stage without one is named by its description, as
before. At most :data:`STAGE_NAME_CHARS` characters, checked by ``validate``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from critter_kitchen import load_ruleset
from critter_kitchen.api import score_record
from critter_kitchen.cli import main
from critter_kitchen.model.ruleset import STAGE_NAME_CHARS

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
BROKEN = ROOT / "tests" / "packs" / "broken-stage-names"
SOLO = ROOT / "tests" / "golden" / "solo" / "against-mcdogalds.yaml"
BASE_NAMES = {
    "challenge.round3": "Round 3 meals",
    "challenge.round6": "Round 6 meals",
    "critic.most_soup": "Most soup",
    "critic.all_courses": "All courses",
    "critic.best_course": "Best course",
    "critic.rumors": "Rumors",
    "critic.card_bonuses": "Card bonuses",
    "critic.final_quality": "Score track",
}


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("schema", ["rules", "card"])
def test_the_schemas_allow_a_short_name_beside_the_id_and_say_its_limit(schema: str) -> None:
    document = json.loads((SCHEMAS / f"{schema}.schema.json").read_text("utf-8"))
    name = document["properties"]["stages"]["items"]["properties"]["name"]
    assert name["type"] == "string" and name["minLength"] == 1
    assert f"at most {STAGE_NAME_CHARS} characters" in name["description"]
    check = Draft202012Validator(document)
    card = {"id": "x", "kind": "rules" if schema == "rules" else "rumor", "name": "X"}
    stage = {
        "id": "critic.x",
        "name": "X stage",
        "description": "x",
        "do": 'award 1 star to highest(1 for p in players) for "x"',
    }
    assert list(check.iter_errors({**card, "stages": [stage]})) == []
    assert [e.validator for e in check.iter_errors({**card, "stages": [{**stage, "name": ""}]})] == ["minLength"]


def test_validate_refuses_a_stage_name_past_the_limit_where_it_is_written(capsys) -> None:
    assert main(["validate", str(BROKEN.relative_to(ROOT))]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "tests/packs/broken-stage-names/curtain-call.yaml:7:11: CK101 stage name 'Curtain call for everyone who "
        "served' has 36 characters; a stage's name may have at most 24 (its description may say the rest)",
        "tests/packs/broken-stage-names/rules.yaml:12:11: CK101 stage name 'The stage whose name runs past the "
        "row' has 38 characters; a stage's name may have at most 24 (its description may say the rest)",
    ]


def test_a_name_of_exactly_the_limit_is_kept(tmp_path: Path) -> None:
    pack = tmp_path / "edge"
    pack.mkdir()
    (pack / "pack.yaml").write_text("id: edge\nname: Edge\n")
    stage = {
        "id": "critic.edge",
        "name": "x" * STAGE_NAME_CHARS,
        "do": 'award 1 star to highest(1 for p in players) for "edge"',
    }
    (pack / "rules.yaml").write_text(
        yaml.safe_dump({"id": "edge-rules", "kind": "rules", "name": "E", "stages": [stage]})
    )
    stages = {s.name: s for s in load_ruleset([pack]).stages}
    assert stages["critic.edge"].short_name == "x" * STAGE_NAME_CHARS


def test_the_base_and_a_la_carte_stages_have_short_names_within_the_limit() -> None:
    base = {s.name: s.short_name for s in load_ruleset([]).stages}
    assert base == BASE_NAMES
    alc = {s.name: s.short_name for s in load_ruleset([ROOT / "cards" / "a-la-carte"]).stages}
    assert alc == {**BASE_NAMES, "alc.trophies": "Trophies", "alc.pepper": "Pepper tokens"}
    assert all(0 < len(n) <= STAGE_NAME_CHARS for n in alc.values())


def test_explain_names_each_stage_and_falls_back_to_its_description_without_a_name(capsys) -> None:
    assert main(["score", "examples/two-players.yaml", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "\n  critic.rumors (Rumors): the three rumors are revealed; their effects hook onto this stage\n" in out
    # the solo rules replace two stages and give them no short name: their descriptions, as before
    assert main(["score", str(SOLO.relative_to(ROOT)), "--pack", "cards/solo", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "\n  critic.most_soup: unused soup and bisque worth at least solo_soup_target earn 1 star\n" in out
    assert "\n  challenge.round3 (Round 3 meals): each challenge meal of round 3 earns stars" in out


def test_the_pads_rows_take_the_short_name_and_keep_the_description_or_fall_back() -> None:
    pytest.importorskip("fastapi")
    from critter_kitchen.report.json import result_json
    from critter_kitchen.web.pages import explained, stage_table

    data = yaml.safe_load((ROOT / "examples" / "two-players.yaml").read_text())
    result = score_record(data, trace=True)

    table = stage_table(data, result_json(result), explained(result, {}), {})
    rumors = next(r for r in table["rows"] if r["stage"] == "critic.rumors")
    assert (rumors["words"], rumors["about"]) == (
        "Rumors",
        "the three rumors are revealed; their effects hook onto this stage",
    )
    solo = yaml.safe_load(SOLO.read_text())
    result = score_record(solo, packs=["cards/solo"], trace=True)
    table = stage_table(solo, result_json(result), explained(result, {}), {})
    soup = next(r for r in table["rows"] if r["stage"] == "critic.most_soup")
    assert (soup["words"], soup["about"]) == ("unused soup and bisque worth at least solo_soup_target earn 1 star", "")


def test_cards_json_gives_a_stages_name_only_where_it_has_one(capsys) -> None:
    assert main(["cards", "base-rules", "--format", "json"]) == 0
    card = json.loads(capsys.readouterr().out)
    first = card["stages"][0]
    assert (first["id"], first["name"]) == ("challenge.round3", "Round 3 meals")
    assert main(["cards", "encore", "--pack", "tests/packs/card-stages", "--format", "json"]) == 0
    card = json.loads(capsys.readouterr().out)
    assert "name" not in card["stages"][0]


def test_a_stage_name_is_printed_escaped(tmp_path: Path, capsys) -> None:
    # a name with a terminal sequence, markup and a line break: --explain prints it escaped, on one
    # line; cards escapes it too
    pack = tmp_path / "loud"
    pack.mkdir()
    (pack / "pack.yaml").write_text("id: loud\nname: Loud\n")
    stage = {
        "id": "critic.loud",
        "name": "\x1b[2J<b>Loud</b>\nWinner",
        "description": "a stage whose name would clear the screen",
        "do": 'award 0 stars to highest(1 for p in players) for "loud"',
    }
    (pack / "rules.yaml").write_text(
        yaml.safe_dump({"id": "loud-rules", "kind": "rules", "name": "L", "stages": [stage]})
    )
    assert main(["score", "examples/two-players.yaml", "--pack", str(pack), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\nWinner (" not in out
    assert "  critic.loud (\\x1b[2J<b>Loud</b> Winner): a stage whose name would clear the screen\n" in out
    assert main(["cards", "loud-rules", "--pack", str(pack)]) == 0
    assert "\x1b" not in capsys.readouterr().out
