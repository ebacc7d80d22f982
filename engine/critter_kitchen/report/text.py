"""A result as a table for people: stars per stage per player, totals, winner, notes.

Every text from input (player names) or card data (stage names, reasons, notes) is shown
with its control characters escaped, and columns are aligned by the width text takes on a
terminal, not by its length in characters.
"""

from __future__ import annotations

from ..errors import escaped
from ..model.game import Award
from ..stages.runner import Result


def result_text(result: Result, *, explain: bool = False) -> str:
    game = result.game
    names = [escaped(p.name) for p in game.players]
    # A stage of a card not in play did not run: it gets no row (a stage of the rules always runs).
    stages = list(dict.fromkeys([*game.stages_run, *(a.stage for a in result.awards)]))
    labels = [escaped(s) for s in stages]
    width = max(len("total"), *(shown_width(s) for s in labels))
    cols = [max(3, shown_width(n)) for n in names]

    def row(label: str, cells: list[str]) -> str:
        return "  ".join([ljust(label, width), *(rjust(c, w) for c, w in zip(cells, cols, strict=True))])

    lines = [row("", names)]
    for stage, label in zip(stages, labels, strict=True):
        lines.append(row(label, [str(p.stage_stars.get(stage, 0)) for p in game.players]))
    lines.append("  ".join(["-" * width, *("-" * w for w in cols)]))
    lines.append(row("total", [str(p.stars) for p in game.players]))
    quality = {s.player.name: s.critic_quality for s in result.standings}
    lines.append(row("quality", [str(quality[p.name]) for p in game.players]))
    lines.append("")
    lines.append(f"Winner: {_winner_line(result)}")
    rivals = [s for s in result.standings if s.player.automated]
    if rivals:
        lines.append(_rival_line(result))
    lines.append("Ranking: " + ", ".join(f"{s.rank}. {escaped(s.player.name)} ({s.stars})" for s in result.standings))
    if explain:
        lines.append("")
        lines.append("Awards:")
        lines.extend(f"  {line}" for line in explain_lines(result.awards))
        lines.extend(quality_lines(result))
        from .explain import stage_words  # only an explanation needs it: not on a plain score's path

        lines.append("")
        lines.append("Stages:")
        for sid, short, words in stage_words(result):
            named = f"{escaped(sid)} ({escaped(short)})" if short else escaped(sid)
            if short or words != sid:
                lines.append(f"  {named}: {escaped(words)}")
    for note in result.notes:
        lines.append("")
        lines.append(f"* Unverified: {escaped(note)}.")
    return "\n".join(lines)


def shown_width(text: str) -> int:
    """The columns ``text`` (already escaped) takes on a terminal: wide characters take two,
    combining marks none."""
    if text.isascii():
        return len(text)
    import unicodedata  # only names and labels beyond ASCII need it

    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def ljust(text: str, width: int) -> str:
    return text + " " * (width - shown_width(text))


def rjust(text: str, width: int) -> str:
    return " " * (width - shown_width(text)) + text


def _rival_line(result: Result) -> str:
    """Against automated rivals: whether the best human player beat them (or shares the win with them)."""
    best = next(s for s in result.standings if not s.player.automated)
    rivals = ", ".join(escaped(s.player.name) for s in result.standings if s.player.automated)
    if best.rank == 1:
        sharing = [escaped(p.name) for p in result.winners if p.automated]
        if sharing:
            return f"{escaped(best.player.name)} shares the win with {names_and(sharing)}."
        return f"{escaped(best.player.name)} beats {rivals}."
    return f"{escaped(best.player.name)} does not beat {rivals}."


def _winner_line(result: Result) -> str:
    first = result.standings[0]
    winners = result.winners
    if len(winners) > 1:
        line = f"{names_and([escaped(p.name) for p in winners])} share the win with {star_count(first.stars)} each"
    else:
        line = f"{escaped(first.player.name)} with {star_count(first.stars)}"
        if len(result.standings) > 1 and result.standings[1].stars == first.stars:
            line += f" (tied on stars with {escaped(result.standings[1].player.name)})"
    return f"{line}; decided by: {escaped(result.decided_by)}"


def names_and(names: list[str]) -> str:
    """``Ana``, ``Ana and Ben``, ``Ana, Ben and Cy``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def star_count(n: int) -> str:
    """``1 star``, ``0 stars``, ``2 stars``."""
    return f"{n} star" if n == 1 else f"{n} stars"


def explain_lines(awards: list[Award]) -> list[str]:
    """One line per award statement: stage, card, reason, who got what (ties marked)."""
    from .explain import award_statements

    return [
        f"{escaped(a['stage'])} [{escaped(a['card'])}] {escaped(a['reason'])}: {escaped(a['outcome'])}"
        for a in award_statements(awards)
    ]


def quality_lines(result: Result) -> list[str]:
    """Each player's critic quality as the sum of their courses, and each course a card
    changed, with what it did (nothing when the result was scored without ``trace``)."""
    from .explain import course_line, quality_sums

    sums = quality_sums(result)
    if sums is None:
        return []
    lines = ["", "Critic quality:"]
    for p in sums:
        if "courses" not in p:
            lines.append(f"  {escaped(p['name'])} {p['total']} (given, an automated rival)")
            continue
        lines.append(f"  {escaped(p['name'])} {p['total']} = {escaped(p['sum'])}")
        lines.extend(f"    {escaped(course_line(c, {}))}" for c in p["courses"] if c["changes"])
    return lines
