"""The balance lab's HTML report: every part drawn from the report dict, escaped, offline, readable.

Unit tests read the page with the standard HTML parser; one test opens it in a real headless
chromium at a laptop's and a phone's width (see browser.py) and saves a screenshot.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import re
import subprocess
import sys
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from browser import chromium_or_skip, launch_chromium, offline_guard, save_screenshot
from hypothesis import given, settings
from hypothesis import strategies as st

from critter_kitchen.simulate.html import axis_for, histogram_bars, render_html

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = "<script>alert(1)</script>"


# --- a realistic synthetic report ----------------------------------------------------------


def wilson(wins: int, n: int) -> list[float]:
    z = 1.959964
    centre = (wins + z * z / 2) / (n + z * z)
    half = z * math.sqrt(wins * (n - wins) / n + z * z / 4) / (n + z * z)
    return [round(centre - half, 4), round(centre + half, 4)]


def base_cards() -> list[tuple[str, str, str]]:
    """(id, kind, name) of the base pack's cards, as the simulator would list them."""
    cards = []
    for path in sorted((ROOT / "cards" / "base").glob("*/*.yaml")):
        card = yaml.safe_load(path.read_text(encoding="utf-8"))
        cards.append((card["id"], card["kind"], card["name"]))
    return cards


def card_row(rng: random.Random, card_id: str, kind: str, name: str, games: int, players: int) -> dict:
    stars = round(rng.uniform(0.3, 2.4), 3)
    half = round(1.96 * 1.3 / math.sqrt(games), 3)
    flips = int(games * rng.uniform(0.02, 0.22))
    row = {
        "id": card_id,
        "kind": kind,
        "name": name,
        "games": games,
        "stars_mean": stars,
        "stars_ci": [round(stars - half, 3), round(stars + half, 3)],
        "winner_flip_rate": round(flips / games, 4),
        "winner_flip_ci": wilson(flips, games),
        "owner_win_rate": None,
        "owner_win_ci": None,
        "flag": None,
    }
    if kind == "restaurateur":
        wins = int(games * rng.uniform(0.8, 1.25) / players)
        row["owner_win_rate"], row["owner_win_ci"] = round(wins / games, 4), wilson(wins, games)
    return row


def stage_row(rng: random.Random, stage: str, player_games: int, top: int) -> dict:
    weights = [math.exp(-((k - rng.uniform(0, top)) ** 2) / (top + 1)) + 0.02 for k in range(top + 1)]
    counts = [int(player_games * w / sum(weights)) for w in weights]
    mean = sum(k * c for k, c in enumerate(counts)) / sum(counts)
    return {
        "stage": stage,
        "stars_mean": round(mean, 3),
        "stars_ci": [round(mean - 0.02, 3), round(mean + 0.02, 3)],
        "histogram": {str(k): c for k, c in enumerate(counts) if c},
    }


def sample_report() -> dict:
    rng = random.Random(14)
    games, players = 2000, 4
    in_play = {"challenge": 6, "critic": 1, "rumor": 3, "restaurateur": players}
    cards = base_cards()
    per_kind = {kind: sum(1 for _, k, _ in cards if k == kind) for kind in in_play}
    rows = [card_row(rng, i, k, n, games * in_play[k] // per_kind[k], players) for i, k, n in cards if k in in_play]
    top = max(rows, key=lambda r: r["stars_mean"] if r["kind"] == "rumor" else -1)
    top["flag"] = "strong"
    low = min(rows, key=lambda r: r["stars_mean"] if r["kind"] == "critic" else 99)
    low["flag"] = "weak"
    seat_wins = [610, 520, 460, 410]
    stages = [
        "challenge.round3",
        "challenge.round6",
        "critic.most_soup",
        "critic.all_courses",
        "critic.best_course",
        "critic.rumors",
        "critic.card_bonuses",
        "critic.final_quality",
    ]
    return {
        "games": games,
        "players": players,
        "seed": 1,
        "packs": ["base"],
        "model": {"unverified": ["items gathered per round", "soup supply", "priority draw"]},
        "cards": rows,
        "seats": [
            {"priority": i + 1, "games": games, "wins": w, "win_rate": w / games, "win_ci": wilson(w, games)}
            for i, w in enumerate(seat_wins)
        ],
        "stages": [stage_row(rng, s, games * players, rng.choice([3, 4, 6, 8])) for s in stages],
        "tiebreaks": [
            {"name": "critic quality", "games": 143, "rate": 0.0715},
            {"name": "priority", "games": 21, "rate": 0.0105},
        ],
        "study": [
            {
                "card": "fish-fanatic",
                "with": {"games": games, "stars_mean": 1.92, "stars_ci": [1.83, 2.01]},
                "without": {"games": games, "stars_mean": 1.55, "stars_ci": [1.46, 1.64]},
                "difference": 0.37,
                "difference_ci": [0.25, 0.49],
            }
        ],
        "notes": [
            "The deal model has unverified numbers: treat draws as estimates.",
            "Challenge meals planned in the planner's fast mode.",
        ],
        "backend": "local",  # an extra key the page has no use for
    }


# --- reading the page back -----------------------------------------------------------------


class Elements(HTMLParser):
    """Every start tag with its attributes and the chain of enclosing tags' classes."""

    VOID = {"meta", "link", "br", "img", "input", "hr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
        self.stack: list[tuple[str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.found.append((tag, attributes, tuple(c for _, c in self.stack)))
        if tag not in self.VOID:
            self.stack.append((tag, attributes.get("class", "")))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {k: v or "" for k, v in attrs}, tuple(c for _, c in self.stack)))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(page: str) -> Elements:
    elements = Elements()
    elements.feed(page)
    return elements


def forest_rows(page: str, layout: str = "wide") -> list[list[dict[str, float | str]]]:
    """For each forest chart in ``layout``: per mark row, its classes, interval ends and point position."""
    charts: list[list[dict[str, float | str]]] = []
    inside = False
    for tag, attrs, enclosing in parsed(page).found:
        if tag == "svg" and "forest" in attrs.get("class", ""):
            inside = attrs["class"] == f"chart forest {layout}"
            if inside:
                charts.append([])
        elif not inside:
            continue
        elif tag == "g" and attrs.get("class", "").startswith("mark"):
            charts[-1].append({"class": attrs["class"]})
        elif charts and charts[-1] and any(c.startswith("mark") for c in enclosing):
            row = charts[-1][-1]
            if tag == "line" and attrs.get("class") == "ci":
                row["low"], row["high"] = float(attrs["x1"]), float(attrs["x2"])
            elif tag == "circle":
                row["point"] = float(attrs["cx"])
            elif tag == "path":
                row["point"] = float(re.match(r"M([\d.]+)", attrs["d"])[1])
    return charts


TAGS = set(
    "html head meta title link style body main header h1 h2 h3 p dl div dt dd aside ul li code nav a section span "
    "figure figcaption svg desc defs clippath rect text tspan g line circle path table caption thead tbody tr th td "
    "details summary footer".split()
)
ATTRIBUTES = set(
    "charset http-equiv content name lang rel href class id role aria-label aria-labelledby aria-hidden viewbox "
    "width height x y x1 x2 y1 y2 cx cy r d text-anchor clip-path data-rows data-bars data-card scope".split()
)


def assert_only_our_markup(page: str) -> None:
    """Every element and attribute is one the page's own code writes: none came from the report."""
    found = parsed(page).found
    assert {tag for tag, _, _ in found} <= TAGS
    assert {name for _, attrs, _ in found for name in attrs} <= ATTRIBUTES


# --- unit tests ------------------------------------------------------------------------------


def test_a_hostile_card_name_is_text_not_markup():
    report = sample_report()
    report["cards"][0]["name"] = HOSTILE
    report["cards"][1]["id"] = '"><img src=x onerror=alert(2)>'
    report["cards"][2]["name"] = "Red\x1b[31m\nLine"
    report["stages"][0]["stage"] = "</title><script>alert(3)</script>"
    report["notes"].append("<b>bold</b> & more")
    report["packs"] = ["base", "a&b<c>"]
    report["study"][0]["card"] = HOSTILE
    page = render_html(report)
    assert "<script" not in page.lower()
    assert "<img" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in page
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; more" in page
    assert "a&amp;b&lt;c&gt;" in page
    assert "Red\\x1b[31m\\nLine" in page and "\x1b" not in page
    assert_only_our_markup(page)


def test_a_long_name_is_cut_in_the_charts_and_whole_in_the_table():
    name = "The Extraordinarily Long-Winded Restaurant Critic of the Harbour"
    page = render_html({"cards": [{"id": "long", "kind": "critic", "name": name, "stars_mean": 1.0}]})
    assert f'<th scope="row">{name} <code>long</code></th>' in page
    assert ">The Extraordinarily Lon…</text>" in page  # wide layout: 24 characters
    assert ">The Extraordinarily Long-Winded Restaurant Crit…</text>" in page  # narrow layout: 48
    assert f"<title>{name}: 1.00 stars per game</title>" in page


def test_the_page_fetches_nothing_and_runs_no_script():
    page = render_html(sample_report())
    assert "http://" not in page and "https://" not in page
    assert "<script" not in page and "javascript:" not in page and " on" + "load=" not in page
    assert "default-src 'none'" in page
    assert '<link rel="icon" href="data:,">' in page


def test_every_card_appears_once_in_its_kinds_chart_and_table():
    report = sample_report()
    page = render_html(report)
    for card in report["cards"]:
        assert page.count(f'<tr data-card="{card["id"]}">') == 1, card["id"]
        assert escape(card["name"]) in page
    rows = {int(n) for n in re.findall(r'class="chart forest wide"[^>]*data-rows="(\d+)"', page)}
    kinds = {k: sum(1 for c in report["cards"] if c["kind"] == k) for k in ("challenge", "critic", "rumor")}
    assert set(kinds.values()) <= rows
    assert page.count("<h3>") == 4  # one section per kind


def test_cards_are_ranked_strongest_first_within_their_kind():
    report = sample_report()
    page = render_html(report)
    rumors = sorted((c for c in report["cards"] if c["kind"] == "rumor"), key=lambda c: -c["stars_mean"])
    positions = [page.index(f'<tr data-card="{c["id"]}">') for c in rumors]
    assert positions == sorted(positions)


def test_each_interval_runs_left_to_right_around_its_point():
    report = sample_report()
    report["cards"][0]["stars_ci"] = list(reversed(report["cards"][0]["stars_ci"]))  # given high end first
    page = render_html(report)
    for layout in ("wide", "narrow"):
        drawn = [row for chart in forest_rows(page, layout) for row in chart if "low" in row]
        assert len(drawn) >= len(report["cards"]) * 2
        for row in drawn:
            assert row["low"] < row["point"] < row["high"], row


def test_a_larger_mean_is_drawn_further_right():
    report = {
        "games": 10,
        "players": 2,
        "cards": [
            {"id": "a", "kind": "rumor", "name": "A", "stars_mean": 0.5, "stars_ci": [0.4, 0.6]},
            {"id": "b", "kind": "rumor", "name": "B", "stars_mean": 2.0, "stars_ci": [1.5, 2.5]},
            {"id": "c", "kind": "rumor", "name": "C", "stars_mean": -1.0, "stars_ci": [-1.5, -0.5]},
        ],
    }
    stars_chart = forest_rows(render_html(report))[0]
    points = [row["point"] for row in stars_chart]
    assert points[0] > points[1] > points[2]  # ranked B, A, C: right to left
    zero = re.search(r'<line class="zero" x1="([\d.]+)"', render_html(report))
    assert zero and points[2] < float(zero[1]) < points[1]


def test_flagged_cards_are_marked_in_the_chart_and_the_table():
    report = sample_report()
    strong = next(c for c in report["cards"] if c["flag"] == "strong")
    weak = next(c for c in report["cards"] if c["flag"] == "weak")
    page = render_html(report)
    classes = [row["class"] for chart in forest_rows(page) for row in chart]
    assert classes.count("mark strong") == 2 and classes.count("mark weak") == 2  # stars and flips panels
    assert re.search(rf'<tr data-card="{strong["id"]}">.*?<td>▲ strong</td></tr>', page)
    assert re.search(rf'<tr data-card="{weak["id"]}">.*?<td>▼ weak</td></tr>', page)
    assert f"{strong['name']}: {strong['stars_mean']:.2f} stars per game" in page


def test_owner_win_rates_are_drawn_only_for_held_cards_against_one_in_players():
    page = render_html(sample_report())
    assert page.count("owner&#x27;s win rate</title>") == 2  # restaurateurs only, in both layouts
    assert "1/4 = 25.0%" in page and "fair share 1/4 = 25.0%" in page


def test_header_and_the_unverified_model_warning():
    page = render_html(sample_report())
    assert "<dt>Games</dt><dd>2,000</dd>" in page
    assert "<dt>Players</dt><dd>4</dd>" in page and "<dt>Seed</dt><dd>1</dd>" in page
    assert "<dt>Packs</dt><dd>base</dd>" in page
    assert '<aside class="warning" role="note"><h2>Unverified deal model</h2><p>3 numbers' in page
    assert "<li><code>soup supply</code></li>" in page
    verified = render_html({**sample_report(), "model": {"unverified": []}})
    assert "Every number of the deal model is marked as known." in verified and 'class="warning"' not in verified


def test_missing_parts_say_so_and_nothing_fails():
    page = render_html({})
    text = "".join(parsed(page).text)
    for section in ("cards", "seats", "stages", "tiebreaks", "study", "notes"):
        assert re.search(rf'<section id="{section}">.*?Not in this report\.', page, re.S), section
    assert "Deal model: not in this report." in text
    assert text.count("not in this report") == 5  # four facts and the deal model


def test_parts_of_the_wrong_shape_count_as_missing():
    page = render_html(
        {
            "games": "many",
            "cards": "x",
            "seats": [1, "a"],
            "stages": {"a": 1},
            "tiebreaks": None,
            "study": 3,
            "notes": "one",
            "model": {"unverified": "x"},
            "packs": "base",
        }
    )
    assert "<dt>Games</dt><dd>many</dd>" in page
    assert page.count("Not in this report.") == 4  # cards, stages, tie-breaks, notes
    assert "No seat was played." in page and "No study in this run" in page


def test_empty_parts_say_what_is_empty():
    page = render_html(
        {
            "games": 0,
            "players": 3,
            "seed": 0,
            "packs": [],
            "model": {"unverified": []},
            "cards": [],
            "seats": [],
            "stages": [],
            "tiebreaks": [],
            "study": None,
            "notes": [],
        }
    )
    for message in (
        "No card was in play.",
        "No seat was played.",
        "No stage gave stars.",
        "No game needed a tie-break.",
        "No study in this run",
        "No notes.",
    ):
        assert message in page
    assert "<dt>Packs</dt><dd>none</dd>" in page


def test_cards_without_rates_show_no_data():
    report = {
        "players": 2,
        "cards": [
            {
                "id": "idle",
                "kind": "critic",
                "name": "Idle",
                "games": 0,
                "stars_mean": None,
                "stars_ci": None,
                "winner_flip_rate": None,
                "winner_flip_ci": None,
                "owner_win_rate": None,
                "owner_win_ci": None,
                "flag": None,
            }
        ],
    }
    page = render_html(report)
    assert page.count(">no data</text>") == 2 * 2  # two panels, two layouts
    assert "<td>0</td><td>—</td><td>—</td><td></td></tr>" in page  # no owner column: nobody holds it


def test_the_study_is_drawn_with_both_arms():
    page = render_html(sample_report())
    assert "Study of <code>fish-fanatic</code>: difference +0.370 (+0.250 to +0.490)" in page
    assert '<th scope="row">stars_mean</th><td>1.92</td><td>1.55</td>' in page
    assert '<th scope="row">stars_ci</th><td>1.83 to 2.01</td><td>1.46 to 1.64</td>' in page
    rows = forest_rows(page)[-1]
    assert len(rows) == 1 and rows[0]["low"] < rows[0]["point"] < rows[0]["high"]


def test_histograms_fill_the_gaps_between_their_ends():
    assert histogram_bars({"0": 5, "3": 1, "x": 9, "2": -1}) == [(0, 5), (1, 0), (2, 0), (3, 1)]
    assert histogram_bars({"-1": 2, "1": 1}) == [(-1, 2), (0, 0), (1, 1)]
    assert histogram_bars({"0": 1, "100000": 1}) == [(0, 1), (100000, 1)]
    assert histogram_bars(None) == []
    assert histogram_bars({"²": 4, "٣": 2, "1": 1}) == [(1, 1)]  # digits int() refuses, or reads otherwise
    page = render_html(
        {
            "stages": [
                {
                    "stage": "critic.most_soup",
                    "stars_mean": 1.0,
                    "stars_ci": [0.9, 1.1],
                    "histogram": {"0": 10, "2": 30},
                }
            ]
        }
    )
    assert 'data-bars="3"' in page and page.count('<rect class="bar"') == 3
    assert "<title>1 star: 0 player-games (0.0%)</title>" in page  # one star, not "1 stars"


def test_axes_hold_zero_and_every_value_between_round_ends():
    axis = axis_for([0.12, 0.31], 0, 100, percent=True)
    assert (axis.low, axis.high) == (0.0, pytest.approx(0.4)) and axis.label(0.1) == "10%"
    axis = axis_for([-0.7, 2.3], 0, 100)
    assert (axis.low, axis.high, axis.step) == (-1.0, 3.0, 1.0) and axis.ticks() == [-1.0, 0.0, 1.0, 2.0, 3.0]
    assert axis.at(axis.low) == 0 and axis.at(axis.high) == 100


def test_the_same_report_gives_the_same_bytes_in_another_process():
    # Another hash seed orders sets differently: nothing on the page may depend on that.
    code = (
        "import hashlib, sys; sys.path.insert(0, 'tests'); from test_simulate_html import sample_report; "
        "from critter_kitchen.simulate.html import render_html; "
        "print(hashlib.sha256(render_html(sample_report()).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert digests == {hashlib.sha256(render_html(sample_report()).encode()).hexdigest() + "\n"}


def test_the_same_report_gives_the_same_bytes():
    assert render_html(sample_report()) == render_html(sample_report())
    assert render_html(sample_report()).isascii() is False  # ▲, —: the page is UTF-8 and says so
    assert '<meta charset="utf-8">' in render_html({})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
numbers = st.none() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=True, allow_infinity=True)
intervals = st.none() | st.lists(numbers, min_size=0, max_size=3)
card_rows = st.fixed_dictionaries(
    {
        "id": st.text(max_size=12),
        "kind": st.sampled_from(["rumor", "critic"]) | json_values,
        "name": st.text(max_size=40) | json_values,
        "games": numbers,
        "stars_mean": numbers,
        "stars_ci": intervals,
        "winner_flip_rate": numbers,
        "winner_flip_ci": intervals,
        "owner_win_rate": numbers,
        "owner_win_ci": intervals,
        "flag": st.sampled_from([None, "strong", "weak", "other"]),
    }
)
stage_rows = st.fixed_dictionaries(
    {
        "stage": json_values,
        "stars_mean": numbers,
        "stars_ci": intervals,
        "histogram": st.dictionaries(st.text(max_size=4) | st.integers(-5, 5).map(str), numbers, max_size=6),
    }
)


@settings(max_examples=40, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "games": json_values,
            "players": numbers,
            "seed": json_values,
            "packs": json_values,
            "model": json_values,
            "cards": st.lists(card_rows, max_size=4) | json_values,
            "seats": st.lists(
                st.fixed_dictionaries({"priority": json_values, "win_rate": numbers, "win_ci": intervals}), max_size=3
            )
            | json_values,
            "stages": st.lists(stage_rows, max_size=3) | json_values,
            "tiebreaks": json_values,
            "study": json_values,
            "notes": json_values,
        },
    )
)
def test_any_report_gives_a_page_without_markup_from_it(report):
    page = render_html(report)
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    assert "<script" not in page
    assert_only_our_markup(page)


# --- in a real browser -----------------------------------------------------------------------


@pytest.mark.parametrize("width", [1280, 820, 390])  # a laptop, a tablet, a phone
def test_the_page_in_a_real_browser(tmp_path, width):
    sync_playwright = chromium_or_skip()
    report = sample_report()
    report["cards"][0]["name"] = HOSTILE
    path = tmp_path / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            guard = offline_guard(page)
            page.goto(path.as_uri())
            page.wait_for_load_state("load")
            # Each panel is drawn in two layouts and the width of its figure shows one of them.
            forests = page.locator("svg.forest:visible")
            assert page.locator("svg.forest").count() == 2 * forests.count()
            assert forests.count() == 4 * 2 + 1 + 1 + 1  # kinds x panels, owners, seats, study
            layout = "narrow" if width < 500 else "wide"
            for i in range(forests.count()):
                assert layout in forests.nth(i).get_attribute("class")
                assert 340 < forests.nth(i).bounding_box()["width"] <= 640  # text neither tiny nor huge
            histograms = page.locator("svg.histogram")
            assert histograms.count() == len(report["stages"])
            assert all(histograms.nth(i).is_visible() for i in range(histograms.count()))
            points = page.locator("svg.forest:visible .point")
            assert points.count() == len(report["cards"]) * 2 + 6 + 4 + 1  # two panels, owners, seats, study
            assert points.first.is_visible() and points.last.is_visible()
            assert page.locator(".warning").is_visible()
            assert page.evaluate("document.scripts.length") == 0
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            shot = save_screenshot(page, tmp_path / f"simreport-{width}.png")
            assert shot.stat().st_size > 10_000
            # The numbers under each chart open with a click, no script needed.
            tables = page.locator("details.numbers table")
            assert tables.count() == 4 + 1 + 1 and not tables.first.is_visible()
            for summary in page.locator("details.numbers > summary").all():
                summary.click()
            assert all(table.is_visible() for table in tables.all())
            assert page.locator("table.cards th", has_text=HOSTILE).count() == 1  # shown as text
            # Nothing wider than the screen but the tables, which scroll in their own box.
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            guard.assert_clean()
        finally:
            browser.close()
