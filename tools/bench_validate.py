"""Time `critter-kitchen validate` against check-jsonschema on the same 1,000 card files.

Ours checks YAML, the card schema and every effect's DSL (parse, names, types); the
baseline checks the card schema only. Both run as fresh processes, interleaved, and the
median of several rounds is compared, so the ratio holds on a noisy machine.

    python tools/bench_validate.py [--cards 1000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TYPES = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]

EFFECTS = [
    "for p in players:\n    multiply quality(p, {t}) by {n}\n",
    'award 1 star to highest(count(t for t in served(p) if spiced(p, t)) for p in players) for "spice {n}"\n',
    'for p in players:\n    if {t} in served(p) and value(p, {t}) >= {n}:\n        award 1 star to p for "fine {t}"\n',
    "let best = max(total_quality(p) for p in players)\n"
    "award {n} stars to each(p for p in players if total_quality(p) == best)\n",
    "for m in meals(round3):\n    if uses(m, {t}) > 0:\n"
    '        award 1 star to player_of(m) for "{t} in {{meal_card(m)}}"\n',
]


def card(i: int, rng: random.Random) -> str:
    body = rng.choice(EFFECTS).format(t=rng.choice(TYPES), n=rng.randint(1, 3))
    indented = "".join(f"      {line}\n" for line in body.splitlines())
    return (
        f"id: bench-{i:04d}\nkind: rumor\nname: Bench Rumor {i}\ntext: A generated rumor for timing.\n"
        f"effects:\n  - after: critic.rumors\n    do: |\n{indented}"
    )


def make_pack(folder: Path, count: int) -> list[Path]:
    rng = random.Random(7)
    (folder / "pack.yaml").write_text("id: bench\nname: Generated cards\n", "utf-8")
    files = []
    for i in range(count):
        path = folder / f"bench-{i:04d}.yaml"
        path.write_text(card(i, rng), "utf-8")
        files.append(path)
    return files


def command(name: str) -> str:
    """A console script of this environment, else one on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name) or name


def timed(cmd: list[str], cache: str | None = None) -> float:
    env = dict(os.environ)
    if cache is not None:
        env["CRITTER_KITCHEN_CACHE"] = cache
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd[:3])} ...\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ours_cmd = [command("critter-kitchen"), "validate"]
    theirs_cmd = [command("check-jsonschema"), "--schemafile", str(ROOT / "schemas" / "card.schema.json")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = make_pack(folder, args.cards)
        warm_cache = str(folder / ".warm-cache")
        timed([*ours_cmd, str(folder)], warm_cache)  # fills the warm cache
        cold, warm, theirs = [], [], []
        for i in range(args.rounds):
            cold.append(timed([*ours_cmd, str(folder)], str(folder / f".cold-cache-{i}")))
            warm.append(timed([*ours_cmd, str(folder)], warm_cache))
            theirs.append(timed([*theirs_cmd, *map(str, files)]))
    c, w, b = statistics.median(cold), statistics.median(warm), statistics.median(theirs)
    print(f"{args.cards} card files, median of {args.rounds} interleaved runs each")
    print(f"check-jsonschema (schema only, baseline):            {b:.2f} s")
    print(f"critter-kitchen validate, cache empty (YAML+schema+DSL): {c:.2f} s  ratio {c / b:.2f}")
    print(f"critter-kitchen validate, cache filled:                  {w:.2f} s  ratio {w / b:.2f}")
    print("goal: ratio at most 0.50")


if __name__ == "__main__":
    main()
