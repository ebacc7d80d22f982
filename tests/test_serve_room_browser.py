"""A game room in real browsers: Debian's chromium driven by Playwright, two phones (two
browser contexts, no token) and the laptop that started the room, against ``critter-kitchen
serve`` with an access token on 127.0.0.1.

Each phone opens the room's join address (what its QR code carries), says who it is and
enters that player's meals. One phone's saved meals appear on the other live; a phone that
loses the network while the server restarts and the other finishes catches up when it is
back; a change on the laptop to a player's meals that a phone saved meanwhile is refused
and shows their meals as they are; and once both are done, the result on both phones is
the one ``critter-kitchen score`` gives for the room's exported record. Nothing is asked of
any host but the server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("segno")

from browser import enter_critic_meal, enter_meal, offline_guard  # noqa: E402
from test_serve_browser import PHONE, cli_score, expect, free_port  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "two-players.yaml"
TOKEN = "room-test-token-0123456789"


def call(url: str, method: str = "GET", body: object = None) -> object:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"Bearer {TOKEN}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=20) as answer:
        return json.loads(answer.read())


class Serve:
    """``critter-kitchen serve`` with a token on 127.0.0.1, which can be stopped and started again."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "critter_kitchen", "serve", "--db", str(self.folder / "games.sqlite3")]
        command += ["--host", "127.0.0.1", "--port", str(self.port), "--token", TOKEN]
        process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=self.folder, env=dict(os.environ))
        self.process = process
        for _ in range(600):
            if process.poll() is not None:
                raise AssertionError(f"the server stopped: {process.stderr.read() if process.stderr else ''}")
            try:
                call(self.url + "api/games")
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the server did not answer")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=20)
            self.process = None


def enter_meals(page, rules: dict, record: dict, name: str) -> None:
    """Enter ``name``'s meals of ``record`` into the room's form (the pad's meal form), as a player would."""
    for rnd, by_player in record["challenge_meals"].items():
        for card, meal in by_player.get(name, {}).items():
            enter_meal(page, f"challenge_meals.{rnd}.{name}.{card}", meal)
    critic = record["critic_meals"].get(name)
    if critic:
        enter_critic_meal(page, f"critic_meals.{name}", critic)


def test_two_phones_enter_one_game_live(serve: Serve, browser, tmp_path: Path) -> None:
    server = serve.url
    record = yaml.safe_load(EXAMPLE.read_text())
    setup = {k: v for k, v in record.items() if k not in ("challenge_meals", "critic_meals")}
    (tmp_path / "setup.yaml").write_text(yaml.safe_dump(setup))
    rules = call(server + "ui/cards")
    assert isinstance(rules, dict)

    laptop = browser.new_context(viewport={"width": 1366, "height": 900})
    host = laptop.new_page()
    host.goto(f"{server}rooms?token={TOKEN}")  # the server's token: the laptop that starts the room
    host.set_input_files("#setup", str(tmp_path / "setup.yaml"))
    host.get_by_text("Start a room").click()
    host.wait_for_url(lambda url: "/room/" in url)
    code = host.url.rsplit("/", 1)[1]
    listed = call(server + "api/rooms")
    assert isinstance(listed, dict)
    join = next(r["join"] for r in listed["rooms"] if r["code"] == code)
    host.click("#invite summary")
    expect(host.locator("#qr")).to_be_visible()
    assert host.evaluate("document.getElementById('qr').naturalWidth") > 0  # the QR code drawn by the server
    host.screenshot(path=str(tmp_path / "room-laptop.png"))

    phones = []
    for _ in range(2):
        context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
        page = context.new_page()
        page.set_default_timeout(20_000)
        guard = offline_guard(page, allowed=(server, "data:"))
        page.goto(join)
        expect(page.locator("#live")).to_have_text("live")
        phones.append((context, page, guard))
    (_, ana, _), (_, ben, _) = phones
    assert "key=" not in ana.url  # the key left the address once the room's cookie was set

    ana.locator('li[data-seat="0"] button').click()
    enter_meals(ana, rules, record, "Ana")
    ana.get_by_text("Done: submit my meals").click()
    expect(ben.locator('li[data-seat="0"]')).to_contain_text("done")  # live on the other phone
    meals = sum(len(by.get("Ana", {})) for by in record["challenge_meals"].values())
    expect(ben.locator('li[data-seat="0"]')).to_contain_text(f"{meals} challenge meals, critic meal")

    # the laptop opens Ana's meals too, and starts a change while Ana's phone saves hers again
    host.locator('li[data-seat="0"] button').click()
    host.click('[data-chip="critic_meals.Ana.soup:3"]')
    ana.get_by_text("Save, still done").click()
    expect(host.locator("#message")).to_contain_text("Ana's meals were changed on another device")
    host.get_by_text("Save", exact=True).click()
    expect(host.locator("#message")).to_have_text(
        "Ana's meals were changed on another device (now version 3, this change was based on version 2): "
        "their meals as they are now are shown; make your change again"
    )
    soup = record["critic_meals"]["Ana"].get("soup")
    on = host.locator('[data-where="critic_meals.Ana.soup"] .chip.on')
    expect(on).to_have_count(0 if soup is None else 1)
    if soup is not None:
        expect(on).to_have_text(str(soup))
    host.screenshot(path=str(tmp_path / "room-laptop-conflict.png"), full_page=True)
    host.get_by_text("Not me").click()

    ben.locator('li[data-seat="1"] button').click()
    enter_meals(ben, rules, record, "Ben")
    started = time.perf_counter()
    ben.get_by_text("Save").click()  # saved, not yet done
    expect(ana.locator('li[data-seat="1"]')).to_contain_text("critic meal")
    print(f"a saved meal reached the other phone {1000 * (time.perf_counter() - started):.0f} ms after the tap")

    # Ana's phone loses the network, and the server restarts meanwhile (the room is kept)
    phones[0][0].set_offline(True)
    serve.stop()
    expect(ana.locator("#live")).to_have_text("reconnecting…")
    serve.start()
    expect(ben.locator("#live")).to_have_text("live", timeout=15_000)
    ben.get_by_text("Done: submit my meals").click()
    expect(ben.locator("#outcome table")).to_be_visible()
    expect(ana.locator("#outcome table")).to_have_count(0)
    phones[0][0].set_offline(False)  # and gets it back: it catches up by itself
    expect(ana.locator("#outcome table")).to_be_visible(timeout=15_000)
    expect(ana.locator("#live")).to_have_text("live")
    ben.screenshot(path=str(tmp_path / "room-phone-result.png"), full_page=True)

    exported = call(f"{server}api/rooms/{code}/record")
    path = tmp_path / "room.json"
    path.write_text(json.dumps(exported))
    result = cli_score(path)
    assert result == call(f"{server}api/rooms/{code}")["result"]  # type: ignore[index]
    rows = [[s["rank"], s["name"], s["stars"]] for s in result["standings"]]
    for page in (ana, ben, host):
        expect(page.locator("#outcome .winner")).to_have_text(f"Winner: {result['winner']}")
        shown = page.locator("#outcome tbody tr").evaluate_all(
            "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
        )
        assert shown == [[str(x) for x in row] for row in rows]
    offline = "Failed to load resource: net::ERR_INTERNET_DISCONNECTED"
    assert offline in phones[0][2].errors  # Ana's phone tried to reconnect while it was offline
    phones[0][2].errors = [e for e in phones[0][2].errors if e != offline]
    # a phone may ask the server while it restarts: the browser logs the refused request, and the
    # page says so at the meal (pad.call never throws), so no script error is left
    down = tuple(f"Failed to load resource: net::ERR_CONNECTION_{why}" for why in ("REFUSED", "RESET"))
    for _, _, guard in phones:
        guard.errors = [e for e in guard.errors if e not in down]
    for context, _, guard in phones:
        context.close()
        guard.assert_clean()  # no request left the server, no console error, no dialog
    laptop.close()
