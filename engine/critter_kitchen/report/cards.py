"""Cards for people: a listing, and one card with its effects in plain English.

Card files are a stranger's data: every text taken from them is shown with its control
characters escaped (``escaped``), so a name cannot add lines or drive the terminal.
"""

from __future__ import annotations

from typing import Any

from ..dsl.render import expr, program_lines, value_words
from ..errors import escaped
from ..loading.packs import owns
from ..model.ruleset import (
    CHALLENGE_CARDS,
    PRIORITY,
    SCOPE_TEXT,
    SCOPE_WORDS,
    SHARED,
    WILD_SLOT,
    Card,
    Constraint,
    Ruleset,
    Stage,
)

_TIMING = {"before": "Before", "after": "After", "replace": "Instead of"}


def card_json(card: Card, ruleset: Ruleset) -> dict[str, Any]:
    out: dict[str, Any] = {"id": card.id, "kind": card.kind, "name": card.name, "pack": card.pack, "path": card.path}
    if "text" in card.data:
        out["text"] = card.data["text"]
    # beside the card's own text, what its data does in English, as `cards ID` prints it
    out["english"] = english_lines(card, ruleset)
    if card.requires:
        out["requires"] = list(card.requires)
    if card.different_types:
        out["different_types"] = True
    if card.parameters:
        out["parameters"] = card.parameters
    if card.constraints:
        out["constraints"] = [
            {"meal": c.meal, "require": card.data["constraints"][c.index]["require"], "message": c.message}
            for c in card.constraints
        ]
    out["effects"] = [
        {"timing": e.timing, "stage": e.stage, "do": card.data["effects"][i]["do"], "english": program_lines(e.ast)}
        for i, e in enumerate(card.effects)
    ]
    stages = [s for s in ruleset.stages if s.card == card.id and s.ast is not None]
    if stages:
        out["stages"] = [_stage_json(s) for s in stages]
    if card.kind == ruleset.rules_kind:
        keys = [tb for tb in ruleset.tiebreaks if tb.card == card.id]
        if keys:
            out["ranking_keys"] = [{"label": tb.label, "english": expr(tb.ast)} for tb in keys]
        ending = _ending(card)
        if ending is not None:
            out["when_tied"] = {**ending, "english": _ENDINGS[ending["by"]]}
    return out


def _stage_json(stage: Stage) -> dict[str, Any]:
    """A stage a card declares: its id, its short name when it has one, its description and English."""
    out: dict[str, Any] = {"id": stage.name}
    if stage.short_name:
        out["name"] = stage.short_name
    out.update(description=stage.description, english=program_lines(stage.ast))
    return out


def card_text(card: Card, ruleset: Ruleset) -> str:
    return "\n".join(escaped(line) for line in _card_lines(card, ruleset))


def _card_lines(card: Card, ruleset: Ruleset) -> list[str]:
    """The lines of :func:`card_text` as the card data gives them (escaping keeps a line break on its line):
    the card's own text, then what its data does in English, so a designer sees where they disagree."""
    lines = [f"{card.name} ({card.id})", f"kind: {card.kind} · pack: {card.pack} · file: {card.path}", ""]
    if "text" in card.data:
        lines.append("Text: " + " ".join(str(card.data["text"]).split()))
    else:
        lines.append("Text: none written")
    return [*lines, "", "In English, from its data:", *english_lines(card, ruleset)]


def english_lines(card: Card, ruleset: Ruleset, held: bool | None = None) -> list[str]:
    """What a card's data does, in English: its requirements, parameters, rules, effects and
    stages, each part after a blank line (``held``: see :func:`requirement_note`)."""
    lines: list[str] = []
    if card.requires:
        lines += ["", f"Requires: {', '.join(card.requires)} ({requirement_note(card, ruleset, held)})"]
    if card.parameters:
        lines += ["", SCOPE_TEXT[ruleset.card_level(card.kind)]]
        for name, value in card.parameters.items():
            param = ruleset.parameters.get(name)
            if param is None:
                lines.append(f"    {name} = {value}")
                continue
            shown, base = value_words(param.type, value), value_words(param.type, param.value)
            lines.append(f"    {name} = {shown} (otherwise {base})")
    if card.kind == ruleset.rules_kind:
        lines += _rules_lines(card, ruleset)
    for constraint in card.constraints:
        lines += ["", f"{constraint_scope(card, constraint, ruleset)} must meet:", f"    {expr(constraint.ast)}"]
        lines.append(f"    Otherwise it is refused: {constraint.message}.")
    for effect in card.effects:
        lines += ["", f"{_TIMING[effect.timing]} {effect.stage}:"]
        lines += [f"    {line}" for line in program_lines(effect.ast)]
    for stage in ruleset.stages:
        if stage.card == card.id and stage.ast is not None:
            named = f"{stage.name} ({stage.short_name})" if stage.short_name else stage.name
            lines += ["", f"Stage {named}: {stage.description}"]
            lines += [f"    {line}" for line in program_lines(stage.ast)]
    if card.kind == ruleset.rules_kind:
        lines += ranking_lines(card, ruleset)
    return lines


def ranking_lines(card: Card, ruleset: Ruleset) -> list[str]:
    """What a rules card says of the ranking: its keys (those in play), and what ends a tie on every key."""
    data = card.data
    ranking = data.get("ranking") or {}
    older = "ranking" not in data
    said = "keys" in ranking or (older and "tiebreaks" in data)
    keys = [tb for tb in ruleset.tiebreaks if tb.card == card.id]
    lines: list[str] = []
    if said:
        head = "Ranking, after the keys already loaded" if older else "Ranking"
        lines += ["", f"{head} (higher ranks first; the first key that differs decides):"]
        lines += [f"    {tb.label}: {expr(tb.ast)}" for tb in keys]
        if not keys:
            lines.append(
                "    (no keys in play: a later rules card replaces them)"
                if data.get("tiebreaks") or ranking.get("keys")
                else "    no keys: every player is tied"
            )
    ending = _ending(card)
    if ending is not None:
        lines += ["", f'Tied on every key: {_ENDINGS[ending["by"]]} (shown as "{ending["label"]}").']
    return lines


def _ending(card: Card) -> dict[str, str] | None:
    """What the rules card says ends a tie on every key (``by`` and ``label``), in either form; None if nothing."""
    data = card.data
    if "ranking" in data:
        ending: dict[str, str] | None = data["ranking"].get("when_tied")
        return ending
    return {"by": PRIORITY, "label": data["priority_label"]} if "priority_label" in data else None


_ENDINGS = {
    PRIORITY: "the player ahead on the priority track ranks first",
    SHARED: "the players tied for first place share the win; the others are ranked after them",
}


def _rules_lines(card: Card, ruleset: Ruleset) -> list[str]:
    """What a rules card declares besides its stages, as its data says it."""
    data = card.data
    lines: list[str] = []
    if isinstance(data.get("ingredients"), list):
        lines += ["", f"Ingredient types: {', '.join(map(str, data['ingredients']))}"]
    if isinstance(data.get("counters"), list):
        lines += ["", f"Counters of each player: {', '.join(map(str, data['counters']))}"]
    kinds = data.get("card_kinds")
    if isinstance(kinds, dict) and kinds:
        lines += ["", "Card kinds:"]
        for kind, spec in kinds.items():
            about = spec.get("description") if isinstance(spec, dict) else None
            lines.append(f"    {kind}: {about}" if about else f"    {kind}")
    params = data.get("parameters")
    if isinstance(params, dict) and params:
        lines += ["", "Parameters:"]
        for name, spec in params.items():
            param = ruleset.parameters.get(name)
            value = spec.get("value") if isinstance(spec, dict) and "value" in spec else None
            shown = value_words(param.type, value) if param is not None and value is not None else str(value)
            about = param.description if param is not None else ""
            scope = f" ({SCOPE_WORDS[param.scope]})" if param is not None else ""
            lines.append(f"    {name} = {shown}{scope}" + (f": {about}" if about else ""))
    removed = data.get("remove_stages")
    if isinstance(removed, list) and removed:
        lines += ["", f"Stages removed: {', '.join(map(str, removed))}"]
    return lines


def constraint_scope(card: Card, constraint: Constraint, ruleset: Ruleset) -> str:
    """Whose meals a card's constraint binds, in words: a Challenge card's own meals, its
    owner's (a card a player holds), or everyone's while it is in play."""
    meal = f"{constraint.meal} meal"
    if ruleset.card_kinds.get(card.kind) == CHALLENGE_CARDS:
        return "Every meal served for this card"
    if owns(ruleset, card.kind):
        return f"Every {meal} its owner serves"
    if card.kind == ruleset.rules_kind:
        return f"Every {meal}"
    return f"While in play, every {meal}"


def requirement_note(card: Card, ruleset: Ruleset, held: bool | None = None) -> str:
    """How a Challenge card's requirements are read, as the parameters in play for it say.

    The card's own parameters win over the ruleset's (packs' rules cards included), so a
    pack or card that turns the Hold token off gets no Hold sentence. ``held``: whether the
    Hold token is on the card (the last card of its round), None when that is not known (the
    card read alone): the Hold sentence is said when it may apply, never when it is False.
    """
    params = {**ruleset.base_params(), **card.parameters}
    note = "left to right"
    fixed = [kind for kind in card.requires if kind != WILD_SLOT]
    if len(set(fixed)) < len(fixed):
        note += "; a type listed twice is two requirements"
    if WILD_SLOT in card.requires:
        note += f"; '{WILD_SLOT}' is filled by an ingredient of any type"
    if card.different_types:
        note += "; each requirement is filled by a different type"
    if params.get("hold_covers_last") and held is not False:
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
            extra += ", each a different type" if card.different_types else ""
            lines.append(f"  {ids[card.id].ljust(width)}  {card.name}{extra}")
    return "\n".join(escaped(line) for line in lines)
