"""How often the intervals of ``simulate --precision`` runs hold a planted card's effect.

The lab self-check pack (tests/packs/lab) plants ``lab-sometimes``: 2 stars to the player or
players with the least soup and bisque value if it is at most 6. Its effect is not known in
closed form, so it is measured first by one long plain run (``--reference-games``, seed 0:
its own 95% interval is shown, and is a small fraction of the runs' widths). Then ``--seeds``
runs of ``--precision P`` (seeds 1, 2, ...) each stop by the lab's rule, and the tool counts in
how many the reported stars, change and winner-flip intervals hold the reference value; the
same runs with plain 95% intervals looked at in the same way (no correction for the looks)
are counted too, to show what optional stopping does to them.

    python tools/precision_coverage.py --seeds 100 --reference-games 40000 --workers 2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from critter_kitchen.api import packs_for
from critter_kitchen.simulate.precision import Stopping
from critter_kitchen.simulate.run import Spec, run
from critter_kitchen.simulate.stats import Z95, mean_interval, rate, wilson

LAB = str(Path(__file__).resolve().parent.parent / "tests" / "packs" / "lab")
CARD = "lab-sometimes"
PLAYERS = 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--precision", type=float, default=0.05)
    parser.add_argument("--games", type=int, default=8000, help="each run's cap")
    parser.add_argument("--reference-games", type=int, default=40000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    folders = (*packs_for({}, [LAB]),)

    started = time.perf_counter()
    reference = run(Spec(folders, args.reference_games, PLAYERS, 0), workers=args.workers).cards[CARD]
    stars, stars_ci = mean_interval(reference.stars)
    flips = float(reference.flips) / reference.stars.n
    print(
        f"reference: {args.reference_games} games, seed 0, {CARD} in {reference.stars.n}: stars {stars} {stars_ci}, "
        f"winner flips {rate(reference.flips, reference.stars.n)} {wilson(reference.flips, reference.stars.n)} "
        f"({time.perf_counter() - started:.0f} s)"
    )
    assert stars is not None
    for label, corrected in (("corrected (the lab's)", True), ("naive 95% at every look", False)):
        held = {"stars": 0, "change": 0, "flips": 0, "all three": 0}
        games: dict[int, int] = {}
        started = time.perf_counter()
        for seed in range(1, args.seeds + 1):
            stopping = Stopping.of(args.precision, args.games)
            if not corrected:
                stopping.z = Z95
            spec = Spec(folders, args.games, PLAYERS, seed, looks=stopping.looks)
            summary = run(spec, args.workers, stopping=stopping)
            games[summary.games] = games.get(summary.games, 0) + 1
            tally = summary.cards[CARD]
            s_ci = mean_interval(tally.stars, stopping.z)[1]
            c_ci = mean_interval(tally.change, stopping.z)[1]
            f_ci = wilson(tally.flips, tally.stars.n, stopping.z)
            assert s_ci is not None and c_ci is not None and f_ci is not None
            hits = (s_ci[0] <= stars <= s_ci[1], c_ci[0] <= stars <= c_ci[1], f_ci[0] <= flips <= f_ci[1])
            for key, hit in zip(("stars", "change", "flips"), hits, strict=True):
                held[key] += hit
            held["all three"] += all(hits)
        n = args.seeds
        shown = ", ".join(f"{k} {v}/{n} = {v / n:.1%}" for k, v in held.items())
        stops = ", ".join(f"{g} games: {c}" for g, c in sorted(games.items()))
        print(f"{label}: {shown}; stopped at {stops} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
