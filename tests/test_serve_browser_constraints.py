"""The score pad in a real browser (Debian's chromium driven by Playwright), serving the
meal-constraints test pack (tests/packs/constraints): a meal that a card's constraint
refuses, and one that a different-types slot card refuses, show the engine's message at
the meal, and the game is scored once they are fixed.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser import chromium_or_skip, launch_chromium  # noqa: E402
from test_serve_browser import ROOT, Visit, expect, running_server, type_game  # noqa: E402

CONSTRAINTS = ROOT / "tests" / "packs" / "constraints"


@pytest.fixture
def server(tmp_path):
    yield from running_server(tmp_path, (str(CONSTRAINTS),))


@pytest.fixture
def visit(server, tmp_path):
    with chromium_or_skip()() as p:
        chromium = launch_chromium(p)
        v = Visit(chromium, server, tmp_path)
        yield v
        v.close()
        chromium.close()


def test_a_constraints_message_is_shown_at_the_meal_it_refuses(visit: Visit) -> None:
    record = {
        "players": [{"name": "Ana", "restaurateur": "test-teetotaller"}, {"name": "Ben"}],
        "cards": {
            "challenges": {
                "round3": ["test-odd-couple", "harbor-stew", "test-light-lunch"],
                "round6": ["braised-shank", "farmhouse-pie", "forest-risotto"],
            },
            "critic": "test-minimalist",
        },
        "challenge_meals": {
            # two fish fill one slot of Odd Couple (different types): the other needs a token
            "round3": {
                "Ana": {
                    "test-odd-couple": {"ingredients": [{"type": "fish", "value": 3}, {"type": "fish", "value": 2}]}
                }
            }
        },
        "critic_meals": {
            "Ana": {"courses": {"carrot": {"value": 2}, "wine": {"value": 4}}},
            "Ben": {"courses": {k: {"value": 2} for k in ("carrot", "fish", "cheese", "mushroom", "meat", "wine")}},
        },
    }
    type_game(visit, record)
    page = visit.page
    messages = {
        "challenge_meals.round3.Ana.test-odd-couple": (
            "missing 1 of 2 slots of different types: 1 soup or bisque needed to fill, 0 given"
        ),
        "critic_meals.Ana": "The Teetotaller: the teetotaller serves no wine course",
        "critic_meals.Ben": "The Minimalist: the critic meal may have at most five courses",
    }
    for where, text in messages.items():
        expect(page.locator(f'.err[data-for="{where}"]')).to_have_text(text)
    expect(page.locator("#status")).to_have_text("3 problems to fix")
    page.click('#who button:has-text("Ben")')
    page.locator('.err[data-for="critic_meals.Ben"]').scroll_into_view_if_needed()
    visit.shot("score-pad-constraint")
    # fixed: Ben serves no wine course, Ana no wine and a soup for Odd Couple's second slot
    visit.field("critic_meals.Ben.courses.wine.value").fill("")
    page.click('#who button:has-text("Ana")')
    visit.field("critic_meals.Ana.courses.wine.value").fill("")
    page.click('[data-chip="challenge_meals.round3.Ana.test-odd-couple.soup:1"]')
    visit.legal()
    for where in messages:
        assert page.locator(f'.err[data-for="{where}"]').is_hidden()
