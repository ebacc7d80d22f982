"""Scoring and validating touch nothing on disk but the cache, and the cache never matters.

- scoring writes no file at all when the cache is off (and only cache files when it is on);
- validating never changes, adds or removes a file of the packs or records it reads;
- a cache folder that cannot be created or written, a missing one, corrupt entries and
  several processes filling one cache at once all give the same results as no cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from critter_kitchen import load_ruleset, result_json, score_record
from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "three-players.yaml"


def snapshot(root: Path) -> dict[str, object]:
    """Every folder and file below ``root``: a file by its size, modification time and content."""
    out: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_dir():
            out[rel] = "folder"
        else:
            stat = path.stat()
            out[rel] = (stat.st_size, stat.st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
    return out


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def run_process(*argv: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "critter_kitchen", *argv], cwd=cwd, env=env, capture_output=True, timeout=120
    )


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """tmp/records holds the games, tmp/work is the working folder, tmp/home the home folder."""
    for name in ("records", "work", "home"):
        (tmp_path / name).mkdir()
    shutil.copy(EXAMPLE, tmp_path / "records" / "game.yaml")
    (tmp_path / "records" / "game.json").write_text(json.dumps(yaml.safe_load(EXAMPLE.read_text("utf-8"))), "utf-8")
    (tmp_path / "records" / "bad.yaml").write_text("players: [{name: Ana}]\ncards: {}\n", "utf-8")
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", "off")
    return tmp_path


SCORE_RUNS = [
    ("score", "../records/game.yaml"),
    ("score", "../records/game.json", "--format", "json"),
    ("score", "../records/game.yaml", "--explain"),
    ("score", "../records/game.yaml", "../records/game.json", "../records/bad.yaml", "--format", "json"),
    ("score", "../records/bad.yaml"),
    ("validate", "../records/game.yaml"),
]


# scoring writes nothing


def test_scoring_writes_no_file(sandbox):
    before = snapshot(sandbox)
    for argv in SCORE_RUNS:
        status, out, _ = cli(*argv)
        assert status in (0, 1)
    rules = load_ruleset()
    score_record(yaml.safe_load(EXAMPLE.read_text("utf-8")), rules)
    assert snapshot(sandbox) == before


def test_scoring_in_a_new_process_writes_no_file(sandbox):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    before = snapshot(sandbox)
    proc = run_process("score", "../records/game.yaml", "--format", "json", cwd=sandbox / "work", env=env)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(sandbox) == before


def test_with_the_cache_on_only_cache_files_appear(sandbox, monkeypatch):
    cache = sandbox / "home" / "cache"
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(cache))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    before = snapshot(sandbox)
    proc = run_process("score", "../records/game.yaml", cwd=sandbox / "work", env=env)
    assert proc.returncode == 0, proc.stderr
    after = snapshot(sandbox)
    added = set(after) - set(before)
    assert added and all(name.startswith("home/cache") for name in added)
    assert {k: v for k, v in after.items() if k in before} == before
    assert not list(cache.glob(".tmp-*"))  # no half-written entry left behind


def test_the_default_cache_is_under_home_and_only_there(sandbox, monkeypatch):
    monkeypatch.delenv("CRITTER_KITCHEN_CACHE")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    before = snapshot(sandbox)
    proc = run_process("score", "../records/game.yaml", cwd=sandbox / "work", env=env)
    assert proc.returncode == 0, proc.stderr
    added = set(snapshot(sandbox)) - set(before)
    assert added and all(name.startswith("home/.cache") for name in added)
    assert any(name.startswith("home/.cache/critter-kitchen/packs-") for name in added)


# validating changes nothing it reads


def copy_of_packs(root: Path) -> Path:
    packs = root / "packs"
    shutil.copytree(ROOT / "cards", packs / "cards")
    shutil.copytree(ROOT / "tests" / "packs", packs / "test-packs")
    shutil.copytree(ROOT / "tests" / "cards" / "invalid", packs / "invalid-cards")
    shutil.copy(EXAMPLE, packs / "game.yaml")
    return packs


@pytest.mark.parametrize("cache", ["off", "on"])
def test_validating_changes_no_file(sandbox, monkeypatch, cache):
    if cache == "on":
        monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(sandbox / "home" / "cache"))
    packs = copy_of_packs(sandbox)
    monkeypatch.chdir(packs)
    before = snapshot(packs)
    runs = [
        ("validate", "cards"),
        ("validate", "cards", "--format", "json"),
        ("validate", "cards/base/rumors/fish-fanatic.yaml", "--whole-packs"),
        ("validate", "test-packs"),
        ("validate", "test-packs", "--format", "github"),
        ("validate", "invalid-cards"),
        ("validate", "game.yaml", "--skip-unrelated"),
        ("cards", "fish-fanatic"),
        ("score", "game.yaml", "--pack", "cards/a-la-carte", "--format", "json"),
    ]
    statuses = [cli(*argv)[0] for argv in runs]
    assert statuses[:3] == [0, 0, 0] and set(statuses) <= {0, 1}
    assert snapshot(packs) == before


# the cache falls back cleanly


def scored_json(path: Path = EXAMPLE) -> tuple[int, str, str]:
    return cli("score", str(path), "--format", "json")


@pytest.fixture
def expected():
    """The output of scoring the example with the cache off."""
    old = os.environ.get("CRITTER_KITCHEN_CACHE")
    os.environ["CRITTER_KITCHEN_CACHE"] = "off"
    try:
        return scored_json()
    finally:
        if old is None:
            del os.environ["CRITTER_KITCHEN_CACHE"]
        else:
            os.environ["CRITTER_KITCHEN_CACHE"] = old


def unusable_places(tmp_path: Path) -> dict[str, Path]:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder", "utf-8")
    return {
        "parent is a file": a_file / "cache",
        "the folder is a file": a_file,
        "below /dev/null": Path("/dev/null") / "critter-kitchen-cache",
        "below /proc": Path("/proc/self/critter-kitchen-cache"),
    }


@pytest.mark.parametrize("place", ["parent is a file", "the folder is a file", "below /dev/null", "below /proc"])
def test_an_unwritable_cache_folder_is_not_an_error(tmp_path, monkeypatch, expected, place):
    folder = unusable_places(tmp_path)[place]
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(folder))
    assert scored_json() == expected
    assert scored_json() == expected
    assert (tmp_path / "a-file").read_text("utf-8") == "not a folder"


def test_a_missing_cache_folder_is_created_and_then_used(tmp_path, monkeypatch, expected):
    folder = tmp_path / "deep" / "er" / "cache"
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(folder))
    assert scored_json() == expected
    entries = sorted(folder.glob("packs-*.pickle"))
    assert len(entries) == 1
    stamp = entries[0].stat().st_mtime_ns
    assert scored_json() == expected
    assert entries[0].stat().st_mtime_ns == stamp  # read, not written again


def valid_entry(folder: Path) -> tuple[Path, bytes]:
    scored_json()
    (entry,) = folder.glob("packs-*.pickle")
    return entry, entry.read_bytes()


class Missing:
    """Pickled by reference to a class that will not exist when the entry is read."""


CORRUPTIONS = {
    "empty": lambda good: b"",
    "truncated": lambda good: good[: len(good) // 2],
    "one byte flipped": lambda good: good[:-10] + bytes([good[-10] ^ 0xFF]) + good[-9:],
    "random bytes": lambda good: os.urandom(4096),
    "another type": lambda good: pickle.dumps({"not": "a ruleset"}),
    "wrong shape": lambda good: pickle.dumps((1, 2, 3)),
    "a list of problems only": lambda good: pickle.dumps((None, [])),
    "unknown class": lambda good: pickle.dumps(Missing()).replace(b"test_isolation", b"no_such_module_x"),
}


@pytest.mark.parametrize("how", list(CORRUPTIONS))
def test_a_corrupt_entry_falls_back_and_is_replaced(tmp_path, monkeypatch, expected, how):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(folder))
    entry, good = valid_entry(folder)
    entry.write_bytes(CORRUPTIONS[how](good))
    assert scored_json() == expected
    from critter_kitchen import cache
    from critter_kitchen.loading.cached import ENTRY_CLASSES

    sealed = cache.load(entry.name, ENTRY_CLASSES)  # what it was built from, the ruleset, the problems
    assert sealed is not None and sealed[2] == []  # a sound entry again
    assert scored_json() == expected


def test_an_entry_that_is_a_folder_is_not_an_error(tmp_path, monkeypatch, expected):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(folder))
    entry, _ = valid_entry(folder)
    entry.unlink()
    entry.mkdir()
    (entry / "x").write_text("x", "utf-8")
    assert scored_json() == expected
    assert entry.is_dir()
    assert not list(folder.glob(".tmp-*"))


def test_cached_problems_are_reported_the_same(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", "off")
    uncached = cli("validate", "tests/packs/broken-duplicates")
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "cache"))
    assert cli("validate", "tests/packs/broken-duplicates") == uncached  # fills the cache
    assert cli("validate", "tests/packs/broken-duplicates") == uncached  # from the cache
    assert uncached[0] == 1


def test_everything_in_the_cache_corrupt_in_a_new_process(tmp_path):
    """A fresh process also reads the effect-language parser from the cache: corrupt it too."""
    folder = tmp_path / "cache"
    env = dict(os.environ, CRITTER_KITCHEN_CACHE=str(folder), PYTHONDONTWRITEBYTECODE="1")
    argv = ("validate", "tests/cards/invalid/dsl-unclosed-paren.yaml")
    first = run_process(*argv, cwd=ROOT, env=env)
    assert sorted(p.name.split("-")[0] for p in folder.iterdir()) == ["grammar", "packs"]
    for entry in folder.iterdir():
        entry.write_bytes(entry.read_bytes()[:100])
    again = run_process(*argv, cwd=ROOT, env=env)
    off = run_process(*argv, cwd=ROOT, env=dict(env, CRITTER_KITCHEN_CACHE="off"))
    assert (again.returncode, again.stdout, again.stderr) == (off.returncode, off.stdout, off.stderr)
    assert (first.returncode, first.stdout, first.stderr) == (off.returncode, off.stdout, off.stderr)
    assert off.returncode == 1 and b"unclosed parenthesis" in off.stderr


def test_processes_filling_one_cache_at_once(tmp_path):
    folder = tmp_path / "cache"
    env = dict(os.environ, CRITTER_KITCHEN_CACHE=str(folder), PYTHONDONTWRITEBYTECODE="1")
    argv = [sys.executable, "-m", "critter_kitchen", "score", str(EXAMPLE), "--format", "json"]
    procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0]
    assert len({out for out, _ in results}) == 1
    assert all(err == b"" for _, err in results)
    assert not list(folder.glob(".tmp-*"))
    assert len(list(folder.glob("packs-*.pickle"))) == 1


def test_a_result_never_depends_on_the_cache(tmp_path, monkeypatch):
    record = yaml.safe_load(EXAMPLE.read_text("utf-8"))
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", "off")
    plain = result_json(score_record(record, load_ruleset()))
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "cache"))
    assert result_json(score_record(record, load_ruleset())) == plain  # fills the cache
    assert result_json(score_record(record, load_ruleset())) == plain  # from the cache
