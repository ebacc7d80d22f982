"""The balance lab's fast paths give the bytes of the plain ones: rescoring through the engine's
``score_without`` against the record without the card, read and scored."""

from __future__ import annotations

from pathlib import Path

import pytest

from critter_kitchen import cli, load_ruleset
from critter_kitchen.api import packs_for
from critter_kitchen.loading.records import read_record
from critter_kitchen.simulate import paired
from critter_kitchen.simulate.deal import DealModel
from critter_kitchen.simulate.game import Setup, play
from critter_kitchen.stages.runner import score_game

# cards that read what each player left unused: the lab's records say it
LEFTOVERS = str(Path(__file__).resolve().parent / "packs" / "leftovers")


def report_json(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = cli.main(["simulate", "--workers", "1", "--format", "json", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize(
    ("packs", "players", "games", "effort"),
    [
        ((), 4, 4, "fast"),
        ((), 5, 12, "quick"),
        (("a-la-carte",), 4, 3, "fast"),
        (("a-la-carte",), 6, 10, "quick"),
        ((LEFTOVERS,), 4, 12, "quick"),
    ],
)
def test_the_report_is_the_same_with_the_fast_rescoring_and_the_plain_path(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    packs: tuple[str, ...],
    players: int,
    games: int,
    effort: str,
) -> None:
    args = [f"--pack={p}" for p in packs]
    args += ["--games", str(games), "--players", str(players), "--seed", "3", "--effort", effort]
    assert paired.FAST_RESCORING
    fast = report_json(capsys, *args)
    monkeypatch.setattr(paired, "FAST_RESCORING", False)
    plain = report_json(capsys, *args)
    assert '"cards"' in fast
    assert fast == plain


@pytest.mark.parametrize("packs", [(), ("a-la-carte",), (LEFTOVERS,)])
def test_every_card_rescored_both_ways_gives_the_same_stars_and_winner(
    monkeypatch: pytest.MonkeyPatch, packs: tuple[str, ...]
) -> None:
    rs = load_ruleset(packs_for({}, list(packs)))
    setup = Setup(DealModel(rs), 5, 9, effort="quick", pack_ids=tuple(p.id for p in rs.packs[1:]))
    fast_cards = 0
    for index in range(15):
        record = play(setup, index)
        game = score_game(read_record(rs, record, "<simulated>")).game
        for card, _ in game.cards_in_play():
            if card.kind == rs.rules_kind:
                continue
            monkeypatch.setattr(paired, "FAST_RESCORING", True)
            fast = paired.rescored_without(rs, record, game, card.id)
            monkeypatch.setattr(paired, "FAST_RESCORING", False)
            plain = paired.rescored_without(rs, record, game, card.id)
            got = [(p.name, p.stars) for p in fast.game.players], fast.winner.name
            assert got == ([(p.name, p.stars) for p in plain.game.players], plain.winner.name), (index, card.id)
            fast_cards += rs.card_kinds[card.kind] != "cards.challenges"
    assert fast_cards > 100  # the fast path was taken, for many cards
