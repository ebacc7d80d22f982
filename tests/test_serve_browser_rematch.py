"""The score pad's table flow (issue 26): known players and "Play again" on the new-game page
and the kept game's page, a name flagged when it differs from a known one only by case or
look-alike letters, a room started from the new-game page, and a room's game kept once. In
Debian's chromium driven by Playwright, against ``critter-kitchen serve`` with a token.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("segno")

from browser import chromium_or_skip, launch_chromium  # noqa: E402
from test_serve_browser import PHONE, cli_score, expect  # noqa: E402
from test_serve_room_browser import TOKEN, Serve, call  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FOUR = ROOT / "examples" / "four-players.yaml"
TWO = ROOT / "examples" / "two-players.yaml"


@pytest.fixture
def phone(serve: Serve):
    with chromium_or_skip()() as p:
        browser = launch_chromium(p)
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(f"{serve.url}rooms?token={TOKEN}")  # the server's token, as the pad's own phone has it
        yield page
        browser.close()


def name(page, i: int):
    return page.locator(f'[data-where="players[{i}].name"]')


def kept(serve: Serve, path: Path, **more: object) -> int:
    """``path``'s game (with ``more`` of the record's keys) kept through the games API; its id."""
    answer = call(serve.url + "api/games", "POST", {**yaml.safe_load(path.read_text()), **more})
    assert isinstance(answer, dict)
    return int(answer["id"])


def test_play_again_sets_up_the_same_players_packs_and_restaurateurs_in_one_tap(serve: Serve, phone) -> None:
    record = {**yaml.safe_load(FOUR.read_text()), "packs": ["no-soup-race"]}
    assert any("restaurateur" in p for p in record["players"])
    game = kept(serve, FOUR, packs=record["packs"])
    phone.goto(f"{serve.url}games/{game}")
    taps = 0
    phone.click("#play-again")
    taps += 1
    expect(name(phone, 0)).to_have_value(record["players"][0]["name"])
    assert [name(phone, i).input_value() for i in range(len(record["players"]))] == [
        p["name"] for p in record["players"]
    ]
    expect(phone.locator("#players .player")).to_have_count(len(record["players"]))
    checked = phone.locator("#packs input:checked").evaluate_all("els => els.map(e => e.value)")
    assert sorted(checked) == sorted(record["packs"])
    for i, p in enumerate(record["players"]):
        if "restaurateur" in p:
            restaurateur = phone.locator(f'[data-where="players[{i}].restaurateur"]')
            expect(restaurateur).to_have_attribute("data-value", p["restaurateur"])
    assert taps <= 3
    assert phone.url.endswith("/new")  # a reload keeps the draft, not the kept game's setup again


def test_known_players_are_chips_most_recent_first_and_a_tap_seats_one(serve: Serve, phone) -> None:
    kept(serve, TWO)
    kept(serve, FOUR)
    four = [p["name"] for p in yaml.safe_load(FOUR.read_text())["players"]]
    two = [p["name"] for p in yaml.safe_load(TWO.read_text())["players"]]
    phone.goto(serve.url + "new")
    phone.click("#start-over")
    chips = phone.locator("#known [data-known]")
    # the last kept game's players first (a game's players by name), then the earlier game's others
    expected = sorted(four) + sorted(n for n in two if n not in four)
    expect(chips).to_have_count(len(expected))
    assert chips.evaluate_all("els => els.map(e => e.dataset.known)") == expected
    phone.click(f'#known [data-known="{four[1]}"]')
    expect(name(phone, 0)).to_have_value(four[1])
    expect(phone.locator(f'#known [data-known="{four[1]}"]')).to_have_count(0)  # seated: no longer offered
    phone.click(f'#known [data-known="{four[0]}"]')
    expect(name(phone, 1)).to_have_value(four[0])
    phone.click(f'#known [data-known="{four[2]}"]')  # every seat taken: one more seat for it
    expect(name(phone, 2)).to_have_value(four[2])


@pytest.mark.parametrize("typed", ["ana", "ＡＮＡ", "Аna"], ids=["case", "full-width", "cyrillic"])
def test_a_name_that_only_looks_different_from_a_known_one_is_flagged(serve: Serve, phone, typed: str) -> None:
    kept(serve, TWO)
    assert yaml.safe_load(TWO.read_text())["players"][0]["name"] == "Ana"
    phone.goto(serve.url + "new")
    phone.click("#start-over")
    name(phone, 1).fill("Zed")
    name(phone, 0).fill(typed)
    warning = phone.locator('#players [data-like="0"]')
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("Looks like Ana, a player the pad knows")
    expect(phone.locator('#players [data-like="1"]')).to_be_hidden()  # a new name is not flagged
    warning.get_by_role("button", name="Use Ana").click()
    expect(name(phone, 0)).to_have_value("Ana")
    expect(warning).to_be_hidden()


def test_a_room_is_started_from_the_new_game_page_with_the_setup_entered(serve: Serve, phone, tmp_path) -> None:
    record = yaml.safe_load(TWO.read_text())
    setup = {k: v for k, v in record.items() if k not in ("challenge_meals", "critic_meals")}
    (tmp_path / "setup.yaml").write_text(yaml.safe_dump(setup, sort_keys=False))
    phone.goto(serve.url + "new")
    phone.click("#start-over")
    phone.set_input_files("#import", str(tmp_path / "setup.yaml"))
    expect(name(phone, 0)).to_have_value(record["players"][0]["name"])
    phone.click("#start-room")
    phone.wait_for_url("**/room/*")
    code = phone.url.rsplit("/", 1)[1]
    expect(phone.locator("#players li")).to_have_count(len(record["players"]))
    room = call(f"{serve.url}api/rooms/{code}")
    assert isinstance(room, dict)
    assert [p["name"] for p in room["players"]] == [p["name"] for p in record["players"]]
    assert room["setup"]["cards"] == record["cards"]


def test_a_complete_room_is_kept_once_however_often_keep_is_tapped(serve: Serve, phone) -> None:
    record = yaml.safe_load(TWO.read_text())
    made = call(serve.url + "api/rooms", "POST", record)  # the meals in it are the players' first meals
    assert isinstance(made, dict)
    code = made["code"]
    room = made["room"]
    for p in room["players"]:
        call(
            f"{serve.url}api/rooms/{code}/players/{p['seat']}",
            "PUT",
            {"version": p["version"], "done": True, "part": p["part"]},
        )
    phone.goto(f"{serve.url}room/{code}")
    keep = phone.locator("#keep")
    expect(keep).to_have_text("Keep this game")
    keep.dblclick()  # a second tap
    expect(phone.locator("#kept")).to_contain_text("Kept as game")
    phone.reload()
    expect(phone.locator("#kept")).to_be_visible()
    expect(phone.locator("#keep")).to_have_count(0)
    games = call(serve.url + "api/games")
    assert isinstance(games, dict)
    assert len(games["games"]) == 1
    wanted = {s["name"]: s["stars"] for s in cli_score(TWO)["standings"]}
    assert {p["name"]: p["stars"] for p in games["games"][0]["players"]} == wanted
