"""A wheel built from this tree installs into a fresh venv and scores a game from another folder."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_wheel_installs_and_scores_outside_the_repository(tmp_path):
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path / "dist", ROOT)
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("critter_kitchen-*.whl"))

    venv.create(tmp_path / "venv", with_pip=True)
    bin_dir = tmp_path / "venv" / ("Scripts" if sys.platform == "win32" else "bin")
    installed = run(bin_dir / "python", "-m", "pip", "install", "-q", wheel)
    assert installed.returncode == 0, installed.stderr

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    example = sorted((ROOT / "examples").glob("*.yaml"))[0]
    scored = run(bin_dir / "critter-kitchen", "score", example, "--format", "json", cwd=elsewhere)
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["winner"]

    as_module = run(bin_dir / "python", "-m", "critter_kitchen", "validate", example, cwd=elsewhere)
    assert as_module.returncode == 0, as_module.stdout + as_module.stderr
    assert not list(elsewhere.iterdir())  # scoring wrote nothing

    # the balance lab's page is rendered from the templates the wheel ships as package data
    code = "from critter_kitchen.simulate.html import render_html; print(render_html({'notes': ['<b>']}))"
    page = run(bin_dir / "python", "-c", code, cwd=elsewhere)
    assert page.returncode == 0, page.stderr
    assert "default-src 'none'" in page.stdout and "<li>&lt;b&gt;</li>" in page.stdout
