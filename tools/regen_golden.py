"""Rewrite the expected outputs of the golden games from the engine's current output.

    python tools/regen_golden.py            # every tests/golden/**/*.yaml
    python tools/regen_golden.py RECORD...  # only these records
    python tools/regen_golden.py --check    # report outdated outputs, change nothing

Use this only after an intentional change to the rules or the card data. A golden
file is worth something only because its result was checked by hand against the
rules and the card texts: review the resulting diff by hand (``git diff tests/golden``)
and update each record's step-by-step comment block to match, before committing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"


def pack_args(record: Path) -> list[str]:
    """``--pack`` options from the nearest packs.txt between the record's folder and tests/golden."""
    folder = record.parent
    while True:
        listing = folder / "packs.txt"
        if listing.is_file():
            args = []
            for line in listing.read_text(encoding="utf-8").splitlines():
                line = line.strip()
                if line and not line.startswith("#"):
                    args += ["--pack", line]
            return args
        if folder == GOLDEN or GOLDEN not in folder.parents:
            return []
        folder = folder.parent


def score(record: Path) -> tuple[int, str, str]:
    from critter_kitchen.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["score", record.relative_to(ROOT).as_posix(), "--format", "json", *pack_args(record)])
    return status, out.getvalue(), err.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="*", type=Path, help="golden records (default: all)")
    parser.add_argument("--check", action="store_true", help="only report outputs that would change")
    args = parser.parse_args(argv)
    records = [p.resolve() for p in args.records] or sorted(GOLDEN.rglob("*.yaml"))
    os.chdir(ROOT)
    failed = changed = 0
    for record in records:
        name = record.relative_to(ROOT).as_posix()
        status, out, err = score(record)
        if status != 0:
            print(f"{name}: scoring failed (exit {status})\n{err}", file=sys.stderr)
            failed += 1
            continue
        target = record.with_suffix(".json")
        if target.is_file() and target.read_text(encoding="utf-8") == out:
            continue
        changed += 1
        if args.check:
            print(f"{name}: expected output is out of date")
        else:
            target.write_text(out, encoding="utf-8")
            print(f"{name}: rewrote {target.name}")
    if not args.check and changed:
        print("Review the diff by hand (git diff tests/golden) and update the comment blocks.")
    return 1 if failed or (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
