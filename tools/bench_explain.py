"""What keeping the explanation's trace costs: scoring the golden games as ``score`` does
(no trace) and as ``score --explain`` and the score pad do (``trace=True``), in one process.

    python tools/bench_explain.py [--repeat 200] [--rounds 5]

Prints one line per way: games scored per CPU second, the best of ``--rounds`` rounds of
``--repeat`` passes over every golden game (each read once, scored again each pass). An
engine without the trace (``PYTHONPATH`` of an older export) measures the plain line only.
"""

from __future__ import annotations

import argparse
import inspect
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def golden() -> list[tuple[object, object]]:
    """Every golden game with its ruleset, as (ruleset, record)."""
    from critter_kitchen import load_ruleset

    games = []
    for record in sorted((ROOT / "tests" / "golden").rglob("*.yaml")):
        packs_file = next((d / "packs.txt" for d in record.parents if (d / "packs.txt").is_file()), None)
        packs = [ROOT / p for p in packs_file.read_text().split()] if packs_file else []
        games.append((load_ruleset(packs), yaml.safe_load(record.read_text())))
    return games


def rate(games: list[tuple[object, object]], repeat: int, rounds: int, **how: object) -> float:
    from critter_kitchen.api import score_record

    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(repeat):
            for rules, record in games:
                score_record(record, rules, **how)  # type: ignore[arg-type]
        best = min(best, time.process_time() - start)
    return repeat * len(games) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from critter_kitchen.api import score_record

    games = golden()
    print(f"plain (score):            {rate(games, args.repeat, args.rounds):,.0f} games/s")
    if "trace" in inspect.signature(score_record).parameters:
        traced = rate(games, args.repeat, args.rounds, trace=True)
        print(f"traced (score --explain): {traced:,.0f} games/s")


if __name__ == "__main__":
    main()
