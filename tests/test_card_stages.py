"""A card other than a rules card may declare a stage: it exists only while that card is in play.

The stage takes its place in the stage order when the packs load (so other cards may hook
it and validate knows its name), but runs only in games where its card is in play; a
player-held card's stage runs once for each holder, who is ``owner`` in it. A stage that
did not run gets no row in the text table; the JSON holds awards only, as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from critter_kitchen import load_ruleset, result_json, score_record
from critter_kitchen.cli import main
from critter_kitchen.report.text import result_text

ROOT = Path(__file__).resolve().parent.parent
CARD_STAGES = ROOT / "tests" / "packs" / "card-stages"
ROUND3 = ["harbor-stew", "forest-risotto", "farmhouse-pie"]
ROUND6 = ["toasted-cheese", "river-chowder", "braised-shank"]
BASE_ROWS = [
    "challenge.round3",
    "challenge.round6",
    "critic.most_soup",
    "critic.all_courses",
    "critic.best_course",
    "critic.rumors",
    "critic.card_bonuses",
    "critic.final_quality",
]


@pytest.fixture(scope="module")
def rules():
    return load_ruleset([CARD_STAGES])


def record(*, critic=None, rumors=(), tip_jar=(), ana_fish=4):
    players = [{"name": name, **({"restaurateur": "tip-jar"} if name in tip_jar else {})} for name in ("Ana", "Ben")]
    cards = {"challenges": {"round3": ROUND3, "round6": ROUND6}, "rumors": list(rumors)}
    if critic:
        cards["critic"] = critic
    return {
        "players": players,
        "cards": cards,
        "critic_meals": {
            "Ana": {"courses": {"fish": {"value": ana_fish}, "meat": {"value": 2}}},
            "Ben": {"courses": {"fish": {"value": 5}}},
        },
    }


def rows(result) -> dict[str, list[str]]:
    """Stage rows of the text table: label -> the cells."""
    lines = result_text(result).splitlines()
    table = lines[1 : next(i for i, line in enumerate(lines) if line.startswith("---"))]
    return {line.split()[0]: line.split()[1:] for line in table}


def test_the_stage_a_critic_declares_goes_into_the_stage_order_after_its_anchor(rules):
    names = rules.stage_names()
    assert names.index("critic.fish_verdict") == names.index("critic.card_bonuses") + 1
    # The Encore rumor's file is read before the Tip Jar's, yet goes after its stage.
    assert names.index("critic.tips") == names.index("critic.final_quality") - 2
    assert names.index("critic.encore") == names.index("critic.tips") + 1
    assert rules.stages[names.index("critic.fish_verdict")].card == "fish-judge"


def test_a_critics_stage_awards_its_star_and_gets_a_row_when_the_critic_is_in_play(rules):
    result = score_record(record(critic="fish-judge"), rules)
    awards = [a for a in result_json(result)["awards"] if a["stage"] == "critic.fish_verdict"]
    assert awards == [
        {
            "player": "Ben",
            "stage": "critic.fish_verdict",
            "stars": 1,
            "card": "fish-judge",
            "reason": "fish verdict (5)",
        }
    ]
    table = rows(result)
    assert list(table) == [*BASE_ROWS[:7], "critic.fish_verdict", "critic.final_quality"]
    assert table["critic.fish_verdict"] == ["0", "1"]
    assert {s["name"]: s["stars"] for s in result_json(result)["standings"]} == {"Ana": 1, "Ben": 2}


def test_without_the_critic_the_stage_has_no_row_and_the_result_is_the_base_games(rules):
    base = load_ruleset([])
    without = score_record(record(), rules)
    assert list(rows(without)) == BASE_ROWS
    assert result_json(without) == result_json(score_record(record(), base))
    assert result_text(without) == result_text(score_record(record(), base))


def test_a_rumor_hooks_after_the_stage_a_critic_declares(rules):
    result = score_record(record(critic="fish-judge", rumors=["verdict-echo"]), rules)
    echoes = [a for a in result_json(result)["awards"] if a["card"] == "verdict-echo"]
    # The rumor runs after the stage, so it sees the verdict's star.
    assert echoes == [
        {
            "player": "Ben",
            "stage": "critic.fish_verdict",
            "stars": 1,
            "card": "verdict-echo",
            "reason": "echo of the verdict",
        }
    ]
    assert rows(result)["critic.fish_verdict"] == ["0", "2"]


def test_a_rumor_hooked_to_a_stage_whose_card_is_not_in_play_does_nothing(rules):
    result = score_record(record(rumors=["verdict-echo"]), rules)
    assert [a for a in result_json(result)["awards"] if a["card"] == "verdict-echo"] == []
    assert list(rows(result)) == BASE_ROWS


def test_a_held_cards_stage_runs_once_for_its_holder_as_owner(rules):
    result = score_record(record(tip_jar=("Ana",), ana_fish=14), rules)
    tips = [a for a in result_json(result)["awards"] if a["stage"] == "critic.tips"]
    assert tips == [{"player": "Ana", "stage": "critic.tips", "stars": 1, "card": "tip-jar", "reason": "tips"}]
    table = rows(result)
    assert list(table) == [*BASE_ROWS[:7], "critic.tips", "critic.final_quality"]
    assert table["critic.tips"] == ["1", "0"]


def test_a_stage_placed_after_another_cards_stage_runs_after_it(rules):
    result = score_record(record(tip_jar=("Ana",), ana_fish=14, rumors=["encore"]), rules)
    table = rows(result)
    assert list(table) == [*BASE_ROWS[:7], "critic.tips", "critic.encore", "critic.final_quality"]
    assert table["critic.encore"] == ["1", "0"]


def test_a_stage_that_ran_without_an_award_still_has_its_row(rules):
    # Ana's 6 quality earns no tip, but the Tip Jar is in play and its stage ran.
    result = score_record(record(tip_jar=("Ana",)), rules)
    assert rows(result)["critic.tips"] == ["0", "0"]


def test_cards_shows_the_stage_a_critic_declares(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["cards", "fish-judge", "--pack", "tests/packs/card-stages"]) == 0
    out = capsys.readouterr().out
    assert "Stage critic.fish_verdict: the highest fish course quality gets 1 star" in out


def test_two_cards_declaring_one_stage_name_is_a_located_problem(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["validate", "tests/packs/card-stages/clash", "--pack", "tests/packs/card-stages"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "tests/packs/card-stages/clash/other-judge.yaml:5:9: CK205 stage 'critic.fish_verdict' is also declared "
        "by card 'fish-judge' (tests/packs/card-stages/fish-judge.yaml:6)",
    ]


def test_a_card_declaring_a_rules_stage_or_stages_placed_by_each_other_is_a_problem(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["validate", "tests/packs/card-stages/rules-clash"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "tests/packs/card-stages/rules-clash/soup-judge.yaml:5:9: CK205 stage 'critic.most_soup' already exists; "
        "only a rules card may replace a stage, other cards hook 'replace: critic.most_soup'",
        "tests/packs/card-stages/rules-clash/soup-judge.yaml:9:13: CK204 stage 'critic.left' cannot go before "
        "stage 'critic.right': their places depend on each other",
        "tests/packs/card-stages/rules-clash/soup-judge.yaml:13:12: CK204 stage 'critic.right' cannot go after "
        "stage 'critic.left': their places depend on each other",
    ]
