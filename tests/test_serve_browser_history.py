"""A kept game's history and the undo of every destructive action, in Debian's chromium driven
by Playwright against ``critter-kitchen serve`` with a token (on 127.0.0.1):

- "Edit" on a kept game's page opens the game in the entry form; saving keeps a new version,
  the page lists the history, shows an earlier version and restores it, and each of these
  is undone from the bar;
- "Delete game" is undone from the history page; an import, and an edit or a "Play again"
  that replaces a draft, are undone on the entry page;
- the room: the warning of a loopback address, a phone with no link that answers 401 for it,
  "Not me" and "End this room" undone, a room kept once for the room on every device;
- the card statistics page counts a challenge meal's awards once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("segno")

from test_serve_browser import PHONE, expect  # noqa: E402
from test_serve_room_browser import TOKEN, Serve, call  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TWO = ROOT / "examples" / "two-players.yaml"
FIVE = ROOT / "examples" / "five-players.yaml"


def device(browser, url: str | None = None):
    """A new phone-sized page; with ``url``, opened there (with the server's token when asked)."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    if url is not None:
        page.goto(url)
    return page


@pytest.fixture
def laptop(serve: Serve, browser):
    return device(browser, f"{serve.url}rooms?token={TOKEN}")  # the pad's own device, with the token


def kept(serve: Serve, path: Path) -> int:
    answer = call(serve.url + "api/games", "POST", yaml.safe_load(path.read_text()))
    assert isinstance(answer, dict)
    return int(answer["id"])


def game(serve: Serve, game_id: int, version: str = "") -> dict:
    answer = call(f"{serve.url}api/games/{game_id}{version}")
    assert isinstance(answer, dict)
    return answer


# the page's requests for the packs' rules answered a second late once ``window.slowCards`` is set
SLOW_CARDS = """(() => {
  const fetched = window.fetch;
  window.fetch = (url, options) => String(url).includes("/ui/cards") && window.slowCards
    ? new Promise((done) => setTimeout(done, 1000)).then(() => fetched(url, options))
    : fetched(url, options);
})();"""


def names(page) -> list[str]:
    return page.locator('[data-where$="].name"]').evaluate_all("els => els.map(e => e.value)")


# --- editing a kept game, its history --------------------------------------------------------


def test_a_kept_game_is_edited_in_the_entry_form_and_each_version_is_kept(serve: Serve, laptop) -> None:
    page = laptop
    game_id = kept(serve, TWO)
    page.goto(f"{serve.url}games/{game_id}")
    page.click("#edit")
    expect(page.locator("#step-game h1")).to_have_text(f"Edit game {game_id}")
    expect(page.locator('[data-where="players[0].name"]')).to_have_value("Ana")
    page.locator('[data-where="players[0].name"]').fill("Ann")
    page.click("#steps [data-step=save]")
    expect(page.locator("#save")).to_have_text("Keep the changes")
    expect(page.locator("#save")).to_be_enabled()
    page.fill("#edit-note", "Ana is Ann")
    with page.expect_navigation():
        page.click("#save")
    assert [p["name"] for p in game(serve, game_id)["record"]["players"]] == ["Ann", "Ben"]
    assert game(serve, game_id)["version"] == 2
    expect(page.locator("#versions li")).to_have_count(2)
    expect(page.locator("#versions")).to_contain_text("Ana is Ann")
    expect(page.locator("#undo-what")).to_have_text("Version 1 replaced")

    # the edit undone: version 1 restored as version 3
    with page.expect_navigation():
        page.click("#undo-button")
    assert game(serve, game_id)["version"] == 3
    assert [p["name"] for p in game(serve, game_id)["record"]["players"]] == ["Ana", "Ben"]
    expect(page.locator("#undo-what")).to_have_text("Version 2 replaced")  # and the undo undone in turn

    # an earlier version shown, and restored
    page.click('#versions a:text-is("Version 2")')
    page.wait_for_url(f"**/games/{game_id}/versions/2")
    expect(page.locator("#earlier")).to_contain_text("An earlier version")
    expect(page.locator("#ranking")).to_contain_text("Ann")
    with page.expect_navigation():
        page.click("#restore")
    assert game(serve, game_id)["version"] == 4
    assert [p["name"] for p in game(serve, game_id)["record"]["players"]] == ["Ann", "Ben"]
    expect(page.locator("#undo-what")).to_have_text("Version 3 replaced")
    with page.expect_navigation():
        page.click("#undo-button")
    assert [p["name"] for p in game(serve, game_id)["record"]["players"]] == ["Ana", "Ben"]
    stats = call(serve.url + "api/players/Ana")
    assert isinstance(stats, dict) and stats["games"] == 1  # the latest version only


def test_opening_a_game_to_edit_puts_the_draft_aside_with_an_undo(serve: Serve, laptop) -> None:
    page = laptop
    game_id = kept(serve, TWO)
    page.goto(serve.url + "new")
    page.click("#start-over")
    page.locator('[data-where="players[0].name"]').fill("Zed")
    page.goto(f"{serve.url}new?edit={game_id}")
    expect(page.locator('[data-where="players[0].name"]')).to_have_value("Ana")
    expect(page.locator("#undo-what")).to_have_text("Draft put aside")
    page.click("#undo-button")
    expect(page.locator('[data-where="players[0].name"]')).to_have_value("Zed")
    expect(page.locator("#step-game h1")).to_have_text("New game")


def test_a_name_typed_just_after_start_over_is_kept(serve: Serve, laptop) -> None:
    """Start over draws the fresh form at once: a name typed while the packs' rules would be asked
    again (slowed here to 1 s) goes into the new game, not into the form being thrown away."""
    page = laptop
    page.add_init_script(SLOW_CARDS)
    page.goto(serve.url + "new")
    page.locator('[data-where="players[0].name"]').fill("Old")
    page.evaluate("window.slowCards = true")
    page.click("#start-over")
    page.locator('[data-where="players[0].name"]').fill("Zed")
    page.wait_for_timeout(1500)  # whatever was asked has answered
    expect(page.locator('[data-where="players[0].name"]')).to_have_value("Zed")
    assert names(page) == ["Zed", ""]


def test_an_import_that_replaces_the_form_is_undone(serve: Serve, laptop) -> None:
    page = laptop
    page.goto(serve.url + "new")
    before = page.locator('[data-where="players[0].name"]').element_handle()
    page.click("#start-over")
    # the fresh form drawn (after the packs' rules are asked again): typed into before, a name would be lost
    page.wait_for_function("el => !el.isConnected", arg=before)
    page.locator('[data-where="players[0].name"]').fill("Zed")
    page.locator('[data-where="players[1].name"]').fill("Yan")
    page.set_input_files("#import", str(FIVE))
    expect(page.locator('[data-where="players[4].name"]')).to_have_value("Nia")
    expect(page.locator("#undo-what")).to_have_text("Imported five-players.yaml")
    page.click("#undo-button")
    expect(page.locator('[data-where="players[0].name"]')).to_have_value("Zed")
    assert names(page) == ["Zed", "Yan"]


# --- deleting a kept game ------------------------------------------------------------------


def test_a_deleted_game_is_brought_back_from_the_history_page(serve: Serve, laptop) -> None:
    page = laptop
    game_id = kept(serve, TWO)
    page.goto(f"{serve.url}games/{game_id}")
    page.click("#forget")  # no question asked: it can be undone
    page.wait_for_url(serve.url)
    expect(page.locator("#undo-what")).to_have_text(f"Deleted game {game_id}")
    expect(page.locator("#games")).to_have_count(0)
    with page.expect_navigation():
        page.click("#undo-button")
    assert game(serve, game_id)["record"] == yaml.safe_load(TWO.read_text())


# --- rooms ---------------------------------------------------------------------------------


def open_room(serve: Serve, record: dict) -> dict:
    made = call(serve.url + "api/rooms", "POST", record)
    assert isinstance(made, dict)
    return made


def test_a_room_opened_at_loopback_warns_and_a_phone_sees_no_link_it_cannot_open(serve: Serve, browser, laptop):
    record = yaml.safe_load(TWO.read_text())
    made = open_room(serve, {k: v for k, v in record.items() if k not in ("challenge_meals", "critic_meals")})
    code = made["code"]
    laptop.goto(f"{serve.url}room/{code}")
    expect(laptop.locator("#loopback")).to_be_visible()
    expect(laptop.locator("#loopback")).to_contain_text("critter-kitchen serve --host 0.0.0.0")
    expect(laptop.locator("header nav a")).to_have_count(4)

    phone = device(browser, made["join"])
    expect(phone.locator("#players li")).to_have_count(2)
    expect(phone.locator("#loopback")).to_have_count(0)
    hrefs = phone.locator("a[href]").evaluate_all("els => els.map(e => e.href)")
    for href in hrefs:
        assert phone.request.get(href).status == 200, href  # no link that answers 401 for a phone
    expect(phone.locator("header nav")).to_have_count(0)
    expect(phone.locator("#end-room")).to_have_count(0)

    # "Not me" leaves the seat, with what was typed: undone
    phone.click('[data-seat="0"] button')
    expect(phone.locator("#editor h2")).to_have_text("Ana's meals")
    course = phone.locator("#editor .critic input.num").first
    course.fill("4")
    phone.click("#not-me")
    expect(phone.locator("#editor")).to_be_hidden()
    expect(phone.locator("#undo-what")).to_have_text("Left Ana's seat")
    phone.click("#undo-button")
    expect(phone.locator("#editor h2")).to_have_text("Ana's meals")
    expect(course).to_have_value("4")

    # "End this room" on the laptop, undone: the room is back, and the phone gets in again
    laptop.click("#end-room")
    expect(laptop.locator("#undo-what")).to_have_text(f"Room {code} ended")
    expect(laptop.locator("#live")).to_have_text("closed")
    assert phone.request.get(f"{serve.url}api/rooms/{code}").status == 401
    laptop.click("#undo-button")
    expect(laptop.locator("#live")).to_have_text("live")
    assert phone.request.get(f"{serve.url}api/rooms/{code}").status == 200


def test_a_change_refused_as_stale_is_set_aside_with_an_undo(serve: Serve, browser) -> None:
    record = yaml.safe_load(TWO.read_text())
    made = open_room(serve, {k: v for k, v in record.items() if k not in ("challenge_meals", "critic_meals")})
    code = made["code"]
    phone = device(browser, made["join"])
    phone.click('[data-seat="0"] button')
    course = phone.locator("#editor .critic input.num").first
    course.fill("4")
    # meanwhile another device saves Ana's meals
    other = {"challenge_meals": {}, "critic_meal": {"courses": {}, "soup": 1}}
    call(f"{serve.url}api/rooms/{code}/players/0", "PUT", {"version": 1, "done": False, "part": other})
    phone.get_by_role("button", name="Save", exact=True).click()
    expect(phone.locator("#message")).to_contain_text("Ana's meals were changed on another device")
    expect(phone.locator("#undo-what")).to_have_text("Your change set aside")
    phone.click("#undo-button")
    expect(course).to_have_value("4")
    phone.get_by_role("button", name="Save", exact=True).click()  # now based on their version: kept
    expect(phone.locator("#message")).to_be_hidden()
    room = call(f"{serve.url}api/rooms/{code}")
    assert isinstance(room, dict)
    assert [c["value"] for c in room["players"][0]["part"]["critic_meal"]["courses"].values()] == [4]
    assert room["players"][0]["version"] == 3


def test_a_rooms_meal_form_offers_its_undo_on_the_pads_undo_bar(serve: Serve, browser) -> None:
    record = yaml.safe_load(TWO.read_text())
    made = open_room(serve, {k: v for k, v in record.items() if k not in ("challenge_meals", "critic_meals")})
    phone = device(browser, made["join"])
    phone.click('[data-seat="0"] button')
    roast = "challenge_meals.round3.Ana.sunday-roast"  # meat, carrot
    phone.click(f'[data-where="{roast}.ingredients[0].value"]')
    phone.click('#numpad [data-pad-value="3"]')
    phone.click('#numpad [data-pad-value="4"]')
    phone.click('#editor [aria-label="remove ingredient 2"] >> nth=0')
    # said on the bar every page of the pad has for its undo, not in a line of the form's own
    expect(phone.locator("#undo")).to_be_visible()
    expect(phone.locator("#undo-what")).to_have_text("Removed carrot 4 from Sunday Roast")
    expect(phone.locator("#editor .undo")).to_have_count(0)
    phone.click("#undo-button")
    expect(phone.locator(f'[data-where="{roast}.ingredients[1].value"]')).to_have_value("4")
    expect(phone.locator("#undo")).to_be_hidden()
    phone.click(f'[data-clear="{roast}"]')
    expect(phone.locator("#undo-what")).to_have_text("Cleared Sunday Roast")
    # as on the new-game page, the next thing entered ends the offer (undoing would take it away too)
    phone.click('[data-where="critic_meals.Ana.courses.carrot.value"]')
    phone.click('#numpad [data-pad-value="5"]')
    expect(phone.locator("#undo")).to_be_hidden()
    expect(phone.locator(f'[data-where="{roast}.ingredients[0].value"]')).to_have_value("")


def test_a_room_is_kept_once_for_the_room_and_every_device_says_so(serve: Serve, browser, laptop) -> None:
    made = open_room(serve, yaml.safe_load(TWO.read_text()))
    code = made["code"]
    for p in made["room"]["players"]:
        done = {"version": p["version"], "done": True, "part": p["part"]}
        call(f"{serve.url}api/rooms/{code}/players/{p['seat']}", "PUT", done)
    phone = device(browser, made["join"])
    expect(phone.locator("#keep-hint")).to_have_text("The pad's own device keeps this game.")
    expect(phone.locator("#keep")).to_have_count(0)
    laptop.goto(f"{serve.url}room/{code}")
    laptop.click("#keep")
    expect(laptop.locator("#kept")).to_contain_text("Kept as game")
    other = device(browser, f"{serve.url}room/{code}?token={TOKEN}")  # another device of the pad's, fresh storage
    expect(other.locator("#kept")).to_contain_text("Kept as game")
    expect(other.locator("#keep")).to_have_count(0)
    expect(phone.locator("#kept")).to_contain_text("Kept as game")  # live, and without a link it cannot open
    expect(phone.locator("#kept a")).to_have_count(0)
    games = call(serve.url + "api/games")
    assert isinstance(games, dict) and games["total"] == 1


# --- the card statistics --------------------------------------------------------------------


def test_the_cards_page_counts_a_challenge_meals_awards_once(serve: Serve, laptop) -> None:
    kept(serve, FIVE)
    laptop.goto(serve.url + "cards")
    row = laptop.locator("#stats tbody tr", has=laptop.locator("th", has_text="Critter Kitchen base rules"))
    expect(row.locator("td").nth(1)).to_have_text("13")  # awards: 24 given, 11 of them challenge meals'
    expect(row.locator("td").nth(2)).to_have_text("24")  # stars: 44 given, 20 of them challenge meals'
    shank = laptop.locator("#stats tbody tr", has=laptop.locator("th", has_text="Braised Shank"))
    expect(shank.locator("td").nth(2)).to_have_text("8")
