"""The package's layers hold: import-linter checks the contracts in pyproject.toml.

Each layer imports only those below it (the commands, the products, the planner, the
library, loading and stages, the effect language, the model, errors and values), the core
never imports a product or a command, the model never imports the effect language, and no
package's modules import each other in a loop. A contract broken is a design question: the
message says which import breaks it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter")

ROOT = Path(__file__).resolve().parent.parent
LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def lint_imports(folder: Path, engine: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` with the pyproject.toml of ``folder``, on the package under ``engine``."""
    env = {**os.environ, "PYTHONPATH": str(engine)}  # these sources, not an installed copy
    run = [sys.executable, "-c", LINT, "--no-cache"]
    return subprocess.run(run, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def test_the_import_contracts_hold() -> None:
    done = lint_imports(ROOT, ROOT / "engine")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_a_broken_layer_is_caught(tmp_path: Path) -> None:
    """The contracts are read and can fail: a copy of the package whose model imports the planner."""
    package = tmp_path / "engine" / "critter_kitchen"
    shutil.copytree(ROOT / "engine" / "critter_kitchen", package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "model" / "stray.py").write_text("from ..plan import work\n", "utf-8")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    done = lint_imports(tmp_path, tmp_path / "engine")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "critter_kitchen.model is not allowed to import critter_kitchen.plan" in done.stdout, done.stdout
