"""A real headless browser for the tests that check pages: Debian's chromium, driven by Playwright.

Playwright never downloads its own browser here (``playwright install`` is not used): it drives
the system's chromium by its path. Tests that need it call :func:`chromium_or_skip`, which
skips them, saying what is missing, when Playwright or chromium is not installed
(``pip install -e ".[browser]"``; ``apt-get install -y chromium``). :func:`offline_guard`
records every request that would leave the allowed schemes or hosts, and every console error.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

# Quiet and offline: no sandbox (tests run as root in CI), no GPU, no background fetches.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# Set by .ci/run: there, a missing browser is a failure, not a skip, so CI cannot pass
# without running the browser tests.
REQUIRE_ENV = "CRITTER_KITCHEN_REQUIRE_BROWSER"
# A directory to copy screenshots into, for people to look at them.
SCREENSHOTS_ENV = "CRITTER_KITCHEN_SCREENSHOTS"


def chromium_path() -> str | None:
    """The chromium executable: CRITTER_KITCHEN_CHROMIUM, Debian's /usr/bin/chromium, or one on PATH."""
    for candidate in (os.environ.get("CRITTER_KITCHEN_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def chromium_or_skip() -> Any:
    """Playwright's ``sync_playwright`` when Playwright and chromium are both here; else skip the
    test (or fail it, where ``CRITTER_KITCHEN_REQUIRE_BROWSER`` is set)."""
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = 'Playwright for Python is not installed (pip install -e ".[browser]")'
    if missing is None and chromium_path() is None:
        missing = "chromium is not installed (apt-get install -y chromium)"
    if missing is not None:
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"{missing}, and {REQUIRE_ENV} is set")
        pytest.skip(missing)
    return sync_playwright


def launch_chromium(playwright: Any) -> Any:
    """A headless chromium browser from the system's executable, launched with the options above."""
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)


@dataclass
class Guard:
    """What a page tried that it should not: requests that would leave, console errors, dialogs."""

    blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    # a test that expects dialogs queues its answers (True accepts); each answered one is kept
    answers: list[bool] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert self.blocked == [], f"requests that would leave: {self.blocked}"
        assert self.errors == [], f"console errors: {self.errors}"
        assert self.dialogs == [], f"dialogs opened: {self.dialogs}"


def offline_guard(page: Any, allowed: tuple[str, ...] = ("file:", "data:")) -> Guard:
    """Route every request of ``page``: those whose URL starts with an allowed prefix go on, others are aborted."""
    guard = Guard()

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if url.startswith(allowed):
            request_route.continue_()
        else:
            guard.blocked.append(url)
            request_route.abort()

    def dialog(d: Any) -> None:
        if not guard.answers:
            guard.dialogs.append(d.message)
            d.dismiss()
            return
        guard.answered.append(d.message)
        d.accept() if guard.answers.pop(0) else d.dismiss()

    page.route("**/*", route)
    page.on("console", lambda message: guard.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: guard.errors.append(str(error)))
    page.on("dialog", dialog)
    return guard


def save_screenshot(page: Any, path: Path) -> Path:
    """A full-page screenshot at ``path``, copied into $CRITTER_KITCHEN_SCREENSHOTS when that is set."""
    page.screenshot(path=str(path), full_page=True)
    shots = os.environ.get(SCREENSHOTS_ENV)
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(shots) / path.name)
    return path


# --- the setup (static/new.js): the cards in play as chips --------------------------------------


def card_chip(page: Any, where: str, card: str) -> None:
    """One card at record path ``where`` (the critic, a player's restaurateur): a tap on its chip, and
    the card is the one picked."""
    page.click(f'[data-chip="{where}:{card}"]')
    assert page.locator(f'[data-where="{where}"]').get_attribute("data-value") == card


def round_chips(page: Any, at: str, cards: list[str]) -> None:
    """The challenge cards of a round (``at`` is ``cards.challenges.ROUND``) in reveal order, on a round
    with no card picked yet: a tap on each card's chip fills the next slot."""
    for i, card in enumerate(cards):
        page.click(f'[data-chip="{at}:{card}"]')
        assert page.locator(f'[data-where="{at}[{i}]"]').get_attribute("data-value") == card


# --- the meal form (static/meal.js): a row per requirement, the number pad, chips ---------------


def pad_value(page: Any, where: str, value: int) -> None:
    """A value into the field at record path ``where`` as a phone enters it: a tap on the field
    (unless the number pad is on it already), a tap on the pad's button; typed when the pad has none."""
    field_ = page.locator(f'[data-where="{where}"]')
    if page.evaluate("(document.activeElement && document.activeElement.dataset.where) || ''") != where:
        field_.click()
    button = page.locator(f'#numpad [data-pad-value="{value}"]')
    if button.count():
        button.click()
    else:
        field_.fill(str(value))


def spice_chips(page: Any, at: str, spice: Any) -> None:
    """A tap on each spice's chip at ``at`` (an ingredient's or a course's ``spice`` path), "…" first
    when it is among the other spices."""
    for name in spice if isinstance(spice, list) else [spice]:
        chip = page.locator(f'[data-chip="{at}:{name}"]')
        if not chip.count():
            page.click(f'[data-chip="{at}:more"]')
        chip.click()


def token_chips(page: Any, where: str, meal: dict[str, Any], tokens: tuple[str, ...] = ("soup", "bisque")) -> None:
    """A tap on each token's count chip (past the highest chip, a tap more a count)."""
    for token in tokens:
        if token in meal:
            n = int(meal[token])
            top = min(n, page.locator(f'[data-where="{where}.{token}"] .chip').count())
            page.click(f'[data-chip="{where}.{token}:{top}"]')
            for k in range(top, n):
                page.click(f'[data-chip="{where}.{token}:{k}"]')


def enter_meal(page: Any, where: str, meal: dict[str, Any]) -> None:
    """A challenge meal, its ingredients in the record's order: each row's type changed to the
    ingredient's where it is another (a tap on the type, one on its chip), rows past the card's
    requirements by "+ ingredient" and a type chip, each value from the number pad, the spices and
    tokens as chips (a value entered serves the meal)."""
    types = page.locator(f'[data-where^="{where}.ingredients["][data-where$=".type"]').all_inner_texts()
    for i, ing in enumerate(meal["ingredients"]):
        at = f"{where}.ingredients[{i}]"
        if i >= len(types):
            page.click(f'[data-add="{where}.ingredients"]')
            page.click(f'[data-chip="{where}.ingredients:{ing["type"]}"]')
        elif types[i].strip() != ing["type"]:
            page.click(f'[data-where="{at}.type"]')
            page.click(f'[data-chip="{at}.type:{ing["type"]}"]')
        pad_value(page, f"{at}.value", ing["value"])
        if "spice" in ing:
            spice_chips(page, f"{at}.spice", ing["spice"])
    for i in range(len(meal["ingredients"]), len(types)):  # requirement rows left empty are not served
        assert page.locator(f'[data-where="{where}.ingredients[{i}].value"]').input_value() == ""
    token_chips(page, where, meal)


def enter_critic_meal(page: Any, where: str, critic: dict[str, Any]) -> None:
    """A critic meal: each course's value from the number pad and its spices as chips, the tokens."""
    for kind, course in critic["courses"].items():
        pad_value(page, f"{where}.courses.{kind}.value", course["value"])
        if "spice" in course:
            spice_chips(page, f"{where}.courses.{kind}.spice", course["spice"])
    token_chips(page, where, critic)
