"""The balance lab's report as one self-contained HTML page, for a browser with no network.

``render_html`` takes the report dictionary that ``simulate --format json`` prints and returns
a page that fetches nothing and runs no script: the style is inline, every chart is an SVG
drawn here, and a Content-Security-Policy forbids the rest, so a page that a hostile pack's
card names reach stays inert even if an escape were missed. A part that is missing, or not of
the expected shape, is shown as "not in this report" instead of failing.

This module works out what the page shows and where (text, numbers, coordinates); the Jinja2
templates in ``templates/`` write it as HTML and SVG, the same engine as the score pad's pages.
Autoescaping is on, and every value a template prints goes through :func:`shown`: control
characters written as escapes (card names come from packs anyone can write), then markup
characters escaped; only the templates' own macros print markup.

Each chart has a title and a description for screen readers, a title on each mark (shown on
hover) and, under it, a table of the same numbers. The same report gives the same bytes.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from jinja2.ext import Extension
from markupsafe import Markup

from ..errors import escaped
from ..report.text import star_count
from .report import SHARED_NOTE

__all__ = ["render_html"]

Interval = tuple[float, float]

LIMIT = 1e12


def render_html(report: Mapping[str, Any]) -> str:
    """The whole page for ``report`` (the ``simulate`` JSON object), as text."""
    ids = _Ids()
    page = {
        "facts": _facts(report),
        "unverified": _unverified(report.get("model")),
        "kinds": _cards_view(report, ids),
        "seats": _seats_view(report, ids),
        "stages": _stages_view(report.get("stages"), ids),
        "tiebreaks": _tiebreaks_view(report.get("tiebreaks")),
        "study": _study_view(report, ids),
        "notes": list(notes) if isinstance(notes := report.get("notes"), list | tuple) else None,
    }
    return _environment().get_template("report.html.j2").render(page=page)


# --- the templates ---------------------------------------------------------------------------


def shown(value: object) -> Markup:
    """Any value as HTML text: control characters shown as escapes, markup characters escaped.

    The environment's ``finalize``, so every value a template prints passes here (and it is the
    ``shown`` filter, for text changed after it is shown); markup made by the templates' own
    macros passes as it is.
    """
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(escaped(value if isinstance(value, str) else str(value)), quote=True))


class LaidOut(Extension):
    """The parts' template is laid out on lines: a line break and the indentation around it are
    left out next to a tag (HTML, or a template statement or comment) and are one space anywhere
    else, so the page holds only the white space the template writes within a line."""

    COMPACT = frozenset({"parts.html.j2"})
    BREAK = re.compile(r"[ \t]*\n\s*")

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        if name not in self.COMPACT:
            return source

        def joined(found: re.Match[str]) -> str:
            before, after = source[: found.start()], source[found.end() :]
            tag = before.endswith((">", "%}", "#}")) or after.startswith(("<", "{%", "{#"))
            return "" if tag or not before or not after else " "

        return self.BREAK.sub(joined, source)


@cache
def _environment() -> Environment:
    """The report's templates, read from the package (the wheel ships them), autoescaped."""
    environment = Environment(
        loader=PackageLoader("critter_kitchen.simulate", "templates"),
        autoescape=True,
        finalize=shown,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        extensions=[LaidOut],
    )
    environment.filters["shown"] = shown
    return environment


# --- values from the report: anything of the wrong shape counts as missing -----------------


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
    return f"{count:,}" if count is not None else str(value) if value is not None else "—"


def _wins(value: object) -> str:
    """A count of wins: whole, or with the fractions of shared wins (two decimals)."""
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:,.2f}"
    return _games(value)


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


@dataclass(frozen=True)
class Tick:
    kind: str  # "zero" (drawn stronger) or "tick"
    x: str
    label: str


@dataclass(frozen=True)
class Reference:
    """A dashed reference line (a fair share), its label kept inside the chart at either end."""

    label: str
    x: str
    top: int
    bottom: str
    label_y: int
    anchor: str


@dataclass(frozen=True)
class Point:
    """Where a mark's value is drawn: a circle at (x, y), or the triangle of ``path``."""

    x: str
    y: str
    path: str | None


@dataclass(frozen=True)
class DrawnMark:
    group: str  # the row's classes: "mark", with its flag if it has one
    title: str
    name: str  # the label, cut to the layout's room
    symbol: str  # the flag's symbol, or ""
    halo: str  # the label's class in the narrow layout
    label_y: str  # the narrow layout's label, above the row
    text_y: str  # the wide layout's label and flag, and "no data"
    y: str
    cap_top: str
    cap_bottom: str
    ci: tuple[str, str] | None
    point: Point | None  # None: no data


@dataclass(frozen=True)
class Forest:
    """One panel of a forest plot: every mark's interval and point against a zero line."""

    chart: str
    layout: Layout
    title: str
    description: str
    height: int
    label_end: int
    flag_x: int
    na_x: int
    empty_y: int
    stripes: list[int]
    ticks: list[Tick]
    grid_top: str
    grid_bottom: str
    tick_label_y: str
    reference: Reference | None
    marks: list[DrawnMark]


def forest_figure(
    ids: _Ids,
    title: str,
    marks: Sequence[Mark],
    *,
    percent: bool,
    reference: float | None = None,
    reference_label: str = "",
) -> list[Forest]:
    """A forest plot panel in both layouts, which the template puts inside one figure."""
    return [
        forest(ids, title, marks, layout, percent=percent, reference=reference, reference_label=reference_label)
        for layout in (WIDE, NARROW)
    ]


def forest(
    ids: _Ids,
    title: str,
    marks: Sequence[Mark],
    layout: Layout,
    *,
    percent: bool,
    reference: float | None = None,
    reference_label: str = "",
) -> Forest:
    """One panel of a forest plot in ``layout``."""
    chart = ids.next()
    numbers = [v for m in marks for v in (m.value, *(m.ci or ())) if v is not None]
    extra = [reference] if reference is not None else []
    axis = axis_for([*numbers, *extra], layout.plot_start, layout.plot_end, percent=percent)
    rows_end = TOP + layout.row * max(len(marks), 1)
    top, bottom = TOP - 6, rows_end + 4
    return Forest(
        chart=chart,
        layout=layout,
        title=title,
        description=_forest_description(title, marks),
        height=rows_end + BOTTOM,
        label_end=LABEL_END,
        flag_x=FLAG_X,
        na_x=layout.plot_start + 4,
        empty_y=TOP + 16,
        stripes=[TOP + i * layout.row for i in range(0, len(marks), 2)],
        ticks=[
            Tick("zero" if abs(tick) < 1e-12 else "tick", _f(axis.at(tick)), axis.label(tick)) for tick in axis.ticks()
        ],
        grid_top=_f(top),
        grid_bottom=_f(bottom),
        tick_label_y=_f(bottom + 14),
        reference=None if reference is None else _reference(axis, reference, reference_label, rows_end, layout),
        marks=[_drawn(axis, mark, TOP + i * layout.row, layout, striped=i % 2 == 0) for i, mark in enumerate(marks)],
    )


def _reference(axis: Axis, value: float, label: str, rows_end: float, layout: Layout) -> Reference:
    x = axis.at(value)
    anchor = "end" if x > layout.width * 0.7 else "start" if x < layout.width * 0.3 else "middle"
    return Reference(label, _f(x), TOP - 10, _f(rows_end + 4), TOP - 14, anchor)


def _drawn(axis: Axis, mark: Mark, top: float, layout: Layout, *, striped: bool) -> DrawnMark:
    flag = mark.flag if mark.flag in FLAG_SYMBOL else None
    y = top + 27 if layout.label_above else top + layout.row / 2
    point = None
    if mark.value is not None:
        point = _point(axis.at(mark.value), y, flag)
    ci = None
    if mark.value is not None and mark.ci is not None:
        ci = (_f(axis.at(mark.ci[0])), _f(axis.at(mark.ci[1])))
    return DrawnMark(
        group=f"mark {flag}" if flag else "mark",
        title=mark.title,
        name=_cut(mark.label, layout.label_chars),
        symbol=FLAG_SYMBOL[flag] if flag else "",
        # A halo in the row's own colour keeps the name legible where grid lines cross it.
        halo="label halo-stripe" if striped else "label halo",
        label_y=_f(top + 13),
        text_y=_f(y + 4),
        y=_f(y),
        cap_top=_f(y - 5),
        cap_bottom=_f(y + 5),
        ci=ci,
        point=point,
    )


def _point(x: float, y: float, flag: str | None) -> Point:
    """A circle for a card, a triangle pointing up or down for one flagged strong or weak."""
    if flag == "strong":
        return Point(_f(x), _f(y), f"M{_f(x)} {_f(y - 7)}L{_f(x + 6)} {_f(y + 4)}L{_f(x - 6)} {_f(y + 4)}Z")
    if flag == "weak":
        return Point(_f(x), _f(y), f"M{_f(x)} {_f(y + 7)}L{_f(x + 6)} {_f(y - 4)}L{_f(x - 6)} {_f(y - 4)}Z")
    return Point(_f(x), _f(y), None)


def _forest_description(title: str, marks: Sequence[Mark]) -> str:
    return f"{title}: " + ("; ".join(m.title for m in marks) if marks else "nothing to show.")


# --- the page's parts ------------------------------------------------------------------------


def _facts(report: Mapping[str, Any]) -> list[tuple[str, str]]:
    packs = report.get("packs")
    if isinstance(packs, list | tuple):
        shown_packs = ", ".join(str(p) for p in packs) if packs else "none"
    else:
        shown_packs = "not in this report"
    facts = [
        ("Games", _games(report.get("games")) if "games" in report else "not in this report"),
        ("Players", str(report["players"]) if "players" in report else "not in this report"),
        ("Seed", str(report["seed"]) if "seed" in report else "not in this report"),
        ("Packs", shown_packs),
    ]
    precision = report.get("precision")
    if isinstance(precision, Mapping):
        facts.append(("Precision", precision_said(precision)))
    return facts


def precision_said(precision: Mapping[str, Any]) -> str:
    """A --precision run's outcome in a line: the widest card's precision against the target,
    why the run stopped, and the cards that held it back."""
    reached, target = _number(precision.get("reached")), _number(precision.get("target"))
    if reached is None or target is None:
        return "not in this report"
    back = precision.get("held_back")
    line = f"±{reached:.4f} reached (target ±{target:g}), "
    if precision.get("stopped_by") == "precision":
        return line + f"stopped by precision after {_games(precision.get('games'))} games"
    line += f"stopped at the cap of {_games(precision.get('cap'))} games"
    if isinstance(back, list | tuple) and back:
        line += "; held back by " + ", ".join(str(c) for c in back)
    return line


def _unverified(model: object) -> list[Any] | None:
    """The deal model's unverified numbers, or None when the report does not say."""
    if not isinstance(model, Mapping) or not isinstance(model.get("unverified"), list | tuple):
        return None
    return list(model["unverified"])


@dataclass(frozen=True)
class CardRow:
    id: str
    name: str
    cells: list[str]


@dataclass(frozen=True)
class Kind:
    label: str
    panels: list[list[Forest]]
    columns: list[str]
    rows: list[CardRow]


def _cards_view(report: Mapping[str, Any], ids: _Ids) -> list[Kind] | None:
    cards = _rows(report.get("cards"))
    if cards is None:
        return None
    players = _number(report.get("players"))
    kinds = list(dict.fromkeys(_kind(card) for card in cards))
    return [_kind_block(kind, [c for c in cards if _kind(c) == kind], players, ids) for kind in kinds]


def _kind(card: Mapping[str, Any]) -> str:
    kind = card.get("kind")
    return kind if isinstance(kind, str) else "other"


def _name(card: Mapping[str, Any]) -> str:
    for key in ("name", "id"):
        if isinstance(card.get(key), str) and card[key]:
            return str(card[key])
    return "(unnamed)"


def ranked(cards: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Strongest first by mean stars (cards without a mean last), ties by id as shown, for stable output."""

    def key(card: Mapping[str, Any]) -> tuple[bool, float, str]:
        mean = _number(card.get("stars_mean"))
        return (mean is None, -(mean or 0.0), shown(card.get("id", "")))

    return sorted(cards, key=key)


def _kind_block(kind: str, cards: Sequence[Mapping[str, Any]], players: float | None, ids: _Ids) -> Kind:
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
    precise = any("precision" in c for c in cards)  # a --precision run: each card's precision reached
    columns = [
        "#",
        "card",
        "games",
        "stars per game",
        "winner flips",
        *(["owner wins"] if held else []),
        *(["precision ±"] if precise else []),
        "flag",
    ]
    return Kind(label, panels, columns, [_card_row(card, held=held, precise=precise) for card in cards])


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


def _card_row(card: Mapping[str, Any], *, held: bool, precise: bool = False) -> CardRow:
    """A card's numbers under its kind's charts; the owner column only for a kind that players
    hold, the precision column only in a --precision run's report."""
    flag = card.get("flag")
    cells = [
        _games(card.get("games")),
        _cell(card, "stars_mean", "stars_ci", _stars),
        _cell(card, "winner_flip_rate", "winner_flip_ci", _rate),
        *([_cell(card, "owner_win_rate", "owner_win_ci", _rate)] if held else []),
        *([_precision_cell(card.get("precision"))] if precise else []),
        f"{FLAG_SYMBOL[flag]} {flag}" if flag in FLAG_SYMBOL else "",
    ]
    return CardRow(str(card.get("id", "")), _name(card), cells)


def _precision_cell(value: object) -> str:
    number = _number(value)
    return "-" if number is None else f"{number:.4f}"


def _cell(row: Mapping[str, Any], value_key: str, ci_key: str, shown: Any) -> str:
    return _with_ci(_number(row.get(value_key)), _interval(row.get(ci_key)), shown)


@dataclass(frozen=True)
class SeatRow:
    priority: str
    games: str
    wins: str
    win_rate: str


@dataclass(frozen=True)
class Seats:
    panels: list[Forest]
    rows: list[SeatRow]
    shared: bool = False  # the rules end a tie on every key with a shared win: wins count in fractions


def _seats_view(report: Mapping[str, Any], ids: _Ids) -> Seats | None:
    seats = _rows(report.get("seats"))
    if seats is None:
        return None
    if not seats:
        return Seats([], [])
    players = _number(report.get("players"))
    fair = 1 / players if players else None
    chart = forest_figure(
        ids,
        "Win rate by priority seat",
        [_seat_mark(seat) for seat in seats],
        percent=True,
        reference=fair,
        reference_label=f"fair share 1/{players:g} = {_rate(fair)}" if players and fair else "",
    )
    rows = [
        SeatRow(
            str(seat.get("priority", "?")),
            _games(seat.get("games")),
            _wins(seat.get("wins")),
            _with_ci(_number(seat.get("win_rate")), _interval(seat.get("win_ci")), _rate),
        )
        for seat in seats
    ]
    notes = report.get("notes")
    return Seats(chart, rows, isinstance(notes, list | tuple) and SHARED_NOTE in notes)


def _seat_mark(seat: Mapping[str, Any]) -> Mark:
    # the seat's name escaped before it is cut to a chart's room (shown again, it stays the same)
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


@dataclass(frozen=True)
class HTick:
    kind: str
    y: str
    label_y: str
    label: str


@dataclass(frozen=True)
class Bar:
    x: str
    y: str
    width: str
    height: str
    title: str
    stars: int
    label_x: str | None  # None: this bar's number of stars is not written under it


@dataclass(frozen=True)
class Mean:
    """The mean as a line over the bars (at the bar centres' scale), its interval as a band."""

    x: str
    top: int
    band: tuple[str, str] | None  # x and width


@dataclass(frozen=True)
class Histogram:
    chart: str
    name: str
    heading: str
    summary: str
    counts: str
    bar_count: int  # the histogram's, drawn or not
    drawn: bool
    ticks: list[HTick]
    bars: list[Bar]
    mean: Mean | None
    width: int = H_WIDTH
    height: int = H_HEIGHT
    left: int = H_LEFT
    right: int = H_RIGHT
    top: int = H_TOP
    bottom: int = H_BOTTOM
    na_x: int = H_LEFT
    na_y: int = H_TOP + 40
    tick_label_x: int = H_LEFT - 4
    bar_label_y: int = H_BOTTOM + 14
    band_height: int = H_BOTTOM - H_TOP
    axis_label_x: str = _f((H_LEFT + H_RIGHT) / 2)
    axis_label_y: int = H_HEIGHT - 4


@dataclass(frozen=True)
class Stage:
    chart: Histogram
    name: str
    mean: str
    counts: str


def _stages_view(value: object, ids: _Ids) -> list[Stage] | None:
    stages = _rows(value)
    if stages is None:
        return None
    charts = [_histogram(ids, stage) for stage in stages]
    rows = []
    for chart, stage in zip(charts, stages, strict=True):
        bars = histogram_bars(stage.get("histogram"))
        counts = ", ".join(f"{s}: {c:,}" for s, c in bars) or "—"
        mean = _with_ci(_number(stage.get("stars_mean")), _interval(stage.get("stars_ci")), _stars)
        rows.append(Stage(chart, str(stage.get("stage", "(unnamed stage)")), mean, counts))
    return rows


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
    if isinstance(key, str):
        digits = key.strip().lstrip("-")
        if digits.isascii() and digits.isdigit() and len(digits) < 12:  # not '²', which int() refuses
            return int(key)
    return None


def _histogram(ids: _Ids, stage: Mapping[str, Any]) -> Histogram:
    chart = ids.next()
    name = str(stage.get("stage", "(unnamed stage)"))
    bars = histogram_bars(stage.get("histogram"))
    total = sum(count for _, count in bars)
    mean, ci = _number(stage.get("stars_mean")), _interval(stage.get("stars_ci"))
    summary = f"mean {_with_ci(mean, ci, _stars)} stars per player per game"
    counts = ", ".join(f"{star_count(s)}: {c:,}" for s, c in bars)
    if not bars or total == 0:
        return Histogram(chart, name, _cut(name, 30), summary, counts, len(bars), False, [], [], None)
    tallest = max(count for _, count in bars) / total
    y_axis = axis_for([tallest], H_BOTTOM, H_TOP, percent=True)
    ticks = []
    for tick in y_axis.ticks():
        y = _f(y_axis.at(tick))
        ticks.append(HTick("zero" if tick == 0 else "tick", y, _f(float(y) + 4), y_axis.label(tick)))
    slot = (H_RIGHT - H_LEFT) / len(bars)
    label_every = max(1, math.ceil(len(bars) / 10))
    drawn = []
    for i, (stars, count) in enumerate(bars):
        x, top = H_LEFT + i * slot, y_axis.at(count / total)
        labelled = i % label_every == 0 or i == len(bars) - 1
        drawn.append(
            Bar(
                _f(x + slot * 0.1),
                _f(top),
                _f(slot * 0.8),
                _f(H_BOTTOM - top),
                f"{star_count(stars)}: {count:,} player-games ({_rate(count / total)})",
                stars,
                _f(x + slot / 2) if labelled else None,
            )
        )
    mean_line = _mean(bars, slot, mean, ci)
    return Histogram(chart, name, _cut(name, 30), summary, counts, len(bars), True, ticks, drawn, mean_line)


def _mean(bars: Sequence[tuple[int, int]], slot: float, mean: float | None, ci: Interval | None) -> Mean | None:
    if mean is None or bars[-1][0] - bars[0][0] != len(bars) - 1:
        return None

    def x(stars: float) -> float:
        return min(max(H_LEFT + (stars - bars[0][0] + 0.5) * slot, H_LEFT), H_RIGHT)

    band = (_f(x(ci[0])), _f(max(x(ci[1]) - x(ci[0]), 1.0))) if ci else None
    return Mean(_f(x(mean)), H_TOP - 4, band)


# --- tie-breaks, the study, the notes ---------------------------------------------------------


@dataclass(frozen=True)
class Tiebreak:
    name: str
    games: str
    rate: str
    bar: str | None  # the bar's width, None without a rate


def _tiebreaks_view(value: object) -> list[Tiebreak] | None:
    tiebreaks = _rows(value)
    if tiebreaks is None:
        return None
    rows = []
    for tiebreak in tiebreaks:
        rate = _number(tiebreak.get("rate"))
        bar = None if rate is None else _f(min(max(rate, 0.0), 1.0) * 120)
        rows.append(Tiebreak(str(tiebreak.get("name", "(unnamed)")), _games(tiebreak.get("games")), _rate(rate), bar))
    return rows


@dataclass(frozen=True)
class StudyTable:
    card: str
    difference: str
    rows: list[tuple[str, str, str]]  # measure, with the card, without


@dataclass(frozen=True)
class Study:
    panels: list[Forest]
    tables: list[StudyTable]


def _study_view(report: Mapping[str, Any], ids: _Ids) -> Study | None:
    if "study" not in report:
        return None
    studies = _rows(report.get("study"))
    if studies is None or not studies:
        return Study([], [])
    names = {str(c.get("id")): _name(c) for c in _rows(report.get("cards")) or []}
    marks = [_study_mark(s, names) for s in studies]
    chart = forest_figure(ids, "Study: difference with the card minus without", marks, percent=False)
    return Study(chart, [_study_table(s) for s in studies])


def _study_mark(study: Mapping[str, Any], names: Mapping[str, str]) -> Mark:
    """The studied card by its name when the report lists it, else by its id."""
    card = str(study.get("card", "(unnamed)"))
    name = names.get(card, card)
    value, ci = _number(study.get("difference")), _interval(study.get("difference_ci"))
    title = f"{name}: difference " + ("no data" if value is None else _with_ci(value, ci, _signed))
    return Mark(name, value, ci, None, title)


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _study_table(study: Mapping[str, Any]) -> StudyTable:
    with_, without = study.get("with"), study.get("without")
    with_ = with_ if isinstance(with_, Mapping) else {}
    without = without if isinstance(without, Mapping) else {}
    keys = list(dict.fromkeys([*with_, *without]))
    rows = [(str(k), _measure(with_.get(k)), _measure(without.get(k))) for k in keys]
    difference = _with_ci(_number(study.get("difference")), _interval(study.get("difference_ci")), _signed)
    return StudyTable(str(study.get("card", "")), difference, rows)


def _measure(value: object) -> str:
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
    return str(value)
