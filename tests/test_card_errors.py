"""Every card file in tests/cards/invalid is reported exactly as the .expected file beside it says."""

from __future__ import annotations

from pathlib import Path

import pytest

from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted(p for p in (ROOT / "tests" / "cards" / "invalid").glob("*.yaml") if p.name != "pack.yaml")


@pytest.mark.parametrize("card", CASES, ids=[p.stem for p in CASES])
def test_invalid_card(card, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    status = main(["validate", str(card.relative_to(ROOT))])
    out, err = capsys.readouterr()
    expected = card.with_suffix(".expected").read_text("utf-8")
    assert out + err == expected
    assert status == (0 if expected.startswith("ok:") else 1)


def test_shipped_cards_are_valid(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["validate", "cards"]) == 0
    assert capsys.readouterr().out.startswith("ok:")
