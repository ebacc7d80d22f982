"""The work of one game is bounded; suggestions stay cheap; a pack cannot remove every stage.

Cards that load cleanly (within every load-time limit) but would run for many seconds or
build millions of awards are refused for the record that puts them in play, with a
message that names the card and the stage. Nothing here is timed: the budget is checked
by its outcome and by the work real games take.
"""

from __future__ import annotations

import json
from pathlib import Path

import fuzzlib
import pytest
import yaml

from critter_kitchen import errors
from critter_kitchen.dsl import budget

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
OVER_BUDGET = "the effects of this game took more than 200,000 steps (statements, loop items and awards)"


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", "off")
    return tmp_path


def nested_loops(depth: int, body: list[str]) -> str:
    lines = [" " * i + f"for v{i} in ingredient_types:" for i in range(depth)]
    return "\n".join([*lines, *(" " * depth + line for line in body)])


def write_rumor(body: str) -> None:
    Path("pack").mkdir()
    Path("pack/pack.yaml").write_text("id: costly\nname: Costly cards\n", "utf-8")
    text = "".join("      " + line + "\n" for line in body.split("\n"))
    card = f"id: probe\nkind: rumor\nname: Probe\neffects:\n  - after: critic.rumors\n    do: |\n{text}"
    Path("pack/card.yaml").write_text(card, "utf-8")


def score_with_rumor(*extra: str) -> fuzzlib.Outcome:
    game = yaml.safe_load((GOLDEN / "five-players.yaml").read_text("utf-8"))
    game["cards"]["rumors"] = ["probe"]
    Path("game.json").write_text(json.dumps(game), "utf-8")
    outcome = fuzzlib.run_main(["score", "game.json", "--pack", "pack", *extra], seconds=20)
    assert not outcome.crash, outcome.crash
    return outcome


def test_six_nested_loops_of_many_statements_are_refused():
    # 7**6 = 117,649 passes of 40 statements each: about 25 s of scoring before the budget
    write_rumor(nested_loops(6, ["let x = 1 + 2 * 3"] * 40))
    assert fuzzlib.run_main(["validate", "pack"]).status == 0  # a valid card
    out = score_with_rumor()
    assert (out.status, out.out) == (1, "")
    assert out.err.splitlines() == [f"game.json: pack/card.yaml: card 'probe' at stage 'critic.rumors': {OVER_BUDGET}"]


def test_twenty_awards_in_six_nested_loops_are_refused_before_memory_runs_out():
    # 117,649 passes of 20 awards to 5 players each would be nearly 12 million awards
    write_rumor(nested_loops(6, ['award 1 star to players for "{v5}"'] * 20))
    out = score_with_rumor("--format", "json")
    assert (out.status, out.out) == (1, "")
    assert out.err.splitlines() == [
        "game.json: pack/card.yaml: card 'probe' at stage 'critic.rumors': "
        "the effects of this game gave more than 10,000 awards"
    ]


def test_an_aggregate_charges_every_item_of_its_body():
    inner = "sum(sum(quality(p, t) + value(p, t) for t in ingredient_types) for q in players)"
    write_rumor(nested_loops(3, [f"let x = sum({inner} for p in players)"] * 4))
    out = score_with_rumor()
    assert out.err.splitlines() == [f"game.json: pack/card.yaml: card 'probe' at stage 'critic.rumors': {OVER_BUDGET}"]


def test_a_costly_card_that_stays_within_the_budget_is_scored():
    write_rumor(nested_loops(3, ["let x = 1 + 2 * 3"] * 20))  # 343 passes of 20 statements
    out = score_with_rumor()
    assert out.status == 0, out.err


def test_steps_count_every_part_of_a_statement_and_the_larger_branch():
    from critter_kitchen.dsl.run_nodes import steps_of

    let = ("let", 0, ("arith", "+", ("const", 1), ("const", 2)))
    assert steps_of(let) == 4
    assert steps_of(("if", ("const", True), ("seq", (let, let)), ("seq", (let,)))) == 1 + 1 + 9
    loop = ("for", 0, ("call", "players", ()), ("seq", (let,) * 50))
    assert steps_of(loop) == 2  # its body is charged per item, when the loop runs


def golden_games():
    from regen_golden import pack_args

    for record in sorted(GOLDEN.rglob("*.yaml")):
        yield record, [str(ROOT / p) for p in pack_args(record) if p != "--pack"]


def test_real_games_stay_far_below_the_budget(base):
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    from critter_kitchen import load_ruleset
    from critter_kitchen.loading.records import read_record
    from critter_kitchen.stages.runner import score_game

    for record, packs in golden_games():
        game = read_record(load_ruleset(packs) if packs else base, yaml.safe_load(record.read_text("utf-8")), "")
        score_game(game)
        assert 0 < game.steps < budget.STEP_BUDGET // 40, record
        assert len(game.awards) < budget.MAX_AWARDS // 100, record


# suggestions


def test_suggestions_among_thousands_of_names_compare_few(monkeypatch):
    import difflib

    known = [f"card-{word}-{i}" for i in range(1000) for word in ("fish", "soup", "cheese", "bread", "wine")]
    unknown = [f"card-{word}-{i}x" for i in range(200) for word in ("fihs", "soup", "chese", "bred", "wien")]
    compared: list[int] = []

    def counting(word, possibilities, n=3, cutoff=0.6):
        compared.append(len(possibilities))
        return []

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    for name in unknown:
        errors.did_you_mean(name, known)
    assert len(known) == 5000 and len(unknown) == 1000
    assert max(compared) == errors.MAX_COMPARED
    assert sum(compared) <= 1000 * errors.MAX_COMPARED  # against 5,000,000 comparisons when every name is compared


def test_suggestions_among_thousands_of_names_still_find_a_typo():
    known = [f"card-{i}" for i in range(5000)] + ["fish-fanatic", "fish-market-gossip"]
    assert errors.did_you_mean("fish-fanatik", known) == "; did you mean 'fish-fanatic'?"
    assert errors.did_you_mean("Fish-fanatic", known) == "; did you mean 'fish-fanatic'?"
    assert errors.did_you_mean("zzzz", known) == ""


def test_a_few_names_are_all_compared():
    names = ["quality", "value", "spiced"]
    assert errors.close_candidates("qualty", tuple(names)) == tuple(names)
    assert errors.did_you_mean("ualtiy", names) == "; did you mean 'quality'?"  # even with another first letter


# a pack that removes every stage

STAGES = "challenge.round3, challenge.round6, critic.most_soup, critic.all_courses, critic.best_course, " \
    "critic.rumors, critic.card_bonuses, critic.final_quality"  # fmt: skip


def write_pack_removing(stages: str) -> None:
    Path("pack").mkdir()
    Path("pack/pack.yaml").write_text("id: no-stages\nname: No stages\n", "utf-8")
    rules = f"id: no-stages-rules\nkind: rules\nname: No stages\nremove_stages: [{stages}]\n"
    Path("pack/rules.yaml").write_text(rules, "utf-8")


def test_a_pack_that_removes_every_stage_is_a_pack_problem():
    write_pack_removing(STAGES)
    out = fuzzlib.run_main(["validate", "pack"])
    assert out.status == 1
    assert out.err.splitlines() == [
        "pack/rules.yaml:4:147: CK104 cannot remove stage 'critic.final_quality': "
        "it is the last one, and a game needs at least one stage"
    ]


def test_a_game_under_a_pack_that_removes_every_stage_is_refused():
    write_pack_removing(STAGES)
    out = fuzzlib.run_main(["score", str(ROOT / "examples" / "three-players.yaml"), "--pack", "pack"])
    assert not out.crash, out.crash
    assert (out.status, out.out) == (1, "")
    assert out.err.splitlines() == [
        "pack/rules.yaml:4:147: cannot remove stage 'critic.final_quality': "
        "it is the last one, and a game needs at least one stage"
    ]


def test_a_pack_may_remove_every_stage_but_one():
    write_pack_removing(STAGES.removesuffix(", critic.final_quality"))
    assert fuzzlib.run_main(["validate", "pack"]).status == 0
    out = fuzzlib.run_main(["score", str(ROOT / "examples" / "three-players.yaml"), "--pack", "pack"])
    assert out.status == 0, out.err
