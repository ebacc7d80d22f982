"""A short fuzzing run: random and mutated records, card files and effect text.

Every input goes through ``critter_kitchen.cli.main`` (score and validate). Exit 0 with a
result or exit 1 with clean error lines are the only allowed outcomes; see
tests/fuzzlib.py for the inputs and the checks, and tools/fuzz.py for long runs. Failures
of engine bugs already reported (fuzzlib.KNOWN_ISSUES, each with its own test in
test_hostile.py) are tolerated here so that this run keeps looking for new ones.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import fuzzlib
import pytest
from hypothesis import HealthCheck, given, settings

ROOT = Path(__file__).resolve().parent.parent
FUZZ = settings(
    deadline=None,  # each call has its own alarm (fuzzlib.time_limit); pack loading varies with the machine
    suppress_health_check=list(HealthCheck),  # one working folder serves all examples; inputs are large on purpose
)
CALL_SECONDS = 5.0


def new_failures(target: str, case, failures: list[str]) -> list[str]:
    _, raw = fuzzlib.case_bytes(target, case)
    return [f for f in failures if fuzzlib.known_issue(f, raw) is None]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    yield tmp_path
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 512, f"peak memory grew by {grown_mb:.0f} MB"


@pytest.fixture
def no_cache(monkeypatch):
    # Each fuzzed pack is new: caching it would only fill the disk.
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", "off")


@settings(FUZZ, max_examples=25)
@given(case=fuzzlib.record_inputs())
def test_fuzzed_records(workdir, case):
    failures = fuzzlib.run_record(workdir, case[0], case[1], CALL_SECONDS)
    assert not new_failures("records", case, failures), failures


@settings(FUZZ, max_examples=25)
@given(case=fuzzlib.card_inputs())
def test_fuzzed_cards(workdir, no_cache, case):
    failures = fuzzlib.run_card(workdir, case[0], case[1], CALL_SECONDS)
    assert not new_failures("cards", case, failures), failures


@settings(FUZZ, max_examples=25)
@given(case=fuzzlib.dsl_inputs())
def test_fuzzed_effect_text(workdir, no_cache, case):
    failures = fuzzlib.run_dsl(workdir, case[0], case[1], CALL_SECONDS)
    assert not new_failures("dsl", case, failures), failures


@settings(FUZZ, max_examples=15)
@given(case=fuzzlib.pantry_inputs())
def test_fuzzed_pantries(workdir, case):
    failures = fuzzlib.run_pantry(workdir, case[0], case[1], CALL_SECONDS)
    assert not new_failures("pantries", case, failures), failures


# the checker itself


def test_clean_error_lines_are_recognised():
    err = (
        "game.yaml:3:5: duplicate key 'name' (first at line 2)\n"
        "game.yaml: players[0].name: a player needs a name of 1 to 100 characters\n"
        "pack/card.yaml:7:15: CK202 unknown function 'qualty'; did you mean 'quality'?\n"
        "    multiply qualty(p, fish) by 2\n"
        "             ^^^^^^\n"
        "critter-kitchen: cards/x.yaml: card 'x' failed at stage 'critic.rumors': boom\n"
    )
    assert fuzzlib.line_problems(err, ["game.yaml", "pack/card.yaml"]) == []


def test_unclean_error_lines_are_caught():
    err = 'Traceback (most recent call last):\ngame.yaml:1:1: bad\n  in "<unicode string>", position 3\nother: x\n'
    assert fuzzlib.line_problems(err, ["game.yaml"]) == [
        "Traceback (most recent call last):",
        '  in "<unicode string>", position 3',
        "other: x",
    ]


def test_an_escaping_exception_is_a_failure(monkeypatch):
    import critter_kitchen.cli

    def boom(argv=None):
        raise KeyError("boom")

    monkeypatch.setattr(critter_kitchen.cli, "main", boom)
    outcome = fuzzlib.run_main(["score", "x.yaml"])
    assert "KeyError: 'boom'" in fuzzlib.check(outcome, ["x.yaml"], command="score")[0]


def test_a_hang_is_a_failure(monkeypatch):
    import time

    import critter_kitchen.cli

    def slow(argv=None):
        time.sleep(5)
        return 0

    monkeypatch.setattr(critter_kitchen.cli, "main", slow)
    outcome = fuzzlib.run_main(["score", "x.yaml"], seconds=0.2)
    assert outcome.seconds < 2
    assert fuzzlib.check(outcome, ["x.yaml"], command="score")[0].startswith("hang")


def test_the_long_fuzzer_runs_and_reports(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "fuzz.py"), "--seconds", "1", "--target", "records",
         "--engine", "hypothesis", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 1: it found something new
    assert proc.stdout.startswith("records: ")
    assert int(proc.stdout.split()[1]) > 0  # inputs tried
    assert "new failures: " in proc.stdout
