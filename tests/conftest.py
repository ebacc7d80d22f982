from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # oracle.py and gen.py


def pytest_configure(config):
    # Tests never touch the user's cache: a private folder for the whole run.
    import os
    import tempfile

    os.environ["CRITTER_KITCHEN_CACHE"] = tempfile.mkdtemp(prefix="ck-test-cache-")


@pytest.fixture(scope="session")
def base():
    from critter_kitchen import load_ruleset

    return load_ruleset()
