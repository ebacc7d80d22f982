"""The plan a rescoring works from, checked against definitions made from scratch.

A rescoring (``score_without``, ``score_without_meals``) starts from a plan made once per
game: where each card in play has programs and what they read and write, as bits of hook
points, and what each hook point of the run with every card did. The marks of each card's
programs are made once per ruleset and combined per game; the work each removable card's
before and after effects took is kept from that run, card by card. Here each is compared
with what it stands for, computed from scratch for the game, and rescoring is compared with
the plain path (the record without the card, read and scored) on the games of every test
pack, as tests/test_rescore_paths_agree.py does for the shipped packs.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_rescore_is_scoring_without import PACKS, random_record, record_without
from test_rescore_paths_agree import challenge_ids, fingerprint

from critter_kitchen import EvaluationError, InputError, load_ruleset
from critter_kitchen.api import removable_cards, score_without, score_without_meals
from critter_kitchen.dsl.registry import QUALITY
from critter_kitchen.loading.records import read_record
from critter_kitchen.simulate.paired import drop_refused, without_card
from critter_kitchen.stages import rescore
from critter_kitchen.stages.runner import POINTS, hook_tables, run_stages, score_game

TEST_PACKS = Path(__file__).resolve().parent / "packs"
# the test packs that load as a ruleset (the broken-* ones are refused, as their tests check)
LOADABLE = [
    "card-stages",
    "composing",
    "constraints",
    "constraints-rules",
    "critic-cards",
    "fixtures",
    "hostile-names",
    "lab",
    "leftovers",
    "list-literals",
    "no-hold",
    "order-free",
    "planner-cards",
    "repeated",
    "shared-win",
    "shared-win-on-stars",
    "slots",
    "slots-loose",
    "ties-by-stage",
]
GAMES_PER_PACK = 40
TIMING = {"before": 0, "replace": 1, "after": 2}


def outcome(score: Callable[..., Any], *args: Any) -> str:
    """What ``score(*args)`` gives: everything the result and its game hold, or the error it raises."""
    try:
        return fingerprint(score(*args))
    except InputError as e:
        return f"InputError: {[(p.code, p.message) for p in e.problems]}"
    except EvaluationError as e:
        return f"EvaluationError: {e}"


def plain(rs: Any, record: dict[str, Any]) -> Any:
    """The record read and scored, with each meal, course or kept count the reader refuses taken
    out; a record that is refused for something else (cards that clash) raises."""
    data = json.loads(json.dumps(record))
    while True:
        try:
            return score_game(read_record(rs, data, "r"), "r")
        except InputError as e:
            if not drop_refused(data, [p.where for p in e.problems]):
                raise


def check_every_card(rs: Any, record: dict[str, Any], rng: random.Random) -> int:
    """Each card of the record's game removed both ways, alone and two at once, and none; the
    number of comparisons. A game the plain path refuses must be refused alike."""
    game = read_record(rs, record, "r")
    compared = 0
    ids = [c.id for c in removable_cards(game)]
    meals = challenge_ids(game)
    for card_id in ids:
        expected = outcome(plain, rs, record_without(record, rs, card_id))
        assert outcome(score_without, game, [card_id], "r") == expected, card_id
        compared += 1
    for card_id in meals:
        expected = outcome(plain, rs, without_card(rs, record, card_id))
        assert outcome(score_without_meals, game, [card_id], "r") == expected, card_id
        compared += 1
    if len(ids) >= 2:
        pair = rng.sample(ids, 2)
        expected = outcome(plain, rs, record_without(record_without(record, rs, pair[0]), rs, pair[1]))
        assert outcome(score_without, game, pair, "r") == expected, pair
    if len(meals) >= 2:
        pair = rng.sample(meals, 2)
        expected = outcome(plain, rs, without_card(rs, without_card(rs, record, pair[0]), pair[1]))
        assert outcome(score_without_meals, game, pair, "r") == expected, pair
    assert outcome(score_without, game, [], "r") == outcome(plain, rs, record)
    return compared


def every_pack() -> dict[str, list[Path]]:
    return {**{name: list(p) for name, p in PACKS.items()}, **{name: [TEST_PACKS / name] for name in LOADABLE}}


def test_every_loadable_test_pack_is_listed() -> None:
    """A new test pack that loads is rescored here too."""
    found = []
    for folder in sorted(p for p in TEST_PACKS.iterdir() if p.is_dir()):
        try:
            load_ruleset([folder])
        except Exception:  # the broken packs: refused, their own tests check how
            continue
        found.append(folder.name)
    assert found == LOADABLE


@pytest.mark.parametrize("pack", LOADABLE)
def test_every_card_of_games_of_every_test_pack_rescored_is_the_plain_path(pack: str) -> None:
    rs = load_ruleset([TEST_PACKS / pack])
    rng = random.Random(f"rescore-plan-{pack}")
    compared = sum(check_every_card(rs, random_record(rs, rng), rng) for _ in range(GAMES_PER_PACK))
    assert compared > GAMES_PER_PACK * 2


@pytest.mark.parametrize("pack", LOADABLE)
def test_games_of_every_test_pack_scored_already_rescored_are_the_plain_path(pack: str) -> None:
    """As the balance lab does: the game scored first, then rescored without each card."""
    rs = load_ruleset([TEST_PACKS / pack])
    rng = random.Random(f"scored-plan-{pack}")
    for _ in range(10):
        record = random_record(rs, rng)
        game = read_record(rs, record, "r")
        try:
            score_game(game, "r")
        except InputError:
            continue  # cards that clash: the game is never scored
        for card in removable_cards(game):
            expected = outcome(plain, rs, record_without(record, rs, card.id))
            assert outcome(score_without, game, [card.id], "r") == expected, card.id
        for card_id in challenge_ids(game):
            expected = outcome(plain, rs, without_card(rs, record, card_id))
            assert outcome(score_without_meals, game, [card_id], "r") == expected, card_id


def marks_from_scratch(game: Any) -> dict[str, Any]:
    """What the plan says of the programs of ``game``, from every program at every hook point."""
    rs = game.ruleset
    index = {stage.name: i for i, stage in enumerate(rs.stages)}
    end = len(rs.stages) * POINTS
    in_play = {card.id for card, _ in game.cards_in_play()}
    bit_of = rescore.STATE_BITS
    out: dict[str, Any] = {
        "card_points": {},
        "seeing": 0,
        "param_points": {},
        "reading": {bit: 0 for bit in bit_of.values()},
        "writing": {bit: 0 for bit in bit_of.values()},
        "quality_cards": {},
    }

    def add(point: int, code: Any) -> None:
        if code is None:
            return
        if code.sees_cards:
            out["seeing"] |= 1 << point
        for name in code.params_read:
            out["param_points"][name] = out["param_points"].get(name, 0) | 1 << point
        for name in code.state_read:
            out["reading"][bit_of[name]] |= 1 << point
        for name in code.state_written:
            out["writing"][bit_of[name]] |= 1 << point

    def mark(card_id: str, points: int) -> None:
        out["card_points"][card_id] = out["card_points"].get(card_id, 0) | points

    for i, stage in enumerate(rs.stages):
        add(i * POINTS + TIMING["replace"], stage.code)
        if stage.card in in_play:
            mark(stage.card, 0b111 << (i * POINTS))
    for card, _ in game.cards_in_play():
        mark(card.id, 0)
        for effect in card.effects:
            if effect.stage not in index:
                continue
            point = index[effect.stage] * POINTS + TIMING[effect.timing]
            assert point < end
            mark(card.id, 1 << point)
            add(point, effect.code)
            if effect.code is not None and QUALITY in effect.code.state_written:
                out["quality_cards"][card.id] = out["quality_cards"].get(card.id, 0) | 1 << point
    return out


def marks_of_plan(plan: Any) -> dict[str, Any]:
    return {
        "card_points": plan.card_points,
        "seeing": plan.seeing,
        "param_points": plan.param_points,
        "reading": plan.reading,
        "writing": plan.writing,
        "quality_cards": plan.quality_cards,
    }


@pytest.mark.parametrize("pack", sorted(every_pack()))
def test_the_marks_made_once_per_ruleset_are_the_games_own(pack: str) -> None:
    """Each card's marks are made the first time a game of the ruleset has it in play; combined
    for a game, they say what every program of the game, read from scratch, says."""
    rs = load_ruleset(every_pack()[pack])
    rng = random.Random(f"marks-{pack}")
    for _ in range(25):
        game = read_record(rs, random_record(rs, rng), "r")
        plan = rescore._plan(game, "r")
        assert marks_of_plan(plan) == marks_from_scratch(game)
        assert plan.quality_writing == plan.writing[rescore.QUALITY_BIT]
        for differs in range(8):
            assert plan.depending[differs] == plan._depending(differs)


def test_the_marks_of_a_ruleset_are_made_once_and_again_when_its_stages_change() -> None:
    rs = load_ruleset()
    marks = rs.derived(rescore._RulesetMarks)
    assert rs.derived(rescore._RulesetMarks) is marks
    fewer = copy.copy(rs)  # a copy makes tables of its own
    fewer.stages = list(rs.stages[:-1])
    assert fewer.derived(rescore._RulesetMarks).end == marks.end - POINTS
    assert fewer.derived(rescore._RulesetMarks) is fewer.derived(rescore._RulesetMarks)
    fewer.stages = list(rs.stages)  # changed in place, and said so: made again, for these stages
    fewer.changed()
    assert fewer.derived(rescore._RulesetMarks).end == marks.end
    assert rs.derived(rescore._RulesetMarks) is marks


def work_without_at(game: Any, point: int, card_id: str) -> int:
    """The work hook point ``point`` of ``game`` takes, run from scratch with every card, without
    the effects of card ``card_id`` at that point only."""
    whole = rescore.game_without(game, ())
    hooks, holders = hook_tables(whole)
    stage = game.ruleset.stages[point // POINTS].name
    timing = {v: k for k, v in TIMING.items()}[point % POINTS]
    hooks[(stage, timing)] = [e for e in hooks[(stage, timing)] if e[0].id != card_id]
    steps: dict[int, int] = {}

    def pause(g: Any, at: int) -> bool:
        steps[at] = g.steps
        return False

    run_stages(whole, "r", 0, pause, (hooks, holders))
    after = min((p for p in steps if p > point), default=None)
    return (whole.steps if after is None else steps[after]) - steps[point]


@pytest.mark.parametrize("pack", sorted(every_pack()))
def test_the_work_kept_card_by_card_is_what_the_cards_effects_take(pack: str) -> None:
    """The plan keeps the work each removable card's before and after effects took in the run
    with every card; a point replayed without the card adds the rest. The point run from
    scratch without that card's effects takes that rest."""
    rs = load_ruleset(every_pack()[pack])
    rng = random.Random(f"work-{pack}")
    checked = 0
    for _ in range(15):
        game = read_record(rs, random_record(rs, rng), "r")
        plan = rescore._plan(game, "r")
        if plan.order is None:
            continue  # the whole game cannot be scored: nothing is replayed
        for point, by_card in plan.work.items():
            span = plan.spans[point]
            assert span is not None and point % POINTS != TIMING["replace"]
            assert sum(by_card.values()) == span[2]
            for card_id, work in by_card.items():
                assert work_without_at(game, point, card_id) == span[2] - work, (point, card_id)
                checked += 1
    assert checked > 0 or pack in {"solo"}


def state_of(game: Any) -> str:
    """Everything scoring changes in a game, and what it is scored from."""
    return json.dumps(
        {
            "awards": [[a.player, a.stage, a.stars, a.card, a.group] for a in game.awards],
            "stages_run": game.stages_run,
            "steps": game.steps,
            "groups": game._groups,
            "pending": [len(game.unsettled), len(game.changes)],
            "players": [
                [p.name, p.stars, list(p.stage_stars.items()), [[k, c.quality] for k, c in p.courses.items()]]
                for p in game.players
            ],
            "meals": [[m.card.id, m.player.name, m.quality] for ms in game.meals.values() for m in ms],
        }
    )


@pytest.mark.parametrize("pack", ["base", "order-free", "card-stages"])
def test_a_game_as_read_is_put_back_as_read_after_its_plan(pack: str) -> None:
    """The run with every card is made on a game as read, which is then put back: rescoring it
    leaves it as it was, whether that run could be scored or not (cards that clash), and
    scoring it afterwards gives what scoring it first gives."""
    rs = load_ruleset(every_pack()[pack])
    rng = random.Random(f"put-back-{pack}")
    refused = 0
    for _ in range(30):
        record = random_record(rs, rng)
        game = read_record(rs, record, "r")
        before = state_of(game)
        for card in removable_cards(game):
            outcome(score_without, game, [card.id], "r")
        for card_id in challenge_ids(game):
            outcome(score_without_meals, game, [card_id], "r")
        assert state_of(game) == before
        scored = outcome(score_game, game, "r")
        refused += scored.startswith("InputError")
        assert scored == outcome(score_game, read_record(rs, record, "r"), "r")
    assert refused > 0 or pack != "order-free"
