"""Screenshots of each step of the score pad, at a phone's width (390 px) and a laptop's (1366 px).

    python tools/pad_screenshots.py [--out docs] [--record examples/four-players.yaml] [--only STEP]...

Starts ``critter-kitchen serve`` on 127.0.0.1 (a free port, an access token, a fresh database in a
temporary folder), opens the pad in Debian's chromium through Playwright, and walks the table's
flow at each width, as a person would with the page as it is:

- ``setup``: a new game's setup step, filled from the record's players and cards;
- ``meal``: the first player's challenge meals entered in taps (the number pad, the chips);
- ``critic``: that player's critic meal, its quality and stars as entered;
- ``result``: the whole record kept, its result page (stages by their short names);
- ``history``: the kept game edited once (``PUT /api/games/ID``), its page's history;
- ``room``: a room started from the record's setup, its QR code open (the laptop's page);
- ``phone``: the room's join address opened on another device, a seat taken (the phone's page);
- ``result-7``: the 7-player À La Carte example's result (``examples/a-la-carte/seven-players.yaml``).

For each result it also says how wide the stage table is against its box, and whether it fits
or scrolls (a table that scrolls without its "scroll →" cue is an error).

Each is ``OUT/score-pad-STEP-WIDTH.png``: what the screen shows with the step's part scrolled to
the top (a phone at 2 device pixels a CSS pixel, so 780 px wide; a laptop at 1). Every request the
pages make must stay on the server and no page may log an error, else the script says which and
exits 1. Look at each file before it goes into the README.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import chromium_path, enter_critic_meal, enter_meal, launch_chromium, offline_guard  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))

from bench_pad import BenchError, fetch_json, serving  # noqa: E402

RECORD = ROOT / "examples" / "four-players.yaml"
SEVEN = ROOT / "examples" / "a-la-carte" / "seven-players.yaml"
TOKEN = "pad-screenshots-token-0123456789"
WIDTHS = {390: {"width": 390, "height": 844}, 1366: {"width": 1366, "height": 900}}
STEPS = ("setup", "meal", "critic", "result", "history", "room", "phone", "result-7")
STEP_TIMEOUT_MS = 20_000  # how long one page action may wait for the page


class ShotError(Exception):
    """Something that stops a screenshot from being taken, said in one line."""


def call(url: str, method: str = "GET", body: object = None) -> Any:
    """One request to the pad's API with the server's token; its JSON answer."""
    return fetch_json(url, TOKEN, method, body, timeout=20)


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """``critter-kitchen serve`` on 127.0.0.1 with the token and a fresh database in ``folder``
    (started as tools/bench_pad.py starts it): its address."""
    try:
        with serving(folder, TOKEN) as url:
            yield url
    except BenchError as e:
        raise ShotError(str(e)) from None


@dataclass
class Screen:
    """One device at one width: its browser context, page and the guard on what the page does."""

    width: int
    context: Any
    page: Any
    guard: Any


class Shots:
    """The flow at each width, each step's screenshot written to ``out``."""

    def __init__(self, browser: Any, url: str, out: Path, record: Path, work: Path) -> None:
        self.browser = browser
        self.url = url
        self.out = out
        self.record_path = record
        self.record = yaml.safe_load(record.read_text("utf-8"))
        self.work = work
        self.written: list[Path] = []
        self.screens: list[Screen] = []
        setup = {k: v for k, v in self.record.items() if k not in ("challenge_meals", "critic_meals")}
        self.setup_path = work / f"{record.stem}-setup.yaml"
        self.setup_path.write_text(yaml.safe_dump(setup, sort_keys=False, allow_unicode=True), "utf-8")

    def screen(self, width: int, token: bool = True) -> Screen:
        """A new device at ``width``; with ``token``, let in by the server's token (the table's
        laptop), else by nothing (a phone that will open a room's join address)."""
        phone = width < 500
        context = self.browser.new_context(
            viewport=WIDTHS[width], device_scale_factor=2 if phone else 1, is_mobile=phone, has_touch=phone
        )
        page = context.new_page()
        page.set_default_timeout(STEP_TIMEOUT_MS)
        guard = offline_guard(page, allowed=(self.url, "data:", "blob:"))
        if token:
            page.goto(f"{self.url}?token={TOKEN}")  # the server's token: this device may use the pad
        found = Screen(width, context, page, guard)
        self.screens.append(found)
        return found

    def shot(self, screen: Screen, step: str, at: str | None = None) -> None:
        """What ``screen`` shows, with ``at`` (a selector) scrolled to the top first."""
        page = screen.page
        if at is not None:
            page.locator(at).first.evaluate("el => el.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(150)  # a scroll's layout settled
        path = self.out / f"score-pad-{step}-{screen.width}.png"
        page.screenshot(path=str(path))
        self.written.append(path)
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"{shown}: {path.stat().st_size:,} bytes", file=sys.stderr)

    def check(self) -> None:
        for s in self.screens:
            problems = [*(f"left the server: {u}" for u in s.guard.blocked), *s.guard.errors, *s.guard.dialogs]
            if problems:
                raise ShotError(f"at {s.width} px: {problems[0]}")

    # --- the steps ----------------------------------------------------------------------

    def entry(self, width: int, steps: set[str]) -> None:
        """setup, meal and critic: one new game on one device."""
        screen = self.screen(width)
        page = screen.page
        page.goto(self.url + "new")
        page.wait_for_selector('[data-where="players[0].name"]')
        page.set_input_files("#import", str(self.setup_path))
        first = self.record["players"][0]["name"]
        page.locator('[data-where="players[0].name"]').wait_for()
        page.wait_for_function(
            "name => document.querySelector('[data-where=\"players[0].name\"]').value === name", arg=first
        )
        if "setup" in steps:
            # the engine's check of the setup answered (the status bar no longer busy)
            page.wait_for_function("() => !document.querySelector('#status').classList.contains('busy')")
            self.shot(screen, "setup", at="#players")
        page.click("#to-meals")
        page.locator(f'#who button:has-text("{first}")').click()
        entered = []
        for rnd, by_player in self.record.get("challenge_meals", {}).items():
            for card, meal in by_player.get(first, {}).items():
                enter_meal(page, f"challenge_meals.{rnd}.{first}.{card}", meal)
                entered.append(card)
        if "meal" in steps and entered:
            self.blur(page)
            self.shot(screen, "meal", at=f'.meal[data-card="{entered[0]}"]')
        critic = self.record.get("critic_meals", {}).get(first)
        if critic:
            enter_critic_meal(page, f"critic_meals.{first}", critic)
            if "critic" in steps:
                self.blur(page)
                self.shot(screen, "critic", at="section.critic")

    @staticmethod
    def blur(page: Any) -> None:
        """The number pad put away, as when the player taps Done: the meal as it reads."""
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        done = page.locator("#numpad button.done")
        if done.count() and done.first.is_visible():
            done.first.click()

    def kept(self, record: dict[str, Any]) -> int:
        return int(call(self.url + "api/games", "POST", record)["id"])

    def result(self, width: int, game: int, step: str) -> None:
        screen = self.screen(width)
        screen.page.goto(f"{self.url}games/{game}")
        screen.page.wait_for_selector("#stages")
        self.shot(screen, step, at="main h1")
        wide, room, scrolls, cue = screen.page.evaluate(
            """() => { const table = document.querySelector('#stages'), box = table.parentElement;
                 return [Math.ceil(table.getBoundingClientRect().width), box.clientWidth,
                         box.scrollWidth > box.clientWidth + 1, !document.querySelector('.scroll-cue').hidden]; }"""
        )
        said = ('scrolls, says "scroll →"' if cue else "scrolls WITHOUT its cue") if scrolls else "fits"
        print(f"{step} at {width} px: the stage table is {wide} px wide in a {room} px box: {said}", file=sys.stderr)
        if scrolls and not cue:
            raise ShotError(f"{step} at {width} px: the stage table scrolls without saying so")

    def history(self, width: int, game: int) -> None:
        screen = self.screen(width)
        screen.page.goto(f"{self.url}games/{game}")
        screen.page.wait_for_selector("#versions")
        self.shot(screen, "history", at="#versions")

    def room(self, width: int, steps: set[str]) -> None:
        host = self.screen(width)
        page = host.page
        page.goto(self.url + "rooms")
        page.set_input_files("#setup", str(self.setup_path))
        page.get_by_text("Start a room").click()
        page.wait_for_url(lambda url: "/room/" in url)
        code = page.url.rsplit("/", 1)[1]
        page.click("#invite summary")
        page.wait_for_function("() => document.getElementById('qr').naturalWidth > 0")  # drawn by the server
        if "room" in steps:
            self.shot(host, "room", at="#room h1")
        if "phone" in steps:
            join = next(r["join"] for r in call(self.url + "api/rooms")["rooms"] if r["code"] == code)
            phone = self.screen(width, token=False)  # let in by the room's key alone, as its QR code does
            phone.page.goto(join)
            phone.page.locator("#live").filter(has_text="live").wait_for()
            phone.page.locator('li[data-seat="0"] button').click()
            phone.page.locator("#editor").wait_for()
            self.shot(phone, "phone", at="#room h1")


def edited(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its first critic meal's first course one higher: an edit to keep."""
    changed = json.loads(json.dumps(record))
    critic = next(iter(changed.get("critic_meals", {}).values()))
    course = next(iter(critic["courses"].values()))
    course["value"] += 1
    return changed


def run(out: Path, record: Path, only: set[str]) -> list[Path]:
    if chromium_path() is None:
        raise ShotError("chromium is not installed (apt-get install -y chromium)")
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        raise ShotError('Playwright for Python is not installed (pip install -e ".[browser]")') from None
    out.mkdir(parents=True, exist_ok=True)
    steps = only or set(STEPS)
    with tempfile.TemporaryDirectory(prefix="pad-shots-") as tmp, served(Path(tmp)) as url, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            shots = Shots(browser, url, out, record, Path(tmp))
            game = shots.kept(shots.record)
            first = shots.record["players"][0]["name"]
            note = f"{first}'s first critic course one higher"
            call(f"{url}api/games/{game}?based_on=1&note={urllib.parse.quote(note)}", "PUT", edited(shots.record))
            seven = shots.kept(yaml.safe_load(SEVEN.read_text("utf-8")))
            plan: list[tuple[str, Callable[[int], None]]] = [
                ("entry", lambda w: shots.entry(w, steps)),
                ("result", lambda w: shots.result(w, game, "result")),
                ("history", lambda w: shots.history(w, game)),
                ("room", lambda w: shots.room(w, steps)),
                ("result-7", lambda w: shots.result(w, seven, "result-7")),
            ]
            wanted = {"entry": {"setup", "meal", "critic"}, "room": {"room", "phone"}}
            for width in WIDTHS:
                for name, step in plan:
                    if steps & wanted.get(name, {name}):
                        step(width)
            shots.check()
            return shots.written
        except Error as e:  # a page that did not do what a person would see it do
            raise ShotError(str(e).splitlines()[0]) from None
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="the folder the PNGs go to (default: docs)")
    parser.add_argument("--record", type=Path, default=RECORD, help="the game entered (default: four-players)")
    parser.add_argument("--only", action="append", choices=STEPS, default=[], help="this step only (repeatable)")
    args = parser.parse_args(argv)
    try:
        written = run(args.out.resolve(), args.record.resolve(), set(args.only))
    except (ShotError, OSError) as e:
        print(f"pad_screenshots: {e}", file=sys.stderr)
        return 1
    print(f"{len(written)} screenshots in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUTF8", "1")
    sys.exit(main())
