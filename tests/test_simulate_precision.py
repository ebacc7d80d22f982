"""``simulate --precision``: the run stops at a look once every card is known to the target,
the same bytes on any workers, the report says what was reached, and the intervals of such a
run still cover a planted card's known effect at the stated rate."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest

from critter_kitchen import cli
from critter_kitchen.api import packs_for
from critter_kitchen.simulate.html import render_html
from critter_kitchen.simulate.precision import CAP_DEFAULT, Stopping, looks, z_of
from critter_kitchen.simulate.run import Spec, play_chunk, run
from critter_kitchen.simulate.stats import Z95, Summary, mean_interval, wilson

LAB = str(Path(__file__).resolve().parent / "packs" / "lab")
ARGS = ("simulate", "--pack", LAB, "--players", "3", "--seed", "3", "--format", "json")


def simulate(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_looks_at_each_doubling_and_half_way_up_and_end_at_the_cap():
    assert looks(5000) == (250, 375, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000)
    assert looks(4000) == (250, 375, 500, 750, 1000, 1500, 2000, 3000, 4000)
    assert looks(3500) == (250, 375, 500, 750, 1000, 1500, 2000, 3000, 3500)
    assert looks(100) == (100,)
    assert looks(CAP_DEFAULT)[-4:] == (48000, 64000, 96000, CAP_DEFAULT) and len(looks(CAP_DEFAULT)) == 19
    assert round(z_of(1), 6) == round(Z95, 6)  # one look: a plain 95% interval
    assert round(z_of(19), 3) == 3.008  # 99.74% at each of 19 looks


def test_no_chunk_holds_games_on_both_sides_of_a_look():
    spec = Spec((*packs_for({}, [LAB]),), 1100, 3, 3, chunk_games=200, first=50, looks=looks(1100))
    bounds = [spec.bounds(c) for c in range(spec.chunks)]
    assert bounds[0] == (50, 250) and bounds[-1] == (1000, 1100)
    assert [b for _, b in bounds] == [250, 375, 500, 700, 750, 950, 1000, 1100]
    assert all(a == b for (_, a), (b, _) in zip(bounds, bounds[1:], strict=False))  # every game once
    assert not any(a < n < b for a, b in bounds for n in looks(1100))


def test_the_run_stops_at_the_first_look_that_is_precise_enough():
    stopping = Stopping.of(0.05, 5000)
    summary = run(Spec((*packs_for({}, [LAB]),), 5000, 3, 3, chunk_games=64, looks=stopping.looks), stopping=stopping)
    assert summary.games == 1000  # at 500 lab-sometimes' winner flips were still ±0.05x
    assert stopping.widest is not None and stopping.widest <= 0.05
    shorter = Stopping.of(0.05, 5000)
    assert not shorter.enough(summary_of(500))
    assert shorter.widest is not None and shorter.widest > 0.05


def summary_of(games: int) -> Summary:
    spec = Spec((*packs_for({}, [LAB]),), games, 3, 3, chunk_games=games)
    return play_chunk(spec, 0)[1]


def test_json_bytes_are_the_same_for_one_and_two_workers(capsys):
    one = simulate(capsys, *ARGS, "--precision", "0.05", "--games", "3000", "--workers", "1")
    two = simulate(capsys, *ARGS, "--precision", "0.05", "--games", "3000", "--workers", "2")
    assert one[0] == two[0] == 0
    assert one[1] == two[1]
    report = json.loads(one[1])
    assert report["games"] == 1000
    assert report["precision"] == {
        "target": 0.05,
        "reached": max(c["precision"] for c in report["cards"]),
        "stopped_by": "precision",
        "games": 1000,
        "cap": 3000,
        "looks": [250, 375, 500, 750, 1000, 1500, 2000, 3000],
        "confidence": 0.9938,
        "held_back": [],
    }
    strong = next(c for c in report["cards"] if c["id"] == "lab-strong")
    assert strong["stars_change_ci"] == [6.0, 6.0]  # every one of 3 players gains 2 stars: a point


def test_at_the_cap_the_report_names_the_cards_that_held_it_back(capsys):
    code, out, err = simulate(capsys, *ARGS, "--precision", "0.01", "--games", "300", "--format", "csv")
    assert (code, err) == (0, "")
    rows = {r["id"]: r for r in csv.DictReader(out.splitlines())}
    assert {r["stopped_by"] for r in rows.values()} == {"cap"}
    assert float(rows["lab-sometimes"]["precision"]) > 0.01
    code, out, err = simulate(capsys, *ARGS, "--precision", "0.01", "--games", "300", "--format", "text")
    first, said = out.splitlines()[:2]
    assert first.startswith("300 simulated games, 3 players, seed 3")
    assert said.startswith("stopped at the cap of 300 games: widest ±0.")
    assert "(target ±0.01), held back by lab-sometimes, " in said
    assert said.endswith("; every interval 97.5% at each of 2 looks, 95% over all of them")
    report = json.loads(simulate(capsys, *ARGS, "--precision", "0.01", "--games", "300")[1])
    page = render_html(report)
    assert "stopped at the cap of 300 games; held back by lab-sometimes" in page
    assert "precision ±" in page


def test_without_precision_the_report_is_as_before(capsys):
    report = json.loads(simulate(capsys, *ARGS, "--games", "30")[1])
    assert "precision" not in report and "precision" not in report["cards"][0]
    assert report["games"] == 30


@pytest.mark.parametrize("value", ["0", "1", "-0.5", "1.5", "nan", "inf", "two", ""])
def test_precision_must_be_a_number_above_0_and_below_1(capsys, value):
    code, out, err = simulate(capsys, *ARGS, "--precision", value)
    message = f"--precision: expected a number above 0 and below 1, got '{value}'"
    assert (code, out, err) == (2, "", f"critter-kitchen: {message}\n")


def test_the_progress_bar_shows_the_widest_interval():
    import io

    from critter_kitchen.simulate.cli import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    stopping = Stopping.of(0.02, 1000)
    bar = Progress(stream, 1000, stopping)
    bar.start -= 5
    bar(100)
    stopping.widest = 0.03125
    bar(250)
    shown = stream.getvalue().split("\r")[1:]
    assert shown[0].endswith(", widest - of ±0.02")
    assert shown[1].startswith("[#######.......................] 250/1000 games, ")
    assert shown[1].endswith(", widest ±0.0312 of ±0.02")


# the rule is sound: a planted card with a known effect, many seeds

FLIP = 0.25  # the planted card moves the win in a quarter of its games
STARS = ((0, 0.5), (2, 0.3), (4, 0.2))  # and gives 0, 2 or 4 stars: 1.4 a game
KNOWN_STARS = sum(v * w for v, w in STARS)


def planted_run(seed: int, stopping: Stopping) -> tuple[bool, bool, int]:
    """A run of the planted card's games, looked at as the lab looks; whether its reported
    intervals hold the known effects, and the games played."""
    rng = random.Random(seed)
    summary = Summary()
    for look in stopping.looks:
        while summary.games < look:
            summary.games += 1
            stars = rng.choices([v for v, _ in STARS], [w for _, w in STARS])[0]
            summary.add_card("planted", stars, stars, 1 if rng.random() < FLIP else 0, [])
        if stopping.enough(summary):
            break
    tally = summary.cards["planted"]
    flips = wilson(tally.flips, tally.stars.n, stopping.z)
    stars_ci = mean_interval(tally.stars, stopping.z)[1]
    assert flips is not None and stars_ci is not None
    return flips[0] <= FLIP <= flips[1], stars_ci[0] <= KNOWN_STARS <= stars_ci[1], summary.games


def test_intervals_cover_the_planted_effect_at_the_stated_rate():
    """400 seeds at ±0.05, looks at 250, 375, ... 4000: where the rule stops depends on the draws
    (500 games or 750), yet both intervals hold the known effect in at least 95% of runs."""
    runs = [planted_run(seed, Stopping.of(0.05, 4000)) for seed in range(400)]
    flips = sum(r[0] for r in runs) / len(runs)
    stars = sum(r[1] for r in runs) / len(runs)
    assert {r[2] for r in runs} == {500, 750}  # the stopping really depends on the data
    assert flips >= 0.95 and stars >= 0.95, (flips, stars)


def test_the_records_are_the_games_of_the_report(capsys, tmp_path):
    records = tmp_path / "games.jsonl"
    code, out, err = simulate(capsys, *ARGS, "--precision", "0.05", "--games", "3000", "--records", str(records))
    assert (code, err) == (0, "")
    assert json.loads(out)["games"] == len(records.read_text(encoding="utf-8").splitlines()) == 1000
