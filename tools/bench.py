"""Scoring speed and memory, each figure printed beside a baseline measured in the same run.

    python tools/bench.py [--games 300] [--runs 10]

1. In-process scoring of random legal 5-player games with a critic, rumors and
   restaurateurs (games per second on one core), and the engine against the independent
   base-rules scorer of the tests (tests/oracle.py) on the same base-rule games.
2. Cold start: `critter-kitchen score` of a 5-player example against `python -c "import
   yaml"`, medians of interleaved runs, with the pack cache filled. Both run as on a
   normal install, with Python's bytecode cache on (PYTHONDONTWRITEBYTECODE is dropped
   from their environment; pip writes bytecode for an installed package anyway).
3. Batch: 10,000 games as JSON Lines on standard input.
4. Peak memory of a process scoring one game.

The machine is shared and noisy, so ratios within one run are what to compare.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

GOALS = {"games_per_second": 10_000, "oracle_ratio": 2.0, "cold_ratio": 2.0, "batch_seconds": 5.0, "peak_mib": 40}


def sample(strategy_name: str, count: int, players: int) -> list[dict]:
    """Random legal records from the test generators (hypothesis), with ``players`` players."""
    import gen
    from hypothesis import HealthCheck, given, settings

    found: list[dict] = []

    @settings(max_examples=count * 20, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(getattr(gen, strategy_name)())
    def collect(record: dict) -> None:
        if len(record["players"]) == players and len(found) < count:
            found.append(json.loads(json.dumps(record)))

    collect()
    return found


def per_game(fn, records: list[dict], rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for record in records:
            fn(record)
        best = min(best, (time.perf_counter() - start) / len(records))
    return best


def in_process(games: int) -> None:
    import gen
    import oracle

    from critter_kitchen import load_ruleset, score_record

    rules = load_ruleset()
    full = sample("full_games", games, 5)
    base = sample("games", games, 5)
    requirements = gen.challenge_requirements()
    # The samples come from hypothesis, which leaves a large heap behind; keep the
    # collector from walking it again and again while the engine and the oracle run.
    gc.collect()
    gc.freeze()
    t_full = per_game(lambda r: score_record(r, rules), full)
    t_engine = per_game(lambda r: score_record(r, rules), base)
    t_oracle = per_game(lambda r: oracle.score_record(r, requirements), base)
    print(f"in-process, {len(full)} random 5-player games with critic, rumors, restaurateurs:")
    print(f"  {1 / t_full:,.0f} games/s ({t_full * 1e6:.0f} us a game)  goal >= {GOALS['games_per_second']:,}")
    print(f"in-process, {len(base)} random 5-player base-rule games:")
    print(
        f"  engine {t_engine * 1e6:.0f} us, oracle {t_oracle * 1e6:.0f} us: ratio {t_engine / t_oracle:.1f}"
        f"  goal <= {GOALS['oracle_ratio']}"
    )


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, env=env)
    if done.returncode != 0:
        sys.exit(f"failed: {cmd}\n{done.stderr.decode()[-2000:]}")
    return time.perf_counter() - start


def command(name: str) -> str:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else name


def cold_start(runs: int, env: dict[str, str]) -> None:
    example = str(ROOT / "examples" / "five-players.yaml")
    ours = [command("critter-kitchen"), "score", example]
    baseline = [sys.executable, "-c", "import yaml"]
    timed(ours, env)  # fills the pack cache and writes bytecode
    a, b = [], []
    for _ in range(runs):
        a.append(timed(ours, env))
        b.append(timed(baseline, env))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"cold start, medians of {runs} interleaved runs:")
    print(
        f"  critter-kitchen score examples/five-players.yaml {ma * 1000:.0f} ms, python -c 'import yaml' "
        f"{mb * 1000:.0f} ms: ratio {ma / mb:.1f}  goal <= {GOALS['cold_ratio']}"
    )


def batch(env: dict[str, str]) -> None:
    records = sample("full_games", 100, 5)
    lines = "".join(json.dumps(records[i % len(records)]) + "\n" for i in range(10_000))
    start = time.perf_counter()
    done = subprocess.run(
        [command("critter-kitchen"), "score", "-", "--format", "json"],
        input=lines.encode(),
        capture_output=True,
        env=env,
    )
    elapsed = time.perf_counter() - start
    scored = sum(1 for line in done.stdout.splitlines() if b'"winner"' in line)
    print(
        f"batch: {scored:,} games on standard input as JSON Lines in {elapsed:.2f} s  goal < {GOALS['batch_seconds']} s"
    )


def memory(env: dict[str, str]) -> None:
    example = str(ROOT / "examples" / "five-players.yaml")
    # VmHWM: this process's own peak resident memory (ru_maxrss would carry the parent's over exec)
    report = "import sys; sys.stderr.write([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0])"
    code = f"from critter_kitchen.cli import main\nmain(['score', {example!r}])\n{report}\n"
    peak = _kib(subprocess.run([sys.executable, "-c", code], capture_output=True, env=env)) / 1024
    idle = _kib(subprocess.run([sys.executable, "-c", f"import yaml\n{report}"], capture_output=True, env=env)) / 1024
    print(
        f"memory: peak {peak:.1f} MiB scoring one game (python with yaml alone: {idle:.1f} MiB)"
        f"  goal <= {GOALS['peak_mib']} MiB"
    )


def _kib(done: subprocess.CompletedProcess[bytes]) -> int:
    return int(done.stderr.decode().strip().splitlines()[-1].split()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="random games per in-process measurement")
    parser.add_argument("--runs", type=int, default=10, help="interleaved runs for the cold start")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "CRITTER_KITCHEN_CACHE": cache}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["CRITTER_KITCHEN_CACHE"] = cache
        in_process(args.games)
        cold_start(args.runs, env)
        batch(env)
        memory(env)


if __name__ == "__main__":
    main()
