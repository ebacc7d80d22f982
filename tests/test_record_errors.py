"""Every invalid record in tests/records/invalid is refused with exactly the messages beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted(p for p in (ROOT / "tests" / "records" / "invalid").iterdir() if p.suffix in (".yaml", ".json"))


@pytest.mark.parametrize("record", CASES, ids=[p.name for p in CASES])
def test_invalid_record(record, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    status = main(["score", str(record.relative_to(ROOT))])
    out, err = capsys.readouterr()
    assert (status, out) == (1, "")
    assert err == record.with_suffix(".expected").read_text("utf-8")


def test_corpus_is_complete():
    assert len(CASES) >= 20
    assert all(p.with_suffix(".expected").is_file() for p in CASES)
