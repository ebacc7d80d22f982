"""Cards for people: a listing, and one card with its effects in plain English.

Card files are a stranger's data: every text taken from them is shown with its control
characters escaped (``escaped``), so a name cannot add lines or drive the terminal.
"""

from __future__ import annotations

from typing import Any

from ..dsl.render import program_lines
from ..errors import escaped
from ..model.ruleset import SCOPE_TEXT, Card, Ruleset

_TIMING = {"before": "Before", "after": "After", "replace": "Instead of"}


def card_json(card: Card, ruleset: Ruleset) -> dict[str, Any]:
    out: dict[str, Any] = {"id": card.id, "kind": card.kind, "name": card.name, "pack": card.pack, "path": card.path}
    if "text" in card.data:
        out["text"] = card.data["text"]
    if card.requires:
        out["requires"] = list(card.requires)
    if card.parameters:
        out["parameters"] = card.parameters
    out["effects"] = [
        {"timing": e.timing, "stage": e.stage, "do": card.data["effects"][i]["do"], "english": program_lines(e.ast)}
        for i, e in enumerate(card.effects)
    ]
    stages = [s for s in ruleset.stages if s.card == card.id and s.ast is not None]
    if stages:
        out["stages"] = [{"id": s.name, "description": s.description, "english": program_lines(s.ast)} for s in stages]
    return out


def card_text(card: Card, ruleset: Ruleset) -> str:
    return "\n".join(escaped(line) for line in _card_lines(card, ruleset))


def _card_lines(card: Card, ruleset: Ruleset) -> list[str]:
    """The lines of :func:`card_text` as the card data gives them (escaping keeps a line break on its line)."""
    lines = [f"{card.name} ({card.id})", f"kind: {card.kind} · pack: {card.pack} · file: {card.path}"]
    if "text" in card.data:
        lines += ["", " ".join(str(card.data["text"]).split())]
    if card.requires:
        lines += ["", f"Requires: {', '.join(card.requires)} ({requirement_note(card, ruleset)})"]
    if card.parameters:
        lines += ["", SCOPE_TEXT[ruleset.card_level(card.kind)]]
        for name, value in card.parameters.items():
            base = ruleset.parameters[name].value if name in ruleset.parameters else None
            lines.append(f"    {name} = {value} (otherwise {base})")
    for effect in card.effects:
        lines += ["", f"{_TIMING[effect.timing]} {effect.stage}:"]
        lines += [f"    {line}" for line in program_lines(effect.ast)]
    for stage in ruleset.stages:
        if stage.card == card.id and stage.ast is not None:
            lines += ["", f"Stage {stage.name}: {stage.description}"]
            lines += [f"    {line}" for line in program_lines(stage.ast)]
    return lines


def requirement_note(card: Card, ruleset: Ruleset) -> str:
    """How a Challenge card's requirements are read, as the parameters in play for it say.

    The card's own parameters win over the ruleset's (packs' rules cards included), so a
    pack or card that turns the Hold token off gets no Hold sentence.
    """
    params = {**ruleset.base_params(), **card.parameters}
    note = "left to right"
    if len(set(card.requires)) < len(card.requires):
        note += "; a type listed twice is two requirements"
    if params.get("hold_covers_last"):
        note += "; the Hold token covers the last"
    return note


def listing_text(ruleset: Ruleset) -> str:
    by_kind: dict[str, list[Card]] = {}
    for card in ruleset.cards.values():
        by_kind.setdefault(card.kind, []).append(card)
    ids = {card.id: escaped(card.id) for card in ruleset.cards.values()}  # aligned as shown
    width = max(map(len, ids.values()), default=0)
    lines: list[str] = []
    for kind, cards in by_kind.items():
        lines.append(f"{kind} ({len(cards)})")
        for card in sorted(cards, key=lambda c: c.id):
            extra = f"  requires {', '.join(card.requires)}" if card.requires else ""
            lines.append(f"  {ids[card.id].ljust(width)}  {card.name}{extra}")
    return "\n".join(escaped(line) for line in lines)
