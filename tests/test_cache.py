"""The compiled-pack cache saves time and never changes a result, whatever state it is in."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from critter_kitchen import InputError, load_ruleset, result_json, score_record
from critter_kitchen.loading.yamlpos import parse

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "tests" / "golden" / "three-players.yaml"


def scored(ruleset):
    record = parse(str(GAME), GAME.read_text("utf-8")).data
    return json.dumps(result_json(score_record(record, ruleset)))


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(folder))
    return folder


def test_second_load_comes_from_the_cache_and_scores_the_same(cache_dir):
    first = scored(load_ruleset())
    entries = sorted(cache_dir.glob("packs-*.pickle"))
    assert len(entries) == 1
    assert scored(load_ruleset()) == first


def test_corrupt_entries_fall_back_to_a_normal_load(cache_dir):
    expected = scored(load_ruleset())
    for entry in cache_dir.iterdir():
        entry.write_bytes(b"not a pickle")
    assert scored(load_ruleset()) == expected


@pytest.mark.parametrize("setting", ["off", ""])
def test_cache_can_be_turned_off(monkeypatch, setting):
    from critter_kitchen import cache

    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", setting)
    assert cache.cache_dir() is None
    assert cache.read("anything") is None
    assert load_ruleset().cards


def test_unusable_folder_is_not_an_error(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(blocker / "cache"))
    assert load_ruleset().cards


def test_a_changed_card_is_seen(cache_dir, tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "tests" / "packs" / "fixtures", pack)
    assert load_ruleset([pack]).cards["test-fish-fanatic"].name == "Test Fish Fanatic"
    card = pack / "cards.yaml"
    card.write_text(card.read_text("utf-8").replace("name: Test Fish Fanatic", "name: Renamed"), "utf-8")
    assert load_ruleset([pack]).cards["test-fish-fanatic"].name == "Renamed"
    card.write_text(card.read_text("utf-8").replace("multiply quality", "multiply qualty"), "utf-8")
    with pytest.raises(InputError) as first:
        load_ruleset([pack])
    with pytest.raises(InputError) as cached:
        load_ruleset([pack])
    assert [p.format() for p in cached.value.problems] == [p.format() for p in first.value.problems]
    assert "unknown function 'qualty'" in first.value.problems[0].message


def test_scoring_from_a_fresh_cache_imports_no_loader(tmp_path):
    """With the cache filled, `score` needs neither lark, jsonschema, the checker nor dataclasses."""
    env = dict(os.environ, CRITTER_KITCHEN_CACHE=str(tmp_path / "cache"))
    example = str(ROOT / "examples" / "five-players.yaml")
    code = (
        "import sys\n"
        "from critter_kitchen.cli import main\n"
        f"main(['score', {example!r}])\n"
        "heavy = ['lark', 'jsonschema', 'dataclasses', 'pathlib', 'typing', 'critter_kitchen.dsl.nodes',"
        " 'critter_kitchen.dsl.compiler', 'critter_kitchen.loading.packs', 'critter_kitchen.loading.schema']\n"
        "print('loaded:', [m for m in heavy if m in sys.modules])\n"
    )
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert "critter_kitchen.loading.packs" in first.stdout  # an empty cache loads the packs
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert again.stdout.splitlines()[-1] == "loaded: []"


def test_a_damaged_entry_is_never_half_used(cache_dir):
    """Syntax trees stay pickled inside a cached ruleset until asked for: damage anywhere
    in the entry must send the load back to the packs, not surface later."""
    from critter_kitchen.report.cards import card_text

    def rendered():
        rules = load_ruleset()
        return [card_text(card, rules) for card in rules.cards.values()]

    expected = rendered()
    (entry,) = cache_dir.glob("packs-*.pickle")
    good = entry.read_bytes()
    for at in range(len(good) // 3, len(good), len(good) // 7):
        entry.write_bytes(good[:at] + bytes([good[at] ^ 0x55]) + good[at + 1 :])
        assert rendered() == expected, at
        entry.write_bytes(good)


@pytest.mark.parametrize("setting", ["fresh", "off"])
def test_packs_load_with_the_collector_running_even_when_the_command_paused_it(setting, tmp_path, monkeypatch):
    # a single score pauses the collector; the garbage of loading a pack is the pack's to
    # decide, so loading (a cache miss, or no cache) collects as it goes, then pauses again
    import gc

    from critter_kitchen.loading import packs

    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "cache") if setting == "fresh" else "off")
    load_sources = packs.load_sources
    seen = []

    def spy(sources):
        seen.append(gc.isenabled())
        return load_sources(sources)

    monkeypatch.setattr(packs, "load_sources", spy)
    was = gc.isenabled()
    gc.disable()
    try:
        load_ruleset()
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()
    assert seen == [True]
