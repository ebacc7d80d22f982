"""Time and peak memory of ``critter-kitchen simulate --games 1`` with hostile deal models.

    python tools/bench_hostile_deal.py [--seconds 60] [--memory-gib 4]

Each pack is made in a temporary folder and run in a process of its own, stopped after
``--seconds`` and held to ``--memory-gib`` of address space (so that a bag built token by
token fails with MemoryError instead of filling a shared machine). Printed per pack: how the
run ended (its exit status, or "stopped" at the time limit), the wall time, the peak resident
memory, and the last line it wrote to standard error.

The packs: a bag row of 10^11 fish tokens, a spice-heavy bag with 1,000 tokens drawn a round,
a supply of 5*10^7 soup tokens; then the worst deal model the limits allow (a bag and a supply
at their limits, every item a player may draw in the first round) at each planner effort.
At the exact effort that game plans five 99-item pantries to their work budget: about 85 s on
the 2-core development machine, and a peak of about 205 MiB since the planner's memories are
bounded (plan/work.py; it was 755 MiB).
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PACKS = {
    "huge bag (fish: [[2, 100000000000]])": "  ingredient_tokens:\n    value:\n      fish: [[2, 100000000000]]\n",
    "spice-heavy bag, 1000 drawn a round": "  spice_tokens:\n    value: {allspice: 100000}\n  rounds:\n    value:\n"
    + "".join(f"      round{n}: {{bag: 1000}}\n" for n in range(1, 8)),
    "huge supply (soup: 50000000)": "  supply:\n    value: {soup: 50000000}\n",
}
# The most the limits allow: 10,000 tokens in the bag less a few (1,400 of each base type,
# valued 2 to 5, beside the base pack's 18 spice tokens), 10,000 in the supply, and all 100
# items a player may draw dealt in round 1, so the round-3 plan sees them all.
TYPES = ("carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread")
AT_THE_LIMITS = (
    "  ingredient_tokens:\n    value:\n"
    + "".join(f"      {t}: [[2, 350], [3, 350], [4, 350], [5, 350]]\n" for t in TYPES)
    + "  supply:\n    value: {soup: 9000, bisque: 1000}\n"
    "  rounds:\n    value:\n      round1: {bag: 99, supply: 1}\n"
    + "".join(f"      round{n}: {{}}\n" for n in range(2, 8))
)


def pack(folder: Path, name: str, deal: str) -> str:
    folder.mkdir()
    (folder / "pack.yaml").write_text(f"id: {name}\nname: {name}\n", "utf-8")
    (folder / "rules.yaml").write_text(f"id: {name}-rules\nkind: rules\nname: {name}\ndeal:\n{deal}", "utf-8")
    return str(folder)


def measure(args: list[str], seconds: float, memory: int) -> tuple[str, float, int, str]:
    """How the command ended, its wall time, its peak RSS in KiB, its last line of stderr."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = {**os.environ, "CRITTER_KITCHEN_CACHE": "off"}
    started = time.monotonic()
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err, preexec_fn=limit, env=env)
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                ended = f"exit {os.waitstatus_to_exitcode(status)}"
                break
            if time.monotonic() - started > seconds:
                os.kill(child.pid, signal.SIGKILL)
                _, status, usage = os.wait4(child.pid, 0)
                ended = "stopped"
                break
            time.sleep(0.05)
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        took = time.monotonic() - started
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").strip().splitlines()
    return ended, took, usage.ru_maxrss, lines[-1][-150:] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--memory-gib", type=float, default=4.0)
    options = parser.parse_args()
    memory = int(options.memory_gib * 2**30)
    command = [sys.executable, "-m", "critter_kitchen", "simulate", "--games", "1", "--workers", "1"]
    with tempfile.TemporaryDirectory() as tmp:
        runs = [
            (label, [*command, "--pack", pack(Path(tmp, f"p{i}"), f"hostile-{i}", deal)])
            for i, (label, deal) in enumerate(PACKS.items())
        ]
        limits = pack(Path(tmp, "limits"), "at-the-limits", AT_THE_LIMITS)
        for effort in ("quick", "fast", "exact"):
            runs.append(
                (
                    f"at the limits, 5 players, effort {effort}",
                    [*command, "--pack", limits, "--players", "5", "--effort", effort],
                )
            )
        for label, args in runs:
            ended, took, peak, last = measure(args, options.seconds, memory)
            print(f"{label}: {ended}, {took:.2f} s, peak RSS {peak / 1024:.1f} MiB")
            if last:
                print(f"    {last}")


if __name__ == "__main__":
    main()
