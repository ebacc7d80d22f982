"""``critter-kitchen score --explain`` (report/explain.py, the one account the score pad lays
out too): each player's critic quality as the sum of their courses, each course a card
changed with what it did, where the value came from; each stage in words; the packs that set
a parameter's value. Keeping that trace changes no result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from critter_kitchen import load_ruleset
from critter_kitchen.api import score_record
from critter_kitchen.cli import main
from critter_kitchen.report.json import result_json

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = sorted((ROOT / "tests" / "golden").rglob("*.yaml"))


def explain(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["score", *args, "--explain"]) == 0
    return capsys.readouterr().out


def test_explain_says_each_critic_quality_as_a_sum_with_every_card_that_changed_a_course(capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    out = explain(capsys, "examples/two-players.yaml")
    part = out.split("\nCritic quality:\n", 1)[1].split("\n\n", 1)[0]
    assert part.splitlines() == [
        "  Ana 47 = carrot 4 + fish 18 + cheese 6 + meat 12 + wine 4 + bread 3",
        "    fish 18: served 3 with fish = 9, then ×2 by fish-fanatic (critic.rumors) = 18",
        "  Ben 39 = carrot 4 + fish 10 + cheese 5 + mushroom 5 + meat 5 + wine 6 + bread 4",
        "    fish 10: served 5 = 5, then ×2 by fish-fanatic (critic.rumors) = 10",
        "    cheese 5: served 3 = 3, then +2 by the-forager (critic.final_quality) = 5",
        "    mushroom 5: served 3 = 3, then +2 by the-forager (critic.final_quality) = 5",
        "    bread 4: served 2 = 2, then +2 by the-forager (critic.final_quality) = 4",
    ]
    assert "  critic.rumors (Rumors): the three rumors are revealed; their effects hook onto this stage\n" in out


def test_explain_gives_an_automated_rivals_quality_as_given(capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    out = explain(capsys, "tests/golden/solo/against-mcdogalds.yaml", "--pack", "cards/solo")
    assert "\n  McDogald's 44 (given, an automated rival)\n" in out
    assert "\n    bread 1: served 3 = 3, then -2 by stale-bread (critic.rumors) = 1\n" in out


@pytest.mark.parametrize("record", GOLDEN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_keeping_the_trace_changes_no_result(record: Path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    packs_file = next((d / "packs.txt" for d in record.parents if (d / "packs.txt").is_file()), None)
    packs = packs_file.read_text().split() if packs_file else []
    data = yaml.safe_load(record.read_text())
    traced = score_record(data, packs=packs, trace=True)
    assert traced.game.trace is not None
    assert result_json(traced) == json.loads(record.with_suffix(".json").read_text())
    # the trace ends where each course ends: its last change is the course's final quality
    for name, kind, _, after, _, _ in traced.game.trace:
        last = [t for t in traced.game.trace if t[:2] == (name, kind)][-1]
        player = next(p for p in traced.game.players if p.name == name)
        assert last[3] == player.courses[kind].quality, (name, kind, after)


def test_a_parameter_says_which_packs_set_its_value_in_load_order() -> None:
    rules = load_ruleset([ROOT / "cards" / "a-la-carte"])
    assert rules.parameters["max_players"].set_by == (("base", 5), ("a-la-carte", 7))
    assert load_ruleset([]).parameters["max_players"].set_by == (("base", 5),)


def test_the_seven_player_example_names_its_pack_and_scores_as_its_golden_game(capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["score", "examples/a-la-carte/seven-players.yaml", "--format", "json"]) == 0
    golden = (ROOT / "tests" / "golden" / "a-la-carte" / "seven-players.json").read_text()
    assert json.loads(capsys.readouterr().out) == json.loads(golden)
