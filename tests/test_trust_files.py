"""Files and folders that are not what they seem: each is refused with a clear message,
without blocking, without reading past the size limit, and without walking more than it must.

Named pipes, devices, links and deep folders are made in a temporary folder by each test.
Commands that would hang if the engine waited on a pipe or read a device to its end run in
a child process under a timeout, so that a regression fails instead of blocking the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from critter_kitchen import InputError, cache
from critter_kitchen.cli import main
from critter_kitchen.loading import discovery, yamlpos
from critter_kitchen.regular import read_regular

ROOT = Path(__file__).resolve().parent.parent
GAME = (ROOT / "examples" / "two-players.yaml").read_text("utf-8")
LIMIT = yamlpos.MAX_BYTES
CARD = "id: probe\nkind: rumor\nname: Probe\neffects:\n  - after: critic.rumors\n    do: pass\n"
HANG = 60  # seconds before a child process counts as hung; the real cost is well under one

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes and links need a POSIX system")


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the cache stays the test run's own (conftest.py): the base pack loads fast
    return tmp_path


def cli(*argv: str, cache_dir: str | None = None) -> subprocess.CompletedProcess[str]:
    """The command in a child process in the working folder; a hang fails the test."""
    env = dict(os.environ, CRITTER_KITCHEN_CACHE=cache_dir or os.environ["CRITTER_KITCHEN_CACHE"])
    done = subprocess.run(
        [sys.executable, "-m", "critter_kitchen", *argv], capture_output=True, text=True, env=env, timeout=HANG
    )
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    return done


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def make_pack(folder: str = "pack", pack_id: str = "probe-pack", requires: str = "") -> Path:
    pack = Path(folder)
    pack.mkdir(parents=True)
    (pack / "pack.yaml").write_text(f"id: {pack_id}\nname: Probe pack\n{requires}", "utf-8")
    return pack


def refusal(done: subprocess.CompletedProcess[str]) -> str:
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    return done.stderr


# devices


def test_dev_zero_as_a_record_is_refused_without_reading_it():
    assert (
        refusal(cli("score", "/dev/zero")) == "/dev/zero: cannot read file: not a regular file (a character device)\n"
    )


def test_dev_zero_through_validate_is_refused():
    done = cli("validate", "/dev/zero")
    assert refusal(done) == "/dev/zero: CK001 cannot read file: not a regular file (a character device)\n"


def test_a_card_linked_to_dev_zero_is_refused():
    pack = make_pack()
    (pack / "zero.yaml").symlink_to("/dev/zero")
    expected = "pack/zero.yaml: CK104 symbolic link leads outside the pack folder, to /dev/zero\n"
    assert refusal(cli("validate", "pack")) == expected
    assert refusal(cli("validate", "pack/zero.yaml")) == expected
    Path("game.yaml").write_text(GAME, "utf-8")
    assert refusal(cli("score", "game.yaml", "--pack", "pack")) == expected.replace("CK104 ", "")


# size: never more than the limit and one byte


def sparse(name: str, size: int) -> Path:
    with open(name, "wb") as f:
        f.truncate(size)  # holes: a huge file that costs no disk
    return Path(name)


def test_reading_stops_one_byte_past_the_limit():
    sparse("big.yaml", 2**30)
    assert len(read_regular("big.yaml", LIMIT)) == LIMIT + 1
    assert len(read_regular("big.yaml", 10)) == 11


def test_a_sparse_gigabyte_record_costs_no_more_than_the_limit(capsys):
    sparse("big.yaml", 2**30)
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as refused:
            yamlpos.read_file("big.yaml", "big.yaml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * LIMIT, f"{peak / 2**20:.0f} MB for a refused file"
    assert [p.format() for p in refused.value.problems] == ["big.yaml:1:1: file is larger than 2097152 bytes"]
    assert run(capsys, "score", "big.yaml") == (1, "", "big.yaml:1:1: file is larger than 2097152 bytes\n")


def test_a_sparse_card_is_refused(capsys):
    pack = make_pack()
    sparse(str(pack / "big.yaml"), LIMIT * 8)
    status, _, err = run(capsys, "validate", "pack")
    assert (status, err) == (1, "pack/big.yaml:1:1: CK005 file is larger than 2097152 bytes\n")


# named pipes


@pytest.mark.parametrize("name", ["pipe.yaml", "pipe.json"])
def test_a_named_pipe_as_a_record_does_not_block(name):
    os.mkfifo(name)
    assert refusal(cli("score", name)) == f"{name}: cannot read file: not a regular file (a named pipe)\n"


def test_a_named_pipe_as_a_card_does_not_block():
    pack = make_pack()
    os.mkfifo(pack / "pipe.yaml")
    expected = "pack/pipe.yaml: CK001 cannot read file: not a regular file (a named pipe)\n"
    assert refusal(cli("validate", "pack")) == expected
    assert refusal(cli("validate", "pack/pipe.yaml")) == expected
    Path("game.yaml").write_text(GAME, "utf-8")
    assert refusal(cli("score", "game.yaml", "--pack", "pack")) == expected.replace("CK001 ", "")


def test_a_named_pipe_as_pack_yaml_does_not_block():
    Path("pack").mkdir()
    os.mkfifo("pack/pack.yaml")
    assert (
        refusal(cli("validate", "pack"))
        == "pack/pack.yaml: CK001 cannot read file: not a regular file (a named pipe)\n"
    )


def test_a_named_pipe_as_a_pack_schema_does_not_block():
    pack = make_pack()
    rules = "id: probe-rules\nkind: rules\nname: Probe rules\ncard_kinds:\n  probe:\n    record: cards.probes\n"
    (pack / "rules.yaml").write_text(rules + "    schema: pipe.json\n", "utf-8")
    os.mkfifo(pack / "pipe.json")
    assert refusal(cli("validate", "pack")) == (
        "pack/rules.yaml:7:13: CK104 unusable schema 'pipe.json': not a regular file (a named pipe)\n"
    )


def test_named_pipes_in_the_cache_folder_are_passed_over(tmp_path):
    Path("game.yaml").write_text(GAME, "utf-8")
    folder = tmp_path / "cache"
    first = cli("score", "game.yaml", cache_dir=str(folder))
    assert first.returncode == 0, first.stderr
    entries = sorted(folder.iterdir())
    assert {e.suffix for e in entries} == {".pickle", ".lark"}  # the packs and the parser tables
    for entry in entries:
        entry.unlink()
        os.mkfifo(entry)
    again = cli("score", "game.yaml", cache_dir=str(folder))
    assert (again.returncode, again.stdout, again.stderr) == (0, first.stdout, "")
    assert all(e.is_file() for e in entries)  # rebuilt in place of the pipes


def test_a_huge_cache_entry_is_not_read_past_the_limit(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(folder))
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", 1000)
    sparse(str(folder / "entry"), 2**30)
    read: list[int] = []

    def spy(path: str, limit: int) -> bytes:
        data = read_regular(path, limit)
        read.append(len(data))
        return data

    monkeypatch.setattr(cache, "read_regular", spy)
    assert (cache.read("entry"), read) == (None, [1001])
    (folder / "small").write_bytes(b"x" * 1000)
    assert cache.read("small") == b"x" * 1000


# links


def test_links_that_stay_inside_the_pack_are_followed(capsys):
    pack = make_pack()
    (pack / "real").mkdir()
    (pack / "real" / "card.yaml").write_text(CARD, "utf-8")
    (pack / "alias").symlink_to("real")
    (pack / "same.yaml").symlink_to("real/card.yaml")
    assert discovery.card_files("pack") == ["pack/same.yaml"]  # one card, reached three ways
    status, out, err = run(capsys, "validate", "pack")
    assert (status, out, err) == (0, "ok: 1 checked, no problems\n", "")


def test_links_that_lead_outside_the_pack_are_refused(capsys, tmp_path):
    pack = make_pack()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "card.yaml").write_text(CARD, "utf-8")
    (pack / "file.yaml").symlink_to(outside / "card.yaml")
    (pack / "folder").symlink_to(outside)
    (pack / "up.yaml").symlink_to("../outside/card.yaml")
    (pack / "notes.txt").symlink_to("/etc/hostname")  # never read: not a card file
    status, out, err = run(capsys, "validate", "pack")
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        f"pack/file.yaml: CK104 symbolic link leads outside the pack folder, to {outside}/card.yaml",
        f"pack/folder: CK104 symbolic link leads outside the pack folder, to {outside}",
        f"pack/up.yaml: CK104 symbolic link leads outside the pack folder, to {outside}/card.yaml",
    ]


def test_a_pack_yaml_that_leads_outside_is_refused(capsys, tmp_path):
    (tmp_path / "elsewhere.yaml").write_text("id: elsewhere\nname: Elsewhere\n", "utf-8")
    Path("pack").mkdir()
    Path("pack/pack.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    status, _, err = run(capsys, "validate", "pack")
    assert (status, err) == (
        1,
        f"pack/pack.yaml: CK104 symbolic link leads outside the pack folder, to {tmp_path}/elsewhere.yaml\n",
    )


def test_a_schema_outside_the_pack_is_refused(capsys, tmp_path):
    pack = make_pack()
    (tmp_path / "outside.json").write_text("{}", "utf-8")
    rules = "id: probe-rules\nkind: rules\nname: Probe rules\ncard_kinds:\n  probe:\n    record: cards.probes\n"
    (pack / "rules.yaml").write_text(rules + "    schema: ../outside.json\n", "utf-8")
    status, _, err = run(capsys, "validate", "pack")
    assert (status, err) == (
        1,
        "pack/rules.yaml:7:13: CK105 schema '../outside.json' is outside the pack folder\n",
    )


def test_link_loops_are_a_clear_error(capsys):
    pack = make_pack()
    (pack / "self.yaml").symlink_to("self.yaml")
    (pack / "a.yaml").symlink_to("b.yaml")
    (pack / "b.yaml").symlink_to("a.yaml")
    (pack / "sub").mkdir()
    (pack / "sub" / "up").symlink_to("..")
    (pack / "sub" / "top").symlink_to(Path.cwd() / "pack")
    (pack / "card.yaml").write_text(CARD, "utf-8")
    status, out, err = run(capsys, "validate", "pack")
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        "pack/a.yaml: CK001 cannot read file: symbolic link loop",
        "pack/b.yaml: CK001 cannot read file: symbolic link loop",
        "pack/self.yaml: CK001 cannot read file: symbolic link loop",
        "pack/sub/top: CK001 cannot read folder: symbolic link loop (it leads back to a folder above it)",
        "pack/sub/up: CK001 cannot read folder: symbolic link loop (it leads back to a folder above it)",
    ]


def test_a_looping_link_as_a_record_or_a_named_file(capsys):
    Path("loop.yaml").symlink_to("loop.yaml")
    status, _, err = run(capsys, "score", "loop.yaml")
    assert (status, err) == (1, "loop.yaml: cannot read file: Too many levels of symbolic links\n")
    pack = make_pack()
    (pack / "self.yaml").symlink_to("self.yaml")
    status, _, err = run(capsys, "validate", "pack/self.yaml")
    assert (status, err) == (1, "pack/self.yaml: CK001 cannot read file: symbolic link loop\n")


# deep and wide trees


@pytest.fixture
def nest():
    """Make ``depth`` folders each inside the last; they are removed after the test.

    Each is made relative to the last (no path grows long), and removed the same way:
    shutil.rmtree (and so pytest's own clean-up of old temporary folders) recurses and
    cannot remove a tree this deep.
    """
    made: list[tuple[Path, int]] = []

    def make(top: Path, depth: int) -> None:
        made.append((top.resolve(), depth))
        fd = os.open(top, os.O_RDONLY)
        try:
            for _ in range(depth):
                os.mkdir("d", dir_fd=fd)
                fd = _enter(fd, "d")
        finally:
            os.close(fd)

    yield make
    for top, depth in made:
        fd = os.open(top, os.O_RDONLY)
        for _ in range(depth):
            fd = _enter(fd, "d")
        for _ in range(depth):
            fd = _enter(fd, "..")
            os.rmdir("d", dir_fd=fd)
        os.close(fd)


def _enter(fd: int, name: str) -> int:
    """The folder ``name`` in the open folder ``fd``, opened; ``fd`` is closed."""
    try:
        return os.open(name, os.O_RDONLY, dir_fd=fd)
    finally:
        os.close(fd)


def test_2000_nested_folders_in_a_pack_stop_at_the_depth_limit(capsys, nest):
    pack = make_pack()
    (pack / "card.yaml").write_text(CARD, "utf-8")
    nest(pack, 2000)
    too_deep = "pack/" + "d/" * discovery.MAX_DEPTH + "d"
    status, _, err = run(capsys, "validate", "pack")
    assert (status, err) == (1, f"{too_deep}: CK005 folders nested deeper than 32 levels\n")
    Path("game.yaml").write_text(GAME, "utf-8")
    status, _, err = run(capsys, "score", "game.yaml", "--pack", "pack")
    assert (status, err) == (1, f"{too_deep}: folders nested deeper than 32 levels\n")


def test_2000_nested_folders_below_a_named_folder(capsys, nest):
    Path("tree").mkdir()
    nest(Path("tree"), 2000)
    status, _, err = run(capsys, "validate", "tree")
    assert (status, err) == (
        1,
        "tree/" + "d/" * discovery.MAX_DEPTH + "d: CK005 folders nested deeper than 32 levels\n",
    )


def test_folders_up_to_the_depth_limit_are_walked(capsys):
    pack = make_pack()
    deepest = pack.joinpath(*["d"] * discovery.MAX_DEPTH)
    deepest.mkdir(parents=True)
    (deepest / "card.yaml").write_text(CARD, "utf-8")
    assert discovery.card_files("pack") == [str(deepest / "card.yaml")]
    assert run(capsys, "validate", "pack") == (0, "ok: 1 checked, no problems\n", "")


def test_a_walk_stops_at_the_entry_limit(capsys, monkeypatch):
    from critter_kitchen.loading.paths import base_pack

    limit = discovery.pack_files(base_pack()).entries  # the base pack, always loaded, just fits
    monkeypatch.setattr(discovery, "MAX_ENTRIES", limit)
    pack = make_pack()
    for i in range(limit):
        (pack / f"card-{i}.yaml").write_text(CARD.replace("probe", f"probe-{i}"), "utf-8")
    status, _, err = run(capsys, "validate", "pack")
    assert (status, err) == (1, f"pack: CK005 more than {limit} files and folders below this folder\n")
    monkeypatch.setattr(discovery, "MAX_ENTRIES", limit + 1)  # pack.yaml and the cards
    assert run(capsys, "validate", "pack") == (0, "ok: 1 checked, no problems\n", "")


def test_hidden_files_and_folders_stay_skipped(capsys):
    pack = make_pack()
    (pack / ".hidden").mkdir()
    (pack / ".hidden" / "broken.yaml").write_text("id: [", "utf-8")
    (pack / ".broken.yaml").write_text("id: [", "utf-8")
    os.mkfifo(pack / ".pipe.yaml")
    (pack / "card.yaml").write_text(CARD, "utf-8")
    assert run(capsys, "validate", "pack") == (0, "ok: 1 checked, no problems\n", "")


# validate FILE: the pack's neighbours, never the whole working folder


@pytest.fixture
def scandirs(monkeypatch) -> list[str]:
    """Every folder listed while the test runs."""
    listed: list[str] = []
    real = os.scandir

    def spy(path: str = ".") -> object:
        listed.append(os.path.abspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", spy)
    return listed


def test_validate_file_does_not_walk_the_working_folder(capsys, scandirs, tmp_path, nest):
    for i in range(20):  # a tree beside the packs that holds no pack at all
        Path(f"junk-{i}").mkdir()
        nest(Path(f"junk-{i}"), 30)
    Path("loop").symlink_to(".")
    make_pack("packs/house", "house")
    extra = make_pack("packs/extra", "extra", "requires: [house]\n")
    (extra / "card.yaml").write_text(CARD, "utf-8")
    scandirs.clear()
    assert run(capsys, "validate", "packs/extra/card.yaml") == (0, "ok: 1 checked, no problems\n", "")
    walked = {Path(p).relative_to(tmp_path).as_posix() for p in scandirs if p.startswith(str(tmp_path))}
    assert walked == {"packs", "packs/extra", "packs/house"}  # what is beside it, its own pack, its requirement


def test_a_requirement_elsewhere_is_found_when_its_folder_is_named(capsys):
    make_pack("shared/house", "house")
    extra = make_pack("packs/extra", "extra", "requires: [house]\n")
    (extra / "card.yaml").write_text(CARD, "utf-8")
    status, _, err = run(capsys, "validate", "packs/extra/pack.yaml")
    assert (status, err) == (
        1,
        "packs/extra/pack.yaml:3:12: CK104 pack 'extra' requires pack 'house', which is not loaded; "
        "load it first with --pack\n",
    )
    assert run(capsys, "validate", "shared", "packs/extra/card.yaml") == (0, "ok: 2 checked, no problems\n", "")
    assert run(capsys, "validate", "shared/house/pack.yaml", "packs/extra/card.yaml")[0] == 0
