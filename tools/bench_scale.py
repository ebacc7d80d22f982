"""Balance lab scaling: 2 local workers and a Dask LocalCluster of 2 over one core, and what limits them.

    python tools/bench_scale.py [--players 4 5] [--work 150] [--games N] [--pack DIR|ID]... [--no-dask]
                                [--workers 2] [--chunks] [--save DIR]
    python tools/bench_scale.py --from DIR [--players 4 5]     (print the runs --save kept)

For each player count, plays the same games (seed 1) on one core (in this process), on
``--workers`` local worker processes, and on a Dask LocalCluster of as many worker processes of
one thread each (started, and its workers' packs loaded, before the timing, as a long-lived
cluster has them; closed after it), and prints:

- the wall-clock ratio of each over one core (goal: 1.8x for 2);
- the *work-based* figure, which the machine's load does not move: the one-core run's CPU
  time over the time the run's chunks would take had each worker its own core (each chunk's
  CPU time, taken in the worker with time.process_time, handed out in chunk order to the
  worker free first, after the CPU each worker took to start and the games played alone);
  then the *balance* (the chunks' CPU over the workers, over that time: 100% is no worker
  waiting for another) and the CPU a game took in each run (a machine's load raises it too);
- the cores the run kept busy with games (the chunks' CPU over its wall time) and the
  workers' occupancy, the wall time they spent inside a chunk over the run's;
- where each worker's time went besides games: starting (the run's start to its first
  chunk), waiting between chunks (scheduling, and the in-order merge's window running dry),
  and the tail (its last chunk's end to the run's end: the straggler), the chunk count and
  sizes, the last chunk, the games first played alone to size the chunks;
- the load average (1 minute) sampled during each run.

``--games`` fixes the run's games; by default they are sized from a short one-core run to
``--work`` seconds of one-core CPU time. ``--chunks`` prints every chunk (worker, games,
start and end, CPU). Each chunk is timed inside its worker by wrapping the lab's
``play_chunk``; the timings go through a file (one JSON line a chunk), so the tool measures
any version of the lab (``PYTHONPATH=/tmp/old/engine python tools/bench_scale.py``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import threading
import time
from typing import Any

from critter_kitchen.api import packs_for
from critter_kitchen.simulate import run as lab

TIMES = "CRITTER_KITCHEN_BENCH_CHUNK_TIMES"  # the file each timed chunk appends its line to


def timed_play_chunk(spec: lab.Spec, chunk: int) -> object:
    """The lab's play_chunk, timed in the worker that plays it: wall start and end, CPU time."""
    play = getattr(lab, "_untimed_play_chunk", lab.play_chunk)  # in a worker: the lab's own
    start, before = time.time(), time.process_time()
    result = play(spec, chunk)
    cpu, end = time.process_time() - before, time.time()
    first, stop = spec.bounds(chunk)
    line = json.dumps(
        {
            "pid": os.getpid(),
            "chunk": chunk,
            "games": [first, stop],
            "start": start,
            "end": end,
            "cpu": cpu,
            "cpu_before": before,  # the worker's CPU before this chunk: for its first, what starting took
        }
    )
    with open(os.environ[TIMES], "a", encoding="utf-8") as f:
        f.write(line + "\n")  # one write of a short line in append mode: whole, whoever else writes
    return result


class Load:
    """The 1-minute load average, sampled every few seconds while a run goes."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self.stop.wait(5.0):
                return

    def __enter__(self) -> Load:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()

    def said(self) -> str:
        return f"load {min(self.samples):.1f}-{max(self.samples):.1f}"


class Measured:
    """One timed run: its wall time, the main process's CPU, each chunk's timing, the load."""

    def __init__(
        self, label: str, wall: float, main_cpu: float, chunks: list[dict[str, Any]], load: str, main_pid: int
    ) -> None:
        self.label = label
        self.wall = wall
        self.main_cpu = main_cpu
        self.chunks = chunks
        self.load = load
        self.main_pid = main_pid  # the process that ran the run (and played its first games alone)


def measured(label: str, spec: lab.Spec, **where: object) -> Measured:
    path = os.environ[TIMES]
    open(path, "w").close()
    with Load() as load:
        started, cpu = time.time(), time.process_time()
        summary = lab.run(spec, **where)  # type: ignore[arg-type]
        ended, cpu = time.time(), time.process_time() - cpu
    assert summary.games == spec.games
    with open(path, encoding="utf-8") as f:
        chunks = [json.loads(line) for line in f]
    for c in chunks:  # times from the run's start
        c["start"] -= started
        c["end"] -= started
    return Measured(label, ended - started, cpu, sorted(chunks, key=lambda c: c["start"]), load.said(), os.getpid())


def analysis(m: Measured, workers: int, chunk_lines: bool) -> list[str]:
    """Where the workers' time went in run ``m``, in lines of text."""
    me = m.main_pid
    played = [c for c in m.chunks if c["pid"] != me or workers == 1]
    work = sum(c["cpu"] for c in m.chunks)
    inside = sum(c["end"] - c["start"] for c in played)
    by_worker: dict[int, list[dict[str, Any]]] = {}
    for c in played:
        by_worker.setdefault(c["pid"], []).append(c)
    starting = sum(cs[0]["start"] for cs in by_worker.values())
    between = sum(b["start"] - a["end"] for cs in by_worker.values() for a, b in zip(cs, cs[1:], strict=False))
    tails = [m.wall - cs[-1]["end"] for cs in by_worker.values()]
    sizes = [c["games"][1] - c["games"][0] for c in played]
    walls = [c["end"] - c["start"] for c in played]
    last = max(played, key=lambda c: c["end"])
    alone = [c for c in m.chunks if c["pid"] == me] if workers > 1 else []
    lines = [
        f"  {m.label}: {m.wall:.1f} s wall, {m.load}; chunk CPU {work:.1f} s, {work / m.wall:.2f} cores "
        f"busy with games; occupancy {inside / m.wall:.2f} workers inside a chunk, which got "
        f"{work / inside if inside else 0:.0%} of a core there; main process CPU {m.main_cpu:.1f} s",
        f"    {len(played)} chunks on {len(by_worker)} workers, {min(sizes)}-{max(sizes)} games "
        f"(median {statistics.median(sizes):g}), {statistics.median(walls):.2f} s each (median), longest "
        f"{max(walls):.2f} s; last chunk: games {last['games'][0]}-{last['games'][1] - 1}, "
        f"{last['end'] - last['start']:.2f} s"
        + (
            f"; {sum(c['games'][1] - c['games'][0] for c in alone)} games first played alone here, "
            f"{sum(c['cpu'] for c in alone):.2f} s CPU"
            if alone
            else ""
        ),
        f"    worker time not in a chunk: starting {starting:.1f} s, between chunks {between:.1f} s, tail "
        f"{sum(tails):.1f} s (" + ", ".join(f"{t:.1f}" for t in sorted(tails)) + " s: the straggler's lead)",
    ]
    if chunk_lines:
        lines += [
            f"      {c['pid']} games {c['games'][0]}-{c['games'][1] - 1}: {c['start']:.2f}-{c['end']:.2f} s, "
            f"cpu {c['cpu']:.2f} s"
            for c in m.chunks
        ]
    return lines


def modelled(m: Measured, workers: int, started_here: bool) -> float:
    """The run's time from its work alone, as if each chunk had its core to itself: the games
    played alone, then the chunks, in chunk order, each to the worker free first (as the pool's
    queue and the Dask loop hand them out), each worker first starting (its CPU before its
    first chunk, for workers the run started). What the chunking allows, whatever the load."""
    me = m.main_pid
    alone = sum(c["cpu"] for c in m.chunks if c["pid"] == me)
    shared = sorted((c for c in m.chunks if c["pid"] != me), key=lambda c: c["chunk"])
    if not shared:
        return alone
    first_cpu: dict[int, float] = {}
    for c in sorted(shared, key=lambda c: c["start"]):
        first_cpu.setdefault(c["pid"], c.get("cpu_before", 0.0) if started_here else 0.0)
    free = sorted(first_cpu.values())[:workers]
    free += [0.0] * (workers - len(free))
    for c in shared:
        i = free.index(min(free))
        free[i] += c["cpu"]
    return alone + max(free)


def save(folder: str | None, players: int, runs: list[Measured]) -> None:
    """Each run's wall time and chunk timings, as JSON, for a later look."""
    if folder is None:
        return
    os.makedirs(folder, exist_ok=True)
    for m in runs:
        name = f"{players}p-{m.label.replace(' ', '-')}.json"
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            json.dump(vars(m), f)


def saved(folder: str, players: int) -> list[Measured]:
    """The runs ``save`` kept for ``players`` players, one core first."""
    runs = []
    for name in sorted(os.listdir(folder)):
        if name.startswith(f"{players}p-") and name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                data = json.load(f)
            data.setdefault("main_pid", min(data["chunks"], key=lambda c: c["start"])["pid"])
            runs.append(Measured(**data))
    return sorted(runs, key=lambda m: m.label != "one core")


def report(one: Measured, runs: list[Measured], workers: int, chunk_lines: bool) -> None:
    """Each run over one core: wall, work-based; where the time went."""
    games = sum(c["games"][1] - c["games"][0] for c in one.chunks)
    for line in analysis(one, 1, chunk_lines):
        print(line)
    cpu_one = sum(c["cpu"] for c in one.chunks)
    for m in runs:
        cpu = sum(c["cpu"] for c in m.chunks)
        here = not m.label.startswith("Dask")  # a cluster's workers were started before
        makespan = modelled(m, workers, here)
        print(
            f"  {m.label} over one core: wall {one.wall / m.wall:.2f}x (goal 1.8x); work-based "
            f"{cpu_one / makespan:.2f}x: one core's CPU, {cpu_one:.1f} s, over this run's chunks' CPU handed out "
            f"in order to {workers} workers each on its own core, {makespan:.1f} s"
        )
        print(
            f"    balance {cpu / workers / makespan:.1%} (the chunks' CPU over {workers} workers, over that time); "
            f"CPU a game {cpu / games * 1000:.0f} ms against {cpu_one / games * 1000:.0f} ms on one core; cores "
            f"busy with games {cpu / m.wall:.2f} (one core: {cpu_one / one.wall:.2f})"
        )
        for line in analysis(m, workers, chunk_lines):
            print(line)
    sys.stdout.flush()


def games_for(folders: tuple[str, ...], players: int, work: float) -> int:
    """Games of about ``work`` CPU seconds on one core, from a short run's rate."""
    cpu = time.process_time()
    lab.run(lab.Spec(folders, 24, players, 1, chunk_games=24))
    each = (time.process_time() - cpu) / 24
    return math.ceil(work / each)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 5])
    parser.add_argument("--work", type=float, default=150.0, help="one-core CPU seconds a run (default 150)")
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--pack", action="append", default=[])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--chunks", action="store_true", help="print every chunk")
    parser.add_argument("--save", default=None, metavar="DIR", help="keep each run's chunk timings there (JSON)")
    parser.add_argument("--from", dest="source", default=None, metavar="DIR", help="print the runs --save kept there")
    args = parser.parse_args()
    if args.source is not None:
        for players in args.players:
            runs = saved(args.source, players)
            if runs:
                print(f"{players} players, from {args.source}")
                report(runs[0], runs[1:], args.workers, args.chunks)
        return
    folders = tuple(os.path.abspath(f) for f in packs_for({}, args.pack))
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    os.close(fd)
    os.environ[TIMES] = path  # before any worker starts: they inherit it
    lab._untimed_play_chunk = lab.play_chunk  # type: ignore[attr-defined]
    lab.play_chunk = timed_play_chunk  # type: ignore[assignment]
    from critter_kitchen.build import kind

    print(f"{kind()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the start")
    try:
        for players in args.players:
            lab.run(lab.Spec(folders, 1, players, 1))  # the packs loaded here, outside the timings
            games = args.games or games_for(folders, players, args.work)
            spec = lab.Spec(folders, games, players, 1)
            packs = ", ".join(["base", *(os.path.basename(f.rstrip(os.sep)) for f in folders)])
            print(f"{games} games of {players} players, seed 1, packs {packs}")
            one = measured("one core", spec)
            runs = [measured(f"{args.workers} local workers", spec, workers=args.workers)]
            if not args.no_dask:
                runs.append(on_cluster(spec, args.workers))
            save(args.save, players, [one, *runs])
            report(one, runs, args.workers, args.chunks)
    finally:
        os.unlink(path)


def on_cluster(spec: lab.Spec, workers: int) -> Measured:
    """The run on a Dask LocalCluster of ``workers`` processes of one thread, started (and its
    workers' packs loaded) before the timing and closed after it: an idle cluster's scheduler,
    which lives in this process, takes no CPU from the other runs."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster:
        warm = lab.Spec(spec.folders, 2 * workers, spec.players, spec.seed, chunk_games=1)
        lab.run(warm, dask=cluster.scheduler_address)
        return measured(f"Dask LocalCluster of {workers}", spec, dask=cluster.scheduler_address)


if __name__ == "__main__":
    main()
