"""A run's summary as the report people read: JSON (the form INTERFACE.md fixes), text, CSV."""

from __future__ import annotations

from ..errors import escaped
from ..model.ruleset import SHARED
from .stats import Z95, count, mean_interval, rate, rounded, wilson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.ruleset import Ruleset
    from .precision import Stopping
    from .stats import Share, Summary

FLAG_GAMES = 30  # fewer games than this in play: no flag, the normal interval is not to be trusted
NOTES = (
    "stars_mean: stars the card's own awards gave per game it was in play, all players together; "
    "for a challenge card, the stars the meals served for it earned",
    "stars_change_mean: all players' stars per game with the card less the same games scored without it "
    "(a card that replaces a stage gives the stars of that stage, and changes only the difference)",
    "winner_flip_rate: share of those games in which the same meals scored without the card name another winner",
    "owner_win_rate: share of its games the card's holder won; owner_baseline: the win rate of the seats "
    "its holders sat in, over every game",
    "without a card: a challenge card keeps its place and loses its meals; a meal or course the rules "
    "without the card refuse is not served",
    "every interval is 95%: Wilson for rates, normal for means; flag: the card's stars interval lies wholly "
    f"above ('strong') or below ('weak') those of every other card of its kind (cards in {FLAG_GAMES} games or more)",
)

# Said when the rules in play end a tie on every ranking key with a shared win.
SHARED_NOTE = (
    "shared wins: a win shared by k players counts 1/k of a win to each of them in the seats' wins and "
    "win rates and in owner_win_rate; winner_flip_rate counts the part of the win that goes to other "
    "players without the card (a lone winner who would share the win with one other: 1/2)"
)


def build(
    summary: Summary,
    ruleset: Ruleset,
    *,
    players: int,
    seed: int,
    effort: str,
    studies: tuple[str, ...],
    stopping: Stopping | None = None,
) -> dict[str, Any]:
    """The report's JSON object; with ``stopping`` (``--precision``), every interval at its
    level, each card's precision reached and the run's ``precision`` object."""
    z = stopping.z if stopping is not None else Z95
    seats = seat_rows(summary, z)
    seat_rate = {row["priority"] - 1: (summary.seat_wins.get(row["priority"] - 1, 0), row["games"]) for row in seats}
    notes = list(NOTES)
    unverified = [name for name, number in ruleset.deal.items() if number.unverified]
    for name in unverified:
        notes.append(f"deal model '{name}' is unverified: {ruleset.deal[name].unverified}")
    for p in ruleset.parameters.values():
        if p.unverified:
            notes.append(f"rule parameter '{p.name}' is unverified: {p.unverified}")
    if ruleset.when_tied == SHARED:
        notes.append(SHARED_NOTE)
    if stopping is not None:
        notes.append(precision_note(stopping))
    report = {
        "games": summary.games,
        "players": players,
        "seed": seed,
        "effort": effort,
        "packs": [p.id for p in ruleset.packs],
        "model": {"unverified": unverified},
        "cards": card_rows(summary, ruleset, seat_rate, z, stopping),
        "seats": seats,
        "stages": stage_rows(summary, ruleset, z),
        "tiebreaks": [
            {"name": name, "games": n, "rate": rate(n, summary.games)}
            for name, n in sorted(summary.tiebreaks.items(), key=lambda kv: (-kv[1], kv[0]))
        ],
        "study": study_rows(summary, ruleset, studies, z) if studies else None,
        "notes": notes,
    }
    if stopping is not None:
        report["precision"] = precision_object(summary, stopping)
    return report


def precision_note(stopping: Stopping) -> str:
    from .precision import confidence

    level = confidence(len(stopping.looks))
    return (
        f"precision: the run was looked at after {', '.join(map(str, stopping.looks))} games and stops at the first "
        "look at which every card's winner-flip interval, and its stars and change intervals divided by their "
        f"spread (the card's most less its fewest stars in a game), are at most ±{stopping.target:g} wide; "
        f"so that stopping when they look narrow cannot make them miss more often, every interval is "
        f"{level * 100:g}% at each look (95% over all {len(stopping.looks)} looks), not 95%"
    )


def precision_object(summary: Summary, stopping: Stopping) -> dict[str, Any]:
    """What a ``--precision`` run reached: its target, the widest card's precision, whether
    it stopped by precision or at the cap, and the cards that held it back."""
    from .precision import confidence, held_back, widest

    reached = max((widest(t, stopping.z) for t in summary.cards.values()), default=0.0)
    back = held_back(summary, stopping.target, stopping.z)
    return {
        "target": stopping.target,
        "reached": rounded(reached),
        "stopped_by": "precision" if summary.cards and not back else "cap",
        "games": summary.games,
        "cap": stopping.looks[-1],
        "looks": list(stopping.looks),
        "confidence": rounded(confidence(len(stopping.looks))),
        "held_back": back,
    }


def card_rows(
    summary: Summary,
    ruleset: Ruleset,
    seat_rate: dict[int, tuple[Share, int]],
    z: float = Z95,
    stopping: Stopping | None = None,
) -> list[dict[str, Any]]:
    from .precision import widest

    rows: list[dict[str, Any]] = []
    kinds = list(ruleset.card_kinds)
    for card_id, tally in summary.cards.items():
        card = ruleset.cards[card_id]
        mean, ci = mean_interval(tally.stars, z)
        change, change_ci = mean_interval(tally.change, z)
        n = tally.stars.n
        held = tally.owner_games > 0
        baseline = None
        if held:
            expected = sum(seats * seat_rate[s][0] / seat_rate[s][1] for s, seats in tally.owner_seats.items())
            baseline = rounded(float(expected / tally.owner_games))
        rows.append(
            {
                "id": card_id,
                "kind": card.kind,
                "name": card.name,
                "games": n,
                "stars_mean": mean,
                "stars_ci": ci,
                "stars_change_mean": change,
                "stars_change_ci": change_ci,
                "winner_flip_rate": rate(tally.flips, n),
                "winner_flip_ci": wilson(tally.flips, n, z),
                "owner_win_rate": rate(tally.owner_wins, tally.owner_games) if held else None,
                "owner_win_ci": wilson(tally.owner_wins, tally.owner_games, z) if held else None,
                "owner_baseline": baseline,
                "flag": None,
            }
        )
        if stopping is not None:
            rows[-1]["precision"] = rounded(widest(tally, z))
    rows.sort(
        key=lambda r: (
            kinds.index(r["kind"]) if r["kind"] in kinds else len(kinds),
            -r["stars_mean"],
            -r["winner_flip_rate"],
            r["id"],
        )
    )
    for row in rows:
        others = [o for o in rows if o["kind"] == row["kind"] and o is not row and o["games"] >= FLAG_GAMES]
        if others and row["games"] >= FLAG_GAMES:
            if row["stars_ci"][0] > max(o["stars_ci"][1] for o in others):
                row["flag"] = "strong"
            elif row["stars_ci"][1] < min(o["stars_ci"][0] for o in others):
                row["flag"] = "weak"
    return rows


def seat_rows(summary: Summary, z: float = Z95) -> list[dict[str, Any]]:
    return [
        {
            "priority": seat + 1,
            "games": games,
            "wins": count(summary.seat_wins.get(seat, 0)),
            "win_rate": rate(summary.seat_wins.get(seat, 0), games),
            "win_ci": wilson(summary.seat_wins.get(seat, 0), games, z),
        }
        for seat, games in sorted(summary.seat_games.items())
    ]


def stage_rows(summary: Summary, ruleset: Ruleset, z: float = Z95) -> list[dict[str, Any]]:
    rows = []
    for stage in ruleset.stage_names():
        m = summary.stage_stars.get(stage)
        if m is None:
            continue
        mean, ci = mean_interval(m, z)
        hist = summary.stage_histogram.get(stage, {})
        rows.append(
            {"stage": stage, "stars_mean": mean, "stars_ci": ci, "histogram": {str(k): hist[k] for k in sorted(hist)}}
        )
    return rows


def study_rows(summary: Summary, ruleset: Ruleset, studies: tuple[str, ...], z: float = Z95) -> list[dict[str, Any]]:
    rows = []
    for card_id in studies:
        arms = summary.studies.get(card_id)
        if arms is None:
            continue
        with_arm, without_arm, difference = arms
        w_mean, w_ci = mean_interval(with_arm.stars, z)
        o_mean, o_ci = mean_interval(without_arm.stars, z)
        d_mean, d_ci = mean_interval(difference, z)
        rows.append(
            {
                "card": card_id,
                "kind": ruleset.cards[card_id].kind,
                "with": {"games": with_arm.stars.n, "stars_mean": w_mean, "stars_ci": w_ci},
                "without": {"games": without_arm.stars.n, "stars_mean": o_mean, "stars_ci": o_ci},
                "difference": d_mean,
                "difference_ci": d_ci,
            }
        )
    return rows


def _ci(ci: list[float] | None) -> str:
    return "-" if ci is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def _num(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def text(report: dict[str, Any]) -> str:
    """The report as tables: the cards of each kind strongest first, seats, stages, tie-breaks."""
    lines = [
        f"{report['games']} simulated games, {report['players']} players, seed {report['seed']}, "
        f"packs {', '.join(report['packs'])}, planner {report['effort']}",
    ]
    precision = report.get("precision")
    if precision is not None:
        lines.append(_precision_line(precision))
    precise = precision is not None
    kinds: list[str] = []
    for row in report["cards"]:
        if row["kind"] not in kinds:
            kinds.append(row["kind"])
    for kind in kinds:
        rows = [r for r in report["cards"] if r["kind"] == kind]
        width = max(len(escaped(r["id"])) for r in rows)
        lines += ["", f"{escaped(kind)} cards, strongest first", _card_header(width, precise)]
        for r in rows:
            owner = (
                f"{_num(r['owner_win_rate'])} {_ci(r['owner_win_ci'])} vs {_num(r['owner_baseline'])}"
                if r["owner_win_rate"] is not None
                else "-"
            )
            flag = f"  {r['flag'].upper()}" if r["flag"] else ""
            if precise:
                flag = f"  ±{r['precision']:.4f}{flag}"
            lines.append(
                f"  {escaped(r['id']):<{width}}  {r['games']:>7}  {_num(r['stars_mean']):>6} {_ci(r['stars_ci']):<16}"
                f"  {_num(r['stars_change_mean']):>6} {_ci(r['stars_change_ci']):<16}"
                f"  {_num(r['winner_flip_rate']):>5} {_ci(r['winner_flip_ci']):<14}  {owner}{flag}"
            )
    lines += ["", "priority seat  games  wins  win rate"]
    for s in report["seats"]:
        lines.append(
            f"  {s['priority']:>11}  {s['games']:>5}  {s['wins']:>4}  {_num(s['win_rate'])} {_ci(s['win_ci'])}"
        )
    if SHARED_NOTE in report["notes"]:
        lines.append(
            "  (a win shared by k players counts 1/k to each; winner flips count the part of the win that moves)"
        )
    lines += ["", "stars per player per game, by stage"]
    for st in report["stages"]:
        lines.append(f"  {escaped(st['stage']):<24} {_num(st['stars_mean'])} {_ci(st['stars_ci'])}")
    lines += ["", "what decided the winner"]
    for tb in report["tiebreaks"]:
        lines.append(f"  {escaped(tb['name']):<40} {tb['games']:>6}  {_num(tb['rate'])}")
    if report["study"]:
        lines += ["", "studies: total stars per game with the card forced in, and without it, same seeds"]
        for st in report["study"]:
            lines.append(
                f"  {escaped(st['card'])}: with {_num(st['with']['stars_mean'])},"
                f" without {_num(st['without']['stars_mean'])}, "
                f"difference {_num(st['difference'])} {_ci(st['difference_ci'])}"
            )
    unverified = report["model"]["unverified"]
    lines += [
        "",
        "unverified deal model numbers: " + (", ".join(map(escaped, unverified)) if unverified else "none"),
        "  (assumptions, not retail facts: see the notes in --format json and the packs' deal sections)",
    ]
    return "\n".join(lines)


def _card_header(width: int, precise: bool = False) -> str:
    ci = "[CI]" if precise else "[95% CI]"  # a --precision run's level is said above the tables
    return (
        f"  {'card':<{width}}  {'games':>7}  {f'stars/game {ci}':<23}  {f'change {ci}':<23}"
        f"  {f'winner flips {ci}':<20}"
        f"  owner win rate {ci} vs seat baseline" + ("  precision ±" if precise else "")
    )


def _precision_line(precision: dict[str, Any]) -> str:
    """A --precision run's outcome: why it stopped, the widest card's precision, what held it back."""
    level = f"{precision['confidence'] * 100:g}%"
    looks = len(precision["looks"])
    if precision["stopped_by"] == "precision":
        reached, target = precision["reached"], precision["target"]
        said = f"stopped by precision: every card known to ±{reached:.4f} (target ±{target:g})"
    else:
        said = (
            f"stopped at the cap of {precision['cap']} games: widest ±{precision['reached']:.4f} "
            f"(target ±{precision['target']:g}), held back by {', '.join(map(escaped, precision['held_back']))}"
        )
    return f"{said}; every interval {level} at each of {looks} looks, 95% over all of them"


CSV_COLUMNS = (
    "id",
    "kind",
    "name",
    "games",
    "stars_mean",
    "stars_ci",
    "stars_change_mean",
    "stars_change_ci",
    "winner_flip_rate",
    "winner_flip_ci",
    "owner_win_rate",
    "owner_win_ci",
    "owner_baseline",
    "flag",
)  # each interval is two columns, _low and _high
PRECISION_COLUMNS = ("precision", "stopped_by")  # after those, in a --precision run's report


def _csv_header(columns: tuple[str, ...] = CSV_COLUMNS) -> list[str]:
    return [name for key in columns for name in ((f"{key}_low", f"{key}_high") if key.endswith("_ci") else (key,))]


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as a formula


def _cell(x: Any) -> Any:
    """A CSV cell. Text taken from a pack has its control characters escaped, as all printed
    text (a card name's ESC or OSC would drive the terminal the report is shown on), and text
    that a spreadsheet would run as a formula is quoted with a leading apostrophe, so opening
    the file never runs a stranger's formula."""
    if x is None:
        return ""
    if isinstance(x, str):
        return "'" + escaped(x) if x.startswith(FORMULA_STARTS) else escaped(x)
    return x


def csv_text(report: dict[str, Any]) -> str:
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    precision = report.get("precision")
    columns = CSV_COLUMNS + PRECISION_COLUMNS if precision is not None else CSV_COLUMNS
    writer.writerow(_csv_header(columns))
    for r in report["cards"]:
        if precision is not None:
            r = {**r, "stopped_by": precision["stopped_by"]}
        writer.writerow(
            [_cell(x) for key in columns for x in ((r[key] or [None, None]) if key.endswith("_ci") else [r[key]])]
        )
    return out.getvalue()
