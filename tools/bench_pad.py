"""The score pad's figures (issue 26): a whole 4-player game entered in Chromium at 390 px, counted.

    python tools/bench_pad.py [--json] [--record examples/four-players.yaml] [--headed]

Starts ``critter-kitchen serve`` on 127.0.0.1 (a free port, a database in a temporary folder),
opens the score pad in Debian's chromium through Playwright on a phone-sized screen, and enters
the game of the record as a person would with the page as it is: setup, each player's meals
(challenge meals, what they kept, the critic meal), result, then the setup of a rematch. Then the
same game in a game room, on a second server with an access token: a laptop starts the room (the
setup, what each kept, "Start a room"; its taps counted apart), and one phone a player, all four at
once, opens the room's join address (what its QR code carries), takes its seat, enters its
player's meals with the same meal drivers and submits. And the first game once more on another
phone of the first pad, which has kept it and so knows the players (``taps_one_phone_known_players``:
each name a tap on its chip). Every tap and every key typed is counted:

- a tap on a button, chip, checkbox, tab or number-pad key is 1 tap;
- a value from the number pad is 1 tap on its key, and 1 more on the field when the pad is not
  on it already (it moves down the fields by itself);
- typing into a field is 1 tap to reach it and 1 keystroke per character ("12" is 2);
- a native dropdown is 2 taps (open it, pick the option), and is also counted as a dropdown.

The kept game's result must equal ``critter-kitchen score`` on the same record (and the record
kept must equal it, each meal's ingredients in any order), and each meal's line the quality and
stars the CLI gives the meal, else the figures are void and the script exits 1; the same holds for
the room's exported record and result. Figures the page cannot
give yet are null, with the reason in ``notes``. Progress goes to stderr; the figures to stdout,
as a table beside the issue's goals, or as one JSON object with ``--json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import CHROMIUM_ARGS, chromium_path  # noqa: E402

RECORD = ROOT / "examples" / "four-players.yaml"
PHONE = {"width": 390, "height": 844}
SERVER_START_S = 60.0  # how long the server may take to answer its first request
STEP_TIMEOUT_MS = 20_000  # how long one page action may wait for the page
# The figures, in the order of its table: key, what it is, its goal (as said and as a bound).
FIGURES: list[tuple[str, str, str, float]] = [
    ("taps_one_phone", "taps + keystrokes, whole game, one phone", "≤ 120", 120),
    ("taps_max_per_phone", "the most any one phone needs, four phones", "≤ 40", 40),
    ("rematch_taps", "setup of a rematch, same players and packs", "≤ 3", 3),
    ("meal_stars_p95_ms", "a meal's stars shown after its last input, p95", "≤ 100 ms", 100),
    ("live_update_p95_ms", "live update reaching the other phones, p95", "≤ 250 ms", 250),
    ("meal_page_bytes", "bytes the meal-entry page loads", "≤ 100 KB", 100 * 1024),
]
# beside the figures: the first one again where a pad has kept a game of the same players
MORE_FIGURES: list[tuple[str, str, str, float]] = [
    ("taps_one_phone_known_players", "the same, on a pad that knows the players", "≤ 120", 120),
]
ROOM_TOKEN = "bench-pad-room-token-0123456789"  # the room's server runs with a token, as on a table's network


class BenchError(Exception):
    """Something that stops the figures from being measured, said in one line."""


# --- counting -----------------------------------------------------------------------------


@dataclass
class Count:
    """What one person did on one phone."""

    taps: int = 0
    keys: int = 0
    dropdowns: int = 0
    preset: int = 0  # dropdowns or cards the pad had already set to the value wanted (nothing to do)

    @property
    def total(self) -> int:
        return self.taps + self.keys

    def copy(self) -> Count:
        return Count(self.taps, self.keys, self.dropdowns, self.preset)


@dataclass
class Pad:
    """A phone on the score pad; every action on the page goes through here and is counted."""

    page: Any
    url: str
    count: Count = field(default_factory=Count)
    # how long the status bar took to answer each meal's last tap, and the meal's own line
    status_ms: list[float] = field(default_factory=list)
    stars_ms: list[float] = field(default_factory=list)
    lines: dict[str, str] = field(default_factory=dict)  # each meal's line once entered, by its record path
    tapped: list[str] = field(default_factory=list)  # what each tap was on, in order
    moves: int = 0  # taps on a field to put the number pad on it (it had not moved there by itself)
    scope: str = "[data-player]:not([hidden])"  # where the meals being entered are shown (a room: its editor)

    def at(self, where: str) -> Any:
        return self.page.locator(f'[data-where="{where}"]')

    def tap(self, target: Any) -> None:
        self.locator(target).click()
        self.count.taps += 1
        self.tapped.append(str(target))

    def tick(self, target: Any) -> None:
        """Tick a checkbox (a tap), unless it is ticked already."""
        box = self.locator(target)
        if not box.is_checked():
            box.check()
            self.count.taps += 1

    def type_into(self, target: Any, text: str) -> None:
        """Tap the field, clear what is in it a key at a time, and type ``text``."""
        box = self.locator(target)
        box.click()
        self.count.taps += 1
        old = box.input_value()
        if old == text:
            return
        if old:
            box.press("End")
            for _ in old:
                box.press("Backspace")
            self.count.keys += len(old) + 1
        self.page.keyboard.type(text)
        self.count.keys += len(text)

    def press(self, key: str) -> None:
        """A key of the phone's keyboard on the field that has the focus (1 keystroke)."""
        self.page.keyboard.press(key)
        self.count.keys += 1

    def choose(self, target: Any, value: str) -> None:
        """Pick ``value`` in a native dropdown: open it, pick (2 taps), unless it is picked already."""
        box = self.locator(target)
        if box.input_value() == value:
            self.count.preset += 1
            return
        box.select_option(value)
        self.count.taps += 2
        self.count.dropdowns += 1

    def locator(self, target: Any) -> Any:
        return self.page.locator(target) if isinstance(target, str) else target

    def mark(self) -> float:
        """The page's clock at the last tap or key (the moment of the input just made)."""
        return float(self.page.evaluate("window.__lastInput || performance.now()"))

    def stars_after(self, where: str, since: float) -> float:
        """Milliseconds from ``since`` to the meal's line at ``where`` answered (not busy) after it."""
        self.page.wait_for_function(
            "([t, w]) => (window.__starsSeen || [])"
            ".some(([at, key, kind]) => at > t && key === w && !kind.includes('busy'))",
            arg=[since, where],
        )
        seen = self.page.evaluate("window.__starsSeen")
        return float(min(at for at, key, kind, _ in seen if at > since and key == where and "busy" not in kind)) - since

    def status_after(self, since: float) -> float:
        """Milliseconds from ``since`` to the status bar's first settled answer after it."""
        self.page.wait_for_function(
            "t => (window.__statusSeen || []).some(([at, kind]) => at > t && !kind.includes('busy'))", arg=since
        )
        seen = self.page.evaluate("window.__statusSeen")
        return float(min(at for at, kind, _ in seen if at > since and "busy" not in kind)) - since


# Records, in the page's own clock, each change of the status bar (text and class).
WATCH_STATUS = """
window.__statusSeen = [];
window.__starsSeen = [];
for (const kind of ["pointerdown", "keydown"]) {
  document.addEventListener(kind, () => { window.__lastInput = performance.now(); }, true);
}
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver((changes) => {
    for (const c of changes) {
      const node = c.target.nodeType === 1 ? c.target : c.target.parentElement;
      const line = node && node.closest && node.closest("[data-stars]");
      if (line) window.__starsSeen.push([performance.now(), line.dataset.stars, line.className, line.textContent]);
    }
  }).observe(document.body, {childList: true, characterData: true, subtree: true, attributes: true});
  const el = document.getElementById("status");
  if (!el) return;
  new MutationObserver(() => window.__statusSeen.push([performance.now(), el.className, el.textContent]))
    .observe(el, {childList: true, characterData: true, subtree: true, attributes: true});
});
"""


# --- the steps: how the pad as it is takes a game (only these change when the pad changes) --


def setup(pad: Pad, record: dict[str, Any], known: bool = False) -> None:
    """New game: packs, players (names typed: a fresh pad knows no one; with ``known``, a tap on each
    player's chip, which seats them, as on a pad that kept a game of theirs; restaurateurs as chips),
    the table's cards as chips (each round's challenge cards in reveal order, the critic, the rumors)."""
    page = pad.page
    page.goto(pad.url + "new")
    pad.at("players[0].name").wait_for()
    for pack in record.get("packs", []):
        pad.tick(f'#packs input[value="{pack}"]')
    players = record["players"]
    if known:
        for i, p in enumerate(players):
            pad.tap(f'#known [data-known="{p["name"]}"]')
            page.wait_for_function(
                '([w, n]) => (document.querySelector(`[data-where="${w}"]`) || {}).value === n',
                arg=[f"players[{i}].name", p["name"]],
            )
    else:
        for i, p in enumerate(players):
            at = f"players[{i}].name"
            if focused(pad) == at and not pad.at(at).input_value():
                pad.page.keyboard.type(p["name"])  # the keyboard's "next" put it there
                pad.count.keys += len(p["name"])
            else:
                pad.type_into(pad.at(at), p["name"])
            if i + 1 < len(players):
                pad.press("Enter")  # "next": on to the next seat's name, a new seat after the last
    while page.locator("#players .player").count() < len(players):
        pad.tap("#add-player")
    for i, p in enumerate(players):
        if "restaurateur" in p:
            card_chip(pad, f"players[{i}].restaurateur", p["restaurateur"])
    cards = record["cards"]
    for rnd, ids in cards["challenges"].items():
        for i, cid in enumerate(ids):
            round_chip(pad, f"cards.challenges.{rnd}", i, cid)
    if "critic" in cards:
        card_chip(pad, "cards.critic", cards["critic"])
    for rumor in cards.get("rumors", []):
        pad.tick(f'[data-choice="cards.rumors"][value="{rumor}"]')
    pad.tap("#to-meals")


def card_chip(pad: Pad, where: str, card: str) -> None:
    """One card (the critic, a restaurateur): a tap on its chip, unless it is the card picked already."""
    if pad.at(where).get_attribute("data-value") == card:
        pad.count.preset += 1
        return
    pad.tap(f'[data-chip="{where}:{card}"]')


def round_chip(pad: Pad, at: str, i: int, card: str) -> None:
    """The ``i``-th challenge card of a round: a tap on its chip (which fills the round's first empty slot),
    after a tap on the slot when another card is in it."""
    slot = pad.at(f"{at}[{i}]")
    now = slot.get_attribute("data-value")
    if now == card:
        pad.count.preset += 1
        return
    if now:
        pad.tap(slot)
    pad.tap(f'[data-chip="{at}:{card}"]')
    if slot.get_attribute("data-value") != card:
        raise BenchError(f"the chip of {card} did not fill {at}[{i}] (an earlier slot of the round was empty)")


def open_player(pad: Pad, name: str) -> None:
    """The player's tab (a tap, unless their meals are shown already)."""
    tab = pad.page.locator("#who button", has_text=name)
    if tab.get_attribute("aria-selected") != "true":
        pad.tap(tab)


def focused(pad: Pad) -> str:
    return str(pad.page.evaluate("(document.activeElement && document.activeElement.dataset.where) || ''"))


def enter_value(pad: Pad, where: str, value: int) -> None:
    """A value into the field at ``where``: a tap on the field unless the number pad is on it already
    (it moves on by itself after each value), then a tap on the pad's button (or the digits typed,
    for a value the pad has no button for)."""
    button = pad.page.locator(f'#numpad [data-pad-value="{value}"]')
    if focused(pad) != where:
        pad.tap(pad.at(where))
        pad.moves += 1
    if button.count():
        pad.tap(button)
    else:
        pad.page.keyboard.type(str(value))
        pad.count.keys += len(str(value))


def spice_chips(pad: Pad, at: str, spice: Any) -> None:
    """A tap on each spice's chip (and on "…" first when the chip is among the other spices)."""
    for name in spice if isinstance(spice, list) else [spice]:
        chip = pad.page.locator(f'[data-chip="{at}:{name}"]')
        if not chip.count():
            pad.tap(f'[data-chip="{at}:more"]')
        pad.tap(chip)


def token_chips(pad: Pad, where: str, meal: dict[str, Any]) -> None:
    """A tap on the chip of each token's count (past the highest chip, one more tap a count)."""
    for token in ("soup", "bisque"):
        if token in meal:
            n = int(meal[token])
            top = min(n, pad.page.locator(f'[data-where="{where}.{token}"] .chip').count())
            pad.tap(f'[data-chip="{where}.{token}:{top}"]')
            for k in range(top, n):
                pad.tap(f'[data-chip="{where}.{token}:{k}"]')


def challenge_meal(pad: Pad, where: str, meal: dict[str, Any]) -> None:
    """One challenge meal: its values into the rows the card's requirements opened, in the rows' order
    (the number pad moves down them), the ingredients no row is for by "+ ingredient" and a type chip,
    then the spices and tokens; entering a value serves the meal."""
    rows = pad.page.locator(f'[data-where^="{where}.ingredients["][data-where$=".type"]').all_inner_texts()
    todo = list(meal["ingredients"])
    placed: list[tuple[int, dict[str, Any]]] = []
    for j, kind in enumerate(rows):
        found = next((ing for ing in todo if ing["type"] == kind.strip()), None)
        if found is not None:
            todo.remove(found)
            placed.append((j, found))
    for j, ing in placed:
        at = f"{where}.ingredients[{j}]"
        enter_value(pad, f"{at}.value", ing["value"])
    for ing in todo:
        pad.tap(f'[data-add="{where}.ingredients"]')
        j = len(rows)
        rows.append(ing["type"])
        pad.tap(f'[data-chip="{where}.ingredients:{ing["type"]}"]')
        enter_value(pad, f"{where}.ingredients[{j}].value", ing["value"])
        placed.append((j, ing))
    for j, ing in placed:
        if "spice" in ing:
            spice_chips(pad, f"{where}.ingredients[{j}].spice", ing["spice"])
    token_chips(pad, where, meal)


def critic_meal(pad: Pad, where: str, critic: dict[str, Any]) -> None:
    """A critic meal: a value a course, in the page's order of courses, its spices, its tokens."""
    shown = pad.page.locator(f"{pad.scope} .critic .course .kind")
    kinds = [k.strip() for k in shown.all_inner_texts()]
    for kind in kinds:
        if kind in critic["courses"]:
            enter_value(pad, f"{where}.courses.{kind}.value", critic["courses"][kind]["value"])
    for kind in kinds:
        course = critic["courses"].get(kind, {})
        if "spice" in course:
            spice_chips(pad, f"{where}.courses.{kind}.spice", course["spice"])
    token_chips(pad, where, critic)


def meals(pad: Pad, record: dict[str, Any]) -> dict[str, int]:
    """Each player's meals, player tab by player tab: the challenge meals of each round and what they
    kept after it, then the critic meal; the number of meals of each kind. The time from each meal's
    last tap to its stars shown is kept in ``pad.stars_ms``."""
    done = {"challenge": 0, "critic": 0}
    for index, p in enumerate(record["players"]):
        name = p["name"]
        served = [record.get("challenge_meals", {}).get(r, {}).get(name) for r in record["cards"]["challenges"]]
        if not (any(served) or p.get("kept") or record.get("critic_meals", {}).get(name)):
            continue  # nothing to enter for this player
        open_player(pad, name)
        for rnd, ids in record["cards"]["challenges"].items():
            served = record.get("challenge_meals", {}).get(rnd, {}).get(name, {})
            for cid in ids:
                if cid in served:
                    where = f"challenge_meals.{rnd}.{name}.{cid}"
                    challenge_meal(pad, where, served[cid])
                    pad.stars_ms.append(pad.stars_after(where, pad.mark()))
                    pad.status_ms.append(pad.status_after(pad.mark()))
                    done["challenge"] += 1
            kept = p.get("kept", {}).get(rnd)
            if kept is not None:
                enter_value(pad, f"players[{index}].kept.{rnd}", kept)
        critic = record.get("critic_meals", {}).get(name)
        if critic:
            where = f"critic_meals.{name}"
            critic_meal(pad, where, critic)
            pad.stars_ms.append(pad.stars_after(where, pad.mark()))
            done["critic"] += 1
    return done


def meal_lines(pad: Pad) -> dict[str, str]:
    """What each meal's line says once the game is entered, by the meal's record path (read, not tapped)."""
    found = pad.page.evaluate(
        "[...document.querySelectorAll('[data-stars]')].map(e => [e.dataset.stars, e.textContent])"
    )
    return {str(key): str(text).strip() for key, text in found if str(text).strip()}


def wanted_lines(record: dict[str, Any], expected: dict[str, Any]) -> dict[str, str]:
    """Each meal's line as ``critter-kitchen score`` says it: a challenge meal's quality from its award
    ("Garden Gratin meal, quality 8") and its stars, the awards whose reason begins with the card's name
    (its banquet too); a critic meal's quality from the standings (its stars are not one award's)."""
    names = card_names(record)
    lines: dict[str, str] = {}
    for rnd, by_name in record.get("challenge_meals", {}).items():
        for name, served in by_name.items():
            for cid in served:
                card = names[cid]
                own = [a for a in expected["awards"] if a["player"] == name and a["reason"].startswith(card + " ")]
                meal = [a for a in own if a["stage"].endswith(rnd) and a["reason"].startswith(card + " meal, quality ")]
                quality = meal[0]["reason"].rsplit(" ", 1)[1] if meal else "?"
                stars = sum(a["stars"] for a in own)
                said = f"quality {quality} → {stars} star{'' if stars == 1 else 's'}"
                lines[f"challenge_meals.{rnd}.{name}.{cid}"] = said
    for s in expected["standings"]:
        if s["name"] in record.get("critic_meals", {}):
            lines[f"critic_meals.{s['name']}"] = f"quality {s['critic_quality']} → "
    return lines


def card_names(record: dict[str, Any]) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "critter_kitchen", "cards", "--format", "json"], capture_output=True, text=True
    )
    if done.returncode:
        raise BenchError(f"critter-kitchen cards failed: {done.stderr.strip()}")
    found = json.loads(done.stdout)
    cards = found["cards"] if isinstance(found, dict) else found
    return {c["id"]: c["name"] for c in cards}


def result(pad: Pad) -> str:
    """See the result and keep the game; the kept game's id."""
    pad.tap("#to-save")
    pad.page.wait_for_selector("#status.good")
    pad.tap("#save")
    pad.page.wait_for_url("**/games/*")
    return str(pad.page.url.rsplit("/", 1)[1])


def rematch(pad: Pad, record: dict[str, Any]) -> None:
    """From the kept game's page, "Play again": the same players and packs again (the cards are dealt anew)."""
    pad.tap("#play-again")
    pad.page.wait_for_url(re.compile(r"/new(\?|$)"))
    first = record["players"][0]["name"]
    pad.page.wait_for_function(
        "name => (document.querySelector('[data-where=\"players[0].name\"]') || {}).value === name", arg=first
    )


def rematch_is_set(pad: Pad, record: dict[str, Any]) -> bool:
    names = [pad.at(f"players[{i}].name").input_value() for i in range(len(record["players"]))]
    packs = pad.page.locator("#packs input:checked").evaluate_all("els => els.map(e => e.value)")
    owners = [(i, p["restaurateur"]) for i, p in enumerate(record["players"]) if "restaurateur" in p]
    held = all(pad.at(f"players[{i}].restaurateur").get_attribute("data-value") == r for i, r in owners)
    return names == [p["name"] for p in record["players"]] and sorted(packs) == sorted(record.get("packs", [])) and held


# --- four phones at once in a game room (only these change when the room changes) -------------

# Records, in the wall clock every page of the machine shares (ms), the moment of this page's last tap and
# the moment each seat of the room's player list first showed as done here.
WATCH_ROOM = """
window.__doneAt = {};
document.addEventListener("pointerdown", () => { window.__tappedAt = Date.now(); }, true);
document.addEventListener("DOMContentLoaded", () => {
  const list = document.getElementById("players");
  if (!list) return;
  new MutationObserver(() => {
    const now = Date.now();
    for (const li of list.querySelectorAll("li[data-seat].done")) {
      if (!(li.dataset.seat in window.__doneAt)) window.__doneAt[li.dataset.seat] = now;
    }
  }).observe(list, {childList: true, subtree: true, characterData: true, attributes: true});
});
"""


def start_room(laptop: Pad, record: dict[str, Any], token: str) -> str:
    """The laptop starts the room: the address the server printed (its token; opened, not tapped), the
    game's setup as on the one-phone pad, what each player kept (on the meals step's player tabs, where
    the pad asks it), back to the setup step and "Start a room". The room's code."""
    laptop.page.goto(laptop.url + f"login?token={token}")
    setup(laptop, record)
    for index, p in enumerate(record["players"]):
        if p.get("kept"):
            open_player(laptop, p["name"])
            for rnd, kept in p["kept"].items():
                enter_value(laptop, f"players[{index}].kept.{rnd}", kept)
    laptop.tap('#steps [data-step="game"]')
    laptop.tap("#start-room")
    laptop.page.wait_for_url(re.compile(r"/room/[^/?]+$"))
    return str(laptop.page.url.rsplit("/", 1)[1])


def join_room(phone: Pad, join: str, seat: int) -> None:
    """A phone opens the room's join address (the QR code scanned: no tap) and takes its player's seat."""
    phone.page.goto(join)
    phone.page.locator("#live", has_text="live").wait_for()
    phone.tap(f'#players li[data-seat="{seat}"] button')
    phone.page.locator("#editor h2").wait_for()


def player_meals(record: dict[str, Any], name: str) -> list[tuple[str, dict[str, Any]]]:
    """A player's meals in the order of the rounds, the critic meal last: (record path, meal)."""
    todo: list[tuple[str, dict[str, Any]]] = []
    for rnd, ids in record["cards"]["challenges"].items():
        served = record.get("challenge_meals", {}).get(rnd, {}).get(name, {})
        todo += [(f"challenge_meals.{rnd}.{name}.{cid}", served[cid]) for cid in ids if cid in served]
    critic = record.get("critic_meals", {}).get(name)
    if critic:
        todo.append((f"critic_meals.{name}", critic))
    return todo


def room_meal(phone: Pad, where: str, meal: dict[str, Any]) -> None:
    """One meal on a phone's room page, with the pad's own meal drivers, until its stars are shown."""
    if where.startswith("critic_meals."):
        critic_meal(phone, where, meal)
    else:
        challenge_meal(phone, where, meal)
    phone.stars_ms.append(phone.stars_after(where, phone.mark()))


def submit(phone: Pad, seat: int, others: list[Pad]) -> list[float]:
    """A tap on "Done: submit my meals" on a phone; for each other phone, the milliseconds from the tap to its
    player list showing the seat done (the event stream's update drawn)."""
    phone.tap("#editor .actions button.primary")
    phone.page.wait_for_function("s => s in window.__doneAt", arg=str(seat))
    saved = float(phone.page.evaluate("window.__tappedAt"))
    delays = []
    for other in others:
        other.page.wait_for_function("s => s in window.__doneAt", arg=str(seat))
        delays.append(float(other.page.evaluate("s => window.__doneAt[s]", str(seat))) - saved)
    return delays


def room_game(phones: list[Pad], record: dict[str, Any]) -> list[float]:
    """The players' meals entered on their phones at once, a meal a phone in turn (each phone's editor
    open while the others save), each phone submitting once its player's meals are in; the live-update
    delays of every submit to every other phone."""
    todo = [player_meals(record, p["name"]) for p in record["players"]]
    delays: list[float] = []
    for k in range(max(len(t) for t in todo) + 1):
        for seat, phone in enumerate(phones):
            if k < len(todo[seat]):
                room_meal(phone, *todo[seat][k])
            elif k == len(todo[seat]):
                delays += submit(phone, seat, [o for o in phones if o is not phone])
    return delays


def measure_room(
    browser: Any, folder: Path, record_path: Path, record: dict[str, Any], expected: Any
) -> dict[str, Any]:
    """The game of the record in a room: the laptop starts it, four phones (one a player) enter their
    player's meals at once and submit; the room's record and result must be the CLI's. The most taps one
    phone needed, the laptop's, and the live updates' delays."""
    folder.mkdir()
    with serving(folder, ROOM_TOKEN) as url:
        contexts = [browser.new_context(viewport={"width": 1366, "height": 900})]
        contexts += [new_phone(browser) for _ in record["players"]]
        pads: list[Pad] = []
        left: list[str] = []
        for context in contexts:
            context.add_init_script(WATCH_STATUS)
            context.add_init_script(WATCH_ROOM)
            page = context.new_page()
            page.set_default_timeout(STEP_TIMEOUT_MS)
            left += guard(page, url)
            pads.append(Pad(page, url, scope="#editor"))
        laptop, phones = pads[0], pads[1:]
        with step("room: the laptop starts it"):
            code = start_room(laptop, record, ROOM_TOKEN)
        join = next(r["join"] for r in fetch_json(url + "api/rooms", ROOM_TOKEN)["rooms"] if r["code"] == code)
        progress(f"room {code} started: laptop {laptop.count.total}")
        with step("room: the phones join"):
            for seat, phone in enumerate(phones):
                join_room(phone, join, seat)
        with step("room: the meals, four phones at once"):
            delays = room_game(phones, record)
            for phone in phones:
                phone.page.locator("#outcome .winner").wait_for()
        progress(f"room: phones {[phone.count.total for phone in phones]}")
        room = fetch_json(url + f"api/rooms/{code}", ROOM_TOKEN)
        exported = fetch_json(url + f"api/rooms/{code}/record", ROOM_TOKEN)
        lines = {k: v for phone in phones for k, v in meal_lines(phone).items()}
        shown = {phone.page.locator("#outcome .winner").inner_text() for phone in phones}
        for context in contexts:
            context.close()
    if left:
        raise BenchError(f"requests left 127.0.0.1: {', '.join(sorted(set(left)))}")
    void_unless_equal("the room", exported, room["result"], lines, record_path, record, expected)
    if shown != {f"Winner: {expected['winner']}"}:
        raise BenchError(f"the phones show {sorted(shown)}, not the winner {expected['winner']}: the figures are void")
    counts = [phone.count for phone in phones]
    most = max(c.total for c in counts)
    names = [p["name"] for p in record["players"]]
    return {
        "taps_max_per_phone": most,
        "live_update_p95_ms": round(p95(delays)),
        "notes": {
            "taps_max_per_phone": (
                f"the most any one of the {len(phones)} phones needed, each joining by the room's join address "
                "(what its QR code carries; opened, not tapped), a tap on its player's seat, the player's meals "
                "with the pad's meal form and a tap to submit: "
                + ", ".join(f"{n} {c.taps} taps + {c.keys} keystrokes" for n, c in zip(names, counts, strict=True))
                + f'; the laptop that started the room (setup, what each kept, "Start a room") {laptop.count.total}'
                f" ({laptop.count.taps} taps + {laptop.count.keys} keystrokes, {laptop.count.dropdowns} native"
                " dropdowns); the room's exported record and result equal critter-kitchen score's, and the phones"
                " show its winner"
            ),
            "live_update_p95_ms": (
                f"from the tap on a phone's submit to the other {len(phones) - 1} phones showing that player done"
                f" (each page's MutationObserver on its player list, in the wall clock the pages share): p95 of"
                f" {len(delays)} (submit, phone), median {sorted(delays)[len(delays) // 2]:.0f} ms, max"
                f" {max(delays):.0f} ms; the server with a token, each phone let in by the room's key alone"
            ),
        },
    }


def void_unless_equal(
    what: str,
    kept: Any,
    result: Any,
    lines: dict[str, str],
    record_path: Path,
    record: dict[str, Any],
    expected: Any,
) -> None:
    """The figures stand only if the record kept is the record (each meal's ingredients in any order),
    the result ``critter-kitchen score``'s and each meal's line the quality and stars the CLI gives it."""
    if in_any_order(kept) != in_any_order(record):
        at = first_difference(in_any_order(kept), in_any_order(record))
        raise BenchError(f"the record {what} kept differs from {record_path} at {at}: the figures are void")
    if result != expected:
        at = first_difference(result, expected, "result")
        raise BenchError(
            f"{what}'s result differs from critter-kitchen score {record_path} at {at}: the figures are void"
        )
    wanted = wanted_lines(record, expected)
    wrong = [k for k, line in wanted.items() if not lines.get(k, "").startswith(line)]
    if wrong or len(lines) != len(wanted):
        k = wrong[0] if wrong else sorted(set(lines) ^ set(wanted))[0]
        raise BenchError(
            f"the meal line of {k} says {lines.get(k)!r}, critter-kitchen score says {wanted.get(k)!r}: "
            "the figures are void"
        )


# --- the page's weight --------------------------------------------------------------------


def meal_page_weight(browser: Any, url: str) -> dict[str, int]:
    """The bytes of every response the meal-entry page loads, by kind (document, script, stylesheet, image,
    fetch); a request that would leave 127.0.0.1 is aborted and stops the figures."""
    context = new_phone(browser)
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT_MS)
    left = guard(page, url)
    responses: list[Any] = []
    page.on("response", lambda r: responses.append(r))
    page.goto(url + "new")
    page.locator('[data-where="players[0].name"]').wait_for()
    page.wait_for_load_state("networkidle")
    weight: dict[str, int] = {}
    for r in responses:
        kind = r.request.resource_type
        weight[kind] = weight.get(kind, 0) + len(r.body())
    context.close()
    if left:
        raise BenchError(f"the meal-entry page asked beyond 127.0.0.1: {', '.join(sorted(set(left)))}")
    return weight


def guard(page: Any, url: str) -> list[str]:
    """Abort (and list) every request of ``page`` that is not for the server at ``url``."""
    left: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith((url, "data:")):
            r.continue_()
        else:
            left.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return left


# --- the server, the browser, the CLI -------------------------------------------------------


@contextlib.contextmanager
def serving(folder: Path, token: str | None = None) -> Iterator[str]:
    """``critter-kitchen serve`` on a free port of 127.0.0.1 with a new database (and ``token``, if
    given, as its access token); its address."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    command = [sys.executable, "-m", "critter_kitchen", "serve", "--db", str(folder / "games.sqlite3")]
    command += ["--host", "127.0.0.1", "--port", str(port)] + (["--token", token] if token else [])
    log = (folder / "serve.log").open("w")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if process.poll() is not None:
                raise BenchError(f"critter-kitchen serve stopped: {(folder / 'serve.log').read_text().strip()}")
            with contextlib.suppress(OSError, urllib.error.URLError):
                with urllib.request.urlopen(authorized(url + "new", token), timeout=2):
                    break
            if time.monotonic() > deadline:
                raise BenchError(f"critter-kitchen serve did not answer at {url} within {SERVER_START_S:.0f} s")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def playwright_or_error() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise BenchError('Playwright for Python is not installed: pip install -e ".[browser]"') from None
    if chromium_path() is None:
        raise BenchError(
            "chromium is not installed: apt-get install -y chromium (or set CRITTER_KITCHEN_CHROMIUM to its path)"
        )
    return sync_playwright


def new_phone(browser: Any) -> Any:
    return browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)


def cli_score(path: Path) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "critter_kitchen", "score", str(path), "--format", "json"],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise BenchError(f"critter-kitchen score {path} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def authorized(url: str, token: str | None, method: str = "GET", body: object = None) -> urllib.request.Request:
    """A request to the pad with its token, if any (and ``body`` as JSON, if given)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    return request


def fetch_json(
    url: str, token: str | None = None, method: str = "GET", body: object = None, timeout: float = 10
) -> Any:
    """One request to the pad's API; its JSON answer."""
    with urllib.request.urlopen(authorized(url, token, method, body), timeout=timeout) as answer:
        return json.load(answer)


def first_difference(got: Any, wanted: Any, at: str = "record") -> str:
    """The path of the first place where ``got`` and ``wanted`` differ, with both values there."""
    if isinstance(got, dict) and isinstance(wanted, dict):
        for key in [*wanted, *(k for k in got if k not in wanted)]:
            if got.get(key) != wanted.get(key):
                return first_difference(got.get(key), wanted.get(key), f"{at}.{key}")
    if isinstance(got, list) and isinstance(wanted, list) and len(got) == len(wanted):
        for i, (g, w) in enumerate(zip(got, wanted, strict=True)):
            if g != w:
                return first_difference(g, w, f"{at}[{i}]")
    return f"{at} ({json.dumps(got)} instead of {json.dumps(wanted)})"


def in_any_order(record: Any) -> Any:
    """A record with each meal's ingredients in one order: scoring does not read their order
    (tests/test_order_free.py), and the pad lists them in the order of the card's requirements."""
    out = json.loads(json.dumps(record))
    for by_name in (out.get("challenge_meals") or {}).values():
        for served in (by_name or {}).values():
            for meal in (served or {}).values():
                meal["ingredients"] = sorted(meal.get("ingredients", []), key=lambda i: json.dumps(i, sort_keys=True))
    return out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def progress(message: str) -> None:
    print(f"bench_pad: {message}", file=sys.stderr, flush=True)


# --- the run --------------------------------------------------------------------------------


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    """A step of the game; the page not doing what the step expects is said in one line, naming the step."""
    from playwright.sync_api import Error

    try:
        yield
    except Error as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise BenchError(
            f"step {name}: {first} (if the pad has changed, change this step's function in tools/bench_pad.py)"
        ) from None


def enter_game(pad: Pad, record: dict[str, Any], known: bool = False) -> tuple[str, dict[str, Count], dict[str, int]]:
    """The game entered step by step: the kept game's id, the count after each step, the meals of each kind."""
    after: dict[str, Count] = {}
    with step("setup"):
        setup(pad, record, known)
    after["setup"] = pad.count.copy()
    progress(f"setup: {pad.count.total}")
    with step("meals"):
        done = meals(pad, record)
        pad.lines = meal_lines(pad)
    after["meals"] = pad.count.copy()
    progress(f"meals ({done['challenge']} challenge, {done['critic']} critic): {pad.count.total}")
    with step("result"):
        game = result(pad)
    after["result"] = pad.count.copy()
    progress(f"result (game {game} kept): {pad.count.total}")
    return game, after, done


def by_step(after: dict[str, Count]) -> str:
    """The taps and keys of each step: "setup 31, meals 93, result 2"."""
    totals = [Count(), *after.values()]
    return ", ".join(f"{name} {totals[i + 1].total - totals[i].total}" for i, name in enumerate(after))


def known_players_game(
    browser: Any, url: str, record_path: Path, record: dict[str, Any], expected: Any, left: list[str]
) -> tuple[int, str]:
    """The same game entered on another phone of the same pad, which now knows the four players (it
    kept their game): each name a tap on its chip. Its count, and its count by step."""
    context = new_phone(browser)
    context.add_init_script(WATCH_STATUS)
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT_MS)
    left += guard(page, url)
    pad = Pad(page, url)
    game, after, _ = enter_game(pad, record, known=True)
    kept = fetch_json(url + f"api/games/{game}")
    what = "the pad that knows the players"
    void_unless_equal(what, kept["record"], kept["result"], pad.lines, record_path, record, expected)
    context.close()
    return after["result"].total, by_step(after)


def measure(record_path: Path, headed: bool = False) -> dict[str, Any]:
    """Every figure of the issue, with ``notes`` saying how each was counted or why it is null."""
    sync_playwright = playwright_or_error()
    expected = cli_score(record_path)  # a record the CLI refuses stops here, in the CLI's words
    record = yaml.safe_load(record_path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp, serving(Path(tmp)) as url, sync_playwright() as p:
        progress(f"serving at {url}")
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=not headed)
        try:
            weight = meal_page_weight(browser, url)
            progress(f"meal-entry page: {sum(weight.values())} bytes")
            context = new_phone(browser)
            context.add_init_script(WATCH_STATUS)
            page = context.new_page()
            page.set_default_timeout(STEP_TIMEOUT_MS)
            left = guard(page, url)
            pad = Pad(page, url)
            game, after, meals_done = enter_game(pad, record)
            kept = fetch_json(url + f"api/games/{game}")
            void_unless_equal("the pad", kept["record"], kept["result"], pad.lines, record_path, record, expected)
            with step("rematch"):
                rematch(pad, record)
            if not rematch_is_set(pad, record):
                raise BenchError("the rematch's players and packs are not those of the game: the figure is void")
            rematch_taps = pad.count.total - after["result"].total
            progress(f"rematch: {rematch_taps}")
            context.close()
            with step("the same game on a pad that knows the players"):
                known, known_steps = known_players_game(browser, url, record_path, record, expected, left)
            progress(f"on a pad that knows the players: {known}")
            room = measure_room(browser, Path(tmp) / "room", record_path, record, expected)
        finally:
            browser.close()
    if left:
        raise BenchError(f"requests left 127.0.0.1: {', '.join(sorted(set(left)))}")
    game_count = after["result"]
    median = sorted(pad.stars_ms)[len(pad.stars_ms) // 2]
    return {
        "taps_one_phone": game_count.total,
        "taps_max_per_phone": room["taps_max_per_phone"],
        "rematch_taps": rematch_taps,
        "meal_stars_p95_ms": round(p95(pad.stars_ms)),
        "live_update_p95_ms": room["live_update_p95_ms"],
        "meal_page_bytes": sum(weight.values()),
        "taps_one_phone_known_players": known,
        "notes": {
            "taps_one_phone": (
                f"{game_count.taps} taps + {game_count.keys} keystrokes; {game_count.dropdowns} native dropdowns "
                f"operated (2 taps each), {game_count.preset} more already showing the value wanted; "
                f"{pad.moves} taps put the number pad on a field it had not moved to by itself; "
                f"{meals_done['challenge']} challenge meals and {meals_done['critic']} critic meals of "
                f"{record_path.name}; "
                f"by step: {by_step(after)}; the kept game's record and result equal critter-kitchen score's"
            ),
            "taps_max_per_phone": room["notes"]["taps_max_per_phone"],
            "rematch_taps": (
                "from the kept game's page: Play again, which opens a new game with the same players in the same "
                "order, their restaurateurs and the same packs (the cards are dealt anew)"
            ),
            "meal_stars_p95_ms": (
                f'from a meal\'s last tap to its line ("quality 13 → 2 stars", scored by the engine) shown: '
                f"p95 of {len(pad.stars_ms)} meals, median {median:.0f} ms, max {max(pad.stars_ms):.0f} ms, "
                "each line equal to what "
                "critter-kitchen score says of the meal (a challenge meal's quality and stars, a critic meal's "
                f"quality); the status bar (the whole game checked) answered in p95 {p95(pad.status_ms):.0f} ms"
            ),
            "live_update_p95_ms": room["notes"]["live_update_p95_ms"],
            "taps_one_phone_known_players": (
                "taps_one_phone again, on another phone of the same pad once it has kept the game: each name a tap "
                f"on its chip instead of typed; by step: {known_steps}; the kept game's record and result equal "
                "critter-kitchen score's"
            ),
            "meal_page_bytes": (
                "the new-game page (setup and meals are its steps), by kind: "
                + ", ".join(f"{kind} {size}" for kind, size in sorted(weight.items()))
                + "; no request left 127.0.0.1"
            ),
        },
    }


def table(figures: dict[str, Any]) -> str:
    rows = [("figure", "measured", "goal", ""), ("------", "--------", "----", "")]
    for key, what, goal, bound in FIGURES + MORE_FIGURES:
        value = figures[key]
        shown = "null" if value is None else str(value)
        verdict = "" if value is None else ("met" if value <= bound else "not met")
        rows.append((f"{key} ({what})", shown, goal, verdict))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3] for r in rows]
    lines.append("")
    lines += [f"{key}: {note}" for key, note in figures["notes"].items()]
    return "\n".join(line.rstrip() for line in lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='Needs Playwright (pip install -e ".[browser]") and chromium (apt-get install -y chromium).',
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object of the figures")
    parser.add_argument("--record", type=Path, default=RECORD, help=f"the game to enter (default: {RECORD.name})")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    args = parser.parse_args(argv)
    if not args.record.is_file():
        print(f"bench_pad: {args.record}: no such file", file=sys.stderr)
        return 1
    try:
        figures = measure(args.record, args.headed)
    except BenchError as e:
        print(f"bench_pad: {e}", file=sys.stderr)
        return 1
    print(json.dumps(figures, indent=1) if args.json else table(figures))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
