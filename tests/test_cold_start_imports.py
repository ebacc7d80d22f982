"""A cold ``score``: what it imports, how it leaves the collector, and the cheaper walks of a
load (the engine's files for the cache key, the order of a pack's files) against the plain
ones they replace."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from critter_kitchen import cli, errors
from critter_kitchen.loading import cached, discovery
from critter_kitchen.stages import runner

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "five-players.yaml")

# Everything a `score` on a filled cache may import beyond what `import yaml` imports: the
# reader, the stages, the cache and the text report. A new module on this path costs every
# cold start (a module's import alone is about 0.3 M instructions): add one here only
# knowing that.
SCORE_PATH_MODULES = {
    "__future__",
    "_blake2",
    "_compat_pickle",
    "_pickle",
    "errno",
    "gc",
    "critter_kitchen",
    "critter_kitchen.cache",
    "critter_kitchen.cli",
    "critter_kitchen.commands",
    "critter_kitchen.commands.score",
    "critter_kitchen.dsl",
    "critter_kitchen.dsl.budget",
    "critter_kitchen.dsl.changes",
    "critter_kitchen.dsl.entries",
    "critter_kitchen.dsl.frame",
    "critter_kitchen.dsl.program",
    "critter_kitchen.dsl.registry",
    "critter_kitchen.dsl.run_nodes",
    "critter_kitchen.dsl.types",
    "critter_kitchen.errors",
    "critter_kitchen.interpreted",
    "critter_kitchen.loading",
    "critter_kitchen.loading.cached",
    "critter_kitchen.loading.discovery",
    "critter_kitchen.loading.files",
    "critter_kitchen.loading.paths",
    "critter_kitchen.loading.records",
    "critter_kitchen.loading.resolve",
    "critter_kitchen.loading.sources",
    "critter_kitchen.loading.yamlpos",
    "critter_kitchen.model",
    "critter_kitchen.model.game",
    "critter_kitchen.model.meals",
    "critter_kitchen.model.ruleset",
    "critter_kitchen.regular",
    "critter_kitchen.report",
    "critter_kitchen.report.text",
    "critter_kitchen.stages",
    "critter_kitchen.stages.runner",
    "critter_kitchen.values",
}

# what the compiled build's runtime library imports (mypyc's, not the engine's)
COMPILED_RUNTIME = {
    "importlib",
    "importlib._bootstrap",
    "importlib._bootstrap_external",
    "importlib.machinery",
    "warnings",
}
JSON_MODULES = {"json", "json.decoder", "json.encoder", "json.scanner", "_json"}  # the JSON report's

COLD_SCORE = (
    "import sys, yaml\n"
    "before = set(sys.modules)\n"
    "from critter_kitchen.cli import main\n"
    "status = main()\n"
    "print(sorted(set(sys.modules) - before), file=sys.stderr)\n"
    "sys.exit(status)\n"
)


def engine_modules(printed: str) -> set[str]:
    """The modules a cold run printed, less those of the compiled build's runtime library."""
    loaded = set(eval(printed))  # noqa: S307 - our own output
    if not errors.__file__.endswith(".py"):
        loaded = {m for m in loaded - COMPILED_RUNTIME if not m.endswith("__mypyc")}
    return loaded


def run_cold(args: list[str], cache: Path, code: str = COLD_SCORE) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CRITTER_KITCHEN_CACHE=str(cache))
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)


def test_a_cold_score_imports_only_the_score_path(tmp_path) -> None:
    """On a filled cache, `score` (text and JSON) imports nothing beyond the reader, the stages,
    the cache and its report; the first run, which fills the cache, loads the packs."""
    first = run_cold(["score", EXAMPLE], tmp_path)
    assert first.returncode == 0, first.stderr
    assert "critter_kitchen.loading.packs" in first.stderr
    text = run_cold(["score", EXAMPLE], tmp_path)
    assert text.returncode == 0, text.stderr
    assert engine_modules(text.stderr.splitlines()[-1]) == SCORE_PATH_MODULES
    assert text.stdout == first.stdout
    as_json = run_cold(["score", EXAMPLE, "--format", "json", "--explain"], tmp_path)
    loaded = engine_modules(as_json.stderr.splitlines()[-1])
    assert loaded - SCORE_PATH_MODULES == {"critter_kitchen.report.json", "critter_kitchen.fastjson", *JSON_MODULES}
    assert SCORE_PATH_MODULES - loaded == {"critter_kitchen.report.text"}
    assert json.loads(as_json.stdout)["winner"]


def collections_during(run: object) -> list[int]:
    """The generations the cyclic collector collected while ``run()`` ran."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        run()  # type: ignore[operator]
    finally:
        gc.callbacks.remove(note)
    return seen


def test_a_single_score_runs_without_the_collector_and_gives_it_back(capsys) -> None:
    """One record's objects live until the command ends: the collector is paused for it, and
    main() leaves the collector as it found it, running or not, without freezing anything
    when it is called with a command line (not the end of the process)."""
    cli.main(["score", EXAMPLE])  # the ruleset is in the cache, the modules imported
    first = capsys.readouterr().out
    # what an earlier batch in this process froze may die meanwhile and leave the count: start
    # from none frozen, so that only a freeze by these scores could change it
    gc.unfreeze()
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    # a score allocates enough to start several collections, were the collector running
    assert collections_during(lambda: cli.main(["score", EXAMPLE])) == []
    assert capsys.readouterr().out == first
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
    gc.disable()
    try:
        cli.main(["score", EXAMPLE])
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert capsys.readouterr().out == first
    assert gc.get_freeze_count() == frozen


def test_a_batch_scores_with_the_collector_running(monkeypatch, capsys, tmp_path) -> None:
    """A batch may be long: every record of it is scored with the collector running, and the
    results are those of the records scored one by one."""
    running: list[bool] = []
    score_game = runner.score_game

    def noting(*args: object, **kw: object) -> object:
        running.append(gc.isenabled())
        return score_game(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "score_game", noting)
    monkeypatch.setattr(cli, "score_game", noting, raising=False)  # where the command once bound it
    gc.disable()  # and whatever the caller had, it is given back
    try:
        assert cli.main(["score", EXAMPLE, EXAMPLE]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()
    batch = capsys.readouterr().out
    assert running == [True, True]
    cli.main(["score", EXAMPLE])
    one = capsys.readouterr().out
    assert batch == f"== {EXAMPLE}\n{one}" * 2


EXIT_CHECK = (
    "import atexit, gc, sys\n"
    "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 1000, gc.isenabled()))\n"
    "from critter_kitchen.cli import main\n"
    "sys.exit(main())\n"
)


@pytest.mark.parametrize("command", [["score", EXAMPLE], ["score", EXAMPLE, EXAMPLE], ["packs"]])
def test_the_command_process_freezes_what_is_left_before_exit(tmp_path, command) -> None:
    """main() called as the console script calls it ends the process: what is left is frozen
    (the collector's last walk at exit would free nothing the exit does not) and the collector
    is running again; the output is the same as an in-process run's."""
    run_cold(command, tmp_path, EXIT_CHECK)  # fills the cache
    done = run_cold(command, tmp_path, EXIT_CHECK)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "frozen at exit: True True"
    assert done.stderr == ""


def walked_engine_folder(top: str) -> list[tuple[str, int, int]]:
    """The plain walk that cached._engine_folder replaces: os.walk, folders and files by name."""
    found = []
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".lark", ".json")):
                info = os.stat(os.path.join(folder, name))
                found.append((os.path.join(folder, name), info.st_size, info.st_mtime_ns))
    return found


def test_the_engine_files_are_listed_as_os_walk_lists_them(tmp_path) -> None:
    """The cache key's list of engine files, by scandir, equals os.walk's: the engine itself,
    and a tree with nested and unsorted folders, __pycache__, links to a folder and a file, a
    broken link, other suffixes and an unreadable folder."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(cached.__file__)))
    listed = list(cached._engine_files())
    assert listed[: len(walked_engine_folder(root))] == walked_engine_folder(root)
    assert len(listed) > 60

    top = tmp_path / "engine"
    for folder in ["b", "a/z", "a/y", "__pycache__", "c.py.d", "B"]:
        (top / folder).mkdir(parents=True)
    for file in ["z.py", "a.lark", "m.json", "n.txt", "b/x.py", "a/z/q.json", "a/y/p.py", "__pycache__/c.py", "B/k.py"]:
        (top / file).write_text(file)
    (top / "linked").symlink_to(top / "a")
    (top / "linked.py").symlink_to(top / "z.py")
    (top / "broken.txt").symlink_to(top / "nowhere")
    locked = top / "b" / "locked"
    locked.mkdir()
    (locked / "hidden.py").write_text("")
    locked.chmod(0)
    try:
        mine: list[tuple[str, int, int]] = []
        cached._engine_folder(str(top), mine)
        assert mine == walked_engine_folder(str(top))
        assert [os.path.relpath(p, top) for p, _, _ in mine][:4] == ["a.lark", "linked.py", "m.json", "z.py"]
    finally:
        locked.chmod(0o700)


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(
        st.lists(st.sampled_from(["a", "B", "a-b", "a.b", "b", "ä", "Z9", "_x"]), min_size=1, max_size=3),
        min_size=1,
        max_size=12,
    ),
    spelling=st.sampled_from(["{p}", "{p}/", "{p}//", "{p}/.", "{p}/../{n}", "./{r}", "{r}/", "{r}/../{n}"]),
)
def test_a_packs_files_are_ordered_as_relpath_orders_them(tmp_path_factory, names, spelling) -> None:
    """pack_files sorts the files it found by their names below the pack folder, without
    os.path.relpath: the same order and parts for any spelling of the folder."""
    pack = tmp_path_factory.mktemp("pack")
    (pack / discovery.PACK_FILE).write_text("id: p\n")
    for parts in names:
        folder = pack.joinpath(*parts[:-1])  # card files end in .yaml: never a folder's name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{parts[-1]}.yaml").write_text("id: c\n")
    cwd = os.getcwd()
    os.chdir(pack.parent)
    try:
        folder = spelling.format(p=str(pack), n=pack.name, r=pack.name)
        walk = discovery._PackWalk(folder)
        found = discovery.pack_files(folder).found
        assert found
        for path in found:
            assert walk.parts_below(path) == os.path.relpath(path, folder).split(os.sep)
        assert found == sorted(found, key=lambda path: os.path.relpath(path, folder).split(os.sep))
    finally:
        os.chdir(cwd)
