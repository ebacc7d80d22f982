"""The new game's setup in taps (issue 26): the challenge cards of each round, the critic and each
player's restaurateur are chips of the cards of the packs in play, their names on them, at least
44 px high, usable from a laptop's keyboard too; the names typed go from seat to seat with the
keyboard's "next" (Enter). In Debian's chromium driven by Playwright.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser import card_chip, chromium_or_skip, launch_chromium, round_chips  # noqa: E402
from test_serve_browser import Visit, expect, running_server  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "cards" / "base"
ROUND3 = "cards.challenges.round3"
MIN_TAP_PX = 44  # the smallest tap target


@pytest.fixture
def visit(tmp_path: Path):
    with chromium_or_skip()() as p:
        browser = launch_chromium(p)
        for url in running_server(tmp_path):
            v = Visit(browser, url, tmp_path)
            yield v
            v.close()
        browser.close()


def name_of(kind: str, card: str) -> str:
    return str(yaml.safe_load((BASE / kind / f"{card}.yaml").read_text())["name"])


def chip(v: Visit, where: str, card: str):
    return v.page.locator(f'[data-chip="{where}:{card}"]')


def slots(v: Visit, at: str) -> list[str | None]:
    return [v.field(f"{at}[{i}]").get_attribute("data-value") for i in range(3)]


def test_cards_are_chips_a_round_fills_in_reveal_order_and_the_critic_is_one(visit: Visit) -> None:
    page = visit.page
    page.goto(visit.url + "new")
    visit.field("players[0].name").wait_for()
    assert page.locator("#step-game select").count() == 0  # no native dropdown left in the setup
    # every challenge card of the base game is a chip in each round, named as its card
    challenges = sorted(p.stem for p in (BASE / "challenges").glob("*.yaml"))
    assert page.locator(f'[data-chip^="{ROUND3}:"]').count() == len(challenges)
    expect(chip(visit, ROUND3, "garden-gratin")).to_have_text(name_of("challenges", "garden-gratin"))
    for box in page.locator("#step-game .chips.cards .chip, #step-game .slot").all()[:40]:
        assert box.bounding_box()["height"] >= MIN_TAP_PX

    # a tap a card fills the round's next slot, in reveal order
    round_chips(page, ROUND3, ["garden-gratin", "hunters-ragout", "farmhouse-pie"])
    expect(chip(visit, ROUND3, "hunters-ragout")).to_have_attribute("aria-pressed", "true")
    # the round is full: the other cards wait for a slot
    expect(chip(visit, ROUND3, "harbor-stew")).to_be_disabled()
    # a tap on a card picked empties its slot, which the next card tapped fills; the others stay put
    chip(visit, ROUND3, "hunters-ragout").click()
    assert slots(visit, ROUND3) == ["garden-gratin", "", "farmhouse-pie"]
    chip(visit, ROUND3, "harbor-stew").click()
    assert slots(visit, ROUND3) == ["garden-gratin", "harbor-stew", "farmhouse-pie"]
    # the last card of the round is where the Hold token is, and its text says so
    held = visit.field(f"{ROUND3}[2]").locator("xpath=..").locator("xpath=..")
    expect(held.locator(".card-text > p").first).to_contain_text("the Hold token covers the last")
    # a tap on a slot empties it
    visit.field(f"{ROUND3}[0]").click()
    assert slots(visit, ROUND3) == ["", "harbor-stew", "farmhouse-pie"]
    assert slots(visit, "cards.challenges.round6") == ["", "", ""]  # each round its own

    # the critic is one card: a tap picks it, a tap on another replaces it, a tap on it again clears it
    card_chip(page, "cards.critic", "the-purist")
    card_chip(page, "cards.critic", "chef-cinnamon")
    expect(page.locator('[data-chip^="cards.critic:"][aria-pressed="true"]')).to_have_count(1)
    chip(visit, "cards.critic", "chef-cinnamon").click()
    assert visit.field("cards.critic").get_attribute("data-value") == ""
    # each player's restaurateur likewise
    card_chip(page, "players[1].restaurateur", "lucky-cat")
    expect(chip(visit, "players[1].restaurateur", "lucky-cat")).to_have_text(name_of("restaurateurs", "lucky-cat"))

    # from a laptop's keyboard: a chip takes the focus, Enter picks, the focus stays on it
    chip(visit, "cards.critic", "the-purist").focus()
    page.keyboard.press("Enter")
    assert visit.field("cards.critic").get_attribute("data-value") == "the-purist"
    assert page.evaluate("document.activeElement.dataset.chip") == "cards.critic:the-purist"

    # what the chips picked is what the game's record holds
    expect(page.locator("#status")).not_to_have_text("Checking…")
    draft = json.loads(page.evaluate("localStorage.getItem('critter-kitchen-draft')"))
    assert draft["S"]["table"]["challenges"]["round3"] == ["", "harbor-stew", "farmhouse-pie"]
    assert draft["S"]["table"]["critic"] == "the-purist"
    assert draft["S"]["players"][1]["held"]["restaurateur"] == "lucky-cat"


def test_enter_in_a_name_goes_on_to_the_next_seat_and_makes_one_after_the_last(visit: Visit) -> None:
    page = visit.page
    page.goto(visit.url + "new")
    visit.field("players[0].name").click()
    expect(page.locator("#players .player")).to_have_count(2)  # a fresh pad seats two
    assert visit.field("players[0].name").get_attribute("enterkeyhint") == "next"
    for i, name in enumerate(["Ana", "Ben", "Cy"]):
        page.keyboard.type(name)
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.dataset.where") == f"players[{i + 1}].name"
    expect(page.locator("#players .player")).to_have_count(4)  # a seat for the next name, as "Add a player" makes
    assert [visit.field(f"players[{i}].name").input_value() for i in range(4)] == ["Ana", "Ben", "Cy", ""]
    # from an empty last seat, Enter makes no more
    page.keyboard.press("Enter")
    expect(page.locator("#players .player")).to_have_count(4)
    assert page.evaluate("document.activeElement.dataset.where") == "players[3].name"
