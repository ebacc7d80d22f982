"""The planner on hostile pantries: the time and peak memory of each, in a subprocess with a cap.

    python tools/bench_plan_hostile.py [--seconds 30] [--memory-mb 2048] [--only NAME...]

Each case is one ``critter-kitchen plan PANTRY --format json`` run in a fresh process, its
address space capped at ``--memory-mb`` and its wall-clock time at ``--seconds`` (a run cut
there shows as ``> N s``). The cases are those a stranger's pantry can send to the score
pad's plan page or to the command:

- one fish and 16, 24 or 32 spices (four of each of the eight spice names, cycled);
- 1,000 and 1,000,000 soup and bisque tokens with a few ingredients, the fast effort;
- 2,000 and 6,000 items: ingredients of every type and 60 values, and a few tokens;
- a restaurateur (``tests/hostile/busy-restaurateur``) that reads every meal at great
  length, about 45,000 steps of effect work a meal served, with 8 and 12 items for three
  cards that share their ingredient types.

For each: the exit status, ``optimal`` as printed (or the first line of the error), the time
and the child's peak resident memory (``ru_maxrss``). The machine is shared and noisy: the
figures are of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUSY = ROOT / "tests" / "hostile" / "busy-restaurateur"
KINDS = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]
SPICES = [*KINDS, "allspice"]
ROUND3 = ["harbor-stew", "forest-risotto", "farmhouse-pie"]


def pantry(ingredients: list[dict[str, Any]], spices: list[str], soup: int = 0, bisque: int = 0, **player: str) -> dict:
    return {
        "for": "round3",
        "cards": {"challenges": {"round3": ROUND3}},
        "player": {"name": "Ana", **player},
        "pantry": {"ingredients": ingredients, "spices": spices, "soup": soup, "bisque": bisque},
    }


def many_items(n: int) -> dict:
    """``n`` items: ingredients of every type, values 1 to 60, and a few tokens (no spices: those are a case apart)."""
    ingredients = [{"type": KINDS[i % 7], "value": 1 + (i * 7919) % 60} for i in range(n - 4)]
    return pantry(ingredients, [], soup=2, bisque=2)


def busy(n: int) -> dict:
    """``n`` items for three cards of two types each, sharing cheese and bread, the busy restaurateur held."""
    kinds = ["carrot", "cheese", "bread", "mushroom", "cheese"]
    ingredients = [{"type": kinds[i % 5], "value": 1 + (i * 5) % 9} for i in range(n - 3)]
    data = pantry(ingredients, ["allspice"], soup=1, bisque=1, restaurateur="busy-bee")
    data["cards"]["challenges"]["round3"] = ["garden-gratin", "toasted-cheese", "mushroom-toast"]
    return data


FISH = [{"type": "fish", "value": 3}]
CASES: dict[str, tuple[dict, str, list[str]]] = {
    "1 fish + 16 spices, exact": (pantry(FISH, [SPICES[i % 8] for i in range(16)]), "exact", []),
    "1 fish + 24 spices, exact": (pantry(FISH, [SPICES[i % 8] for i in range(24)]), "exact", []),
    "1 fish + 32 spices, exact": (pantry(FISH, [SPICES[i % 8] for i in range(32)]), "exact", []),
    "1 fish + 32 spices, fast": (pantry(FISH, [SPICES[i % 8] for i in range(32)]), "fast", []),
    "soup = bisque = 1,000, fast": (pantry([*FISH, {"type": "carrot", "value": 2}], [], 1000, 1000), "fast", []),
    "soup = bisque = 1,000,000, fast": (
        pantry([*FISH, {"type": "carrot", "value": 2}], [], 1_000_000, 1_000_000),
        "fast",
        [],
    ),
    "soup = bisque = 1,000,000, exact": (
        pantry([*FISH, {"type": "carrot", "value": 2}], [], 1_000_000, 1_000_000),
        "exact",
        [],
    ),
    "2,000 items, exact": (many_items(2000), "exact", []),
    "6,000 items, exact": (many_items(6000), "exact", []),
    "busy restaurateur, 8 items, exact": (busy(8), "exact", [str(BUSY)]),
    "busy restaurateur, 12 items, exact": (busy(12), "exact", [str(BUSY)]),
    "busy restaurateur, 12 items, fast": (busy(12), "fast", [str(BUSY)]),
}


def run_case(path: Path, effort: str, packs: list[str], seconds: float, memory_mb: int) -> tuple[str, float, float]:
    """(outcome, seconds, peak MiB) of one plan in a fresh process."""
    argv = [sys.executable, "-m", "critter_kitchen", "plan", str(path), "--format", "json", "--effort", effort]
    for pack in packs:
        argv += ["--pack", pack]
    limit = memory_mb * 1024 * 1024

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "CRITTER_KITCHEN_CACHE": "off"}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=err, preexec_fn=cap, env=env)  # noqa: PLW1509
        deadline = start + seconds
        usage = None
        status = None
        while True:
            pid, code, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                status = os.waitstatus_to_exitcode(code)
                break
            if time.perf_counter() > deadline:
                child.send_signal(signal.SIGKILL)
                _, code, usage = os.wait4(child.pid, 0)
                break
            time.sleep(0.02)
        took = time.perf_counter() - start
        child.returncode = status if status is not None else -9  # reaped by wait4
        peak = usage.ru_maxrss / 1024
        if status is None:
            return f"> {seconds:g} s (killed)", took, peak
        out.seek(0)
        err.seek(0)
        text, problems = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    if status == 0:
        try:
            result = json.loads(text)
        except ValueError:
            return f"exit 0, not JSON: {text[:60]!r}", took, peak
        return f"exit 0, optimal {str(result['optimal']).lower()}, {result['stars']} stars", took, peak
    lines = problems.strip().splitlines()
    last = lines[-1] if lines else ""
    return f"exit {status}: {last[:110]}", took, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="wall-clock cap of each run (default: 30)")
    parser.add_argument("--memory-mb", type=int, default=2048, help="address-space cap of each run (default: 2048)")
    parser.add_argument("--only", nargs="*", help="run the cases whose names contain one of these")
    args = parser.parse_args()
    print(f"{'case':38} {'time':>10} {'peak':>10}  outcome")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (data, effort, packs) in CASES.items():
            if args.only and not any(part in name for part in args.only):
                continue
            path = Path(tmp) / "pantry.json"
            path.write_text(json.dumps(data), "utf-8")
            outcome, took, peak = run_case(path, effort, packs, args.seconds, args.memory_mb)
            shown = f"> {args.seconds:g} s" if outcome.startswith(">") else f"{took:.2f} s"
            print(f"{name:38} {shown:>10} {peak:>7.0f} MiB  {outcome}", flush=True)


if __name__ == "__main__":
    main()
