"""Balance lab speed: simulated games with every per-card rescoring, on one core, a pool, Dask.

    python tools/bench_simulate.py [--games 40] [--players 5] [--effort fast] [--pack DIR|ID]... [--no-dask]
                                   [--compiled-python PATH] [--baseline REF] [--baseline-compiled-python PATH]
                                   [--rounds 2] [--only-one-core]

Prints, in one run (the machine is shared: compare figures within a run):
- games/s on one core, 5-player base games with the per-card paired rescoring, and the share
  of that time the planner takes (goal: 300 games/s);
- the CPU time of each part of a game (planner decisions, scoring, each rescoring), unprofiled,
  and what 300 games/s would leave each of them;
- 2 worker processes over 1, and a Dask LocalCluster of 2 processes over 1 (goal: 1.8x);
- the time 100,000 games would take at the all-cores rate measured;
- peak memory of one worker process running N and 4N games (goal: flat).

First, the same games on one core against the engine before the speed work (``--baseline REF``,
by default :data:`BASELINE`, a commit every clone has), in the same run: the baseline's
``engine`` and ``cards`` are extracted with ``git archive`` into a temporary folder and put
first on the path of a process of their own (as tools/bench.py does). Each engine plays the
same games (the same seed, players, packs and effort) in a fresh process, alternating over
``--rounds`` rounds; each figure is its best round, in CPU time (a loaded machine's waits for a
core do not count), and each process prints a digest of the game records it played, so a
line says whether the two engines played the very same games.

``--compiled-python PATH`` names the python of a venv with the compiled build (as for
tools/bench.py): its games are measured too, beside the baseline's compiled build: the python
``--baseline-compiled-python PATH`` names, or else one built here from the baseline's
exported tree into a temporary venv (``HATCH_BUILD_HOOK_ENABLE_MYPYC=1 pip install
--no-cache-dir``, at the lowest priority: a few minutes). ``--baseline none`` skips the
baseline.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from critter_kitchen.api import packs_for
from critter_kitchen.simulate.run import Spec, default_workers, run


def timed(spec: Spec, **where: object) -> float:
    started = time.perf_counter()
    summary = run(spec, **where)  # type: ignore[arg-type]
    assert summary.games == spec.games
    return time.perf_counter() - started


SHARES = {  # what a share of the time is spent in: (file name ends with, function names)
    "the planner, challenge rounds": ("players.py", ("plan_challenge_round",)),
    "the planner, critic meals": ("players.py", ("plan_critic_meal",)),
    "scoring a game, then without each card": ("run.py", ("tally_game",)),
    "  of which rescoring without each card": ("paired.py", ("rescored_without",)),
}


def shares(spec: Spec) -> tuple[dict[str, float], dict[str, int], float]:
    """The share of a profiled run's time in each part of :data:`SHARES`, the calls of each, the time."""
    profile = cProfile.Profile()
    profile.enable()
    run(spec)
    profile.disable()
    stats = pstats.Stats(profile)
    total: float = stats.total_tt  # type: ignore[attr-defined]
    found: dict[str, float] = {}
    calls: dict[str, int] = {}
    for label, (suffix, names) in SHARES.items():
        rows = [
            row
            for (file, _, name), row in stats.stats.items()  # type: ignore[attr-defined]
            if name in names and file.endswith(suffix)
        ]
        found[label] = sum(row[3] for row in rows) / total if total else 0.0
        calls[label] = sum(row[1] for row in rows)
    return found, calls, total


CPU_PARTS = {  # what the CPU time of an unprofiled run is counted in: (module, function name)
    "challenge-round decision": ("critter_kitchen.simulate.game", "plan_challenge_round"),
    "critic meal": ("critter_kitchen.simulate.game", "plan_critic_meal"),
    "scoring a game and every rescoring": ("critter_kitchen.simulate.run", "tally_game"),
    "  one rescoring without a card": ("critter_kitchen.simulate.paired", "rescored_without"),
}


def cpu_costs(spec: Spec) -> tuple[dict[str, tuple[int, float]], float]:
    """Calls and CPU seconds of each part of :data:`CPU_PARTS` in one unprofiled in-process run, and
    the run's CPU seconds (the machine's load slows wall time far more than CPU time)."""
    import importlib

    found: dict[str, list[float]] = {label: [0, 0.0] for label in CPU_PARTS}
    saved = []
    for label, (module_name, name) in CPU_PARTS.items():
        module = importlib.import_module(module_name)
        plain = getattr(module, name)

        def timed_call(*args: object, _plain: object = plain, _label: str = label) -> object:
            started = time.process_time()
            try:
                return _plain(*args)  # type: ignore[operator]
            finally:
                found[_label][0] += 1
                found[_label][1] += time.process_time() - started

        saved.append((module, name, plain))
        setattr(module, name, timed_call)
    started = time.process_time()
    try:
        run(spec)
    finally:
        for module, name, plain in saved:
            setattr(module, name, plain)
    return {label: (int(n), t) for label, (n, t) in found.items()}, time.process_time() - started


def print_arithmetic(costs: dict[str, tuple[int, float]], total: float, games: int) -> None:
    """Where a game's CPU time goes, and what 300 games/s on one core would need of each part."""
    print(f"CPU time a game: {total / games * 1e3:.1f} ms (unprofiled, one process)")
    for label, (calls, seconds) in costs.items():
        each = seconds / calls * 1e3 if calls else 0.0
        print(f"    {label}: {calls / games:.1f} a game, {each:.3f} ms each, {seconds / games * 1e3:.1f} ms a game")
    budget = 1000 / 300
    scoring = costs["scoring a game and every rescoring"][1] / games * 1e3
    decisions = sum(costs[k][0] for k in ("challenge-round decision", "critic meal")) / games
    rescorings = costs["  one rescoring without a card"][0] / games
    print(
        f"  300 games/s on one core is {budget:.2f} ms a game: with scoring as measured ({scoring:.1f} ms a game), "
        f"at most {1000 / scoring if scoring else float('inf'):.0f} games/s even with a free planner; with a free "
        f"planner, each of the {rescorings:.0f} rescorings would need <= {budget / max(rescorings, 1):.3f} ms, and "
        f"with free scoring each of the {decisions:.0f} planner decisions <= {budget / max(decisions, 1):.3f} ms"
    )


def planner_share(spec: Spec) -> float:
    found, _, _ = shares(spec)
    return found["the planner, challenge rounds"] + found["the planner, critic meals"]


def peak_rss_kib(folders: tuple[str, ...], games: int, players: int) -> int:
    code = (
        "import resource, sys\n"
        "from critter_kitchen.simulate.run import Spec, run\n"
        f"run(Spec({folders!r}, {games}, {players}, 1))\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1])


ROOT = Path(__file__).resolve().parent.parent
# main before the balance lab's speed work (issue 27): the commit before the first one of the
# issue (simulate --precision), a commit every clone has (a tag need not be fetched)
BASELINE = "35fb8db4378cd8130c814225fb0e5d3a03bbe020"

# One core in a process of its own: the engine's folder put first on the path (none: as
# installed), the packs loaded (and the cache filled) outside the timing, then the games
# timed; prints the build the process runs, CPU and wall seconds, and a digest of the records.
ONE_CORE = """
import hashlib, json, sys, time
folders, games, players, effort, path = json.loads(sys.argv[1])
if path:
    sys.path.insert(0, path)
import critter_kitchen.plan.search as search
from critter_kitchen.simulate.run import Spec, run
try:
    from critter_kitchen.build import kind
except ImportError:  # an engine from before build.py: its planner's module says it
    def kind():
        return "pure Python" if search.__file__.endswith(".py") else "compiled (mypyc)"
digest = hashlib.sha256()
def keep(records):
    for record in records:
        digest.update(json.dumps(record, sort_keys=True).encode())
run(Spec(tuple(folders), 1, players, 1))
cpu, wall = time.process_time(), time.perf_counter()
run(Spec(tuple(folders), games, players, 1, effort=effort, records=True), on_records=keep)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
print(json.dumps([kind(), search.__file__, cpu, wall, digest.hexdigest()]))
"""


class Engine:
    """One engine to measure: its label, its python, the folder to put first on its path (None:
    as installed) and its pack folders."""

    def __init__(self, label: str, python: str, path: str | None, folders: tuple[str, ...], cache: str) -> None:
        self.label = label
        self.python = python
        self.path = path
        self.folders = folders
        self.env = {**os.environ, "CRITTER_KITCHEN_CACHE": cache}  # an engine's pack cache is its own
        self.env.pop("PYTHONPATH", None)
        self.best: tuple[float, float] | None = None  # (CPU, wall) seconds of its best round
        self.build = self.module = self.digest = ""

    def play(self, games: int, players: int, effort: str) -> None:
        request = json.dumps([self.folders, games, players, effort, self.path])
        done = subprocess.run(
            [self.python, "-I", "-c", ONE_CORE, request], capture_output=True, text=True, env=self.env
        )
        if done.returncode != 0:
            sys.exit(f"{self.label} failed:\n{done.stderr[-3000:]}")
        self.build, self.module, cpu, wall, self.digest = json.loads(done.stdout)
        if self.best is None or cpu < self.best[0]:
            self.best = (cpu, wall)


def extract(ref: str, folder: Path, parts: tuple[str, ...] = ()) -> Path:
    """The tree (or ``parts`` of it) at git ``ref``, unpacked into ``folder``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, *parts], capture_output=True)
    if archive.returncode != 0:
        sys.exit(f"cannot extract {ref}: {archive.stderr.decode().strip()}")
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def build_compiled(ref: str, work: Path) -> str:
    """The python of a new venv holding the compiled build of git ``ref`` (minutes)."""
    tree = extract(ref, work / "baseline-tree")
    venv = work / "baseline-compiled"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {**os.environ, "HATCH_BUILD_HOOK_ENABLE_MYPYC": "1"}
    subprocess.run(
        ["nice", "-n", "19", python, "-m", "pip", "install", "-q", "--no-cache-dir", str(tree)], check=True, env=env
    )
    print(f"built the baseline's compiled build in {time.perf_counter() - started:.0f} s", flush=True)
    return python


def one_core_engines(args: argparse.Namespace, folders: tuple[str, ...], work: Path) -> None:
    """Games/s on one core of this engine and of the baseline (and of both compiled builds), the
    same games, in alternating rounds; the ratios."""
    engines = [Engine("this engine, pure", sys.executable, str(ROOT / "engine"), folders, str(work / "c-pure"))]
    if args.compiled_python is not None:
        engines.append(Engine("this engine, compiled", args.compiled_python, None, folders, str(work / "c-comp")))
    if args.baseline != "none":
        old = extract(args.baseline, work / "baseline", ("engine", "cards", "schemas"))
        base_packs = tuple(str(old / Path(f).relative_to(ROOT)) if Path(f).is_relative_to(ROOT) else f for f in folders)
        engines.append(Engine("baseline, pure", sys.executable, str(old / "engine"), base_packs, str(work / "c-0")))
        if args.compiled_python is not None:
            python = args.baseline_compiled_python or build_compiled(args.baseline, work)
            engines.append(Engine("baseline, compiled", python, None, base_packs, str(work / "c-0c")))
    for _ in range(args.rounds):
        for engine in engines:
            engine.play(args.games, args.players, args.effort)
    rate: dict[str, float] = {}
    for engine in engines:
        assert engine.best is not None
        cpu, wall = engine.best
        rate[engine.label] = args.games / cpu
        print(
            f"one core, {engine.label} ({engine.build}): {args.games} games of {args.players} players in "
            f"{cpu:.2f} s CPU ({wall:.2f} s wall) = {args.games / cpu:.1f} games/s; records {engine.digest[:12]}"
        )
    pairs = [
        ("this engine, pure", "baseline, pure", "pure over the baseline"),
        ("this engine, compiled", "baseline, compiled", "compiled over the baseline's compiled build"),
        ("this engine, compiled", "this engine, pure", "the compiled build over the pure package"),
    ]
    digests = {e.label: e.digest for e in engines}
    for new, old_label, said in pairs:
        if new in rate and old_label in rate:
            same = "the same games" if digests[new] == digests[old_label] else "the games' records differ"
            print(f"  {said}: {rate[new] / rate[old_label]:.2f}x ({same})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--pack", action="append", default=[])
    parser.add_argument("--effort", choices=("quick", "fast", "exact"), default="fast")
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--compiled-python", default=None, metavar="PATH")
    parser.add_argument("--baseline", default=BASELINE, help="git ref of the engine before the speed work, or none")
    parser.add_argument("--baseline-compiled-python", default=None, metavar="PATH")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds of the one-core figures")
    parser.add_argument("--only-one-core", action="store_true", help="stop after the one-core figures")
    args = parser.parse_args()
    folders = tuple(os.path.abspath(f) for f in packs_for({}, args.pack))
    with tempfile.TemporaryDirectory() as work:
        one_core_engines(args, folders, Path(work))
    if args.only_one_core:
        return
    spec = Spec(folders, args.games, args.players, 1, effort=args.effort)
    run(Spec(folders, 1, args.players, 1))  # load the packs (and fill the cache) outside the timings
    one = timed(spec)
    rate = args.games / one
    print(
        f"one core, planner effort {args.effort}: {args.games} games of {args.players} players with every per-card "
        f"rescoring in {one:.2f} s = {rate:.1f} games/s (goal 300)"
    )
    costs, cpu = cpu_costs(spec)
    print_arithmetic(costs, cpu, args.games)
    found, calls, profiled = shares(spec)
    planned = found["the planner, challenge rounds"] + found["the planner, critic meals"]
    print(f"  the planner's share of that time: {planned:.0%}")
    for label, share in found.items():
        each = share * profiled / calls[label] * 1000 if calls[label] else 0.0
        print(f"    {label}: {share:.1%} ({calls[label] / args.games:.1f} calls a game, {each:.2f} ms each, profiled)")
    two = timed(spec, workers=2)
    print(f"2 workers over 1: {one / two:.2f}x (goal 1.8x)")
    if not args.no_dask:
        try:
            from distributed import LocalCluster
        except ImportError:
            print("Dask LocalCluster: not measured (pip install 'critter-kitchen[cluster]')")
        else:
            with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
                timed(
                    Spec(folders, 4, args.players, 1, effort=args.effort), dask=cluster.scheduler_address
                )  # workers load the packs
                on_dask = timed(spec, dask=cluster.scheduler_address)
            print(f"Dask LocalCluster of 2 over 1 worker: {one / on_dask:.2f}x (goal 1.8x)")
    cores = default_workers()
    best = args.games / min(one, two) if cores > 1 else rate
    print(f"100,000 games at the rate of {min(cores, 2)} workers measured here: {100_000 / best / 60:.1f} minutes")
    small, large = args.games // 4 or 1, args.games
    low, high = peak_rss_kib(folders, small, args.players), peak_rss_kib(folders, large, args.players)
    print(f"peak memory of one worker: {low / 1024:.1f} MiB for {small} games, {high / 1024:.1f} MiB for {large}")


if __name__ == "__main__":
    main()
