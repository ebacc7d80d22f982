"""A result as a table for people: stars per stage per player, totals, winner, notes."""

from __future__ import annotations

from ..model.game import Award
from ..stages.runner import Result


def result_text(result: Result, *, explain: bool = False) -> str:
    game = result.game
    players = list(game.players)
    stages = list(dict.fromkeys([*game.ruleset.stage_names(), *(a.stage for a in result.awards)]))
    width = max(len("total"), *(len(s) for s in stages))
    cols = [max(3, len(p.name)) for p in players]
    lines = ["  ".join([" " * width, *(p.name.rjust(w) for p, w in zip(players, cols, strict=False))])]
    for stage in stages:
        row = [str(p.stage_stars.get(stage, 0)).rjust(w) for p, w in zip(players, cols, strict=False)]
        lines.append("  ".join([stage.ljust(width), *row]))
    lines.append("  ".join(["-" * width, *("-" * w for w in cols)]))
    lines.append(
        "  ".join(["total".ljust(width), *(str(p.stars).rjust(w) for p, w in zip(players, cols, strict=False))])
    )
    quality = {s.player.name: s.critic_quality for s in result.standings}
    lines.append(
        "  ".join(
            ["quality".ljust(width), *(str(quality[p.name]).rjust(w) for p, w in zip(players, cols, strict=False))]
        )
    )
    lines.append("")
    lines.append(f"Winner: {_winner_line(result)}")
    rivals = [s for s in result.standings if s.player.automated]
    if rivals:
        lines.append(_rival_line(result))
    lines.append("Ranking: " + ", ".join(f"{s.rank}. {s.player.name} ({s.stars})" for s in result.standings))
    if explain:
        lines.append("")
        lines.append("Awards:")
        lines.extend(f"  {line}" for line in explain_lines(result.awards))
    for note in result.notes:
        lines.append("")
        lines.append(f"* Unverified: {note}.")
    return "\n".join(lines)


def _rival_line(result: Result) -> str:
    """Against automated rivals: whether the best human player beat them."""
    best = next(s for s in result.standings if not s.player.automated)
    rivals = ", ".join(s.player.name for s in result.standings if s.player.automated)
    if best.rank == 1:
        return f"{best.player.name} beats {rivals}."
    return f"{best.player.name} does not beat {rivals}."


def _winner_line(result: Result) -> str:
    first = result.standings[0]
    line = f"{first.player.name} with {first.stars} stars"
    if len(result.standings) > 1 and result.standings[1].stars == first.stars:
        line += f" (tied on stars with {result.standings[1].player.name})"
    return f"{line}; decided by: {result.decided_by}"


def explain_lines(awards: list[Award]) -> list[str]:
    """One line per award statement: stage, card, reason, who got what (ties marked)."""
    groups: dict[int, list[Award]] = {}
    for award in awards:
        groups.setdefault(award.group, []).append(award)
    out = []
    for group in groups.values():
        a = group[0]
        stars = f"+{a.stars} star" + ("s" if a.stars != 1 else "")
        if a.value is not None:
            who = ", ".join(f"{g.player} {g.value}" for g in group)
            tie = " (friendly tie)" if a.tied else ""
            out.append(
                f"{a.stage} [{a.card}] {a.reason}: {who}{tie}: {stars} each"
                if a.tied
                else f"{a.stage} [{a.card}] {a.reason}: {who}: {stars}"
            )
        else:
            who = ", ".join(g.player for g in group)
            out.append(f"{a.stage} [{a.card}] {a.reason}: {who} {stars}")
    return out
