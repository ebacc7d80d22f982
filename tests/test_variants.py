"""Expansions, modes and house rules as card packs: À La Carte (a model), solo, no friendly ties.

The golden games in ``tests/golden/{a-la-carte,solo,no-friendly-ties}/`` fix the exact
results; these tests check what the packs are for: the house rule changes the result of
the same record, solo output says whether the player beat McDogald's, the packs' limits
hold, and the example games under ``examples/*/`` score with the packs their
``packs.txt`` names.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
ALC = "cards/a-la-carte"
SOLO = "cards/solo"
NO_TIES = "cards/variants/no-friendly-ties"
TIES_RECORD = "tests/golden/no-friendly-ties/three-tied-chefs.yaml"
SOLO_RECORD = "tests/golden/solo/against-mcdogalds.yaml"
SEVEN_RECORD = "tests/golden/a-la-carte/seven-players.yaml"
PACKED_EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*/*.yaml") if (p.parent / "packs.txt").is_file())


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def score_json(capsys: pytest.CaptureFixture[str], record: str, *packs: str) -> dict[str, Any]:
    args = [arg for pack in packs for arg in ("--pack", pack)]
    status, out, err = run(capsys, "score", record, "--format", "json", *args)
    assert status == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def stage_stars(result: dict[str, Any], stage: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for award in result["awards"]:
        if award["stage"] == stage:
            out[award["player"]] = out.get(award["player"], 0) + award["stars"]
    return out


def write_record(tmp_path: Path, record: dict[str, Any], name: str = "game.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(record, allow_unicode=True), encoding="utf-8")
    return str(path)


def load_record(relative: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / relative).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


# no friendly ties


def test_no_friendly_ties_changes_the_result_of_the_same_record(capsys):
    base = score_json(capsys, TIES_RECORD)
    house = score_json(capsys, TIES_RECORD, NO_TIES)

    assert base["winner"] == "Ana"
    assert house["winner"] == "Cleo"
    assert {s["name"]: s["stars"] for s in base["standings"]} == {"Ana": 12, "Ben": 11, "Cleo": 10}
    assert {s["name"]: s["stars"] for s in house["standings"]} == {"Ana": 8, "Ben": 7, "Cleo": 10}

    # most soup: Ana and Ben tie at 4; friendly in the base game, nobody's with the house rule
    assert stage_stars(base, "critic.most_soup") == {"Ana": 1, "Ben": 1}
    assert stage_stars(house, "critic.most_soup") == {}
    # best of each course: the tied carrot, fish and wine courses give nothing
    assert stage_stars(base, "critic.best_course") == {"Ana": 5, "Ben": 3, "Cleo": 2}
    assert stage_stars(house, "critic.best_course") == {"Ana": 2, "Cleo": 2}
    tied = {"best carrot course (5)", "best fish course (8)", "best wine course (6)"}
    assert tied <= {a["reason"] for a in base["awards"]}
    assert not tied & {a["reason"] for a in house["awards"]}
    # everything else is scored as in the base game
    for stage in ("challenge.round3", "challenge.round6", "critic.all_courses", "critic.final_quality"):
        assert stage_stars(base, stage) == stage_stars(house, stage)


def test_no_friendly_ties_keeps_a_single_winner(capsys, tmp_path):
    record = load_record(TIES_RECORD)
    record["critic_meals"]["Ben"]["soup"] = 5  # Ben alone has the most soup now
    house = score_json(capsys, write_record(tmp_path, record), NO_TIES)
    assert stage_stars(house, "critic.most_soup") == {"Ben": 1}


# solo


def test_solo_text_says_the_player_beats_mcdogalds(capsys):
    status, out, err = run(capsys, "score", SOLO_RECORD, "--pack", SOLO)
    assert status == 0, err
    assert "Ana beats McDogald's." in out.splitlines()
    assert "decided by: farther along the critic score track" in out


def test_solo_text_says_when_mcdogalds_wins(capsys, tmp_path):
    record = load_record(SOLO_RECORD)
    record["players"][1]["automated"]["stars"] = 20
    status, out, err = run(capsys, "score", write_record(tmp_path, record), "--pack", SOLO)
    assert status == 0, err
    assert "Ana does not beat McDogald's." in out.splitlines()


def test_solo_rival_is_ranked_from_the_record_only(capsys):
    result = score_json(capsys, SOLO_RECORD, SOLO)
    rival = next(s for s in result["standings"] if s["name"] == "McDogald's")
    assert rival == {"rank": 2, "name": "McDogald's", "stars": 19, "critic_quality": 44, "automated": True}
    assert all(a["player"] == "Ana" for a in result["awards"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["players"].pop(), "0 automated players; this game takes 1 to 1"),
        (lambda r: r["players"].insert(1, {"name": "Ben"}), "2 players; this game takes 1 to 1"),
    ],
    ids=["no-rival", "two-players"],
)
def test_solo_needs_one_player_and_one_rival(capsys, tmp_path, change, message):
    record = load_record(SOLO_RECORD)
    change(record)
    status, out, err = run(capsys, "score", write_record(tmp_path, record), "--pack", SOLO)
    assert (status, out) == (1, "")
    assert message in err


def test_base_game_has_no_automated_rivals(capsys):
    status, _, err = run(capsys, "score", SOLO_RECORD)
    assert status == 1
    assert "1 player; this game takes 2 to 5" in err
    assert "1 automated player; this game takes none" in err


# À La Carte (model)


def test_a_la_carte_takes_seven_players_but_not_eight(capsys, tmp_path):
    record = load_record(SEVEN_RECORD)
    record["players"].append({"name": "Hal"})
    status, _, err = run(capsys, "score", write_record(tmp_path, record), "--pack", ALC)
    assert status == 1
    assert "8 players; this game takes 2 to 7" in err
    status, _, err = run(capsys, "score", SEVEN_RECORD)  # without the pack: 5 at most, none of its cards
    assert status == 1
    assert "7 players; this game takes 2 to 5" in err
    assert "players[0].counters.trophies: unknown counter 'trophies'" in err
    assert "cards.vendors: unknown key 'vendors'" in err


def test_a_la_carte_trophies_break_a_tie_before_priority(capsys):
    result = score_json(capsys, SEVEN_RECORD, ALC)
    first, second = result["standings"][:2]
    assert (first["name"], second["name"]) == ("Dev", "Cleo")
    assert first["stars"] == second["stars"] and first["critic_quality"] == second["critic_quality"]
    assert result["decided_by"] == "more trophies"


def test_a_la_carte_token_course_needs_head_chef_brodo(capsys, tmp_path):
    record = load_record(SEVEN_RECORD)
    del record["players"][6]["head_chef"]  # Gus without Head Chef Brodo
    status, _, err = run(capsys, "score", write_record(tmp_path, record), "--pack", ALC)
    assert status == 1
    assert "critic_meals.Gus.courses.fish: soup cannot fill a critic course" in err


def test_vendor_cards_are_checked_by_the_packs_own_schema(capsys, tmp_path):
    pack = tmp_path / "a-la-carte"
    shutil.copytree(ROOT / ALC, pack)
    card = pack / "vendors" / "coffee-cart.yaml"
    card.write_text(card.read_text(encoding="utf-8").replace("brings: coffee", "brings: tea"), encoding="utf-8")
    status, _, err = run(capsys, "validate", str(pack))
    assert status == 1
    assert "CK101 brings: 'tea' is not one of: cookbooks, coffee, tofu, trophies" in err


def test_house_rule_and_expansion_load_together(capsys):
    status, out, err = run(capsys, "validate", "cards", "--format", "json")
    assert (status, json.loads(out), err) == (0, [], "")
    result = score_json(capsys, "tests/golden/a-la-carte/six-players.yaml", ALC, NO_TIES)
    # six-players has friendly ties for the best cheese and meat courses and for most soup
    assert "critic.most_soup" not in {a["stage"] for a in result["awards"]}
    assert not {"best cheese course (12)", "best meat course (10)"} & {a["reason"] for a in result["awards"]}


# example games that need packs


def test_packed_examples_exist():
    folders = {p.parent.name for p in PACKED_EXAMPLES}
    assert {"a-la-carte", "solo"} <= folders


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("example", PACKED_EXAMPLES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_packed_example_scores(capsys, example, fmt):
    lines = (example.parent / "packs.txt").read_text(encoding="utf-8").splitlines()
    listing = [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]
    args = [arg for pack in listing for arg in ("--pack", pack)]
    status, out, err = run(capsys, "score", example.relative_to(ROOT).as_posix(), "--format", fmt, *args)
    assert status == 0, err
    assert out.strip()
    if fmt == "json":
        result = json.loads(out)
        assert result["winner"] == result["standings"][0]["name"]


# every card of the packs reads back in plain English

PACK_CARDS = [
    (pack, yaml.safe_load(path.read_text(encoding="utf-8"))["id"])
    for pack in (ALC, SOLO, NO_TIES)
    for path in sorted((ROOT / pack).rglob("*.yaml"))
    if path.name != "pack.yaml"
]


@pytest.mark.parametrize(("pack", "card_id"), PACK_CARDS, ids=[card for _, card in PACK_CARDS])
def test_pack_card_renders(capsys, pack, card_id):
    status, out, err = run(capsys, "cards", card_id, "--pack", pack)
    assert status == 0, err
    assert f"({card_id})\n" in out.splitlines(keepends=True)[0]


def test_removing_a_stage_also_silences_the_cards_hooked_to_it():
    from critter_kitchen import load_ruleset, result_json, score_record
    from critter_kitchen.loading.yamlpos import parse

    path = ROOT / "examples" / "three-players.yaml"  # Madame Bouillon replaces most soup here
    record = parse(str(path), path.read_text("utf-8")).data
    base = result_json(score_record(record, load_ruleset()))
    removed_rules = load_ruleset([ROOT / "cards" / "variants" / "no-soup-race"])
    removed = result_json(score_record(record, removed_rules))
    assert "critic.most_soup" not in removed_rules.stage_names()
    assert any(a["stage"] == "critic.most_soup" and a["card"] == "madame-bouillon" for a in base["awards"])
    assert [a for a in removed["awards"] if a["stage"] != "critic.most_soup"] == removed["awards"]
    assert [a for a in base["awards"] if a["stage"] != "critic.most_soup"] == removed["awards"]


def test_a_pack_may_change_the_score_track(tmp_path):
    from critter_kitchen import load_ruleset, result_json, score_record
    from critter_kitchen.loading.yamlpos import parse

    pack = tmp_path / "short-track"
    pack.mkdir()
    (pack / "pack.yaml").write_text("id: short-track\nname: Short track\n", "utf-8")
    (pack / "rules.yaml").write_text(
        "id: short-track-rules\nkind: rules\nname: Short track\nparameters:\n"
        "  track_length: {value: 30}\n  score_track: {value: [[0, 0], [15, 2]]}\n",
        "utf-8",
    )
    path = ROOT / "examples" / "two-players.yaml"
    record = parse(str(path), path.read_text("utf-8")).data

    def final_stars(rules):
        awards = result_json(score_record(record, rules))["awards"]
        return {a["player"]: a["stars"] for a in awards if a["stage"] == "critic.final_quality"}

    short = final_stars(load_ruleset([pack]))
    assert short != final_stars(load_ruleset())
    for name, stars in short.items():
        quality = next(
            s["critic_quality"]
            for s in result_json(score_record(record, load_ruleset([pack])))["standings"]
            if s["name"] == name
        )
        assert stars == quality // 30 * 10 + (2 if quality % 30 >= 15 else 0)
