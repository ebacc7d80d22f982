"""The balance lab under a ranking that ends ties with a shared win: a win shared by k
players counts 1/k to each of them, in the seats' wins, the owners' wins and the winner
flips, and the lab's records score again to the same winners."""

from __future__ import annotations

import html
import json
from fractions import Fraction
from pathlib import Path

from critter_kitchen import cli, load_ruleset, score_record
from critter_kitchen.simulate.paired import score_without
from critter_kitchen.simulate.report import SHARED_NOTE, build, text
from critter_kitchen.simulate.run import Spec, run
from critter_kitchen.simulate.stats import Summary, win_moved

ROOT = Path(__file__).resolve().parent.parent
ON_STARS = str(ROOT / "tests" / "packs" / "shared-win-on-stars")
GAMES, PLAYERS, SEED = 40, 3, 5


def test_win_moved_is_the_part_of_the_win_that_changes_hands():
    ana, ben, cy = 0, 1, 2
    half = Fraction(1, 2)
    assert win_moved({ana: 1}, {ana: 1}) == 0
    assert win_moved({ana: 1}, {ben: 1}) == 1
    assert win_moved({ana: 1}, {ana: half, ben: half}) == half  # Ana keeps half of it
    assert win_moved({ana: half, ben: half}, {ana: 1}) == half  # Ben's half goes to Ana
    assert win_moved({ana: half, ben: half}, {ana: half, cy: half}) == half
    third = Fraction(1, 3)
    assert win_moved({ana: third, ben: third, cy: third}, {cy: 1}) == 2 * third


def _records(capsys, tmp_path) -> tuple[dict, list[dict]]:
    records = tmp_path / "games.jsonl"
    args = ["simulate", "--pack", ON_STARS, "--games", str(GAMES), "--players", str(PLAYERS), "--seed", str(SEED)]
    code = cli.main([*args, "--workers", "1", "--format", "json", "--records", str(records)])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return json.loads(out), [json.loads(line) for line in records.read_text("utf-8").splitlines()]


def test_a_shared_win_counts_a_fraction_to_each_winner(capsys, tmp_path):
    report, records = _records(capsys, tmp_path)
    rules = load_ruleset([ON_STARS])
    # Each record scored again by the engine: its winners, and each winner's share of the win.
    seat_wins = [Fraction(0)] * PLAYERS
    owner_wins: dict[str, Fraction] = {}
    owner_games: dict[str, int] = {}
    shared_games = 0
    for record in records:
        result = score_record(record, rules)
        winners = result.winners
        shared_games += len(winners) > 1
        for p in winners:
            seat_wins[p.index] += Fraction(1, len(winners))
        for p in result.game.players:
            for card in p.owned:
                owner_games[card.id] = owner_games.get(card.id, 0) + 1
                owner_wins[card.id] = owner_wins.get(card.id, Fraction(0)) + (
                    Fraction(1, len(winners)) if p in winners else 0
                )
    assert shared_games >= 5  # the seed gives shared wins: the figures below are about them
    assert sum(seat_wins) == GAMES
    for seat in report["seats"]:
        wins = seat_wins[seat["priority"] - 1]
        assert seat["wins"] == round(float(wins), 4)
        assert seat["win_rate"] == round(float(wins / GAMES), 4)
    held = [c for c in report["cards"] if c["owner_win_rate"] is not None]
    assert held
    for card in held:
        assert card["owner_win_rate"] == round(float(owner_wins[card["id"]] / owner_games[card["id"]]), 4)
    assert SHARED_NOTE in report["notes"]
    assert "(a win shared by k players counts 1/k to each; winner flips count the part of the win that moves)" in (
        text(report)
    )


def test_winner_flips_count_the_part_of_the_win_that_moves(capsys, tmp_path):
    report, records = _records(capsys, tmp_path)
    rules = load_ruleset([ON_STARS])
    # The plain path: each card taken out of the record and the game scored again.
    moved: dict[str, Fraction] = {}
    games: dict[str, int] = {}
    partial = 0
    for record in records:
        result = score_record(record, rules)
        before = {p.index: Fraction(1, len(result.winners)) for p in result.winners}
        seen = set()
        for card, _ in result.game.cards_in_play():
            if card.kind == "rules" or card.id in seen:
                continue
            seen.add(card.id)
            again = score_without(rules, record, card.id)
            after = {p.index: Fraction(1, len(again.winners)) for p in again.winners}
            part = win_moved(before, after)
            partial += 0 < part < 1
            moved[card.id] = moved.get(card.id, Fraction(0)) + part
            games[card.id] = games.get(card.id, 0) + 1
    assert partial >= 1  # some removal moves only part of a win
    for card in report["cards"]:
        assert card["games"] == games[card["id"]]
        assert card["winner_flip_rate"] == round(float(moved[card["id"]] / games[card["id"]]), 4), card["id"]


def test_base_game_seat_wins_stay_whole_numbers():
    spec = Spec((), 6, 3, 2)
    report = build(run(spec), load_ruleset(), players=3, seed=2, effort="fast", studies=())
    assert all(type(s["wins"]) is int for s in report["seats"])
    assert sum(s["wins"] for s in report["seats"]) == 6
    assert SHARED_NOTE not in report["notes"]


def test_shared_wins_merge_the_same_in_any_order_and_show_in_html():
    from critter_kitchen.simulate.html import render_html
    from critter_kitchen.simulate.run import play_chunk

    spec = Spec((ON_STARS,), 32, PLAYERS, SEED, chunk_games=4)
    parts = [play_chunk(spec, c)[1] for c in range(spec.chunks)]
    rules = load_ruleset([ON_STARS])
    reports = []
    for order in (parts, parts[::-1], parts[1::2] + parts[::2]):
        merged = Summary()
        for part in order:
            merged.merge(part)
        reports.append(json.dumps(build(merged, rules, players=PLAYERS, seed=SEED, effort="fast", studies=())))
    assert reports[0] == reports[1] == reports[2]
    report = json.loads(reports[0])
    assert any(type(s["wins"]) is float for s in report["seats"])  # a shared win made a count fractional
    page = render_html(report)
    assert (
        "in the number of players. The rules in play end a tie on every ranking key with a shared win: "
        "a win shared by k players counts 1/k of a win to each of them.</p>"
    ) in page
    assert html.escape(SHARED_NOTE) in page  # in the notes
