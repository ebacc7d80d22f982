"""Properties of scoring over random legal games, with critics, rumors and restaurateurs.

The oracle (test_oracle_agreement.py) checks the numbers of base games; these tests check
what must hold whatever the cards in play: the file's order does not matter, the
priority track only breaks ties, awards add up, there is one winner, and the output is
the same byte for byte across runs and processes.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import gen
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from critter_kitchen import result_json, score_record
from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
PRIORITY_CARD = "fashionably-late"  # the one base card whose awards depend on the priority track
PRIORITY_LABEL = "ahead on the priority track"


def scored(record, rules) -> dict:
    return result_json(score_record(copy.deepcopy(record), rules))


def stars_by_player(result: dict, *, skip_card: str | None = None) -> dict[str, int]:
    out = {s["name"]: 0 for s in result["standings"]}
    for a in result["awards"]:
        if a["card"] != skip_card:
            out[a["player"]] += a["stars"]
    return out


def award_multiset(result: dict) -> Counter:
    return Counter(json.dumps(a, sort_keys=True) for a in result["awards"])


def check_standings(record: dict, result: dict) -> None:
    """One winner, ranks 1..n once each, ordered by stars, then critic quality, then priority."""
    names = [p["name"] for p in record["players"]]
    standings = result["standings"]
    assert sorted(s["name"] for s in standings) == sorted(names)
    assert [s["rank"] for s in standings] == list(range(1, len(names) + 1))
    assert result["winner"] == standings[0]["name"]
    expected = sorted(standings, key=lambda s: (-s["stars"], -s["critic_quality"], names.index(s["name"])))
    assert standings == expected
    assert stars_by_player(result) == {s["name"]: s["stars"] for s in standings}
    assert all(a["stars"] >= 1 for a in result["awards"])


# order of the file


def shuffled(value, rnd: random.Random, *, under: str = ""):
    """The same record with every mapping's keys and every ingredient list in another order.

    Lists whose order means something (players, challenge cards, rumors) keep it.
    """
    if isinstance(value, dict):
        items = list(value.items())
        rnd.shuffle(items)
        return {k: shuffled(v, rnd, under=k) for k, v in items}
    if isinstance(value, list):
        items = [shuffled(v, rnd) for v in value]
        if under == "ingredients":
            rnd.shuffle(items)
        return items
    return value


@settings(max_examples=60, deadline=None)
@given(gen.full_games(), st.randoms(use_true_random=False))
def test_order_of_meals_ingredients_courses_and_keys_does_not_matter(base, record, rnd):
    before = scored(record, base)
    after = scored(shuffled(record, rnd), base)
    check_standings(record, before)
    assert award_multiset(after) == award_multiset(before)
    assert after == before  # the awards too, in the same order


def test_yaml_and_json_files_of_one_game_print_the_same(tmp_path, capsys):
    record = yaml.safe_load((ROOT / "examples" / "three-players.yaml").read_text("utf-8"))
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(record, sort_keys=True), "utf-8")  # other key order too
    (tmp_path / "b.json").write_text(json.dumps(record, indent=1), "utf-8")
    outputs = []
    for name in ("a.yaml", "b.json"):
        assert main(["score", str(tmp_path / name), "--format", "json"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]


# the priority track


@settings(max_examples=60, deadline=None)
@given(gen.full_games(), st.randoms(use_true_random=False))
def test_permuting_players_only_changes_the_priority_tie_break(base, record, rnd):
    order = list(record["players"])
    rnd.shuffle(order)
    permuted = dict(record, players=order)
    before, after = scored(record, base), scored(permuted, base)
    check_standings(record, before)
    check_standings(permuted, after)

    # Every card but the one that reads the priority track gives the same stars.
    assert stars_by_player(after, skip_card=PRIORITY_CARD) == stars_by_player(before, skip_card=PRIORITY_CARD)
    for rec, res in ((record, before), (permuted, after)):
        late = {a["player"] for a in res["awards"] if a["card"] == PRIORITY_CARD}
        if PRIORITY_CARD in rec["cards"]["rumors"]:
            assert late == {rec["players"][-1]["name"]}
        else:
            assert late == set()

    quality = {s["name"]: s["critic_quality"] for s in before["standings"]}
    assert {s["name"]: s["critic_quality"] for s in after["standings"]} == quality

    if PRIORITY_CARD in record["cards"]["rumors"]:
        return  # its star moves with the last player, so the totals may change
    assert [s["stars"] for s in after["standings"]] == [s["stars"] for s in before["standings"]]
    if after["winner"] != before["winner"]:
        # Only a tie on every earlier tie-break lets the priority track decide.
        top = {s["name"]: (s["stars"], s["critic_quality"]) for s in after["standings"]}
        old = {s["name"]: (s["stars"], s["critic_quality"]) for s in before["standings"]}
        assert top[after["winner"]] == top[before["winner"]]
        assert old[after["winner"]] == old[before["winner"]]
        assert after["decided_by"] == before["decided_by"] == PRIORITY_LABEL
    else:
        assert after["decided_by"] == before["decided_by"]


# soup


def challenge_meal_paths(record):
    for rnd, per_player in (record.get("challenge_meals") or {}).items():
        for name, meals in per_player.items():
            for card_id in meals:
                yield rnd, name, card_id


@settings(max_examples=60, deadline=None)
@given(gen.games(), st.data())
def test_adding_soup_to_a_challenge_meal_never_lowers_its_stars(base, record, data):
    paths = list(challenge_meal_paths(record))
    if not paths:
        return
    rnd, name, card_id = data.draw(st.sampled_from(paths))
    extra = data.draw(st.integers(1, 5))
    more = copy.deepcopy(record)
    meal = more["challenge_meals"][rnd][name][card_id]
    meal["soup"] = meal.get("soup", 0) + extra

    before, after = scored(record, base), scored(more, base)
    stage = f"challenge.{rnd}"

    def at_stage(result, who):
        return sum(a["stars"] for a in result["awards"] if a["stage"] == stage and a["player"] == who)

    assert at_stage(after, name) >= at_stage(before, name)
    old, new = stars_by_player(before), stars_by_player(after)
    assert new[name] >= old[name]
    assert {k: v for k, v in new.items() if k != name} == {k: v for k, v in old.items() if k != name}


@settings(max_examples=40, deadline=None)
@given(gen.games(), st.data())
def test_keeping_more_soup_for_the_critic_never_lowers_stars(base, record, data):
    names = [p["name"] for p in record["players"]]
    name = data.draw(st.sampled_from(names))
    more = copy.deepcopy(record)
    plate = more["critic_meals"].setdefault(name, {"courses": {}})
    plate["soup"] = plate.get("soup", 0) + data.draw(st.integers(1, 4))
    assert stars_by_player(scored(more, base))[name] >= stars_by_player(scored(record, base))[name]


# awards, ranks, the winner


@settings(max_examples=100, deadline=None)
@given(gen.full_games())
def test_awards_add_up_and_there_is_one_winner(base, record):
    result = scored(record, base)
    check_standings(record, result)
    stages = {s.name for s in base.stages}
    assert {a["stage"] for a in result["awards"]} <= stages
    assert set(result) >= {"winner", "standings", "awards", "decided_by"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(gen.full_games())
def test_json_output_is_identical_across_runs(tmp_path, record):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), "utf-8")
    outputs = []
    for _ in range(2):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["score", str(path), "--format", "json"]) == 0
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["winner"]


def run_cli(args, seed, cwd):
    env = dict(os.environ, PYTHONHASHSEED=str(seed))
    proc = subprocess.run(
        [sys.executable, "-m", "critter_kitchen", *args], capture_output=True, env=env, cwd=cwd, timeout=120
    )
    return proc.returncode, proc.stdout, proc.stderr


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(gen.full_games(), min_size=8, max_size=8))
def test_output_is_byte_identical_across_processes(tmp_path, records):
    """Different hash seeds (so different set and dict-of-set orders) print the same bytes."""
    files = []
    for i, record in enumerate(records):
        path = tmp_path / f"game{i}.{'json' if i % 2 else 'yaml'}"
        path.write_text(json.dumps(record) if i % 2 else yaml.safe_dump(record, sort_keys=False), "utf-8")
        files.append(str(path))
    files += [str(p) for p in sorted((ROOT / "examples").glob("*.yaml"))]
    bad = tmp_path / "bad.yaml"
    bad.write_text((ROOT / "tests" / "records" / "invalid" / "unlisted-type.yaml").read_text("utf-8"), "utf-8")

    runs = {
        "json": ["score", *files, "--format", "json"],
        "text": ["score", *files[:3], "--explain"],
        "invalid": ["score", str(bad), *files[:2], "--format", "json"],
        "validate": ["validate", "tests/cards/invalid", "tests/packs", "--format", "json"],
    }
    for name, args in runs.items():
        first = run_cli(args, 0, ROOT)
        second = run_cli(args, 4242, ROOT)
        assert first == second, name
        assert first[1], name
    assert run_cli(runs["json"], 0, ROOT)[0] == 0
    assert run_cli(runs["invalid"], 1, ROOT)[0] == 1


# the order of cards (RULES.md, "How card effects combine")

ORDER_FREE = ROOT / "tests" / "packs" / "order-free"
# Cards that add to, multiply and set one course at one hook point, read what they change,
# and read stars awarded at their hook point (fish-twice is left out: it is an error by design).
ORDER_FREE_RUMORS = ["fish-plus-three", "fish-double", "fish-seven", "fish-echo", "star-counter"]
ORDER_FREE_OWNERS = ["fish-monger", "fish-taster"]


def permuted_lists(value, rnd: random.Random, *, path: tuple = ()):
    """The same record with every list in another order, but the ones whose order means
    something: the players (the priority track) and each day's challenge cards (the Hold token)."""
    if isinstance(value, dict):
        return {k: permuted_lists(v, rnd, path=(*path, k)) for k, v in value.items()}
    if isinstance(value, list):
        items = [permuted_lists(v, rnd, path=(*path, i)) for i, v in enumerate(value)]
        if path != ("players",) and path[:2] != ("cards", "challenges"):
            rnd.shuffle(items)
        return items
    return value


@pytest.fixture(scope="module")
def order_free_rules():
    from critter_kitchen import load_ruleset

    return load_ruleset([ORDER_FREE])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(gen.full_games(), st.data())
def test_permuting_rumors_and_card_lists_changes_nothing(base, order_free_rules, record, data):
    rumors = gen.card_ids("rumor") + ORDER_FREE_RUMORS
    record = copy.deepcopy(record)
    record["cards"]["rumors"] = data.draw(st.lists(st.sampled_from(rumors), min_size=2, max_size=6, unique=True))
    owners = data.draw(st.permutations(gen.card_ids("restaurateur") + ORDER_FREE_OWNERS))
    for entry, card_id in zip(record["players"], owners, strict=False):
        entry.pop("restaurateur", None)
        if "automated" not in entry and data.draw(st.booleans()):
            entry["restaurateur"] = card_id
    rnd = data.draw(st.randoms(use_true_random=False))
    before = scored(record, order_free_rules)
    after = scored(shuffled(permuted_lists(record, rnd), rnd), order_free_rules)
    check_standings(record, before)
    assert after == before  # totals, standings and every award, in the same order


def golden_records_with_card_lists():
    for path in sorted((ROOT / "tests" / "golden").rglob("*.yaml")):
        record = yaml.safe_load(path.read_text("utf-8"))
        if isinstance(record, dict) and "players" in record:
            yield path


@pytest.mark.parametrize("path", list(golden_records_with_card_lists()), ids=lambda p: p.stem)
def test_permuting_every_list_of_a_golden_game_changes_nothing(path):
    from critter_kitchen import load_ruleset

    listing = next((f / "packs.txt" for f in path.parents if (f / "packs.txt").is_file()), None)
    lines = listing.read_text("utf-8").splitlines() if listing else []
    packs = [ROOT / line.strip() for line in lines if line.strip() and not line.startswith("#")]
    rules = load_ruleset(packs)
    record = yaml.safe_load(path.read_text("utf-8"))
    expected = scored(record, rules)
    for seed in range(3):
        rnd = random.Random(seed)
        assert scored(permuted_lists(record, rnd), rules) == expected, seed
