"""tools/bench_pad.py's counting, on a small part of a game: the setup and one challenge meal of
``examples/two-players.yaml`` entered in chromium against a real ``critter-kitchen serve``.

The whole script (a 4-player game, about 20 s) is run by hand: ``python tools/bench_pad.py``. This
keeps its steps working on the pad as it is, and its counts equal to the rules it states: a tap
per button, chip, checkbox or tab, a tap and a key per character for a field, two taps per dropdown.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser import chromium_or_skip, launch_chromium  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import bench_pad  # noqa: E402

# the figures issue 26 asks of the script, by these names, for other tools to read
ISSUE_KEYS = [
    "taps_one_phone",
    "taps_max_per_phone",
    "rematch_taps",
    "meal_stars_p95_ms",
    "live_update_p95_ms",
    "meal_page_bytes",
]


def test_the_figures_are_the_issues():
    assert [key for key, *_ in bench_pad.FIGURES] == ISSUE_KEYS


def test_the_setup_and_a_meal_are_counted_tap_by_tap(tmp_path):
    record = yaml.safe_load((ROOT / "examples" / "two-players.yaml").read_text())
    meal = record["challenge_meals"]["round3"]["Ana"]["sunday-roast"]
    record["challenge_meals"] = {"round3": {"Ana": {"sunday-roast": meal}}}
    record["critic_meals"] = {}
    for p in record["players"]:
        p.pop("kept", None)
    players, cards = record["players"], record["cards"]
    with chromium_or_skip()() as p, bench_pad.serving(tmp_path) as url:
        browser = launch_chromium(p)
        context = bench_pad.new_phone(browser)
        context.add_init_script(bench_pad.WATCH_STATUS)
        page = context.new_page()
        left = bench_pad.guard(page, url)
        pad = bench_pad.Pad(page, url)

        bench_pad.setup(pad, record)
        # a chip a card: each restaurateur, each challenge card, the critic; a tick a rumor
        chips = sum("restaurateur" in p for p in players) + sum(len(ids) for ids in cards["challenges"].values()) + 1
        taps = 1 + chips + len(cards["rumors"]) + 1  # a tap on the first name, + "Enter the meals"
        # the names typed, the keyboard's "next" (Enter) between them going on to the next seat
        keys = sum(len(p["name"]) for p in players) + len(players) - 1
        assert (pad.count.taps, pad.count.keys, pad.count.dropdowns, pad.count.preset) == (taps, keys, 0, 0)
        assert [pad.at(f"players[{i}].name").input_value() for i in range(2)] == ["Ana", "Ben"]
        assert pad.at("cards.challenges.round3[2]").get_attribute("data-value") == cards["challenges"]["round3"][2]
        assert pad.at("cards.critic").get_attribute("data-value") == cards["critic"]
        assert page.locator("#step-meals").is_visible()

        before = pad.count.copy()
        assert bench_pad.meals(pad, record) == {"challenge": 1, "critic": 0}
        ingredients = meal["ingredients"]
        spices = sum("spice" in i for i in ingredients)
        # the card's rows are meat, carrot (the record says carrot, meat); Ana's meals are shown with the
        # number pad on their first row: a tap on the pad a value (it moves down the rows by itself), a tap
        # a spice chip, nothing typed
        assert (pad.count.taps - before.taps, pad.count.keys - before.keys) == (len(ingredients) + spices, 0)
        assert pad.count.dropdowns == before.dropdowns
        where = "challenge_meals.round3.Ana.sunday-roast"
        assert [pad.at(f"{where}.ingredients[{i}].value").input_value() for i in range(2)] == ["3", "4"]
        allspice = page.locator(f'[data-chip="{where}.ingredients[1].spice:allspice"]')
        assert allspice.get_attribute("aria-pressed") == "true"
        assert len(pad.stars_ms) == 1 and pad.stars_ms[0] > 0  # the meal's line answered its last tap
        assert bench_pad.meal_lines(pad) == {where: "quality 11 → 1 star"}
        assert len(pad.status_ms) == 1 and pad.status_ms[0] > 0  # the status bar answered the meal
        context.close()
        browser.close()
    assert left == []


def test_a_phone_in_a_room_is_counted_tap_by_tap(tmp_path):
    """The room's steps: a phone opens the join address (no tap), takes its seat (1 tap), enters one
    challenge meal with the pad's meal drivers and submits (1 tap); another phone sees it done live."""
    import json
    import urllib.request

    record = yaml.safe_load((ROOT / "examples" / "two-players.yaml").read_text())
    meal = record["challenge_meals"]["round3"]["Ana"]["sunday-roast"]
    setup = {k: v for k, v in record.items() if k not in ("challenge_meals", "critic_meals")}
    with chromium_or_skip()() as p, bench_pad.serving(tmp_path, bench_pad.ROOM_TOKEN) as url:
        made = urllib.request.Request(url + "api/rooms", data=json.dumps(setup).encode(), method="POST")
        made.add_header("Authorization", f"Bearer {bench_pad.ROOM_TOKEN}")
        made.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(made, timeout=20) as answer:
            room = json.load(answer)
        browser = launch_chromium(p)
        phones, left = [], []
        for _ in range(2):
            context = bench_pad.new_phone(browser)
            context.add_init_script(bench_pad.WATCH_STATUS)
            context.add_init_script(bench_pad.WATCH_ROOM)
            page = context.new_page()
            left += bench_pad.guard(page, url)
            phones.append(bench_pad.Pad(page, url, scope="#editor"))
        ana, ben = phones
        bench_pad.join_room(ana, room["join"], 0)
        bench_pad.join_room(ben, room["join"], 1)
        assert (ana.count.taps, ana.count.keys) == (1, 0)  # the seat; the address opened is no tap

        where = "challenge_meals.round3.Ana.sunday-roast"
        bench_pad.room_meal(ana, where, meal)
        spices = sum("spice" in i for i in meal["ingredients"])
        # the number pad is on no field when the room's form opens: a tap on the first row's field, then a
        # tap on the pad a value (it moves down the rows by itself), a tap a spice chip
        assert ana.moves == 1
        assert (ana.count.taps, ana.count.keys) == (1 + 1 + len(meal["ingredients"]) + spices, 0)
        assert bench_pad.meal_lines(ana) == {where: "quality 11 → 1 star"}
        taps = ana.count.taps
        delays = bench_pad.submit(ana, 0, [ben])
        assert ana.count.taps == taps + 1
        assert len(delays) == 1 and 0 <= delays[0] < bench_pad.STEP_TIMEOUT_MS
        assert "done" in (ben.page.locator('li[data-seat="0"]').get_attribute("class") or "")
        browser.close()
    assert left == []


def test_on_a_pad_that_knows_the_players_each_name_is_a_tap(tmp_path):
    """``taps_one_phone_known_players``' setup: once the pad has kept a game of the players, each
    name is a tap on its chip, nothing typed; the rest of the setup is counted as on a fresh pad."""
    import json
    import urllib.request

    record = yaml.safe_load((ROOT / "examples" / "two-players.yaml").read_text())
    players, cards = record["players"], record["cards"]
    with chromium_or_skip()() as p, bench_pad.serving(tmp_path) as url:
        kept = urllib.request.Request(url + "api/games", data=json.dumps(record).encode(), method="POST")
        kept.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(kept, timeout=20) as answer:
            assert answer.status == 201
        browser = launch_chromium(p)
        context = bench_pad.new_phone(browser)
        page = context.new_page()
        left = bench_pad.guard(page, url)
        pad = bench_pad.Pad(page, url)
        bench_pad.setup(pad, record, known=True)
        chips = sum("restaurateur" in p for p in players) + sum(len(ids) for ids in cards["challenges"].values()) + 1
        taps = len(players) + chips + len(cards["rumors"]) + 1  # a chip a name, + "Enter the meals"
        assert (pad.count.taps, pad.count.keys, pad.count.dropdowns) == (taps, 0, 0)
        assert [pad.at(f"players[{i}].name").input_value() for i in range(2)] == ["Ana", "Ben"]
        assert page.locator("#step-meals").is_visible()
        browser.close()
    assert left == []
