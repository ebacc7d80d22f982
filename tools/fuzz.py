"""Long fuzzing runs of the command's entry points: game records, card files, effect text, pack schemas, pantries.

    python tools/fuzz.py --seconds 60 --target all

Each input goes through ``critter_kitchen.cli.main`` in this process (``score`` and
``validate``; card and effect inputs in a one-card pack, scored with an example game when
they load). The only allowed outcomes are exit 0 with a result or exit 1 with clean error
lines; an escaping exception, any other output or a call running past --timeout is a
failure. Failing inputs are saved under --out, a few per kind of failure, each with a
``.txt`` note saying what went wrong. Failures of engine bugs already reported (see
``KNOWN_ISSUES`` in tests/fuzzlib.py) are counted apart from new ones.

Engines: ``hypothesis`` (random and mutated inputs from the strategies in tests/fuzzlib.py)
or ``atheris`` (coverage-guided, from the shipped files as seeds), when it is installed;
``auto`` (the default) picks atheris if it imports.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import fuzzlib  # noqa: E402 - tests/fuzzlib.py, found through the path set above

SAVED_PER_KIND = 3


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Fuzz the records, card files, effect text, pack schemas and pantries."
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to fuzz each target (default: 60)")
    parser.add_argument("--target", choices=(*fuzzlib.TARGETS, "all"), default="all", help="what to fuzz")
    parser.add_argument(
        "--engine",
        choices=("auto", "atheris", "hypothesis"),
        default="auto",
        help="atheris (coverage-guided) or hypothesis (random search); auto: atheris when installed",
    )
    parser.add_argument("--out", default="fuzz-failures", help="folder for failing inputs (default: ./fuzz-failures)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds one call may take (default: 10)")
    parser.add_argument("--memory-mb", type=int, default=3072, help="address-space limit in MB (default: 3072)")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # internal: one atheris run in a subprocess
    return parser.parse_args(argv)


def atheris_available() -> bool:
    try:
        import atheris  # noqa: F401
    except ImportError:
        return False
    return True


# failures


def signature(failure: str, raw: bytes) -> str:
    """A short name for the kind of a failure, so that one bug is saved a few times, not thousands."""
    if failure.startswith("generator fault"):
        return "generator-fault"
    known = fuzzlib.known_issue(failure, raw)
    if known:
        return f"known-{known}"
    if ": hang" in failure or failure.startswith("hang"):
        return "hang"
    if "Traceback" in failure:
        lines = failure.strip().splitlines()
        frames = [ln for ln in lines if "critter_kitchen" in ln and ln.strip().startswith("File")]
        where = re.sub(r".*critter_kitchen/", "", frames[-1]).strip() if frames else ""
        return re.sub(r"\W+", "-", f"{lines[-1].split(':')[0]}-{where}")[:80]
    return re.sub(r"\W+", "-", re.sub(r"\d+", "N", failure))[:80]


class Recorder:
    """Counts inputs and failures of one target; saves a few inputs of each kind of failure."""

    def __init__(self, target: str, out: Path) -> None:
        self.target = target
        self.out = out / target
        self.tried = 0
        self.kinds: Counter[str] = Counter()
        self.examples: dict[str, str] = {}
        self.slowest = 0.0

    def record(self, case: object, failures: list[str], seconds: float) -> None:
        self.tried += 1
        self.slowest = max(self.slowest, seconds)
        if not failures:
            return
        name, raw = fuzzlib.case_bytes(self.target, case)
        kinds = dict.fromkeys(signature(f, raw) for f in failures)
        for kind in kinds:
            self.kinds[kind] += 1
            if self.kinds[kind] <= SAVED_PER_KIND:
                self.out.mkdir(parents=True, exist_ok=True)
                stem = f"{kind}-{self.kinds[kind]}"
                path = self.out / f"{stem}-{name}"
                path.write_bytes(raw)
                note = [f for f in failures if signature(f, raw) == kind]
                (self.out / f"{stem}.txt").write_text("\n\n".join(note) + "\n", "utf-8")
                self.examples.setdefault(kind, str(path))

    def stats(self, engine: str, seconds: float) -> dict:
        return {
            "target": self.target,
            "engine": engine,
            "tried": self.tried,
            "seconds": round(seconds, 1),
            "slowest": round(self.slowest, 3),
            "failures": dict(self.kinds),
            "examples": self.examples,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        }


def limit_memory(mb: int) -> None:
    limit = mb * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        pass


def prepare(target: str) -> Path:
    """A fresh working folder (the current folder while fuzzing) and the cache settings for ``target``."""
    workdir = Path(tempfile.mkdtemp(prefix=f"ck-fuzz-{target}-"))
    os.chdir(workdir)
    spec = fuzzlib.TARGET_SPECS[target]
    os.environ["CRITTER_KITCHEN_CACHE"] = "off" if spec.cache_off else str(workdir / ".cache")
    return workdir


# hypothesis: random search


def run_hypothesis(target: str, seconds: float, out: Path, timeout: float) -> dict:
    from hypothesis import HealthCheck, Phase, given, settings

    spec = fuzzlib.TARGET_SPECS[target]
    workdir = prepare(target)
    recorder = Recorder(target, out)
    deadline = time.monotonic() + seconds
    start = time.monotonic()

    @settings(
        max_examples=50,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(spec.strategy())
    def batch(case: object) -> None:
        if time.monotonic() > deadline:
            return
        t0 = time.perf_counter()
        try:
            failures = spec.run(workdir, case, timeout)
        except fuzzlib.Hang as e:
            failures = [f"hang outside main(): {e}"]
        except MemoryError:
            failures = ["MemoryError: Traceback: out of memory"]
        recorder.record(case, failures, time.perf_counter() - t0)

    try:
        while time.monotonic() < deadline:
            try:
                batch()
            except Exception:  # noqa: BLE001 - a fault of the input generators, not of the engine
                recorder.record(None, [f"generator fault: {traceback.format_exc()}"], 0.0)
    finally:
        os.chdir(ROOT)
        shutil.rmtree(workdir, ignore_errors=True)
    return recorder.stats("hypothesis", time.monotonic() - start)


# atheris: coverage-guided, in a child process (libFuzzer runs once per process)


def seed_corpus(target: str, folder: Path) -> None:
    """The shipped files (and, for records, random legal games in both formats) as the first inputs."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, (_, text) in enumerate(fuzzlib.seed_texts(target)):
        (folder / f"seed-{i}").write_bytes(text.encode("utf-8"))
    if target == "records":
        import gen
        from hypothesis import HealthCheck, Phase, given, settings

        games: list[dict] = []

        @settings(max_examples=40, database=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(gen.full_games())
        def collect(game: dict) -> None:
            games.append(game)

        collect()
        for i, game in enumerate(games):
            (folder / f"game-{i}.{'json' if i % 2 else 'yaml'}").write_text(
                fuzzlib.dump(game, "json" if i % 2 else "yaml"), "utf-8"
            )


def atheris_case(target: str, data: bytes) -> object:
    if target in ("records", "pantries"):
        return (".json" if data.lstrip()[:1] in (b"{", b"[") else ".yaml"), data
    if target == "cards":
        return "card", data
    if target == "schemas":
        card = b"id: fuzz-gadget\nkind: gadget\nname: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\n"
        return data, card
    kind = ("rumor", "restaurateur", "critic")[len(data) % 3]  # leaves the text itself alone
    return kind, data.decode("utf-8", "replace")


def atheris_child(target: str, seconds: float, out: Path, timeout: float, stats_file: Path) -> None:
    import atheris

    with atheris.instrument_imports(include=["critter_kitchen"]):
        import critter_kitchen.cli  # noqa: F401
        from critter_kitchen.dsl import parser

    spec = fuzzlib.TARGET_SPECS[target]
    workdir = prepare(target)
    parser._lark()  # build the effect-language parser before the clock starts
    recorder = Recorder(target, out)
    start = time.monotonic()

    def finish() -> None:
        stats_file.write_text(json.dumps(recorder.stats("atheris", time.monotonic() - start)), "utf-8")
        sys.stdout.flush()
        os._exit(0)

    def one_input(data: bytes) -> None:
        if time.monotonic() - start > seconds:
            finish()
        case = atheris_case(target, data)
        t0 = time.perf_counter()
        try:
            failures = spec.run(workdir, case, timeout)
        except fuzzlib.Hang as e:
            failures = [f"hang outside main(): {e}"]
        recorder.record(case, failures, time.perf_counter() - t0)
        if recorder.tried % 500 == 0:
            stats_file.write_text(json.dumps(recorder.stats("atheris", time.monotonic() - start)), "utf-8")

    corpus = Path(tempfile.mkdtemp(prefix=f"ck-corpus-{target}-"))
    seed_corpus(target, corpus)
    args = [
        sys.argv[0],
        str(corpus),
        f"-max_total_time={int(seconds) + 30}",
        "-timeout=0",  # the alarm is ours (fuzzlib.time_limit)
        "-rss_limit_mb=3072",
        "-max_len=16384",
        "-print_final_stats=0",
    ]
    atheris.Setup(args, one_input)
    atheris.Fuzz()
    finish()


def run_atheris(target: str, seconds: float, out: Path, timeout: float) -> dict:
    stats_file = Path(tempfile.mkstemp(prefix="ck-fuzz-stats-", suffix=".json")[1])
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        target,
        "--seconds",
        str(seconds),
        "--out",
        str(out),
        "--timeout",
        str(timeout),
    ]
    log = Path(tempfile.mkstemp(prefix="ck-fuzz-log-", suffix=".txt")[1])
    with log.open("wb") as f:
        env = dict(os.environ, CK_FUZZ_STATS=str(stats_file))
        proc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
    try:
        stats = json.loads(stats_file.read_text("utf-8"))
    except (OSError, ValueError):
        stats = {"target": target, "engine": "atheris", "tried": 0, "failures": {}, "examples": {}}
    if proc.returncode != 0:  # libFuzzer stopped the run: a crash in native code, or out of memory
        tail = log.read_text("utf-8", "replace")[-2000:]
        stats["failures"]["fuzzer-stopped"] = 1
        stats["examples"]["fuzzer-stopped"] = f"exit {proc.returncode}; log {log}:\n{tail}"
    else:
        log.unlink(missing_ok=True)
    stats_file.unlink(missing_ok=True)
    return stats


# report


def report(stats: dict) -> int:
    known = {k: n for k, n in stats["failures"].items() if k.startswith("known-")}
    new = {k: n for k, n in stats["failures"].items() if not k.startswith("known-")}
    print(
        f"{stats['target']}: {stats['tried']} inputs in {stats.get('seconds', '?')} s ({stats['engine']}); "
        f"slowest call {stats.get('slowest', '?')} s; peak memory {stats.get('peak_rss_mb', '?')} MB"
    )
    print(f"  new failures: {sum(new.values())}" + ("" if new else " (none)"))
    for kind, n in sorted(new.items()):
        print(f"    {kind}: {n} input(s), e.g. {stats['examples'].get(kind, '')}")
    if known:
        print(f"  failures of already reported engine bugs: {sum(known.values())}")
        for kind, n in sorted(known.items()):
            name = kind.removeprefix("known-")
            print(f"    {name}: {n} input(s) - {fuzzlib.KNOWN_ISSUES.get(name, '')}")
            print(f"      e.g. {stats['examples'].get(kind, '')}")
    return len(new)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = Path(args.out).resolve()
    if args.child:
        limit_memory(args.memory_mb + 1024)  # libFuzzer's own limit (-rss_limit_mb) comes first
        atheris_child(args.child, args.seconds, out, args.timeout, Path(os.environ["CK_FUZZ_STATS"]))
        return 0
    engine = args.engine
    if engine == "auto":
        engine = "atheris" if atheris_available() else "hypothesis"
    elif engine == "atheris" and not atheris_available():
        print("fuzz.py: atheris is not installed (pip install atheris)", file=sys.stderr)
        return 2
    targets = fuzzlib.TARGETS if args.target == "all" else (args.target,)
    if engine == "hypothesis":
        limit_memory(args.memory_mb)
    new = 0
    for target in targets:
        if engine == "atheris":
            stats = run_atheris(target, args.seconds, out, args.timeout)
        else:
            stats = run_hypothesis(target, args.seconds, out, args.timeout)
        new += report(stats)
        sys.stdout.flush()
    if any(out.iterdir() if out.is_dir() else ()):
        print(f"failing inputs saved under {out}")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
