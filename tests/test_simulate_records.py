"""The games a lab run writes with ``--records`` score again, through ``critter-kitchen score``,
to the results its report counted: each stage's stars, and each Challenge card's row, the
stars the meals served for it earned (the game's stars less the same game without those
meals, the public API's ``score_without_meals``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from critter_kitchen import cli, load_ruleset, read_game, score_without_meals
from critter_kitchen.api import packs_for

ROOT = Path(__file__).resolve().parent.parent
GAMES, PLAYERS = 12, 3


def test_records_score_again_to_the_report_and_challenge_rows_count_their_meals(capsys, tmp_path):
    records = tmp_path / "games.jsonl"
    argv = ["simulate", "--games", str(GAMES), "--players", str(PLAYERS), "--workers", "1", "--format", "json"]
    assert cli.main([*argv, "--records", str(records), "--seed", "5"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    report = json.loads(out)
    lines = records.read_text("utf-8").splitlines()
    assert len(lines) == report["games"] == GAMES

    with records.open() as stdin:
        scored = subprocess.run(
            [sys.executable, "-m", "critter_kitchen", "score", "--format", "json", "-"],
            stdin=stdin,
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp_path,
        )
    assert (scored.returncode, scored.stderr) == (0, "")
    results = [json.loads(line) for line in scored.stdout.splitlines()]
    assert len(results) == GAMES

    # each stage's stars, per player and game, as `score` awards them
    stage_stars: Counter[str] = Counter()
    for result in results:
        for award in result["awards"]:
            stage_stars[award["stage"]] += award["stars"]
    for row in report["stages"]:
        seen = sum(row["histogram"].values())
        assert seen == GAMES * PLAYERS
        assert sum(int(k) * v for k, v in row["histogram"].items()) == stage_stars[row["stage"]], row["stage"]

    # each Challenge card: the games it was dealt in, and the stars its meals earned in them
    rs = load_ruleset(packs_for({}, []))
    games: Counter[str] = Counter()
    stars: Counter[str] = Counter()
    served = 0
    for line, result in zip(lines, results, strict=True):
        record = json.loads(line)
        total = sum(s["stars"] for s in result["standings"])
        game = read_game(record, rs)
        for round_cards in record["cards"]["challenges"].values():
            for card in round_cards:
                games[card] += 1
                without = score_without_meals(game, [card])
                stars[card] += total - sum(p.stars for p in without.game.players)
        served += sum(len(meals) for by_player in record["challenge_meals"].values() for meals in by_player.values())
    assert served > 0 and sum(stars.values()) > 0  # meals were served, and earned stars
    rows = {row["id"]: row for row in report["cards"] if row["kind"] == "challenge"}
    assert set(rows) == set(games)
    for card, row in rows.items():
        assert row["games"] == games[card], card
        assert round(row["stars_mean"] * row["games"], 2) == stars[card], card
