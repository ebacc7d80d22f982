"""Balance lab memory over a long run: the resident memory of each process of one run, over time.

    python tools/bench_lab_memory.py [--every 10] [--minutes 20] -- simulate --games 20000 --players 4 --workers 1

Starts ``critter-kitchen ARGS...`` (this python's package, with ``--records`` to a file of its
own, whose lines count the games played; the report written and dropped), reads the resident memory
(``VmRSS`` in /proc/PID/status, Linux) of the command and of every process it started (the
local workers) every ``--every`` seconds, prints one line a sample as it goes, and at the end
each process's memory at the start (the first sample after its first minute of games), the
middle and the end of the run, and its peak (``VmHWM``). The run is stopped after
``--minutes`` if it is still going: the curve up to then is what is measured. Goal: flat, at
most 200 MiB a worker.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

MIB = 1024


def status_kib(pid: int, field: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def played(records: str) -> int:
    """The games the run has written to its records file so far (one line a game)."""
    try:
        with open(records, "rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except OSError:
        return 0


def children(pid: int) -> list[tuple[int, int]]:
    """Every process below ``pid`` (the forkserver, the pool's workers), each with its parent."""
    found: list[tuple[int, int]] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            with open(f"/proc/{parent}/task/{parent}/children", encoding="ascii") as f:
                kids = [int(k) for k in f.read().split()]
        except OSError:
            kids = []
        found.extend((kid, parent) for kid in kids)
        todo.extend(kids)
    return found


def name_of(pid: int, parent: int, command: int) -> str:
    """What a process of the run is: the command, a worker, or multiprocessing's helpers."""
    if pid == command:
        return "command"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            text = f.read().decode(errors="replace")
    except OSError:
        return "?"
    if "resource_tracker" in text:
        return "tracker"
    if "forkserver" in text and parent == command:
        return "forkserver"
    return "worker"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=float, default=10.0, help="seconds between samples")
    parser.add_argument("--minutes", type=float, default=20.0, help="stop the run after this long")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="critter-kitchen's arguments, after --")
    args = parser.parse_args()
    command = [a for a in args.args if a != "--"] or ["simulate", "--games", "20000", "--players", "4"]
    folder = tempfile.mkdtemp()
    report, records = os.path.join(folder, "report.json"), os.path.join(folder, "games.jsonl")
    errors = open(os.path.join(folder, "stderr"), "w+b")  # noqa: SIM115 (read and closed at the end)
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "critter_kitchen",
            *command,
            "--format",
            "json",
            "--output",
            report,
            "--records",
            records,
        ],
        stdout=subprocess.DEVNULL,
        stderr=errors,
    )
    started = time.monotonic()
    curves: dict[int, list[tuple[float, int]]] = {}
    names: dict[int, str] = {}
    peaks: dict[int, int] = {}
    load: list[float] = []
    games: list[int] = []
    try:
        while child.poll() is None:
            now = time.monotonic() - started
            if now > args.minutes * 60:
                break
            load.append(os.getloadavg()[0])
            games.append(played(records))
            line = [f"{now:7.0f} s  load {load[-1]:5.2f}  {games[-1]:6d} games"]
            for pid, parent in [(child.pid, 0), *children(child.pid)]:
                rss, hwm = status_kib(pid, "VmRSS"), status_kib(pid, "VmHWM")
                if rss is None:
                    continue
                names.setdefault(pid, name_of(pid, parent, child.pid))
                curves.setdefault(pid, []).append((now, rss))
                peaks[pid] = max(peaks.get(pid, 0), hwm or 0)
                line.append(f"{names[pid]} {pid}: {rss / MIB:6.1f} MiB")
            print("  ".join(line), flush=True)
            time.sleep(args.every)
    finally:
        stopped = child.poll() is None
        if stopped:
            child.terminate()  # the pool's workers may complain of the pipe closed under them: not shown
        child.wait()
        errors.seek(0)
        if not stopped and child.returncode != 0:
            sys.stderr.write(errors.read().decode(errors="replace"))
        errors.close()
        shutil.rmtree(folder)
    print(f"run: {' '.join(command)}; {time.monotonic() - started:.0f} s, {games[-1] if games else 0} games played")
    if load:
        print(f"load average (1 min) during the run: {min(load):.2f} to {max(load):.2f}")
    for pid, curve in curves.items():
        if names[pid] in ("forkserver", "tracker") or len(curve) < 3:
            continue
        warm = [c for c in curve if c[0] >= curve[0][0] + 60] or curve
        start, middle, end = warm[0], warm[len(warm) // 2], warm[-1]
        print(
            f"{names[pid]} {pid}: {start[1] / MIB:.1f} MiB at {start[0]:.0f} s, {middle[1] / MIB:.1f} MiB at "
            f"{middle[0]:.0f} s, {end[1] / MIB:.1f} MiB at {end[0]:.0f} s; peak {peaks[pid] / MIB:.1f} MiB "
            f"(goal: flat, at most 200 MiB)"
        )


if __name__ == "__main__":
    main()
