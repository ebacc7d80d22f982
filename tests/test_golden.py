"""Golden games: recorded games whose exact JSON result has been checked by hand.

Every ``tests/golden/**/*.yaml`` record is scored with
``critter-kitchen score RECORD --format json`` and must print exactly the ``.json`` file
beside it. A folder below ``tests/golden/`` may hold a ``packs.txt`` naming card pack
folders (relative to the repository root, one per line) to pass as ``--pack``; the
nearest ``packs.txt`` at or above a record's folder applies. Each record's comment block
shows the scoring worked out step by step. After an intentional rules change, rewrite
the outputs with ``tools/regen_golden.py`` and review the diff by hand.

Every ``examples/*.yaml`` game must also score, in text and in JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from regen_golden import pack_args  # noqa: E402 - one reading of packs.txt for the test and the tool

GOLDEN = ROOT / "tests" / "golden"
EXAMPLES = ROOT / "examples"


def golden_records() -> list[Path]:
    return sorted(GOLDEN.rglob("*.yaml"))


def _id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("record", golden_records(), ids=_id)
def test_golden_game(record: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    expected_file = record.with_suffix(".json")
    assert expected_file.is_file(), f"{_id(record)} has no expected output {_id(expected_file)}"
    expected = expected_file.read_text(encoding="utf-8")
    monkeypatch.chdir(ROOT)

    status = main(["score", _id(record), "--format", "json", *pack_args(record)])
    out, err = capsys.readouterr()

    assert status == 0, err
    assert json.loads(out) == json.loads(expected)
    assert out == expected


def test_golden_games_exist() -> None:
    assert len(golden_records()) >= 4


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.yaml")), ids=_id)
def test_example_scores(
    example: Path, fmt: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    status = main(["score", _id(example), "--format", fmt])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert out.strip()
    if fmt == "json":
        result = json.loads(out)
        assert result["winner"] == result["standings"][0]["name"]
