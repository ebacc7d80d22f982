"""`critter-kitchen cards` lists every card and renders each one's effects in plain English."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from critter_kitchen import load_ruleset
from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
CARDS = sorted(load_ruleset().cards)
TIMING = {"before": "Before", "after": "After", "replace": "Instead of"}


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("card_id", CARDS)
def test_every_shipped_card_renders(card_id, capsys):
    assert main(["cards", card_id]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"{load_ruleset().cards[card_id].name} ({card_id})\n")
    assert main(["cards", card_id, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for effect in data["effects"]:
        assert f"{TIMING[effect['timing']]} {effect['stage']}:" in text
        assert effect["english"] and all(line.strip() for line in effect["english"])


def test_fanatic_reads_as_english(capsys):
    main(["cards", "fish-fanatic"])
    assert capsys.readouterr().out.endswith(
        "After critic.rumors:\n    For each p in the players:\n        Multiply p's fish course quality by 2.\n"
    )


def test_listing_names_every_card(capsys):
    assert main(["cards"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {cid} " in out for cid in CARDS)


def test_unknown_card(capsys):
    assert main(["cards", "fish-fanatik"]) == 1
    assert capsys.readouterr().err == "critter-kitchen: unknown card 'fish-fanatik'; did you mean 'fish-fanatic'?\n"
