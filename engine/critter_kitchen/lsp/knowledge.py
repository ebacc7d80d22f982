"""What the server says about a place in a file: hovers, completions, definitions and a
file's symbols, from the effect language's registry and the packs around the file.

Plain data in, plain data out (Markdown text, labels, engine places): :mod:`.server`
turns them into the protocol's messages. Every text taken from a card is a stranger's,
and is shown in a code block or as a label, never as Markdown of its own.
"""

from __future__ import annotations

import json
import os
import re

from ..dsl import types as t
from ..dsl.registry import AGGREGATES, CONSTANTS, FUNCTIONS, STATEMENTS
from ..errors import escaped
from .positions import Place, engine_place, name_at, prefix_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.ruleset import Card, Ruleset
    from .workspace import Known

# completion kinds, as the protocol numbers them (CompletionItemKind)
FUNCTION, VARIABLE, KEYWORD, CONSTANT, ENUM_MEMBER, EVENT, PROPERTY, VALUE, REFERENCE = 3, 6, 14, 21, 20, 23, 10, 12, 18

MAX_SHOWN_VALUE = 200  # characters of a parameter's value shown in a hover; a table may be long
MAX_HOOKED_SHOWN = 50  # cards listed under a stage in its hover

_TIMING_KEY = re.compile(r"^\s*(?:-\s+)?(before|after|replace)\s*:\s*\S*$")
_REQUIRES_KEY = re.compile(r"^\s*(?:-\s+)?requires\s*:")
_BLOCK_START = re.compile(r"^(\s*)(?:-\s+)?(do|by|require)\s*:\s*[|>]?[-+]?\s*$")
_INLINE_CODE = re.compile(r"^\s*(?:-\s+)?(do|by|require)\s*:\s*\S")
# a name a block brings into scope: ``let NAME =``, or ``for NAME in`` (a loop or a comprehension)
_BINDING = re.compile(r"\blet\s+([A-Za-z_][A-Za-z0-9_]*)\s*=|\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b")
_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z0-9_.\-]+)\s*:")


class Item:
    """One completion: its label, kind (the protocol's number) and a short detail."""

    __slots__ = ("label", "kind", "detail")

    def __init__(self, label: str, kind: int, detail: str = "") -> None:
        self.label = label
        self.kind = kind
        self.detail = detail


# hovers


def hover(known: Known | None, lines: list[str], place: Place) -> str | None:
    """Markdown for the name at ``place``: a card's English, a stage, a parameter, or an entry
    of the effect language; None if the place names nothing known."""
    found = name_at(lines, place)
    if found is None:
        return None
    whole, inner, _ = found
    rs = known.ruleset if known is not None else None
    if rs is not None:
        for name in dict.fromkeys((whole, inner)):
            if name in rs.cards:
                return card_hover(rs.cards[name], rs)
            if name in rs.stage_names():
                return stage_hover(name, rs)
            if name in rs.parameters:
                return parameter_hover(name, rs)
    return language_hover(inner) if _code_start(lines, place[0]) is not None else None


def language_hover(name: str) -> str | None:
    """An entry of the effect language: its signature, types and description, from the registry."""
    if name in FUNCTIONS:
        f = FUNCTIONS[name]
        args = ", ".join(f"{p}: {t.describe(typ)}" for p, typ in f.params)
        signature = f"{f.name}({', '.join(p for p, _ in f.params)})" if f.params else f.name
        owner = "\n\nOnly on cards a player owns." if f.needs_owner else ""
        return (
            f"```\n{signature}\n```\nfunction · arguments: {args or 'none'} · gives {t.describe(f.returns)}\n\n"
            f"{f.doc}{owner}"
        )
    if name in AGGREGATES:
        a = AGGREGATES[name]
        return f"```\n{a.name}(EXPR for NAME in LIST [if CONDITION])\n```\naggregate\n\n{a.doc}"
    for s in STATEMENTS.values():
        if name in s.keywords:
            return f"```\n{s.syntax}\n```\nstatement\n\n{s.doc}"
    if name in CONSTANTS:
        typ, _, doc = CONSTANTS[name]
        return f"```\n{name}\n```\nconstant · {t.describe(typ)}\n\n{doc}"
    return None


def card_hover(card: Card, rs: Ruleset) -> str:
    """The card as ``critter-kitchen cards ID`` shows it: its text, then its English."""
    from ..report.cards import card_text

    return f"```text\n{_fenced(card_text(card, rs))}\n```"


def stage_hover(name: str, rs: Ruleset) -> str:
    """A stage's short name and description, the rules card that declares it and the cards hooked to it."""
    stage = next(s for s in rs.stages if s.name == name)
    named = f"stage {name} ({stage.short_name})" if stage.short_name else f"stage {name}"
    lines = [named, f"declared by {stage.card}", "", " ".join(stage.description.split())]
    hooked = [(e.timing, c) for c in rs.cards.values() for e in c.effects if e.stage == name]
    lines += ["", f"cards hooked to it: {len(hooked)}" if hooked else "no card is hooked to it"]
    lines += [f"  {timing}: {card.id} ({card.name})" for timing, card in hooked[:MAX_HOOKED_SHOWN]]
    if len(hooked) > MAX_HOOKED_SHOWN:
        lines.append(f"  and {len(hooked) - MAX_HOOKED_SHOWN} more")
    return f"```text\n{_fenced(_shown(lines))}\n```"


def parameter_hover(name: str, rs: Ruleset) -> str:
    """A parameter: its value in force, where that was set, and the cards that change it in play."""
    p = rs.parameters[name]
    lines = [f"parameter {name} ({p.type}, {p.scope})", f"value in force: {_value(p.value)}"]
    setters = [c for c in rs.rules_cards if name in (c.data.get("parameters") or {})]
    if setters:
        first, last = setters[0], setters[-1]
        lines.append(f"set by {last.id} ({last.path})")
        if last is not first:
            lines.append(f"declared by {first.id} ({first.path})")
    lines += ["", " ".join(p.description.split())]
    if p.unverified:
        lines += ["", "unverified: " + " ".join(p.unverified.split())]
    changing = [c for c in rs.cards.values() if c.kind != rs.rules_kind and name in c.parameters]
    if changing:
        lines += ["", "cards that change it while in play:"]
        lines += [f"  {c.id}: {_value(c.parameters[name])}" for c in changing[:MAX_HOOKED_SHOWN]]
    return f"```text\n{_fenced(_shown(lines))}\n```"


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_SHOWN_VALUE else text[: MAX_SHOWN_VALUE - 3] + "..."


def _shown(lines: list[str]) -> str:
    return "\n".join(escaped(line) for line in lines)


def _fenced(text: str) -> str:
    """Text for a fenced block: a run of backquotes in it cannot close the fence."""
    return text.replace("```", "`\u200b``")


# definitions


def definition(known: Known | None, lines: list[str], place: Place) -> tuple[str, Place] | None:
    """Where the card id, stage or parameter at ``place`` is defined: a file and a 0-based place."""
    found = name_at(lines, place)
    if found is None or known is None:
        return None
    rs = known.ruleset
    for name in dict.fromkeys(found[:2]):
        if name in rs.cards:
            card = rs.cards[name]
            return _at_key(known, card.path, ("id",), card.pos)
        stage = next((s for s in rs.stages if s.name == name), None)
        if stage is not None and stage.card in rs.cards:
            card = rs.cards[stage.card]
            stages = card.data.get("stages") or []
            i = next((i for i, s in enumerate(stages) if isinstance(s, dict) and s.get("id") == name), None)
            return _at_key(known, card.path, ("stages", i, "id") if i is not None else ("id",), card.pos)
        if name in rs.parameters:
            declared = [c for c in rs.rules_cards if name in (c.data.get("parameters") or {})]
            if declared:
                card = declared[0]
                return _at_key(known, card.path, ("parameters", name), card.pos, key=True)
    return None


def _at_key(
    known: Known, path: str, where: tuple[str | int, ...], fallback: tuple[int, int], key: bool = False
) -> tuple[str, Place]:
    doc = known.document(path)
    if doc is None:
        return os.path.abspath(path), engine_place(*fallback)
    mark = doc.key_mark(where) if key else doc.mark(where)
    return os.path.abspath(path), engine_place(mark.line, mark.column)


# document symbols


def symbols(known: Known | None, path: str) -> list[tuple[str, str, str, Place]]:
    """The cards a file defines (for ``pack.yaml``: every card of its pack), with the stages a
    rules card declares: (name, detail, path, 0-based place), in the order the pack loads them."""
    if known is None:
        return []
    real = os.path.realpath(path)
    rs = known.ruleset
    if os.path.basename(path) == "pack.yaml":
        pack = next((p for p in rs.packs if os.path.realpath(p.path) == os.path.dirname(real)), None)
        cards = [c for c in rs.cards.values() if pack is not None and c.pack == pack.id]
    else:
        cards = [c for c in rs.cards.values() if os.path.realpath(c.path) == real]
    out = []
    for card in cards:
        out.append((card.id, f"{card.kind}: {card.name}", card.path, engine_place(*card.pos)))
        if card.kind == rs.rules_kind and os.path.realpath(card.path) == real:
            doc = known.document(card.path)
            for i, stage in enumerate(card.data.get("stages") or []):
                if isinstance(stage, dict) and isinstance(stage.get("id"), str) and doc is not None:
                    mark = doc.mark(("stages", i, "id"))
                    out.append((stage["id"], "stage", card.path, engine_place(mark.line, mark.column)))
    return out


# completions


def completions(known: Known | None, lines: list[str], place: Place) -> list[Item]:
    """What may be written at ``place``, by what the line and the lines above it are."""
    line, char = place
    text = lines[line][:char] if 0 <= line < len(lines) else ""
    rs = known.ruleset if known is not None else None
    if _TIMING_KEY.match(text):
        return _stages(rs)
    if _REQUIRES_KEY.match(text):
        return _ingredients(rs)
    code = _code_start(lines, line)
    if code is not None:
        return _code(rs, lines, code, line, prefix_at(lines, place))
    if _is_record(lines):
        return _record(rs, lines, line, text)
    parent = _parent_keys(lines, line, len(text) - len(text.lstrip()))
    if parent[-1:] == ["parameters"] and ":" not in text:
        return _parameters(rs)
    return [*_cards(rs), *_ingredients(rs)]


def _stages(rs: Ruleset | None) -> list[Item]:
    if rs is None:
        return []
    return [Item(s.name, EVENT, " ".join(s.description.split())) for s in rs.stages]


def _ingredients(rs: Ruleset | None) -> list[Item]:
    return [Item(name, ENUM_MEMBER, "ingredient type") for name in (rs.ingredient_types if rs else ())]


def _cards(rs: Ruleset | None) -> list[Item]:
    return [Item(c.id, REFERENCE, f"{c.kind}: {c.name}") for c in (rs.cards.values() if rs else ())]


def _parameters(rs: Ruleset | None) -> list[Item]:
    if rs is None:
        return []
    return [Item(n, CONSTANT, f"{p.type} = {_value(p.value)}") for n, p in rs.parameters.items()]


def _code(rs: Ruleset | None, lines: list[str], start: int, line: int, prefix: str) -> list[Item]:
    """In an effect: names in scope (``let`` and ``for`` above), the language's entries, the
    ruleset's parameters, card ids, ingredient types, stages and rounds."""
    block = "\n".join(lines[start : line + 1])
    scope = dict.fromkeys(m.group(1) or m.group(2) for m in _BINDING.finditer(block))
    items = [Item(n, VARIABLE, "name in scope") for n in scope]
    items += [Item(f.name, FUNCTION, f"gives {t.describe(f.returns)}") for f in FUNCTIONS.values()]
    items += [Item(a.name, FUNCTION, "aggregate") for a in AGGREGATES.values()]
    items += [Item(word, KEYWORD, "statement") for s in STATEMENTS.values() for word in s.keywords]
    items += [Item(name, CONSTANT, t.describe(typ)) for name, (typ, _, _) in CONSTANTS.items()]
    items += _parameters(rs)
    if rs is not None and "challenge_rounds" in rs.parameters:
        items += [Item(str(r), VALUE, "round") for r in rs.parameters["challenge_rounds"].value]
    items += [*_ingredients(rs), *_cards(rs), *_stages(rs)]
    if "." in prefix:  # a stage id is being written: only what it may be
        items = [i for i in items if i.label.startswith(prefix)]
    return list({i.label: i for i in items}.values())


def _code_start(lines: list[str], line: int) -> int | None:
    """The first line of the effect (``do:``, ``by:``, ``require:``) the line is in, or None:
    the nearest such key above that is indented less than every line from it to here."""
    if not 0 <= line < len(lines):
        return None
    if _INLINE_CODE.match(lines[line]):
        return line
    here = lines[line]
    least = len(here) - len(here.lstrip()) if here.strip() else len(here) + 1
    for i in range(line - 1, -1, -1):
        text = lines[i]
        if not text.strip():
            continue
        own = len(text) - len(text.lstrip())
        if own < least and _BLOCK_START.match(text):
            return i
        least = min(least, own)
        if least == 0:
            return None
    return None


def _is_record(lines: list[str]) -> bool:
    return any(re.match(r"""^['"]?players['"]?\s*:""", text) for text in lines) and not any(
        re.match(r"^kind\s*:", text) for text in lines
    )


def _parent_keys(lines: list[str], line: int, indent: int) -> list[str]:
    """The keys that hold ``line`` (indented by ``indent``), outermost first, by the lines above."""
    keys: list[str] = []
    for i in range(line - 1, -1, -1):
        m = _KEY.match(lines[i])
        if m is None:
            continue
        own = len(m.group(1)) + (len(m.group(2)) if m.group(2) else 0)
        if own < indent:
            keys.append(m.group(3))
            indent = len(m.group(1))
            if indent == 0:
                break
    return keys[::-1]


def _record(rs: Ruleset | None, lines: list[str], line: int, text: str) -> list[Item]:
    """In a game record: the keys the record's schema (and the rules' card kinds) allow where
    a key is written, else card ids and ingredient types."""
    if ":" in text:
        return [*_cards(rs), *_ingredients(rs)]
    stripped = text.lstrip()
    indent = len(text) - len(stripped) + (2 if stripped.startswith("- ") else 0)
    parents = _parent_keys(lines, line, indent)
    return [Item(k, PROPERTY, d) for k, d in _record_keys(rs, parents).items()]


def _record_keys(rs: Ruleset | None, parents: list[str]) -> dict[str, str]:
    from ..loading.schema import shipped

    with open(shipped("game-record"), encoding="utf-8") as f:
        node: Any = json.load(f)
    for key in parents:
        node = _step(node, key)
        if node is None:
            return {}
    node = node.get("items", node) if node.get("type") == "array" else node
    keys = {k: str(v.get("description", "")) for k, v in (node.get("properties") or {}).items()}
    where = ".".join(parents)
    for kind, record in rs.card_kinds.items() if rs else ():
        holder, _, slot = record.rpartition(".")
        if holder == where and slot not in keys:
            keys[slot] = f"{kind} cards"
    return keys


def _step(node: Any, key: str) -> Any:
    if node.get("type") == "array":
        node = node.get("items", {})
    props = node.get("properties") or {}
    if key in props:
        found = props[key]
    else:
        found = node.get("additionalProperties")
    return found if isinstance(found, dict) else None
