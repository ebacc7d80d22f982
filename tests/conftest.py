from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # oracle.py and gen.py


def pytest_configure(config):
    # Tests never touch the user's cache or its key: private places for the whole run.
    import os
    import tempfile

    os.environ["CRITTER_KITCHEN_CACHE"] = tempfile.mkdtemp(prefix="ck-test-cache-")
    os.environ["CRITTER_KITCHEN_CACHE_KEY"] = os.path.join(tempfile.mkdtemp(prefix="ck-test-key-"), "cache.key")


@pytest.fixture(scope="session")
def base():
    from critter_kitchen import load_ruleset

    return load_ruleset()


@pytest.fixture(scope="session")
def composing():
    """The base pack with cards that change parameters for their own scope (tests/packs/composing)."""
    from critter_kitchen import load_ruleset

    return load_ruleset([ROOT / "tests" / "packs" / "composing"])


@pytest.fixture(scope="session")
def alc():
    """The base pack with À La Carte on top, loaded by its id."""
    from critter_kitchen import load_ruleset
    from critter_kitchen.api import packs_for

    return load_ruleset(packs_for({"packs": ["a-la-carte"]}, []))


@pytest.fixture(scope="session")
def planner_cards():
    """The base pack with the planner's test cards (tests/packs/planner-cards)."""
    from critter_kitchen import load_ruleset

    return load_ruleset([ROOT / "tests" / "packs" / "planner-cards"])


@pytest.fixture(scope="session")
def critic_cards():
    """The base pack with the critic planner's test cards (tests/packs/critic-cards)."""
    from critter_kitchen import load_ruleset

    return load_ruleset([ROOT / "tests" / "packs" / "critic-cards"])


@pytest.fixture(scope="session")
def slots():
    """The base pack with wildcard and different-type requirement slots (tests/packs/slots)."""
    from critter_kitchen import load_ruleset

    return load_ruleset([ROOT / "tests" / "packs" / "slots"])


@pytest.fixture(scope="session")
def slots_loose():
    """The slots pack under looser meal rules: any type served, two real ingredients, two
    tokens per empty slot (tests/packs/slots-loose)."""
    from critter_kitchen import load_ruleset

    return load_ruleset([ROOT / "tests" / "packs" / "slots", ROOT / "tests" / "packs" / "slots-loose"])


@pytest.fixture(scope="session")
def constraints():
    """The base pack with cards that put conditions on meals (tests/packs/constraints)."""
    from critter_kitchen import load_ruleset

    return load_ruleset([ROOT / "tests" / "packs" / "constraints"])


@pytest.fixture(scope="session")
def repeated_no_hold():
    """The base pack with repeated requirements and no Hold token (tests/packs)."""
    from critter_kitchen import load_ruleset

    return load_ruleset([ROOT / "tests" / "packs" / "repeated", ROOT / "tests" / "packs" / "no-hold"])


@pytest.fixture
def browser():
    """Debian's chromium, headless, driven by Playwright (tests/browser.py says how it is found;
    without it the test skips, or fails where CI requires the browser)."""
    from browser import chromium_or_skip, launch_chromium

    with chromium_or_skip()() as p:
        chromium = launch_chromium(p)
        yield chromium
        chromium.close()


@pytest.fixture
def serve(tmp_path: Path):
    """``critter-kitchen serve`` with an access token on 127.0.0.1, in a process of its own, stopped
    after the test (test_serve_room_browser.Serve: it can be stopped and started again)."""
    from test_serve_room_browser import Serve

    running = Serve(tmp_path)
    running.start()
    yield running
    running.stop()
