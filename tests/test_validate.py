"""`critter-kitchen validate` on whole packs, in each output format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
BROKEN = sorted(p for p in (ROOT / "tests" / "packs").glob("broken-*") if p.is_dir())


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("pack", BROKEN, ids=[p.name for p in BROKEN])
def test_broken_pack_text(pack, capsys):
    status, out, err = run(capsys, "validate", str(pack.relative_to(ROOT)))
    assert (status, out) == (1, "")
    assert err == (pack / "validate.expected").read_text("utf-8")


@pytest.mark.parametrize("pack", BROKEN, ids=[p.name for p in BROKEN])
def test_broken_pack_github(pack, capsys):
    status, out, _ = run(capsys, "validate", str(pack.relative_to(ROOT)), "--format", "github")
    assert status == 1
    assert out == (pack / "validate-github.expected").read_text("utf-8")
    assert all(line.startswith("::error file=") for line in out.splitlines())


def test_json_format_lists_every_problem(capsys):
    status, out, _ = run(capsys, "validate", "tests/packs/broken-conflicts", "--format", "json")
    rows = json.loads(out)
    assert status == 1
    assert [set(r) for r in rows] == [{"path", "line", "column", "code", "message"}] * 4
    assert {r["code"] for r in rows} == {"CK205"}


def test_clean_tree_and_records(capsys):
    status, out, err = run(capsys, "validate", "cards", "examples/two-players.yaml", "--format", "json")
    assert (status, json.loads(out), err) == (0, [], "")


def test_invalid_record_through_validate(capsys):
    status, out, err = run(capsys, "validate", "tests/records/invalid/only-soup.yaml")
    assert status == 1
    assert err == (
        "tests/records/invalid/only-soup.yaml:12:9: challenge_meals.round3.Ana.harbor-stew: "
        "CK302 no required ingredient, only soup\n"
    )


def test_requirements_loaded_with_pack_option(capsys, tmp_path):
    status, _, err = run(capsys, "validate", "tests/packs/fixtures", "--pack", "tests/packs/fixtures")
    assert status == 1
    assert "pack 'fixtures' is loaded twice" in err


def test_missing_path(capsys):
    status, _, err = run(capsys, "validate", "no/such/place")
    assert (status, err) == (1, "no/such/place: CK001 no such file or folder\n")
