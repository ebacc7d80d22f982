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


def test_a_cards_text_stands_beside_its_english_in_both_formats(capsys):
    assert main(["cards", "spice-hound"]) == 0
    assert capsys.readouterr().out == (
        "Spice Hound (spice-hound)\n"
        "kind: rumor · pack: base · file: cards/base/rumors/spice-hound.yaml\n"
        "\n"
        "Text: The critic has a nose for spice. The player or players with the most spiced critic courses get 1 star; "
        "a player with no spiced course cannot win this.\n"
        "\n"
        "In English, from its data:\n"
        "\n"
        "After critic.rumors:\n"
        "    Give 1 star to every p in the players with the highest (the number of t in the courses p served such "
        'that p\'s t course is spiced) among those where that number is not 0 ("most spiced courses").\n'
    )
    assert main(["cards", "spice-hound", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data)[:7] == ["id", "kind", "name", "pack", "path", "text", "english"]
    assert data["english"] == [
        "",
        "After critic.rumors:",
        "    Give 1 star to every p in the players with the highest (the number of t in the courses p served such "
        'that p\'s t course is spiced) among those where that number is not 0 ("most spiced courses").',
    ]


def test_a_card_without_text_says_so(capsys):
    assert main(["cards", "lab-null", "--pack", "tests/packs/lab"]) == 0
    out = capsys.readouterr().out
    assert "\nText: Does nothing.\n" in out
    assert main(["cards", "base-rules"]) == 0
    out = capsys.readouterr().out
    assert "\nText: none written\n\nIn English, from its data:\n\nIngredient types: carrot, fish, cheese," in out
    assert (
        "    challenge_bands = 0 stars from 0, 1 star from 6, 2 stars from 12, 4 stars from 21 "
        "(a value for each meal): "
        "stars for a challenge meal's quality, as [minimum quality, stars]\n"
    ) in out
    assert (
        "\nRanking (higher ranks first; the first key that differs decides):\n"
        "    more stars: p's stars so far\n"
        "    farther along the critic score track: p's total critic quality\n\n"
        "Tied on every key: the player ahead on the priority track ranks first"
    ) in out
