"""Rewrite the expected outputs of the golden games from the engine's current output.

    python tools/regen_golden.py            # every tests/golden/**/*.yaml
    python tools/regen_golden.py RECORD...  # only these records
    python tools/regen_golden.py --check    # report outdated outputs, change nothing
    python tools/regen_golden.py --cards    # the card English instead: tests/cards/text/PACK/CARD.txt
                                            # (every shipped card and every card of tests/packs)

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
CARD_TEXTS = ROOT / "tests" / "cards" / "text"


def english_packs() -> list[tuple[Path, list[Path]]]:
    """Each pack whose cards' English is kept, with the folders to load for it (on top of the base pack).

    Every shipped pack (with the base pack alone: packs of cards/ need not load together),
    and every pack of tests/packs with the packs beside it that it requires. A test pack
    made to fail (tests/packs/broken-*, a clash) does not load and has no English.
    """
    from critter_kitchen.loading.resolve import with_requirements

    packs: list[tuple[Path, list[Path]]] = []
    for pack_file in sorted((ROOT / "cards").rglob("pack.yaml")):
        folder = pack_file.parent
        packs.append((folder, [] if folder == ROOT / "cards" / "base" else [folder]))
    tests = [p.parent for p in sorted((ROOT / "tests" / "packs").rglob("pack.yaml"))]
    known = [str(p) for p in tests]
    for folder in tests:
        packs.append((folder, [Path(p) for p in with_requirements(str(folder), known)]))
    return packs


def card_texts() -> dict[Path, str]:
    """What `critter-kitchen cards ID` prints for every card of :func:`english_packs`, by its golden text file."""
    from critter_kitchen import load_ruleset
    from critter_kitchen.errors import InputError
    from critter_kitchen.report.cards import card_text

    os.chdir(ROOT)  # card texts name their files relative to the repository
    texts: dict[Path, str] = {}
    for folder, load in english_packs():
        try:
            ruleset = load_ruleset(load)
        except InputError:
            continue  # a pack made to fail: its problems are validate's golden output
        pack_id = next(c.pack for c in ruleset.cards.values() if Path(c.path).resolve().is_relative_to(folder))
        for card in ruleset.cards.values():
            if card.pack == pack_id:
                texts[CARD_TEXTS / pack_id / f"{card.id}.txt"] = card_text(card, ruleset) + "\n"
    return texts


def regen_card_texts(check: bool) -> int:
    expected = card_texts()
    changed = 0
    for path, text in expected.items():
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        changed += 1
        name = path.relative_to(ROOT).as_posix()
        if check:
            print(f"{name}: card text is out of date")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"{name}: rewrote")
    stale = [p for p in CARD_TEXTS.rglob("*.txt") if p not in expected]
    for path in stale:
        changed += 1
        print(f"{path.relative_to(ROOT).as_posix()}: no card has this text" + ("" if check else "; removed"))
        if not check:
            path.unlink()
    if not check and changed:
        print("Read each changed text (git diff tests/cards/text): it is what designers will check the card by.")
    return 1 if check and changed else 0


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
    parser.add_argument("--cards", action="store_true", help="the card texts of tests/cards/text instead")
    args = parser.parse_args(argv)
    if args.cards:
        return regen_card_texts(args.check)
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
