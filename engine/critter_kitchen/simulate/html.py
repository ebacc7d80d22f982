"""The balance lab's report as one self-contained HTML page, for a browser with no network.

``render_html`` takes the report dictionary that ``simulate --format json`` prints and returns
a page that fetches nothing and runs no script: the style is inline, every chart is an SVG
drawn here, and a Content-Security-Policy forbids the rest, so a page that a hostile pack's
card names reach stays inert even if an escape were missed. Every text and number from the
report is escaped (card names come from packs anyone can write); a part that is missing, or
not of the expected shape, is shown as "not in this report" instead of failing.

Each chart has a title and a description for screen readers, a title on each mark (shown on
hover) and, under it, a table of the same numbers. The same report gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from ..errors import escaped

__all__ = ["render_html"]

Interval = tuple[float, float]

MISSING = '<p class="missing">Not in this report.</p>'
LIMIT = 1e12


def render_html(report: Mapping[str, Any]) -> str:
    """The whole page for ``report`` (the ``simulate`` JSON object), as text."""
    ids = _Ids()
    body = "\n".join(
        [
            _header(report),
            _model_warning(report.get("model")),
            _contents(),
            _cards_section(report, ids),
            _seats_section(report, ids),
            _stages_section(report.get("stages"), ids),
            _tiebreaks_section(report.get("tiebreaks")),
            _study_section(report, ids),
            _notes_section(report.get("notes")),
            "<footer><p>Made by <code>critter-kitchen simulate</code>. This page fetches nothing and runs no script."
            "</p></footer>",
        ]
    )
    return _PAGE_START + _STYLE + _PAGE_MIDDLE + body + _PAGE_END


# --- values from the report: anything of the wrong shape counts as missing -----------------


def _text(value: object) -> str:
    """Any value as HTML text: control characters shown as escapes, markup characters escaped."""
    return escape(escaped(value if isinstance(value, str) else str(value)), quote=True)


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _interval(value: object) -> Interval | None:
    """A two-number interval, low end first whichever order the report gives it in."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    low, high = _number(value[0]), _number(value[1])
    if low is None or high is None:
        return None
    return (min(low, high), max(low, high))


def _rows(value: object) -> list[Mapping[str, Any]] | None:
    """The mappings of a list (others skipped), or None when it is not a list at all."""
    if not isinstance(value, list | tuple):
        return None
    return [row for row in value if isinstance(row, Mapping)]


def _stars(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def _games(value: object) -> str:
    count = _count(value)
    return f"{count:,}" if count is not None else _text(value) if value is not None else "—"


def _with_ci(value: float | None, ci: Interval | None, shown: Any) -> str:
    if value is None:
        return "—"
    return shown(value) if ci is None else f"{shown(value)} ({shown(ci[0])} to {shown(ci[1])})"


def _cut(name: str, length: int) -> str:
    return name if len(name) <= length else name[: length - 1] + "…"


class _Ids:
    """Element ids unique within one page, in the order they are asked for."""

    def __init__(self) -> None:
        self.last = 0

    def next(self) -> str:
        self.last += 1
        return f"chart{self.last}"


# --- axes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Axis:
    """A linear scale from data values to SVG x (or y) positions, with round tick values."""

    low: float
    high: float
    step: float
    start: float
    end: float
    percent: bool

    def at(self, value: float) -> float:
        value = min(max(value, self.low), self.high)  # only values past LIMIT lie outside
        return self.start + (value - self.low) / (self.high - self.low) * (self.end - self.start)

    def ticks(self) -> list[float]:
        count = round((self.high - self.low) / self.step)
        return [round(self.low + i * self.step, 10) for i in range(count + 1)]

    def label(self, value: float) -> str:
        scale = 100.0 if self.percent else 1.0
        decimals = _decimals(self.step * scale)
        return f"{value * scale:.{decimals}f}" + ("%" if self.percent else "")


def axis_for(values: Iterable[float], start: float, end: float, *, percent: bool = False) -> Axis:
    """An axis from ``start`` to ``end`` whose round ends hold every value (zero always included)."""
    # Values past a trillion are drawn at the edge: their spread would overflow the arithmetic.
    points = [0.0, *(min(max(v, -LIMIT), LIMIT) for v in values)]
    low, high = min(points), max(points)
    if high - low < 1e-12:
        high = low + (0.1 if percent else 1.0)
    step = _nice_step((high - low) / 4)
    low = math.floor(low / step + 1e-9) * step
    high = math.ceil(high / step - 1e-9) * step
    return Axis(low, high, step, start, end, percent)


def _nice_step(raw: float) -> float:
    magnitude = 10.0 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * magnitude >= raw * (1 - 1e-9))


def _decimals(step: float) -> int:
    decimals = 0
    while decimals < 6 and abs(round(step * 10**decimals) - step * 10**decimals) > 1e-6:
        decimals += 1
    return decimals


def _f(value: float) -> str:
    """An SVG coordinate: one decimal is finer than a pixel and keeps the bytes stable."""
    return f"{value:.1f}"


# --- the forest plot: one row per card (or seat), a point and its interval ------------------


@dataclass(frozen=True)
class Mark:
    label: str
    value: float | None
    ci: Interval | None
    flag: str | None
    title: str


FLAG_SYMBOL = {"strong": "▲", "weak": "▼"}


@dataclass(frozen=True)
class Layout:
    """Where a forest plot puts things: labels beside the rows (wide) or above them (narrow)."""

    name: str
    width: int
    row: int
    label_chars: int
    plot_start: int
    plot_end: int
    label_above: bool


TOP = 48  # room for the heading and, under it, a reference line's label
BOTTOM = 34
LABEL_END = 150  # where the wide layout's label column ends (and names are clipped)
FLAG_X = 160
# The narrow one is drawn at about a phone's width, so its text stays readable there; CSS
# shows one of the two by the width of the figure that holds them.
WIDE = Layout("wide", 480, 24, 24, 176, 462, label_above=False)
NARROW = Layout("narrow", 360, 38, 48, 10, 348, label_above=True)


def forest_figure(
    ids: _Ids,
    title: str,
    marks: Sequence[Mark],
    *,
    percent: bool,
    reference: float | None = None,
    reference_label: str = "",
) -> str:
    """A forest plot panel in both layouts, inside one figure."""
    charts = [
        forest_svg(ids, title, marks, layout, percent=percent, reference=reference, reference_label=reference_label)
        for layout in (WIDE, NARROW)
    ]
    return f"<figure>{''.join(charts)}</figure>"


def forest_svg(
    ids: _Ids,
    title: str,
    marks: Sequence[Mark],
    layout: Layout,
    *,
    percent: bool,
    reference: float | None = None,
    reference_label: str = "",
) -> str:
    """One panel of a forest plot: every mark's interval and point against a zero line."""
    chart = ids.next()
    numbers = [v for m in marks for v in (m.value, *(m.ci or ())) if v is not None]
    extra = [reference] if reference is not None else []
    axis = axis_for([*numbers, *extra], layout.plot_start, layout.plot_end, percent=percent)
    rows_end = TOP + layout.row * max(len(marks), 1)
    height = rows_end + BOTTOM
    parts = [
        f'<svg class="chart forest {layout.name}" viewBox="0 0 {layout.width} {height}" role="img" '
        f'aria-labelledby="{chart}-t {chart}-d" data-rows="{len(marks)}">',
        f'<title id="{chart}-t">{_text(title)}</title>',
        f'<desc id="{chart}-d">{_text(_forest_description(title, marks))}</desc>',
        f'<text class="heading" x="0" y="16">{_text(title)}</text>',
    ]
    if not layout.label_above:
        parts.append(
            f'<defs><clipPath id="{chart}-c"><rect x="0" y="0" width="{LABEL_END}" height="{height}"/>'
            "</clipPath></defs>"
        )
    parts += [
        f'<rect class="stripe" x="0" y="{TOP + i * layout.row}" width="{layout.width}" height="{layout.row}"/>'
        for i in range(0, len(marks), 2)
    ]
    parts += _grid(axis, TOP - 6, rows_end + 4)
    if reference is not None:
        parts.append(_reference(axis, reference, reference_label, rows_end, layout))
    parts += [
        _forest_row(axis, mark, TOP + i * layout.row, chart, layout, striped=i % 2 == 0) for i, mark in enumerate(marks)
    ]
    if not marks:
        parts.append(f'<text class="na" x="{layout.plot_start + 4}" y="{TOP + 16}">nothing to show</text>')
    parts.append("</svg>")
    return "".join(parts)


def _grid(axis: Axis, top: float, bottom: float) -> list[str]:
    """Tick lines with their labels under the plot, and the zero line drawn stronger."""
    parts = []
    for tick in axis.ticks():
        x = _f(axis.at(tick))
        kind = "zero" if abs(tick) < 1e-12 else "tick"
        parts.append(
            f'<line class="{kind}" x1="{x}" x2="{x}" y1="{_f(top)}" y2="{_f(bottom)}"/>'
            f'<text class="axis" x="{x}" y="{_f(bottom + 14)}" text-anchor="middle">{axis.label(tick)}</text>'
        )
    return parts


def _reference(axis: Axis, value: float, label: str, rows_end: float, layout: Layout) -> str:
    """A dashed reference line (a fair share), its label kept inside the chart at either end."""
    x = axis.at(value)
    anchor = "end" if x > layout.width * 0.7 else "start" if x < layout.width * 0.3 else "middle"
    return (
        f'<g class="ref"><title>{_text(label)}</title>'
        f'<line x1="{_f(x)}" x2="{_f(x)}" y1="{TOP - 10}" y2="{_f(rows_end + 4)}"/>'
        f'<text x="{_f(x)}" y="{TOP - 14}" text-anchor="{anchor}">{_text(label)}</text></g>'
    )


def _forest_row(axis: Axis, mark: Mark, top: float, chart: str, layout: Layout, *, striped: bool) -> str:
    flag = mark.flag if mark.flag in FLAG_SYMBOL else None
    name = _text(_cut(mark.label, layout.label_chars))
    parts = [f'<g class="{f"mark {flag}" if flag else "mark"}"><title>{_text(mark.title)}</title>']
    if layout.label_above:
        y = top + 27
        symbol = f'<tspan class="flag">{FLAG_SYMBOL[flag]}</tspan> ' if flag else ""
        # A halo in the row's own colour keeps the name legible where grid lines cross it.
        halo = "label halo-stripe" if striped else "label halo"
        parts.append(f'<text class="{halo}" x="2" y="{_f(top + 13)}">{symbol}{name}</text>')
    else:
        y = top + layout.row / 2
        parts.append(f'<text class="label" x="2" y="{_f(y + 4)}" clip-path="url(#{chart}-c)">{name}</text>')
        if flag:
            parts.append(
                f'<text class="flag" x="{FLAG_X}" y="{_f(y + 4)}" text-anchor="middle">{FLAG_SYMBOL[flag]}</text>'
            )
    if mark.value is None:
        parts.append(f'<text class="na" x="{layout.plot_start + 4}" y="{_f(y + 4)}">no data</text>')
    else:
        if mark.ci is not None:
            low, high = _f(axis.at(mark.ci[0])), _f(axis.at(mark.ci[1]))
            parts.append(
                f'<line class="ci" x1="{low}" x2="{high}" y1="{_f(y)}" y2="{_f(y)}"/>'
                f'<line class="cap" x1="{low}" x2="{low}" y1="{_f(y - 5)}" y2="{_f(y + 5)}"/>'
                f'<line class="cap" x1="{high}" x2="{high}" y1="{_f(y - 5)}" y2="{_f(y + 5)}"/>'
            )
        parts.append(_point(axis.at(mark.value), y, flag))
    parts.append("</g>")
    return "".join(parts)


def _point(x: float, y: float, flag: str | None) -> str:
    """A circle for a card, a triangle pointing up or down for one flagged strong or weak."""
    if flag == "strong":
        return f'<path class="point" d="M{_f(x)} {_f(y - 7)}L{_f(x + 6)} {_f(y + 4)}L{_f(x - 6)} {_f(y + 4)}Z"/>'
    if flag == "weak":
        return f'<path class="point" d="M{_f(x)} {_f(y + 7)}L{_f(x + 6)} {_f(y - 4)}L{_f(x - 6)} {_f(y - 4)}Z"/>'
    return f'<circle class="point" cx="{_f(x)}" cy="{_f(y)}" r="4.5"/>'


def _forest_description(title: str, marks: Sequence[Mark]) -> str:
    return f"{title}: " + ("; ".join(m.title for m in marks) if marks else "nothing to show.")


# --- the page's parts ------------------------------------------------------------------------


def _header(report: Mapping[str, Any]) -> str:
    packs = report.get("packs")
    if isinstance(packs, list | tuple):
        shown_packs = ", ".join(_text(p) for p in packs) if packs else "none"
    else:
        shown_packs = "not in this report"
    facts = [
        ("Games", _games(report.get("games")) if "games" in report else "not in this report"),
        ("Players", _text(report["players"]) if "players" in report else "not in this report"),
        ("Seed", _text(report["seed"]) if "seed" in report else "not in this report"),
        ("Packs", shown_packs),
    ]
    items = "".join(f"<div><dt>{name}</dt><dd>{value}</dd></div>" for name, value in facts)
    return (
        "<header><h1>Critter Kitchen balance report</h1>"
        '<p class="lede">Simulated scoring phases, every game scored by the engine, and each card '
        "scored again without it on the same meals.</p>"
        f'<dl class="facts">{items}</dl></header>'
    )


def _model_warning(model: object) -> str:
    if not isinstance(model, Mapping) or not isinstance(model.get("unverified"), list | tuple):
        return '<p class="missing">Deal model: not in this report.</p>'
    unverified = model["unverified"]
    if not unverified:
        return '<p class="verified">Every number of the deal model is marked as known.</p>'
    names = "".join(f"<li><code>{_text(name)}</code></li>" for name in unverified)
    return (
        '<aside class="warning" role="note"><h2>Unverified deal model</h2>'
        f"<p>{len(unverified)} number{'s' if len(unverified) != 1 else ''} of the deal model "
        "that these games were drawn from "
        f"{'are' if len(unverified) != 1 else 'is'} not verified against the retail game. "
        "Results that depend on what players draw are estimates until "
        f"{'they are' if len(unverified) != 1 else 'it is'} checked:</p>"
        f'<ul class="names">{names}</ul></aside>'
    )


def _contents() -> str:
    links = [
        ("cards", "Cards"),
        ("seats", "Seat advantage"),
        ("stages", "Stars per stage"),
        ("tiebreaks", "Tie-breaks"),
        ("study", "Study"),
        ("notes", "Notes"),
    ]
    return (
        '<nav aria-label="Contents"><ul>'
        + "".join(f'<li><a href="#{anchor}">{name}</a></li>' for anchor, name in links)
        + "</ul></nav>"
    )


def _cards_section(report: Mapping[str, Any], ids: _Ids) -> str:
    cards = _rows(report.get("cards"))
    head = (
        '<section id="cards"><h2>Cards</h2><p class="explain">For each card: the stars its own awards '
        "gave per game it was in play (all players together), and the share of those games in which "
        "scoring the same meals without it names another winner. Strongest first within each kind. "
        "Lines are 95% intervals; ▲ and ▼ mark a card whose interval lies wholly above or below the "
        "others of its kind.</p>"
    )
    if cards is None:
        return head + MISSING + "</section>"
    if not cards:
        return head + '<p class="missing">No card was in play.</p></section>'
    players = _number(report.get("players"))
    kinds = list(dict.fromkeys(_kind(card) for card in cards))
    return (
        head
        + "".join(_kind_block(kind, [c for c in cards if _kind(c) == kind], players, ids) for kind in kinds)
        + "</section>"
    )


def _kind(card: Mapping[str, Any]) -> str:
    kind = card.get("kind")
    return kind if isinstance(kind, str) else "other"


def _name(card: Mapping[str, Any]) -> str:
    for key in ("name", "id"):
        if isinstance(card.get(key), str) and card[key]:
            return str(card[key])
    return "(unnamed)"


def ranked(cards: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Strongest first by mean stars (cards without a mean last), ties by id for stable output."""

    def key(card: Mapping[str, Any]) -> tuple[bool, float, str]:
        mean = _number(card.get("stars_mean"))
        return (mean is None, -(mean or 0.0), _text(card.get("id", "")))

    return sorted(cards, key=key)


def _kind_block(kind: str, cards: Sequence[Mapping[str, Any]], players: float | None, ids: _Ids) -> str:
    cards = ranked(cards)
    label = kind.capitalize()
    held = any(_number(c.get("owner_win_rate")) is not None for c in cards)
    panels = [
        forest_figure(
            ids,
            f"{label} cards: stars per game",
            [_card_mark(c, "stars_mean", "stars_ci", _stars, "stars per game") for c in cards],
            percent=False,
        ),
        forest_figure(
            ids,
            f"{label} cards: winner flips",
            [
                _card_mark(c, "winner_flip_rate", "winner_flip_ci", _rate, "of games change winner without it")
                for c in cards
            ],
            percent=True,
        ),
    ]
    if held:
        fair = 1 / players if players else None
        panels.append(
            forest_figure(
                ids,
                f"{label} cards: owner's win rate",
                [_card_mark(c, "owner_win_rate", "owner_win_ci", _rate, "of games won by its owner") for c in cards],
                percent=True,
                reference=fair,
                reference_label=f"1/{players:g} = {_rate(fair)}" if players and fair else "",
            )
        )
    return (
        f'<section class="kind"><h3>{_text(label)} <span class="count">({len(cards)} '
        f"card{'s' if len(cards) != 1 else ''})</span></h3>"
        f'<div class="panels">{"".join(panels)}</div>'
        f"{_cards_table(label, cards, held=held)}</section>"
    )


def _card_mark(card: Mapping[str, Any], value_key: str, ci_key: str, shown: Any, meaning: str) -> Mark:
    value, ci = _number(card.get(value_key)), _interval(card.get(ci_key))
    flag = card.get("flag") if card.get("flag") in FLAG_SYMBOL else None
    name = _name(card)
    if value is None:
        title = f"{name}: no data"
    else:
        title = f"{name}: {shown(value)} {meaning}" + (f", 95% interval {shown(ci[0])} to {shown(ci[1])}" if ci else "")
    if flag:
        title += f"; flagged {flag}"
    return Mark(name, value, ci, flag, title)


def _cards_table(label: str, cards: Sequence[Mapping[str, Any]], *, held: bool) -> str:
    """The numbers under a kind's charts; the owner column only for a kind that players hold."""
    columns = ["#", "card", "games", "stars per game", "winner flips", *(["owner wins"] if held else []), "flag"]
    rows = []
    for rank, card in enumerate(cards, 1):
        flag = card.get("flag")
        cells = [
            _games(card.get("games")),
            _cell(card, "stars_mean", "stars_ci", _stars),
            _cell(card, "winner_flip_rate", "winner_flip_ci", _rate),
            *([_cell(card, "owner_win_rate", "owner_win_ci", _rate)] if held else []),
            f"{FLAG_SYMBOL[flag]} {flag}" if flag in FLAG_SYMBOL else "",
        ]
        rows.append(
            f'<tr data-card="{_text(card.get("id", ""))}"><td>{rank}</td>'
            f'<th scope="row">{_text(_name(card))} <code>{_text(card.get("id", ""))}</code></th>'
            + "".join(f"<td>{cell}</td>" for cell in cells)
            + "</tr>"
        )
    head = "".join(f'<th scope="col">{column}</th>' for column in columns)
    return _numbers(
        f"The numbers: {_text(label).lower()} cards, ranked",
        f'<table class="cards"><caption>{_text(label)} cards, the numbers behind the charts (95% intervals in '
        f"brackets)</caption><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>",
    )


def _numbers(summary: str, table: str) -> str:
    """The table under a chart, folded away until asked for (a details element needs no script)."""
    return f'<details class="numbers"><summary>{summary}</summary><div class="table-wrap">{table}</div></details>'


def _cell(row: Mapping[str, Any], value_key: str, ci_key: str, shown: Any) -> str:
    return _with_ci(_number(row.get(value_key)), _interval(row.get(ci_key)), shown)


def _seats_section(report: Mapping[str, Any], ids: _Ids) -> str:
    head = (
        '<section id="seats"><h2>Seat advantage</h2><p class="explain">How often the player in each '
        "priority seat won (seat 1 is first on the priority track), against the fair share of one "
        "game in the number of players.</p>"
    )
    seats = _rows(report.get("seats"))
    if seats is None:
        return head + MISSING + "</section>"
    if not seats:
        return head + '<p class="missing">No seat was played.</p></section>'
    players = _number(report.get("players"))
    fair = 1 / players if players else None
    marks = [_seat_mark(seat) for seat in seats]
    chart = forest_figure(
        ids,
        "Win rate by priority seat",
        marks,
        percent=True,
        reference=fair,
        reference_label=f"fair share 1/{players:g} = {_rate(fair)}" if players and fair else "",
    )
    rows = "".join(
        f'<tr><th scope="row">{_text(seat.get("priority", "?"))}</th><td>{_games(seat.get("games"))}</td>'
        f"<td>{_games(seat.get('wins'))}</td>"
        f"<td>{_with_ci(_number(seat.get('win_rate')), _interval(seat.get('win_ci')), _rate)}</td></tr>"
        for seat in seats
    )
    table = _numbers(
        "The numbers: wins by seat",
        '<table class="seats"><caption>Wins by priority seat (95% intervals in brackets)</caption>'
        '<thead><tr><th scope="col">seat</th><th scope="col">games</th><th scope="col">wins</th>'
        f'<th scope="col">win rate</th></tr></thead><tbody>{rows}</tbody></table>',
    )
    return head + f'<div class="panels single">{chart}</div>{table}</section>'


def _seat_mark(seat: Mapping[str, Any]) -> Mark:
    label = f"seat {escaped(str(seat.get('priority', '?')))}"
    value, ci = _number(seat.get("win_rate")), _interval(seat.get("win_ci"))
    title = f"{label}: " + ("no data" if value is None else _with_ci(value, ci, _rate) + " of games won")
    return Mark(label, value, ci, None, title)


# --- stars per stage: a small bar chart of each stage's histogram ---------------------------

H_WIDTH = 260
H_HEIGHT = 150
H_LEFT = 34
H_RIGHT = H_WIDTH - 8
H_TOP = 24
H_BOTTOM = 112
MAX_BARS = 200


def _stages_section(value: object, ids: _Ids) -> str:
    head = (
        '<section id="stages"><h2>Stars per stage</h2><p class="explain">How many stars a player got '
        "from each stage in a game: the share of player-games at each number of stars, the mean "
        "marked with its 95% interval.</p>"
    )
    stages = _rows(value)
    if stages is None:
        return head + MISSING + "</section>"
    if not stages:
        return head + '<p class="missing">No stage gave stars.</p></section>'
    charts = "".join(f"<figure>{_histogram_svg(ids, stage)}</figure>" for stage in stages)
    return head + f'<div class="small-multiples">{charts}</div>{_stages_table(stages)}</section>'


def histogram_bars(histogram: object) -> list[tuple[int, int]]:
    """``(stars, count)`` from a ``{"0": n, ...}`` histogram, every value between the ends included."""
    if not isinstance(histogram, Mapping):
        return []
    counts: dict[int, int] = {}
    for key, count in histogram.items():
        stars, number = _integer_key(key), _count(count)
        if stars is not None and number is not None and number >= 0:
            counts[stars] = counts.get(stars, 0) + number
    if not counts:
        return []
    low, high = min(counts), max(counts)
    if high - low >= MAX_BARS:  # a very wide range: the values that occur, not every one between
        return sorted(counts.items())
    return [(stars, counts.get(stars, 0)) for stars in range(low, high + 1)]


def _integer_key(key: object) -> int | None:
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str) and key.strip().lstrip("-").isdigit() and len(key) < 12:
        return int(key)
    return None


def _histogram_svg(ids: _Ids, stage: Mapping[str, Any]) -> str:
    chart = ids.next()
    name = str(stage.get("stage", "(unnamed stage)"))
    bars = histogram_bars(stage.get("histogram"))
    total = sum(count for _, count in bars)
    mean, ci = _number(stage.get("stars_mean")), _interval(stage.get("stars_ci"))
    summary = f"mean {_with_ci(mean, ci, _stars)} stars per player per game"
    parts = [
        f'<svg class="chart histogram" viewBox="0 0 {H_WIDTH} {H_HEIGHT}" role="img" '
        f'aria-labelledby="{chart}-t {chart}-d" data-bars="{len(bars)}">',
        f'<title id="{chart}-t">{_text(name)}</title>',
        f'<desc id="{chart}-d">{_text(name)}: {_text(summary)}; '
        f"{_text(', '.join(f'{s} stars: {c:,}' for s, c in bars)) or 'no histogram'}</desc>",
        f'<text class="heading" x="0" y="14">{_text(_cut(name, 30))}</text>',
    ]
    if not bars or total == 0:
        parts.append(f'<text class="na" x="{H_LEFT}" y="{H_TOP + 40}">no histogram</text></svg>')
        return "".join(parts) + f"<figcaption>{_text(summary)}</figcaption>"
    tallest = max(count for _, count in bars) / total
    y_axis = axis_for([tallest], H_BOTTOM, H_TOP, percent=True)
    for tick in y_axis.ticks():
        y = _f(y_axis.at(tick))
        parts.append(
            f'<line class="{"zero" if tick == 0 else "tick"}" x1="{H_LEFT}" x2="{H_RIGHT}" y1="{y}" y2="{y}"/>'
            f'<text class="axis" x="{H_LEFT - 4}" y="{_f(float(y) + 4)}" text-anchor="end">'
            f"{y_axis.label(tick)}</text>"
        )
    slot = (H_RIGHT - H_LEFT) / len(bars)
    label_every = max(1, math.ceil(len(bars) / 10))
    for i, (stars, count) in enumerate(bars):
        x, top = H_LEFT + i * slot, y_axis.at(count / total)
        parts.append(
            f'<rect class="bar" x="{_f(x + slot * 0.1)}" y="{_f(top)}" width="{_f(slot * 0.8)}" '
            f'height="{_f(H_BOTTOM - top)}"><title>{stars} stars: {count:,} player-games '
            f"({_rate(count / total)})</title></rect>"
        )
        if i % label_every == 0 or i == len(bars) - 1:
            parts.append(
                f'<text class="axis" x="{_f(x + slot / 2)}" y="{H_BOTTOM + 14}" text-anchor="middle">{stars}</text>'
            )
    parts.append(_histogram_mean(bars, slot, mean, ci, summary))
    parts.append(
        f'<text class="axis" x="{_f((H_LEFT + H_RIGHT) / 2)}" y="{H_HEIGHT - 4}" '
        'text-anchor="middle">stars</text></svg>'
    )
    return "".join(parts) + f"<figcaption>{_text(summary)}</figcaption>"


def _histogram_mean(
    bars: Sequence[tuple[int, int]], slot: float, mean: float | None, ci: Interval | None, summary: str
) -> str:
    """The mean as a line over the bars (at the bar centres' scale), its interval as a band."""
    if mean is None or bars[-1][0] - bars[0][0] != len(bars) - 1:
        return ""

    def x(stars: float) -> float:
        return min(max(H_LEFT + (stars - bars[0][0] + 0.5) * slot, H_LEFT), H_RIGHT)

    band = (
        f'<rect class="band" x="{_f(x(ci[0]))}" y="{H_TOP}" width="{_f(max(x(ci[1]) - x(ci[0]), 1.0))}" '
        f'height="{H_BOTTOM - H_TOP}"/>'
        if ci
        else ""
    )
    return (
        f'<g class="mean"><title>{_text(summary)}</title>{band}'
        f'<line x1="{_f(x(mean))}" x2="{_f(x(mean))}" y1="{H_TOP - 4}" y2="{H_BOTTOM}"/></g>'
    )


def _stages_table(stages: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for stage in stages:
        bars = histogram_bars(stage.get("histogram"))
        counts = ", ".join(f"{s}: {c:,}" for s, c in bars) or "—"
        rows.append(
            f'<tr><th scope="row">{_text(stage.get("stage", "(unnamed stage)"))}</th>'
            f"<td>{_with_ci(_number(stage.get('stars_mean')), _interval(stage.get('stars_ci')), _stars)}</td>"
            f'<td class="counts">{_text(counts)}</td></tr>'
        )
    return _numbers(
        "The numbers: stars per stage",
        '<table class="stages"><caption>Stars per player per game, by stage (95% intervals in brackets)</caption>'
        '<thead><tr><th scope="col">stage</th><th scope="col">mean stars</th>'
        '<th scope="col">player-games at each number of stars</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>",
    )


# --- tie-breaks, the study, the notes ---------------------------------------------------------


def _tiebreaks_section(value: object) -> str:
    head = (
        '<section id="tiebreaks"><h2>Tie-breaks</h2><p class="explain">How often each tie-break decided the winner.</p>'
    )
    tiebreaks = _rows(value)
    if tiebreaks is None:
        return head + MISSING + "</section>"
    if not tiebreaks:
        return head + '<p class="missing">No game needed a tie-break.</p></section>'
    rows = "".join(
        f'<tr><th scope="row">{_text(t.get("name", "(unnamed)"))}</th><td>{_games(t.get("games"))}</td>'
        f"<td>{_rate(_number(t.get('rate')))}</td><td>{_rate_bar(_number(t.get('rate')))}</td></tr>"
        for t in tiebreaks
    )
    return (
        head + '<div class="table-wrap"><table class="tiebreaks"><caption>Games decided by each '
        'tie-break</caption><thead><tr><th scope="col">tie-break</th><th scope="col">games</th>'
        '<th scope="col">share of games</th><th scope="col"><span class="sr">bar</span></th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div></section>"
    )


def _rate_bar(rate: float | None) -> str:
    if rate is None:
        return ""
    width = _f(min(max(rate, 0.0), 1.0) * 120)
    return (
        f'<svg class="rate-bar" viewBox="0 0 120 10" width="120" height="10" aria-hidden="true">'
        f'<rect class="track" x="0" y="0" width="120" height="10"/>'
        f'<rect class="bar" x="0" y="0" width="{width}" height="10"/></svg>'
    )


def _study_section(report: Mapping[str, Any], ids: _Ids) -> str:
    head = '<section id="study"><h2>Study</h2>'
    if "study" not in report:
        return head + MISSING + "</section>"
    studies = _rows(report.get("study"))
    if studies is None or not studies:
        return head + (
            '<p class="missing">No study in this run (<code>--study CARD</code> forces a card into '
            "every game, against the same games without it).</p></section>"
        )
    names = {str(c.get("id")): _name(c) for c in _rows(report.get("cards")) or []}
    marks = [_study_mark(s, names) for s in studies]
    chart = forest_figure(ids, "Study: difference with the card minus without", marks, percent=False)
    tables = "".join(_study_table(s) for s in studies)
    return (
        head + '<p class="explain">Each studied card was forced into every game and compared with '
        "the same games without it: the difference is with minus without, with its 95% interval.</p>"
        f'<div class="panels single">{chart}</div>{tables}</section>'
    )


def _study_mark(study: Mapping[str, Any], names: Mapping[str, str]) -> Mark:
    """The studied card by its name when the report lists it, else by its id."""
    card = str(study.get("card", "(unnamed)"))
    name = names.get(card, card)
    value, ci = _number(study.get("difference")), _interval(study.get("difference_ci"))
    title = f"{name}: difference " + ("no data" if value is None else _with_ci(value, ci, _signed))
    return Mark(name, value, ci, None, title)


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _study_table(study: Mapping[str, Any]) -> str:
    with_, without = study.get("with"), study.get("without")
    with_ = with_ if isinstance(with_, Mapping) else {}
    without = without if isinstance(without, Mapping) else {}
    keys = list(dict.fromkeys([*with_, *without]))
    rows = "".join(
        f'<tr><th scope="row">{_text(k)}</th><td>{_shown(with_.get(k))}</td><td>{_shown(without.get(k))}</td></tr>'
        for k in keys
    )
    difference = _with_ci(_number(study.get("difference")), _interval(study.get("difference_ci")), _signed)
    return (
        f'<div class="table-wrap"><table class="study"><caption>Study of <code>{_text(study.get("card", ""))}'
        f"</code>: difference {_text(difference)}</caption>"
        '<thead><tr><th scope="col">measure</th><th scope="col">with the card</th>'
        f'<th scope="col">without</th></tr></thead><tbody>{rows}</tbody></table></div>'
    )


def _shown(value: object) -> str:
    """A study measure: numbers rounded, intervals as "lo to hi", anything else as text."""
    number, interval = _number(value), _interval(value)
    if value is None:
        return "—"
    if _count(value) is not None:
        return f"{value:,}"
    if number is not None:
        return f"{number:.4g}"
    if interval is not None:
        return f"{interval[0]:.4g} to {interval[1]:.4g}"
    return _text(value)


def _notes_section(value: object) -> str:
    head = '<section id="notes"><h2>Notes</h2>'
    if not isinstance(value, list | tuple):
        return head + MISSING + "</section>"
    if not value:
        return head + '<p class="missing">No notes.</p></section>'
    return head + "<ul>" + "".join(f"<li>{_text(note)}</li>" for note in value) + "</ul></section>"


# --- the page ---------------------------------------------------------------------------------

# Nothing may load: styles only inline, images only data: (the empty icon stops a favicon request).
_PAGE_START = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
img-src data:; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Critter Kitchen balance report</title>
<link rel="icon" href="data:,">
<style>"""
_PAGE_MIDDLE = """</style>
</head>
<body>
<main>
"""
_PAGE_END = """
</main>
</body>
</html>
"""

_STYLE = """
:root { --ink: #1d2327; --muted: #5b6670; --line: #c9d1d8; --stripe: #f3f5f7; --paper: #fff;
  --accent: #1f5fa8; --strong: #b3261e; --weak: #1f5fa8; --warn-bg: #fff4d6; --warn-line: #c98a00;
  --bar: #4a7fb5; --band: rgba(179, 38, 30, .16); }
@media (prefers-color-scheme: dark) {
  :root { --ink: #e6eaee; --muted: #a6b0b9; --line: #46515b; --stripe: #20262c; --paper: #15191d;
    --accent: #8ab8ee; --strong: #ff8a80; --weak: #8ab8ee; --warn-bg: #3a2f10; --warn-line: #e0b040;
    --bar: #6f9fd0; --band: rgba(255, 138, 128, .2); }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; background: var(--paper); color: var(--ink);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1160px; margin: 0 auto; padding: 16px 20px 40px; }
h1 { font-size: 1.7rem; margin: .2em 0 .1em; line-height: 1.2; }
h2 { font-size: 1.3rem; margin: 1.6em 0 .4em; border-bottom: 1px solid var(--line); padding-bottom: .2em; }
h3 { font-size: 1.1rem; margin: 1.2em 0 .3em; }
.count, .lede, .explain, .missing, .verified, figcaption, caption, footer { color: var(--muted); }
.explain { max-width: 60em; margin-top: 0; }
.facts { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 12px 0; }
.facts div { min-width: 5em; }
.facts dt { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.facts dd { margin: 0; font-size: 1.15rem; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.warning { background: var(--warn-bg); border-left: 5px solid var(--warn-line); padding: 8px 16px;
  margin: 12px 0; border-radius: 4px; }
.warning h2 { font-size: 1.05rem; border: 0; margin: .3em 0; }
.warning p { margin: .3em 0; }
.names { padding-left: 1.4em; margin: .3em 0; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 8px 0; }
a { color: var(--accent); }
code { font-size: .9em; overflow-wrap: anywhere; }
figure { margin: 0; min-width: 0; max-width: 640px; container-type: inline-size; }
/* A forest plot comes in two layouts; the figure's own width picks one (labels above the rows
   when there is no room beside them). Without container queries the wide one shows. */
svg.forest.narrow { display: none; }
@container (max-width: 400px) {
  svg.forest.wide { display: none; }
  svg.forest.narrow { display: block; }
}
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 400px), 1fr)); gap: 8px 24px; }
.panels.single { grid-template-columns: minmax(0, 560px); }
.small-multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 12px 20px; }
figcaption { font-size: .85rem; }
svg.chart { display: block; width: 100%; height: auto; overflow: visible; }
svg text { fill: var(--ink); font-size: 12px; font-family: inherit; }
svg text.heading { font-size: 13px; font-weight: 600; }
svg text.axis, svg text.na { fill: var(--muted); font-size: 11px; }
svg .stripe { fill: var(--stripe); }
svg .halo, svg .halo-stripe { paint-order: stroke; stroke: var(--paper); stroke-width: 4px; stroke-linejoin: round; }
svg .halo-stripe { stroke: var(--stripe); }
svg line.tick { stroke: var(--line); stroke-width: 1; }
svg line.zero { stroke: var(--ink); stroke-width: 1.5; }
svg .ref line { stroke: var(--strong); stroke-width: 1.5; stroke-dasharray: 5 3; }
svg .ref text { fill: var(--strong); font-size: 11px; }
svg .ci, svg .cap { stroke: var(--ink); stroke-width: 2; }
svg .point { fill: var(--ink); }
svg .strong .point, svg .strong .flag { fill: var(--strong); }
svg .strong .ci, svg .strong .cap { stroke: var(--strong); }
svg .weak .point, svg .weak .flag { fill: var(--weak); }
svg .weak .ci, svg .weak .cap { stroke: var(--weak); }
svg .bar { fill: var(--bar); }
svg .track { fill: var(--stripe); }
svg .band { fill: var(--band); }
svg .mean line { stroke: var(--strong); stroke-width: 2; }
.table-wrap { overflow-x: auto; margin: 8px 0 4px; }
table { border-collapse: collapse; font-size: .9rem; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-size: .85rem; padding: 4px 0; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { font-weight: 600; border-bottom: 2px solid var(--line); white-space: nowrap; }
tbody th { font-weight: 500; overflow-wrap: anywhere; min-width: 9em; }
tbody th code { display: block; font-weight: 400; font-size: .75rem; line-height: 1.2; color: var(--muted); }
td { white-space: nowrap; }
td.counts { white-space: normal; min-width: 16em; }
details { margin: 4px 0 12px; }
details[open] { margin-bottom: 20px; }
summary { cursor: pointer; color: var(--accent); }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
footer { margin-top: 2.5em; font-size: .85rem; }
@media (max-width: 520px) {
  main { padding: 10px 12px 32px; }
  h1 { font-size: 1.4rem; }
  th, td { padding: 3px 6px; }
}
"""
