"""A whole 4-player game in a room, from four phones at once: Debian's chromium driven by
Playwright, four browser contexts at 390 px (no token: each is let in by the room's join
address, what its QR code carries) against ``critter-kitchen serve`` with an access token.

The room is started with ``examples/four-players.yaml``'s setup; each phone takes its player's
seat and enters that player's meals with the pad's meal form, a meal a phone in turn, so that
every phone is entering while the others save. Each submit shows on the three other phones
live; once all are in, the room's exported record is the example's and ``critter-kitchen
score`` on it gives the room's result, which every phone shows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("segno")

from browser import chromium_or_skip, enter_critic_meal, enter_meal, launch_chromium, offline_guard  # noqa: E402
from test_serve_browser import PHONE, cli_score, expect  # noqa: E402
from test_serve_room_browser import Serve, call  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "four-players.yaml"


def in_any_order(record: dict) -> dict:
    """The record with each meal's ingredients in one order (scoring does not read their order,
    tests/test_order_free.py; the form lists them in the order of the card's requirements)."""
    out = json.loads(json.dumps(record))
    for by_name in out["challenge_meals"].values():
        for served in by_name.values():
            for meal in served.values():
                meal["ingredients"] = sorted(meal["ingredients"], key=lambda i: json.dumps(i, sort_keys=True))
    return out


def meals_of(record: dict, name: str) -> list[tuple[str, dict]]:
    """A player's meals, round by round, the critic meal last: (record path, meal)."""
    todo = [
        (f"challenge_meals.{rnd}.{name}.{card}", meal)
        for rnd, by_player in record["challenge_meals"].items()
        for card, meal in by_player.get(name, {}).items()
    ]
    if name in record["critic_meals"]:
        todo.append((f"critic_meals.{name}", record["critic_meals"][name]))
    return todo


def test_four_phones_enter_one_game_at_once(tmp_path: Path) -> None:
    record = yaml.safe_load(EXAMPLE.read_text())
    setup = {k: v for k, v in record.items() if k not in ("challenge_meals", "critic_meals")}
    names = [p["name"] for p in record["players"]]
    assert len(names) == 4
    serve = Serve(tmp_path)
    serve.start()
    try:
        made = call(serve.url + "api/rooms", "POST", setup)
        assert isinstance(made, dict)
        code, join = made["code"], made["join"]
        with chromium_or_skip()() as p:
            browser = launch_chromium(p)
            phones = []
            for seat in range(4):
                context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
                page = context.new_page()
                page.set_default_timeout(20_000)
                guard = offline_guard(page, allowed=(serve.url, "data:"))
                page.goto(join)
                expect(page.locator("#live")).to_have_text("live")
                page.locator(f'li[data-seat="{seat}"] button').click()
                expect(page.locator("#editor h2")).to_have_text(f"{names[seat]}'s meals")
                phones.append((context, page, guard))
            pages = [page for _, page, _ in phones]

            todo = [meals_of(record, name) for name in names]
            for k in range(max(len(t) for t in todo) + 1):  # a meal a phone in turn; a phone done submits
                for seat, page in enumerate(pages):
                    if k < len(todo[seat]):
                        where, meal = todo[seat][k]
                        (enter_critic_meal if where.startswith("critic_meals.") else enter_meal)(page, where, meal)
                        expect(page.locator(f'[data-stars="{where}"]')).to_contain_text("quality ")
                    elif k == len(todo[seat]):
                        page.get_by_text("Done: submit my meals").click()
                        served = sum(len(by.get(names[seat], {})) for by in record["challenge_meals"].values())
                        for other in pages:  # live on every phone, the others still entering
                            line = other.locator(f'li[data-seat="{seat}"]')
                            expect(line).to_have_class("done")
                            expect(line).to_contain_text(f"{names[seat]} — done ({served} challenge meals")

            exported = call(f"{serve.url}api/rooms/{code}/record")
            assert isinstance(exported, dict)
            assert in_any_order(exported) == in_any_order(record)
            path = tmp_path / "room.json"
            path.write_text(json.dumps(exported))
            result = cli_score(path)
            room = call(f"{serve.url}api/rooms/{code}")
            assert isinstance(room, dict) and room["complete"]
            assert result == room["result"]
            rows = [[str(s["rank"]), s["name"], str(s["stars"])] for s in result["standings"]]
            for page in pages:
                expect(page.locator("#outcome .winner")).to_have_text(f"Winner: {result['winner']}")
                shown = page.locator("#outcome tbody tr").evaluate_all(
                    "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
                )
                assert shown == rows
            for context, _, guard in phones:
                context.close()
                guard.assert_clean()  # no request left the server, no console error, no dialog
            browser.close()
    finally:
        serve.stop()
