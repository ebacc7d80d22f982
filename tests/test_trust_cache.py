"""Whoever can write the cache folder cannot make the engine run code, and a cached result
is never stale.

- an entry is only unpickled after its MAC under the user's key (kept outside the cache
  folder) holds, and then admits only the classes it needs: a forged entry, a damaged
  one or one sealed under another key is never unpickled, and the load falls back;
- a key file that is not private to the user is refused, and caching is then off;
- the parser-table cache is protected the same way;
- the key covers every file the load reads (a pack's own .json schemas too), and the
  entry is built from exactly the bytes the key was made of.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from critter_kitchen import cache, load_ruleset
from critter_kitchen.cli import main
from critter_kitchen.loading import packs
from critter_kitchen.loading.cached import ENTRY_CLASSES

ROOT = Path(__file__).resolve().parent.parent
ALC = ROOT / "cards" / "a-la-carte"


class Plant:
    """Unpickled, runs a shell command that leaves a marker file: what an attacker would plant."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A fresh cache folder and a fresh key for this test."""
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE_KEY", str(tmp_path / "state" / "cache.key"))
    return tmp_path / "cache"


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "code-ran"
    pickle.loads(pickle.dumps(Plant(path)))  # the plant works when unpickled plainly
    assert path.exists()
    path.unlink()
    return path


@pytest.fixture
def loads(monkeypatch):
    """Counts the loads that read the packs (a miss) rather than the cache."""
    calls = []
    real = packs.load_sources

    def counted(sources):
        calls.append(1)
        return real(sources)

    monkeypatch.setattr(packs, "load_sources", counted)
    return calls


def the_entry(folder: Path, prefix: str = "packs-") -> Path:
    (entry,) = folder.glob(f"{prefix}*")
    return entry


def sealed_under_another_key(name: str, payload: bytes, tmp_path: Path, monkeypatch) -> bytes:
    """``payload`` sealed as an attacker would seal it: with a key of the attacker's own."""
    own = os.environ["CRITTER_KITCHEN_CACHE_KEY"]
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE_KEY", str(tmp_path / "attacker" / "cache.key"))
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "attacker-cache"))
    cache.store_pickled(name, payload)
    forged = (tmp_path / "attacker-cache" / name).read_bytes()
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE_KEY", own)
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "cache"))
    return forged


def forgeries(name: str, marker: Path, tmp_path: Path, monkeypatch) -> dict[str, bytes]:
    planted = pickle.dumps(Plant(marker))
    return {
        "a bare pickle": planted,
        "a pickle behind a made-up MAC": bytes(cache.KEY_BYTES) + planted,
        "sealed under another key": sealed_under_another_key(name, planted, tmp_path, monkeypatch),
    }


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


# forged and damaged entries


@pytest.mark.parametrize("how", ["a bare pickle", "a pickle behind a made-up MAC", "sealed under another key"])
def test_a_forged_pack_entry_is_never_unpickled(folder, marker, loads, tmp_path, monkeypatch, how):
    expected = sorted(load_ruleset().cards)
    entry = the_entry(folder)
    entry.write_bytes(forgeries(entry.name, marker, tmp_path, monkeypatch)[how])
    assert sorted(load_ruleset().cards) == expected
    assert not marker.exists()
    assert len(loads) == 2  # the forged entry fell back to the packs
    assert sorted(load_ruleset().cards) == expected
    assert len(loads) == 2  # ... and was replaced by a sound one, which hits


def test_a_sealed_entry_still_names_only_the_rulesets_classes(folder, marker, loads):
    """Defence in depth: even an entry whose MAC holds (a leaked key) cannot name os.system."""
    load_ruleset()
    entry = the_entry(folder)
    cache.store_pickled(entry.name, pickle.dumps(Plant(marker)))
    assert load_ruleset().cards
    assert not marker.exists()
    assert len(loads) == 2


@pytest.mark.parametrize(
    "value",
    [
        Plant(Path("/nonexistent/never")),
        print,  # a builtin function
        main,  # a function of the engine
        subprocess.Popen,  # a class of another package
        io.StringIO,
    ],
    ids=["os.system", "a builtin", "an engine function", "another package's class", "a standard class"],
)
def test_the_unpickler_admits_only_the_classes_it_is_told(value):
    with pytest.raises(pickle.UnpicklingError):
        cache.unpickle(pickle.dumps(value), ENTRY_CLASSES)


def test_the_unpickler_admits_the_rulesets_own_classes(base):
    again = cache.unpickle(pickle.dumps(base), ENTRY_CLASSES)
    assert sorted(again.cards) == sorted(base.cards)


def test_a_syntax_tree_inside_an_entry_may_name_only_syntax_classes(marker):
    from critter_kitchen.model.ruleset import Effect

    effect = Effect("after", "critic.rumors", pickle.dumps(Plant(marker)))
    with pytest.raises(pickle.UnpicklingError):
        _ = effect.ast
    assert not marker.exists()


def test_a_tampered_byte_anywhere_invalidates(folder, loads):
    expected = sorted(load_ruleset().cards)
    entry = the_entry(folder)
    good = entry.read_bytes()
    for at in (0, cache.KEY_BYTES - 1, cache.KEY_BYTES, len(good) // 2, len(good) - 1):
        entry.write_bytes(good[:at] + bytes([good[at] ^ 0x01]) + good[at + 1 :])
        before = len(loads)
        assert sorted(load_ruleset().cards) == expected
        assert len(loads) == before + 1, at
    before = len(loads)
    load_ruleset()
    assert len(loads) == before  # that entry hits


def test_an_entry_moved_to_another_name_is_refused(folder):
    cache.store("first", {"some": "data"})
    assert cache.load("first", ()) == {"some": "data"}
    shutil.copy(folder / "first", folder / "second")
    assert cache.load("second", ()) is None


def test_a_valid_entry_hits(folder, loads):
    first = load_ruleset()
    assert len(loads) == 1
    again = load_ruleset()
    assert len(loads) == 1
    assert sorted(again.cards) == sorted(first.cards)
    assert again.cards["base-rules"].name == first.cards["base-rules"].name


def test_cached_problems_hit_too(folder, loads):
    status, _, err = cli("validate", str(ROOT / "tests" / "packs" / "broken-duplicates"))
    assert (status, cli("validate", str(ROOT / "tests" / "packs" / "broken-duplicates"))) == (1, (1, "", err))
    assert len(loads) == 1


# the key file


def key_path() -> Path:
    return Path(os.environ["CRITTER_KITCHEN_CACHE_KEY"])


def good_key(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(os.urandom(cache.KEY_BYTES))
    path.chmod(0o600)
    return path


def make_fifo(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path, 0o600)


BAD_KEYS = {
    "readable by the group and others": lambda p: good_key(p).chmod(0o644),
    "writable by the group": lambda p: good_key(p).chmod(0o620),
    "read-only": lambda p: good_key(p).chmod(0o400),
    "a link to a good key": lambda p: p.symlink_to(good_key(p.with_name("elsewhere.key"))),
    "a second name of a good key": lambda p: os.link(good_key(p.with_name("elsewhere.key")), p),
    "a folder": lambda p: p.mkdir(parents=True),
    "a FIFO": make_fifo,
    "too short": lambda p: good_key(p).write_bytes(b"short"),
    "empty": lambda p: good_key(p).write_bytes(b""),
}


@pytest.mark.parametrize("how", list(BAD_KEYS))
def test_a_key_that_is_not_private_turns_caching_off(folder, loads, how, capsys):
    path = key_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    BAD_KEYS[how](path)
    before = os.lstat(path)
    assert load_ruleset().cards
    assert load_ruleset().cards
    assert len(loads) == 2  # no entry was used
    assert not list(folder.glob("packs-*"))  # nor written
    assert capsys.readouterr() == ("", "")
    after = os.lstat(path)
    assert (after.st_mode, after.st_size, after.st_mtime_ns) == (before.st_mode, before.st_size, before.st_mtime_ns)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs to give a file away")
def test_a_key_owned_by_someone_else_turns_caching_off(folder, loads):
    os.chown(good_key(key_path()), 4242, -1)
    load_ruleset()
    load_ruleset()
    assert len(loads) == 2
    assert not list(folder.glob("packs-*"))


def test_turning_the_key_off_turns_caching_off(folder, loads, monkeypatch):
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE_KEY", "off")
    load_ruleset()
    load_ruleset()
    assert len(loads) == 2
    assert not list(folder.glob("packs-*"))


def test_a_missing_key_is_made_private_and_then_used(folder, loads):
    path = key_path()
    assert not path.parent.exists()
    load_ruleset()
    info = os.lstat(path)
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600 and info.st_size == cache.KEY_BYTES
    assert stat.S_IMODE(os.stat(path.parent).st_mode) & 0o077 == 0
    assert [p.name for p in path.parent.iterdir()] == ["cache.key"]  # no temporary file left
    secret = path.read_bytes()
    load_ruleset()
    assert len(loads) == 1
    assert path.read_bytes() == secret  # never replaced


def test_a_new_key_makes_old_entries_useless(folder, loads):
    load_ruleset()
    key_path().unlink()
    load_ruleset()
    load_ruleset()
    assert len(loads) == 2


@pytest.mark.parametrize("where", ["XDG_STATE_HOME", "HOME"])
def test_the_default_key_lives_in_the_users_state_folder(tmp_path, monkeypatch, where):
    monkeypatch.delenv("CRITTER_KITCHEN_CACHE_KEY")
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "cache"))
    if where == "HOME":
        monkeypatch.delenv("XDG_STATE_HOME", raising=False)
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        expected = tmp_path / "home" / ".local" / "state" / "critter-kitchen" / "cache.key"
    else:
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
        expected = tmp_path / "state" / "critter-kitchen" / "cache.key"
    assert cache.key_file() == str(expected)
    load_ruleset()
    assert expected.stat().st_size == cache.KEY_BYTES
    assert the_entry(tmp_path / "cache").name.startswith("packs-")


def test_a_hit_does_not_load_openssl(tmp_path):
    """The MAC is checked without hashlib or hmac, whose OpenSSL costs milliseconds at start-up."""
    pytest.importorskip("_blake2")
    env = dict(os.environ, CRITTER_KITCHEN_CACHE=str(tmp_path / "cache"), CRITTER_KITCHEN_CACHE_KEY=str(tmp_path / "k"))
    code = (
        "import sys\n"
        "from critter_kitchen.cli import main\n"
        f"main(['score', {str(ROOT / 'examples' / 'five-players.yaml')!r}])\n"
        "print('loaded:', [m for m in ('hashlib', 'hmac', '_hashlib', 'critter_kitchen.loading.packs')"
        " if m in sys.modules])\n"
    )
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert again.stdout.splitlines()[-1] == "loaded: []"


# the parser tables


@pytest.fixture
def fresh_parser():
    from critter_kitchen.dsl import parser

    parser._lark.cache_clear()
    parser._terminal_names.cache_clear()
    yield parser
    parser._lark.cache_clear()
    parser._terminal_names.cache_clear()


def parses(parser) -> bool:
    program = parser.parse_program("pass\n", lambda line, column: (line, column))
    return program is not None


def test_a_forged_parser_table_entry_is_never_unpickled(folder, marker, fresh_parser, tmp_path, monkeypatch):
    parser = fresh_parser
    assert parses(parser)
    entry = the_entry(folder, "grammar-")
    cases = forgeries(entry.name, marker, tmp_path, monkeypatch)
    cases["sealed with the right key, naming os.system"] = b""
    for how, forged in cases.items():
        if forged:
            entry.write_bytes(forged)
        else:
            cache.store_pickled(entry.name, pickle.dumps(Plant(marker)))
        parser._lark.cache_clear()
        assert parses(parser), how
        assert not marker.exists(), how
        assert entry.read_bytes() != forged, how  # replaced
        assert isinstance(cache.load(entry.name, ()), dict), how  # by sound tables


def test_a_sound_parser_table_entry_hits(folder, fresh_parser, monkeypatch):
    parser = fresh_parser
    assert parses(parser)

    class NoBuild(parser.Lark):
        def __init__(self, *args, **kwargs):
            raise AssertionError("the parser tables were built again")

    monkeypatch.setattr(parser, "Lark", NoBuild)
    parser._lark.cache_clear()
    assert parses(parser)
    entry = the_entry(folder, "grammar-")
    good = entry.read_bytes()
    entry.write_bytes(good[:-1] + bytes([good[-1] ^ 0x01]))
    parser._lark.cache_clear()
    with pytest.raises(AssertionError, match="built again"):
        parser._lark()  # a damaged entry is not used


# what the key covers


@pytest.fixture
def alc(tmp_path, monkeypatch):
    """A copy of the a-la-carte pack, which checks its vendor cards with a .json schema of its own."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ALC, tmp_path / "alc")
    return tmp_path / "alc"


def test_editing_a_packs_own_schema_file_is_seen(folder, alc):
    assert cli("validate", "alc")[0] == 0
    assert cli("validate", "alc")[0] == 0  # now from the cache
    schema = alc / "vendor.schema.json"
    original = schema.read_text("utf-8")
    schema.write_text(original.replace('"enum": ["cookbooks", "coffee", "tofu", "trophies"]', '"enum": ["tofu"]'))
    status, _, err = cli("validate", "alc")
    assert status == 1
    assert err.splitlines() == [
        "alc/vendors/coffee-cart.yaml:5:9: CK101 brings: 'coffee' is not one of: tofu",
        "alc/vendors/cookbook-stall.yaml:5:9: CK101 brings: 'cookbooks' is not one of: tofu",
        "alc/vendors/trophy-stand.yaml:5:9: CK101 brings: 'trophies' is not one of: tofu",
    ]
    schema.write_text(original)
    assert cli("validate", "alc")[0] == 0


def test_a_schema_outside_the_pack_is_refused(folder, alc):
    shutil.move(alc / "vendor.schema.json", alc.parent / "vendor.schema.json")
    rules = alc / "rules.yaml"
    text = rules.read_text("utf-8").replace("schema: vendor.schema.json", "schema: ../vendor.schema.json")
    rules.write_text(text, "utf-8")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "schema: ../vendor" in row)
    status, _, err = cli("validate", "alc")
    assert status == 1
    assert err.splitlines()[0] == (
        f"alc/rules.yaml:{line}:13: CK105 schema '../vendor.schema.json' is outside the pack folder"
    )


def test_the_entry_is_built_from_the_bytes_its_key_was_made_of(folder, tmp_path, monkeypatch):
    """A card file that changes while the packs load cannot leave its new text under its old key."""
    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "tests" / "packs" / "fixtures", pack)
    card = pack / "cards.yaml"
    original = card.read_text("utf-8")
    changed = original.replace("name: Test Fish Fanatic", "name: Renamed")
    real = packs.load_sources

    def changing_meanwhile(sources):
        card.write_text(changed, "utf-8")
        return real(sources)

    monkeypatch.setattr(packs, "load_sources", changing_meanwhile)
    assert load_ruleset([pack]).cards["test-fish-fanatic"].name == "Test Fish Fanatic"
    monkeypatch.setattr(packs, "load_sources", real)
    assert load_ruleset([pack]).cards["test-fish-fanatic"].name == "Renamed"
    card.write_text(original, "utf-8")
    assert load_ruleset([pack]).cards["test-fish-fanatic"].name == "Test Fish Fanatic"


def test_the_loader_reads_only_the_files_it_was_handed(folder, alc, monkeypatch):
    """Every file the load uses comes from the one reading that the key is made of."""
    from critter_kitchen.loading.cached import read_packs

    sources = read_packs([str(ROOT / "cards" / "base"), str(alc)])
    shutil.rmtree(alc)  # nothing left on disk to read
    ruleset, problems = packs.load_sources(sources)
    assert problems == []
    assert "coffee-cart" in ruleset.cards
