"""In-process scoring speed of the compiled build against the pure package, in one run.

    python tools/bench_compiled.py COMPILED_PYTHON [--games 200] [--rounds 6]

COMPILED_PYTHON is the python of a venv with the compiled build installed
(``HATCH_BUILD_HOOK_ENABLE_MYPYC=1 pip install ...``); the python running this script
is the pure package's. Both score the same kinds of random 5-player games as tools/bench.py
(full games with a critic, rumors and restaurateurs; and base-rule games, also scored by
the independent oracle of the tests), in rounds that alternate between the builds; each
figure is the best round. The machine is shared and noisy: compare the ratios.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

# One round in one python: the best of its passes over every record, in seconds a game.
# Many short passes, since one pause of the process spoils a whole pass on a loaded machine.
MEASURE = """
import gc, json, sys, time
PASSES = 10
import critter_kitchen.stages.runner as runner
from critter_kitchen import load_ruleset, score_record
samples = json.load(open(sys.argv[1]))
rules = load_ruleset()
gc.collect(); gc.freeze()
out = {"compiled": not runner.__file__.endswith(".py")}
for name, records in samples.items():
    best = float("inf")
    for _ in range(PASSES):
        start = time.perf_counter()
        for record in records:
            score_record(record, rules)
        best = min(best, (time.perf_counter() - start) / len(records))
    out[name] = best
if "--oracle" in sys.argv:
    sys.path.insert(0, sys.argv[2])
    import gen, oracle
    requirements = gen.challenge_requirements()
    best = float("inf")
    for _ in range(PASSES):
        start = time.perf_counter()
        for record in samples["base"]:
            oracle.score_record(record, requirements)
        best = min(best, (time.perf_counter() - start) / len(samples["base"]))
    out["oracle"] = best
print(json.dumps(out))
"""


def five_player_games(strategy_name: str, count: int) -> list[dict]:
    """``count`` random legal 5-player records of the test generators: those of tools/bench.py,
    drawn until there are enough rather than for a fixed number of examples."""
    import gen
    from hypothesis import HealthCheck, Phase, given, settings

    class Enough(Exception):
        pass

    found: list[dict] = []

    @settings(max_examples=count * 50, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(getattr(gen, strategy_name)())
    def collect(record: dict) -> None:
        if len(record["players"]) == 5:
            found.append(json.loads(json.dumps(record)))
        if len(found) >= count:
            raise Enough

    try:
        collect()
    except Enough:
        pass
    return found[:count]


def one_round(python: str, samples: str, *, oracle: bool) -> dict[str, float]:
    args = [python, "-I", "-c", MEASURE, samples, str(ROOT / "tests")] + (["--oracle"] if oracle else [])
    done = subprocess.run(args, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("compiled_python", help="python of a venv with the compiled build")
    parser.add_argument("--games", type=int, default=200, help="random games of each kind")
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds per build")
    args = parser.parse_args()
    samples = {"full": five_player_games("full_games", args.games), "base": five_player_games("games", args.games)}
    best: dict[str, dict[str, float]] = {"pure": {}, "compiled": {}}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(samples, f)
        f.flush()
        for _ in range(args.rounds):
            for build, python in (("pure", sys.executable), ("compiled", args.compiled_python)):
                got = one_round(python, f.name, oracle=build == "pure")
                if got.pop("compiled") != (build == "compiled"):
                    sys.exit(f"{python} does not run the {build} build")
                for name, seconds in got.items():
                    best[build][name] = min(best[build].get(name, float("inf")), seconds)
    pure, compiled, oracle = best["pure"], best["compiled"], best["pure"]["oracle"]
    print(f"best of {args.rounds} alternating rounds, {args.games} random 5-player games each:")
    for name, label in (("full", "full games (critic, rumors, restaurateurs)"), ("base", "base-rule games")):
        print(
            f"  {label}: pure {1 / pure[name]:,.0f} games/s, compiled {1 / compiled[name]:,.0f} games/s: "
            f"compiled is {pure[name] / compiled[name]:.2f}x as fast"
        )
    print(
        f"  engine over the oracle (base-rule games): pure {pure['base'] / oracle:.2f}, "
        f"compiled {compiled['base'] / oracle:.2f}"
    )


if __name__ == "__main__":
    main()
