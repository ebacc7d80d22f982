"""The validate-cards hook of .pre-commit-hooks.yaml, run by pre-commit in a fan's repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GIT = shutil.which("git")

pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed; pre-commit needs it to clone the hook")

# Variables that would point git at another repository (set, for example, when the suite runs inside a git hook).
GIT_LOCATION_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
)

PRE_COMMIT_CONFIG = """\
repos:
  - repo: https://example.org/critter-kitchen
    rev: v0.1.0
    hooks:
      - id: validate-cards
"""

RUMOR = """\
id: eel-enthusiast
kind: rumor
name: Eel Enthusiast
text: The critic adores eel. Every fish course counts double for final quality.
effects:
  - after: critic.rumors
    do: |
      for p in players:
          multiply {function}(p, fish) by 2
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """An environment that keeps pre-commit's store and git's global settings out of the user's home."""
    home = tmp_path_factory.mktemp("pre-commit-home")
    gitconfig = home / "gitconfig"
    gitconfig.write_text("", "utf-8")
    variables = {k: v for k, v in os.environ.items() if k not in GIT_LOCATION_VARIABLES}
    variables.update(
        PRE_COMMIT_HOME=str(home / "store"),
        GIT_CONFIG_GLOBAL=str(gitconfig),
        GIT_CONFIG_NOSYSTEM="1",
    )
    return variables


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory, env):
    """This checkout as it is on disk (tracked and new files, less ignored ones), committed in a repository of its own.

    ``pre-commit try-repo`` on a path with uncommitted changes commits HEAD plus the changes to tracked files
    only, so a new file (a new engine module, or the hook definition itself before its first commit) would be
    missing from what it installs.
    """
    listed = subprocess.run(
        [GIT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        pytest.fail(f"{ROOT} is not a git checkout: {os.fsdecode(listed.stderr).strip()}")
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in filter(None, os.fsdecode(listed.stdout).split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted from the work tree stays out
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    assert (repo / ".pre-commit-hooks.yaml").is_file()
    commit_all(repo, env)
    return repo


def git(repo: Path, env: dict[str, str], *args: str) -> None:
    done = subprocess.run([GIT, *args], cwd=repo, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"


def commit_all(repo: Path, env: dict[str, str]) -> None:
    git(repo, env, "init", "-q")
    git(repo, env, "config", "user.name", "Test Player")
    git(repo, env, "config", "user.email", "player@example.org")
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-q", "--no-verify", "-m", "cards")


def fan_repo(path: Path, env: dict[str, str], files: dict[str, str]) -> Path:
    path.mkdir()
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, "utf-8")
    commit_all(path, env)
    return path


def try_repo(repo: Path, hook_repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "validate-cards"]
    return subprocess.run(
        [*command, "--all-files", "--color=never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def problem_lines(output: str) -> list[str]:
    return re.findall(r"^\S+: CK\d{3} .*$", output, re.MULTILINE)


def test_good_packs_in_subfolders_pass(tmp_path, hook_repo, env):
    repo = fan_repo(
        tmp_path / "fan",
        env,
        {
            ".pre-commit-config.yaml": PRE_COMMIT_CONFIG,
            "packs/house/pack.yaml": "id: house\nname: House rumors\n",
            "packs/house/rumors/eel-enthusiast.yaml": RUMOR.format(function="quality"),
        },
    )
    done = try_repo(repo, hook_repo, env)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert re.search(r"^validate Critter Kitchen cards\.+Passed$", output, re.MULTILINE), output


def test_dsl_typo_in_a_pack_at_the_root_fails(tmp_path, hook_repo, env):
    repo = fan_repo(
        tmp_path / "fan",
        env,
        {
            ".pre-commit-config.yaml": PRE_COMMIT_CONFIG,
            "pack.yaml": "id: house\nname: House rumors\n",
            "rumors/eel-enthusiast.yaml": RUMOR.format(function="qualty"),
        },
    )
    done = try_repo(repo, hook_repo, env)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert problem_lines(output) == [
        "rumors/eel-enthusiast.yaml:9:20: CK202 unknown function 'qualty'; did you mean 'quality'?"
    ], output
