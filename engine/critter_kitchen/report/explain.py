"""A result explained, as data: the one account that ``score --explain`` writes as text and
the score pad lays out as a page.

- :func:`stage_words`: each stage that ran, with its short name and what it does in words
  (the stage's own ``name`` and ``description`` in its card's data);
- :func:`award_statements`: each award statement (one stage, one card, one reason), who got
  how many stars, and whether it was a friendly tie, with the words both outputs say of it;
- :func:`quality_sums`: each player's critic quality as the sum of their courses, each course
  from what was served to its final quality with every card effect that changed it (a
  result scored with ``trace``: see ``stages.runner.score_game``).

The words are plain text; each output escapes them for where they go.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.game import Award, Course, Player
    from ..stages.runner import Result

HOW = {"set": "set to {}", "add": "{:+d}", "multiply": "×{}"}  # a change of a course's quality, in words


def stage_words(result: Result) -> list[tuple[str, str, str]]:
    """(stage id, its short name, its description) for each stage with a row in the result,
    in order: every stage that ran, then any other stage an award names. The short name is
    the stage's ``name`` in its card, "" when it has none (its description names the row
    then); a stage without a description is described by its id."""
    game = result.game
    stages = {s.name: s for s in game.ruleset.stages}
    ids = list(dict.fromkeys([*game.stages_run, *(a.stage for a in result.awards)]))
    out = []
    for sid in ids:
        stage = stages.get(sid)
        short = " ".join(stage.short_name.split()) if stage is not None else ""
        words = " ".join(stage.description.split()) if stage is not None else ""
        out.append((sid, short, words or sid))
    return out


def award_statements(awards: list[Award]) -> list[dict[str, Any]]:
    """One entry per award statement, in the order they were made: ``stage``, ``card`` (id),
    ``reason``, ``players`` (names), ``stars`` (each), ``tied`` (a friendly tie: several
    players shared the highest value, each gets the stars in full) and ``outcome``, the words
    after the reason: who, their values, the tie, the stars."""
    groups: dict[int, list[Award]] = {}
    for award in awards:
        groups.setdefault(award.group, []).append(award)
    out = []
    for group in groups.values():
        a = group[0]
        stars = f"+{a.stars} star" + ("s" if a.stars != 1 else "")
        if a.value is not None:
            who = ", ".join(f"{g.player} {g.value}" for g in group)
            outcome = f"{who} (friendly tie): {stars} each" if a.tied else f"{who}: {stars}"
        else:
            outcome = f"{', '.join(g.player for g in group)} {stars}"
        out.append(
            {
                "stage": a.stage,
                "card": a.card,
                "reason": a.reason,
                "players": [g.player for g in group],
                "stars": a.stars,
                "tied": bool(a.tied),
                "outcome": outcome,
            }
        )
    return out


def quality_sums(result: Result) -> list[dict[str, Any]] | None:
    """Each player's critic quality as a sum, in the record's order: ``name``, ``total``,
    ``sum`` (the words: ``4 + 20 + 12``) and ``courses``, each with ``type``, ``served`` (what
    the record says: a value and its spices, or a token), ``start`` (its quality as served),
    ``changes`` (each effect that changed it: ``stage``, ``cards`` (ids), ``how`` in words,
    ``to``) and ``quality`` (final). An automated rival's quality is given, not summed: no
    ``courses``. None when the result was scored without ``trace``."""
    game = result.game
    trace = game.trace
    if trace is None:
        return None
    changed: dict[tuple[str, str], list[tuple[int, int, str, tuple[tuple[str, str, int], ...]]]] = {}
    for name, kind, before, after, stage, by in trace:
        changed.setdefault((name, kind), []).append((before, after, stage, by))
    quality = {s.player.name: s.critic_quality for s in result.standings}
    out = []
    for player in sorted((*game.players, *game.rivals), key=_seat):
        courses = []
        for kind, course in player.courses.items():
            steps = changed.get((player.name, kind), [])
            courses.append(
                {
                    "type": kind,
                    "served": served_words(course),
                    "start": steps[0][0] if steps else course.quality,
                    "changes": [
                        {
                            "stage": stage,
                            "cards": list(dict.fromkeys(card for card, _, _ in by)),
                            "how": ", ".join(HOW[how].format(amount) for _, how, amount in by),
                            "to": after,
                        }
                        for _, after, stage, by in steps
                    ],
                    "quality": course.quality,
                }
            )
        total = quality[player.name]
        entry: dict[str, Any] = {"name": player.name, "total": total}
        if player.fixed_quality is None:
            entry["courses"] = courses
            entry["sum"] = " + ".join(f"{c['type']} {c['quality']}" for c in courses) or "0"
        out.append(entry)
    return out


def _seat(player: Player) -> int:
    return player.index


def served_words(course: Course) -> str:
    """What was served as a course: ``5``, ``5 with allspice``, or its token (``soup``)."""
    if course.token is not None:
        return course.token
    return f"{course.value} with {', '.join(course.spices)}" if course.spices else str(course.value)


def course_line(course: dict[str, Any], cards: dict[str, str]) -> str:
    """One course of :func:`quality_sums` in words, cards by ``cards`` (id -> what to call it):
    ``fish 20: served 5 with fish = 10, then ×2 by fish-fanatic (critic.rumors) = 20``."""
    line = f"{course['type']} {course['quality']}: served {course['served']} = {course['start']}"
    for c in course["changes"]:
        by = ", ".join(cards.get(card, card) for card in c["cards"])
        line += f", then {c['how']} by {by} ({c['stage']}) = {c['to']}"
    return line


def stage_notes(result: Result) -> dict[str, list[str]]:
    """Stage id -> the notes of the unverified parameter values in force that it reads (its
    own program's or a card effect's hooked on it): where placeholder data affects the result."""
    game = result.game
    notes = {name: note for name, value, note in game.ruleset.scoring().unverified if game.params.get(name) == value}
    if not notes:
        return {}
    codes: dict[str, list[Any]] = {}
    for stage in game.ruleset.stages:
        codes.setdefault(stage.name, []).append(stage.code)
    for card, _ in game.cards_in_play():
        for effect in card.effects:
            codes.setdefault(effect.stage, []).append(effect.code)
    out: dict[str, list[str]] = {}
    for sid, _, _ in stage_words(result):
        read = {name for code in codes.get(sid, []) if code is not None for name in code.params_read}
        found = [note for name, note in notes.items() if name in read]
        if found:
            out[sid] = found
    return out


def packs_said(result: Result) -> list[tuple[str, str]]:
    """(name, description) of each pack in play that says something of itself (its
    pack.yaml ``description``), in load order: what the packs a result depends on are."""
    return [(p.name, p.description) for p in result.game.ruleset.packs if p.description]
