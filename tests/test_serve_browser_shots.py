"""What the screenshots of each step of the score pad (``tools/pad_screenshots.py``) showed
wrong, each checked in Debian's chromium driven by Playwright against ``critter-kitchen
serve`` with a token:

- a room's phone page printed "null" in its meal form (under each meal's rows, and above the
  rounds where no undo was offered): the form's parts the room has none of were written out
  as the word;
- on a laptop, a room's "This is me" buttons touched one another, a tap target with no room
  around it;
- a kept game's page said when it was kept as a raw ISO time (``2026-12-05T06:53:30Z``), where
  its history says ``2026-12-05 06:53``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_serve_browser import PHONE, expect  # noqa: E402
from test_serve_browser_result import opened  # noqa: E402
from test_serve_room_browser import Serve, call  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FOUR = ROOT / "examples" / "four-players.yaml"
LAPTOP = {"width": 1366, "height": 900}

# the text nodes under ``root`` that say "null": a part of the page written out as the word
NULLS = """(root) => {
  const out = [];
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.textContent.trim() === "null") out.push(n.parentElement.outerHTML.slice(0, 120));
  }
  return out;
}"""


def started_room(serve: Serve, browser, folder: Path):
    """A room started on a laptop from the four-player example's setup: the laptop's page, the room's code."""
    record = yaml.safe_load(FOUR.read_text())
    setup = {k: v for k, v in record.items() if k not in ("challenge_meals", "critic_meals")}
    (folder / "setup.yaml").write_text(yaml.safe_dump(setup))
    laptop = opened(browser, serve, LAPTOP)
    laptop.goto(serve.url + "rooms")
    laptop.set_input_files("#setup", str(folder / "setup.yaml"))
    laptop.get_by_text("Start a room").click()
    laptop.wait_for_url(lambda url: "/room/" in url)
    return laptop, laptop.url.rsplit("/", 1)[1]


def test_a_rooms_phone_page_never_says_null(serve: Serve, browser, tmp_path: Path) -> None:
    _, code = started_room(serve, browser, tmp_path)
    rooms = call(serve.url + "api/rooms")
    assert isinstance(rooms, dict)
    join = next(r["join"] for r in rooms["rooms"] if r["code"] == code)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    phone.goto(join)
    expect(phone.locator("#live")).to_have_text("live")
    phone.locator('li[data-seat="0"] button').click()
    expect(phone.locator("#editor .meal-rows").first).to_be_visible()
    assert phone.locator("#editor").evaluate(NULLS) == []


def test_a_rooms_seat_buttons_stand_apart_on_a_laptop(serve: Serve, browser, tmp_path: Path) -> None:
    laptop, _ = started_room(serve, browser, tmp_path)
    buttons = laptop.locator("#players li button")
    expect(buttons).to_have_count(4)
    boxes = [buttons.nth(i).bounding_box() or {} for i in range(4)]
    gaps = [b["y"] - (a["y"] + a["height"]) for a, b in zip(boxes, boxes[1:], strict=False)]
    assert min(gaps) >= 4, gaps


def test_a_kept_games_page_says_when_it_was_kept_as_its_history_does(serve: Serve, browser) -> None:
    game = call(serve.url + "api/games", "POST", yaml.safe_load(FOUR.read_text()))
    assert isinstance(game, dict)
    page = opened(browser, serve, PHONE)
    page.goto(f"{serve.url}games/{game['id']}")
    expect(page.locator(".created")).to_have_text(re.compile(r"^Kept \d{4}-\d\d-\d\d \d\d:\d\d · game \d+$"))
