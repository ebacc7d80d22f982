"""Rescoring replays what a removal cannot change: checked against the plain path on every corpus.

``score_without(game, [card])`` (a card on the table or held, taken out) and
``score_without_meals(game, [card])`` (a challenge card kept, its meals taken out) run only
the hook points whose outcome can depend on the removal and replay the others from the
run with every card. Each is compared with the plain path, the record with the card (or
its meals) taken out, read and scored from scratch, on every card of every golden game,
on generated games of every shipped pack and on the random games of the speed benchmark:
not only the JSON result but everything scoring leaves in the game (each award with its
group, stars by stage in their order, course qualities, the stages run, the work taken).
With ``CRITTER_KITCHEN_COMPILED_PYTHON`` set, the compiled build does the same and must
print what the pure package prints.

The registry's declarations of what each function reads (``reads_state``), which the
choice between running and replaying rests on, are checked by changing that state under
every function of the registry, on real games.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import gen
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from test_rescore_is_scoring_without import PACKS, random_record, record_without

from critter_kitchen import InputError, load_ruleset
from critter_kitchen.api import packs_for, removable_cards, score_without, score_without_meals
from critter_kitchen.dsl import registry
from critter_kitchen.dsl.frame import Frame
from critter_kitchen.loading.records import read_record
from critter_kitchen.report.json import json_text, result_json
from critter_kitchen.report.text import result_text
from critter_kitchen.simulate.paired import drop_refused, without_card
from critter_kitchen.stages import rescore
from critter_kitchen.stages.runner import score_game

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
GAMES_PER_PACK = 150
BENCH_GAMES = 250
COMPILED_PYTHON = os.environ.get("CRITTER_KITCHEN_COMPILED_PYTHON", "")


def fingerprint(result: Any) -> str:
    """Everything a result and its game hold after scoring, as one text."""
    game = result.game
    state = {
        "json": json_text(result_json(result)),
        "awards": [[a.player, a.stage, a.stars, a.card, a.reason, a.value, a.group, list(a.tied)] for a in game.awards],
        "players": [
            [p.name, p.stars, list(p.stage_stars.items()), [[k, c.quality] for k, c in p.courses.items()]]
            for p in game.players
        ],
        "stages_run": game.stages_run,
        "steps": game.steps,
    }
    return json.dumps(state)


def plain(rs: Any, record: dict[str, Any]) -> Any:
    """The record read and scored, with each meal, course or kept count the reader refuses taken out."""
    data = json.loads(json.dumps(record))
    for _ in range(64):
        try:
            return score_game(read_record(rs, data, "r"), "r")
        except InputError as e:
            assert drop_refused(data, [p.where for p in e.problems]), e.problems
    raise AssertionError("the record never became readable")


def challenge_ids(game: Any) -> list[str]:
    return list(dict.fromkeys(c.id for cards in game.challenges.values() for c in cards))


def check_every_card(rs: Any, record: dict[str, Any], rng: random.Random) -> int:
    """Each card of the record's game removed both ways; the number of comparisons."""
    game = read_record(rs, record, "r")
    compared = 0
    for card in removable_cards(game):
        expected = fingerprint(plain(rs, record_without(record, rs, card.id)))
        assert fingerprint(score_without(game, [card.id], "r")) == expected, card.id
        compared += 1
    for card_id in challenge_ids(game):
        expected = fingerprint(plain(rs, without_card(rs, record, card_id)))
        assert fingerprint(score_without_meals(game, [card_id], "r")) == expected, card_id
        compared += 1
    ids = [c.id for c in removable_cards(game)]
    if len(ids) >= 2:  # two at once
        pair = rng.sample(ids, 2)
        expected = fingerprint(plain(rs, record_without(record_without(record, rs, pair[0]), rs, pair[1])))
        assert fingerprint(score_without(game, pair, "r")) == expected, pair
    meals = challenge_ids(game)
    if len(meals) >= 2:
        pair = rng.sample(meals, 2)
        expected = fingerprint(plain(rs, without_card(rs, without_card(rs, record, pair[0]), pair[1])))
        assert fingerprint(score_without_meals(game, pair, "r")) == expected, pair
    assert fingerprint(score_without(game, [], "r")) == fingerprint(plain(rs, record))
    return compared


def golden_games() -> list[Path]:
    return sorted(GOLDEN.rglob("*.yaml"))


def golden_packs(path: Path) -> list[str]:
    sys.path.insert(0, str(ROOT / "tools"))
    from regen_golden import pack_args

    args = pack_args(path)
    return [str(ROOT / folder) for flag, folder in zip(args[::2], args[1::2], strict=True) if flag == "--pack"]


@pytest.mark.parametrize("path", golden_games(), ids=lambda p: p.relative_to(GOLDEN).as_posix())
def test_every_card_of_every_golden_game_rescored_is_the_plain_path(path: Path) -> None:
    record = json.loads(json.dumps(yaml.safe_load(path.read_text(encoding="utf-8"))))
    rs = load_ruleset(packs_for(record, golden_packs(path)))
    assert check_every_card(rs, record, random.Random(path.name)) >= 6


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_every_card_of_generated_games_rescored_is_the_plain_path(pack: str) -> None:
    rs = load_ruleset(PACKS[pack])
    rng = random.Random(f"rescore-speed-{pack}")
    compared = sum(check_every_card(rs, random_record(rs, rng), rng) for _ in range(GAMES_PER_PACK))
    assert compared > GAMES_PER_PACK * 6  # every game has its challenge cards, most hold more


BASE = load_ruleset()


@settings(max_examples=BENCH_GAMES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(gen.full_games())
def test_random_games_with_critic_rumors_and_restaurateurs_rescored_are_the_plain_path(record: dict[str, Any]) -> None:
    """The games of the speed benchmark (tools/bench.py): base cards, random meals, many ties."""
    check_every_card(BASE, json.loads(json.dumps(record)), random.Random(1))


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_games_scored_already_rescored_are_the_plain_path(pack: str) -> None:
    """The balance lab rescores the games it has scored: their qualities are judged again first."""
    rs = load_ruleset(PACKS[pack])
    rng = random.Random(f"scored-{pack}")
    for _ in range(20):
        record = random_record(rs, rng)
        game = score_game(read_record(rs, record, "r"), "r").game
        for card in removable_cards(game):
            expected = fingerprint(plain(rs, record_without(record, rs, card.id)))
            assert fingerprint(score_without(game, [card.id], "r")) == expected, card.id
        for card_id in challenge_ids(game):
            expected = fingerprint(plain(rs, without_card(rs, record, card_id)))
            assert fingerprint(score_without_meals(game, [card_id], "r")) == expected, card_id


def test_most_hook_points_are_replayed() -> None:
    """The fast path is taken: of the hook points after where a removal starts, most are replayed."""
    counts = {"ran": 0, "replayed": 0}
    pause = rescore._Replay.pause

    def counting(self: Any, game: Any, point: int) -> bool:
        replayed = pause(self, game, point)
        counts["replayed" if replayed else "ran"] += 1
        return replayed

    rescore._Replay.pause = counting  # type: ignore[method-assign]
    rng = random.Random("replayed")
    try:
        for _ in range(30):
            game = read_record(BASE, random_record(BASE, rng), "r")
            for card in removable_cards(game):
                score_without(game, [card.id])
            for card_id in challenge_ids(game):
                score_without_meals(game, [card_id])
    finally:
        rescore._Replay.pause = pause  # type: ignore[method-assign]
    assert counts["replayed"] > 2 * counts["ran"] > 0, counts


def test_a_removal_that_changes_nothing_reuses_the_ranking() -> None:
    game = read_record(BASE, random_record(BASE, random.Random(2)), "r")
    plan = rescore._plan(game, "r")
    assert plan.ranks_alike(0, rescore._Changes(frozenset({"x"}), frozenset(), 0))
    assert not plan.ranks_alike(rescore.STARS_BIT, rescore._Changes(frozenset({"x"}), frozenset(), 0))


def test_only_challenge_cards_of_the_game_lose_their_meals() -> None:
    rs = load_ruleset()
    record = random_record(rs, random.Random(3))
    game = read_record(rs, record, "r")
    table = removable_cards(game)[0].id if removable_cards(game) else "no-such-card"
    with pytest.raises(ValueError, match=f"not a challenge card of this game: {table}"):
        score_without_meals(game, [table])
    before = fingerprint(score_game(read_record(rs, record, "r"), "r"))
    score_without_meals(game, challenge_ids(game)[:1])
    assert fingerprint(score_game(game, "r")) == before  # the game itself is not changed


def test_text_reports_of_rescored_games_are_the_plain_paths() -> None:
    """The text report groups awards by their group: the replayed ones are numbered as the plain path numbers them."""
    rs = load_ruleset([ROOT / "cards" / "a-la-carte"])
    rng = random.Random("text")
    for _ in range(20):
        record = random_record(rs, rng)
        game = read_record(rs, record, "r")
        for card in removable_cards(game):
            fast = result_text(score_without(game, [card.id]), explain=True)
            assert fast == result_text(plain(rs, record_without(record, rs, card.id)), explain=True)


# the registry's declarations: what of the game's changing state each function reads


def _arguments(kind: str, game: Any) -> list[Any]:
    """Values of argument type ``kind`` for functions called on ``game``."""
    rs = game.ruleset
    params = [v for v in game.params.values()]
    meals = [m for ms in game.meals.values() for m in ms]
    values: dict[str, list[Any]] = {
        "player": list(game.players),
        "ingredient": list(rs.ingredient_types),
        "stage": [s.name for s in rs.stages],
        "card": sorted(rs.cards)[:12] + [c.id for c, _ in game.cards_in_play()],
        "round": list(game.meals),
        "meal": meals,
        "item": [i for m in meals for i in m.ingredients][:12],
        "int": [0, 3, 7, 12],
        "bands": [v for v in params if isinstance(v, list) and v and isinstance(v[0], list)],
        "table": [v for v in params if isinstance(v, dict)],
        "text": ["fish", "soup"],
        "token": list(game.params.get("token_values", {})),
        "counter": list(rs.counters),
        "spice": [*rs.ingredient_types, game.params.get("wild_spice")],
    }
    return values.get(kind, [])


def _calls(fn: Any, game: Any) -> list[tuple[Any, ...]]:
    lists = [_arguments(kind, game) for _, kind in fn.params]
    calls: list[tuple[Any, ...]] = [()]
    for options in lists:
        calls = [(*c, o) for c in calls for o in options][:60]
    return calls


def _results(fn: Any, game: Any, frames: list[Any], calls: list[tuple[Any, ...]]) -> list[Any]:
    out = []
    for frame in frames:
        for args in calls:
            try:
                value = fn.impl(frame, *args)
            except Exception as e:  # a call the type checker would refuse: its failure counts as its result
                value = type(e).__name__
            out.append(repr(value))
    return out


def _change(game: Any, part: str) -> None:
    """Change one part of the game's changing state (registry.STATE) for every player."""
    for p in game.players:
        if part == registry.STARS:
            p.stars += 5
            p.stage_stars = {s.name: i + 1 for i, s in enumerate(game.ruleset.stages)}
        elif part == registry.QUALITY:
            for i, course in enumerate(p.courses.values()):
                course.quality += 3 + i
    if part == registry.MEALS:
        game.meals = {rnd: meals[1:] for rnd, meals in game.meals.items()}


def test_every_function_declares_the_changing_state_it_reads() -> None:
    """Change the stars, the course qualities or the challenge meals of real games under every
    registry function: a function whose answers change must declare that part as read."""
    rs = load_ruleset([ROOT / "cards" / "a-la-carte"])
    rng = random.Random("reads")
    games = [score_game(read_record(rs, random_record(rs, rng), "r"), "r").game for _ in range(4)]
    seen: dict[str, set[str]] = {name: set() for name in registry.FUNCTIONS}
    for game in games:
        card = game.cards_in_play()[0][0]
        for part in registry.STATE:
            for name, fn in registry.FUNCTIONS.items():
                frames = [Frame(game, card, rs.stages[-1].name, p, 4) for p in game.players[:2]]
                calls = _calls(fn, game)
                before = _results(fn, game, frames, calls)
                saved = _save(game)
                _change(game, part)
                after = _results(fn, game, frames, calls)
                _restore(game, saved)
                if before != after:
                    seen[name].add(part)
    for name, fn in registry.FUNCTIONS.items():
        assert seen[name] <= set(fn.reads_state), (name, seen[name], fn.reads_state)
    # and the check can fail: each declared part is seen changing some function's answers
    assert set().union(*seen.values()) == set(registry.STATE), seen


def test_a_settable_function_reads_what_its_setter_writes() -> None:
    for name, fn in registry.FUNCTIONS.items():
        if fn.setter is not None:
            assert fn.reads_state, name


def _save(game: Any) -> Any:
    return (
        game.meals,
        [(p.stars, dict(p.stage_stars), [c.quality for c in p.courses.values()]) for p in game.players],
    )


def _restore(game: Any, saved: Any) -> None:
    game.meals, players = saved
    for p, (stars, stage_stars, qualities) in zip(game.players, players, strict=True):
        p.stars, p.stage_stars = stars, stage_stars
        for course, quality in zip(p.courses.values(), qualities, strict=True):
            course.quality = quality


# the compiled build, both ways

DRIVER = """
import json, random, sys
sys.path.insert(0, sys.argv[1])
import test_rescore_paths_agree as t
from critter_kitchen import load_ruleset
rs = load_ruleset([t.ROOT / "cards" / "a-la-carte"])
rng = random.Random("compiled")
out = []
for _ in range(int(sys.argv[2])):
    record = t.random_record(rs, rng)
    game = t.read_record(rs, record, "r")
    for card in t.removable_cards(game):
        out.append(t.fingerprint(t.score_without(game, [card.id], "r")))
    for card_id in t.challenge_ids(game):
        out.append(t.fingerprint(t.score_without_meals(game, [card_id], "r")))
    t.check_every_card(rs, record, rng)
json.dump({"module": t.rescore.__file__, "out": out}, sys.stdout)
"""


@pytest.mark.skipif(not COMPILED_PYTHON, reason="CRITTER_KITCHEN_COMPILED_PYTHON names no compiled build")
def test_the_compiled_build_rescores_as_the_pure_package() -> None:
    runs = []
    for python in (sys.executable, COMPILED_PYTHON):
        done = subprocess.run(
            [python, "-c", DRIVER, str(ROOT / "tests"), "40"], capture_output=True, cwd=ROOT, timeout=600, check=False
        )
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        runs.append(json.loads(done.stdout))
    pure, compiled = runs
    assert compiled["module"].endswith(".so") and pure["module"].endswith(".py"), (pure["module"], compiled["module"])
    assert compiled["out"] == pure["out"]
    assert len(pure["out"]) > 300
