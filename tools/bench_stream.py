"""Peak memory of `critter-kitchen score - --format json` on a long JSON Lines stream.

Runs the command on one record, then on 10,000 and on 100,000 records (random legal
5-player games from tests/gen.py, cycled), each in a fresh child process that reports its
own peak resident memory (VmHWM). Memory that stays flat gives ratios near 1 to the one-
record baseline of the same run; reading the whole stream at once grows with its size.
`--bad-every N` makes every Nth line `null`, so that the error path is measured too.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))

# The child runs the command's own entry point, then reports its peak resident memory
# (VmHWM: ru_maxrss of a child can carry the parent's over the exec).
CHILD = (
    "import sys\n"
    "from critter_kitchen.cli import main\n"
    "status = main(['score', '-', '--format', 'json'])\n"
    "sys.stdout.flush()\n"
    "sys.stderr.write([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0])\n"
    "sys.exit(status)\n"
)


def write_stream(path: Path, records: list[dict], count: int, bad_every: int) -> int:
    """Write ``count`` JSON Lines records to ``path``; its size in bytes."""
    lines = [json.dumps(r).encode() + b"\n" for r in records]
    with path.open("wb") as out:
        for i in range(count):
            out.write(b"null\n" if bad_every and (i + 1) % bad_every == 0 else lines[i % len(lines)])
    return path.stat().st_size


def measure(path: Path, env: dict[str, str]) -> tuple[float, float, int, int]:
    """Peak MiB, seconds, results and error lines of one run on the stream in ``path``."""
    start = time.perf_counter()
    with path.open("rb") as stdin:
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert child.stdout is not None and child.stderr is not None
        results = errors = 0
        for line in child.stdout:  # counted as it comes: the output is far larger than the input
            results += line.startswith(b'{"source"') and b'"winner"' in line[:80]
            errors += b'"errors"' in line[:80]
        err = child.stderr.read().decode()
        child.wait()
    seconds = time.perf_counter() - start
    last = err.splitlines()[-1] if err.strip() else ""
    if not last.startswith("VmHWM"):
        sys.exit(f"failed:\n{err[-2000:]}")
    return int(last.split()[1]) / 1024, seconds, results, errors


def main() -> None:
    from bench import sample

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000, help="records in the long stream")
    parser.add_argument("--bad-every", type=int, default=0, help="make every Nth line null (0: none)")
    args = parser.parse_args()
    records = sample("full_games", 100, 5)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "CRITTER_KITCHEN_CACHE": str(Path(tmp) / "cache")}
        one = Path(tmp) / "one.json"
        one.write_text(json.dumps(records[0]), "utf-8")  # one record: a document, not JSON Lines
        base_peak, _, _, _ = measure(one, env)  # also fills the pack cache
        base_peak, base_seconds, _, _ = measure(one, env)
        print(f"one record: peak {base_peak:.1f} MiB ({base_seconds:.2f} s)")
        for count in sorted({min(10_000, args.records), args.records}):
            stream = Path(tmp) / f"stream-{count}.jsonl"
            size = write_stream(stream, records, count, args.bad_every)
            peak, seconds, results, errors = measure(stream, env)
            stream.unlink()
            print(
                f"{count:,} records ({size / 2**20:.0f} MiB of JSON Lines): peak {peak:.1f} MiB, "
                f"{peak / base_peak:.2f} x one record; {results:,} results, {errors:,} error lines, "
                f"{seconds:.1f} s ({count / seconds:,.0f} records/s)"
            )


if __name__ == "__main__":
    main()
