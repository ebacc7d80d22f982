"""What each printed card says: its face as data, before any drawing.

A face holds only text that can be printed: card data is a stranger's, so control characters
become spaces and invisible format characters (right-to-left marks and overrides, zero-width
joiners) are dropped (:func:`printable_text`); each block is cut at :data:`MAX_BLOCK_CHARS`,
more than a card can hold at its smallest type, so a huge field costs no more work than a
full card.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass

from ..errors import CritterError, did_you_mean, printable
from ..model.meals import MealRules, card_parameters
from ..model.ruleset import CHALLENGE_CARDS, Card, Ruleset
from ..report.cards import english_lines

MAX_BLOCK_CHARS = 4000  # characters of one text block kept for layout (a card holds far fewer)
MAX_INDENT = 16  # spaces of nesting kept in an English line (four levels)
HASH_DIGITS = 8  # hex digits of the content hash printed in a card's corner
ELLIPSIS = "\u2026"


@dataclass(frozen=True)
class Face:
    """A card as its proof prints it."""

    id: str
    name: str
    kind: str
    kind_index: int  # the kind's place among the ruleset's card kinds: its colour
    pack: str
    digest: str  # the short content hash of the card's data (:func:`content_hash`)
    requires: tuple[str, ...]  # a Challenge card's requirement slots, left to right; else ()
    held: int | None  # the slot the Hold token covers, where the rules in play let it; else None
    text: str  # the card's own `text`, "" when it has none
    english: tuple[str, ...]  # what its data does in English, a line each ("" between parts); () if the text says it
    flavor: str  # the card's flavour line, "" when it has none: printed where there is room left


def content_hash(card: Card) -> str:
    """The first :data:`HASH_DIGITS` hex digits of the SHA-256 of the card's data as canonical
    JSON (keys sorted, no spaces, UTF-8): the same data gives the same hash whatever its file's
    layout or comments, and a changed field changes it."""
    canonical = json.dumps(card.data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_DIGITS]


def printable_text(text: str) -> str:
    """``text`` as a card may print it, on one line: control characters (line breaks, tabs, ESC)
    and line or paragraph separators become spaces, format characters (bidirectional marks and
    overrides, zero-width characters), surrogates, private-use and unassigned code points are
    dropped, runs of spaces become one; cut at :data:`MAX_BLOCK_CHARS`."""
    out: list[str] = []
    for ch in text[: MAX_BLOCK_CHARS * 2]:
        category = unicodedata.category(ch)
        if category in ("Cc", "Zl", "Zp") or ch.isspace():
            out.append(" ")
        elif category[0] != "C":
            out.append(ch)
    cleaned = " ".join("".join(out).split())
    return cleaned if len(cleaned) <= MAX_BLOCK_CHARS else cleaned[: MAX_BLOCK_CHARS - 1] + ELLIPSIS


def _same_words(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def held_slot(card: Card, ruleset: Ruleset) -> int | None:
    """The requirement slot the Hold token covers on ``card`` when it is the last card of its
    round, as the meal rules in play for it decide (the card's own parameters first), as the
    score pad's card picker marks it; None where the token covers none."""
    own = MealRules(card_parameters(ruleset.base_params(), card))
    return len(own.listed_slots(card, True)) if own.covers_last(card, True) else None


def face(card: Card, ruleset: Ruleset) -> Face:
    kinds = list(ruleset.card_kinds)
    challenge = ruleset.card_kinds.get(card.kind) == CHALLENGE_CARDS
    text = printable_text(str(card.data["text"])) if "text" in card.data else ""
    english: list[str] = []
    chars = 0
    for line in english_lines(card, ruleset):
        indent = " " * min(len(line) - len(line.lstrip(" ")), MAX_INDENT)  # nesting, as `cards` shows it
        shown = printable_text(line)
        if chars + len(shown) > MAX_BLOCK_CHARS:
            english.append(ELLIPSIS)
            break
        chars += len(shown)
        english.append(indent + shown if shown else "")
    while english and not english[0]:
        english.pop(0)
    if _same_words(text, " ".join(english)):
        english = []
    return Face(
        id=printable_text(card.id),
        name=printable_text(card.name) or printable_text(card.id),
        kind=printable_text(card.kind),
        kind_index=kinds.index(card.kind) if card.kind in kinds else len(kinds),
        pack=printable_text(card.pack),
        digest=content_hash(card),
        requires=tuple(printable_text(r) for r in card.requires) if challenge else (),
        held=held_slot(card, ruleset) if challenge else None,
        text=text,
        english=tuple(english),
        flavor=printable_text(str(card.data["flavor"])) if "flavor" in card.data else "",
    )


def chosen_cards(ruleset: Ruleset, packs: list[str], ids: list[str] | None) -> list[Card]:
    """The cards to print, in the order the packs load them: every card of the packs ``packs``
    (ids) but their rules cards, or, with ``ids``, those cards of any loaded pack.

    A rules card is the game's scoring procedure, read by the engine, not a card dealt or held:
    it is never printed, and naming one is an error, as is an id no loaded card has, or packs
    with nothing else to print."""
    if ids is None:
        wanted = set(packs)
        found = [c for c in ruleset.cards.values() if c.pack in wanted and c.kind != ruleset.rules_kind]
        if not found:
            named = ", ".join(f"'{p}'" for p in packs)
            raise CritterError(printable(f"no cards to print in {named}: only rules cards"))
        return found
    for cid in ids:
        card = ruleset.cards.get(cid)
        if card is None:
            hint = did_you_mean(cid, [c.id for c in ruleset.cards.values() if c.kind != ruleset.rules_kind])
            raise CritterError(printable(f"--cards: unknown card '{cid}'{hint}"))
        if card.kind == ruleset.rules_kind:
            raise CritterError(printable(f"--cards: '{cid}' is a rules card (the scoring procedure), never printed"))
    chosen = set(ids)
    return [c for c in ruleset.cards.values() if c.id in chosen]
