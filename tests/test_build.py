"""The balance lab runs the build installed, and says which: compiled (mypyc) or pure Python.

The python running these tests has the pure package. With ``CRITTER_KITCHEN_COMPILED_PYTHON``
naming the python of a venv with the compiled build (as for tests/test_compiled.py), that one
must run compiled modules in the command, in the lab's local worker processes (started as
the lab starts them) and in the workers of a Dask ``LocalCluster``, and say so.
"""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest
from test_compiled import COMPILED_PYTHON, compiled_modules, needs_compiled

from critter_kitchen import __version__, build, cli
from critter_kitchen.simulate.cli import Progress

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_the_build_looks_at_is_one_the_compiled_build_compiles():
    assert set(build.HOT_MODULES) <= set(compiled_modules())


def test_the_pure_package_says_it_runs_pure_python(capsys):
    assert build.compiled_modules() == ()
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"critter-kitchen {__version__}, pure Python\n"


def test_the_progress_line_says_which_build_plays_the_games():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    bar = Progress(stream, 10)
    bar.start -= 5  # as if the run had gone on for five seconds
    bar(5)
    assert stream.getvalue().startswith("\r[###############...............] 5/10 games, ")
    assert stream.getvalue().endswith("/s, pure Python")


def test_a_build_lacking_some_hot_modules_says_which_run_pure(monkeypatch):
    hot = build.HOT_MODULES
    monkeypatch.setattr(build, "compiled_modules", lambda: hot[:-2])
    assert build.kind() == f"partly compiled (mypyc): pure Python for {hot[-2]}, {hot[-1]}"
    monkeypatch.setattr(build, "compiled_modules", lambda: hot)
    assert build.kind() == "compiled (mypyc)"


# What the compiled python runs: the build of the command, of two local workers started as the
# lab starts them (simulate/run.py), and of a Dask LocalCluster's two worker processes.
WORKERS = """
import json, sys
from critter_kitchen import build
from critter_kitchen.simulate.run import pool_context

if __name__ == "__main__":
    found = {"command": build.kind()}
    with pool_context().Pool(2) as pool:
        found["workers"] = sorted({answer.get() for answer in [pool.apply_async(build.kind) for _ in range(4)]})
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            found["dask"] = sorted(set(client.run(build.kind).values()))
    json.dump(found, sys.stdout)
"""


@needs_compiled
def test_the_compiled_build_says_so(tmp_path: Path) -> None:
    shown = subprocess.run(
        [COMPILED_PYTHON, "-I", "-m", "critter_kitchen", "--version"], capture_output=True, text=True, timeout=60
    )
    assert (shown.returncode, shown.stdout, shown.stderr) == (
        0,
        f"critter-kitchen {__version__}, compiled (mypyc)\n",
        "",
    )


@needs_compiled
def test_the_lab_and_its_workers_run_the_compiled_build(tmp_path: Path) -> None:
    script = tmp_path / "workers.py"
    script.write_text(WORKERS, "utf-8")
    ran = subprocess.run(
        [COMPILED_PYTHON, "-I", str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == {
        "command": "compiled (mypyc)",
        "workers": ["compiled (mypyc)"],
        "dask": ["compiled (mypyc)"],
    }
