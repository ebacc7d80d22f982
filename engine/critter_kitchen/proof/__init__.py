"""Print-and-play proofs: the cards of some packs laid out at poker size, nine to a sheet, with
bleed and crop marks, as a PDF (``critter-kitchen proof``), from the same card data the engine
scores with: each card's name, kind, a Challenge card's requirements (the slot the Hold token
covers marked where the rules in play use it), its own text and, where it differs, what its
data does in English, and in a corner its pack and a short hash of its data.

What a card says is :mod:`.faces`; where it goes, :mod:`.layout` (the sheet) and :mod:`.card`
(the face); drawing it, :mod:`.pdf`, the one module that imports fpdf2 (the ``print`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Written:
    """What :func:`write_proofs` wrote."""

    cards: int
    pages: int
    cut: tuple[str, ...]  # ids of cards whose text was cut to fit
    missing: dict[str, int]  # card id -> characters printed as the replacement mark


def write_proofs(packs: Sequence[str], output: str, paper: str = "a4", ids: Sequence[str] | None = None) -> Written:
    """Proofs of the cards of ``packs`` (``--pack`` values: folders or installed ids, loaded on
    top of the base pack as the other commands load them), or of the cards ``ids``, written to
    ``output``. InputError if the packs do not load; CritterError for an unknown card, a card
    that is not printed, or an output that cannot be written (then nothing is written)."""
    from ..loading.resolve import Resolver, named_folder, pack_id
    from .faces import chosen_cards, face
    from .layout import PER_PAGE
    from .pdf import Sheets, write_atomically

    sheets = Sheets(paper)  # first: without fpdf2 nothing else is worth doing
    ruleset = Resolver(packs).ruleset()
    named = [pack_id(folder) for folder in map(named_folder, packs) if folder is not None]
    cards = chosen_cards(ruleset, [pid for pid in named if pid is not None], list(ids) if ids is not None else None)
    faces = [face(card, ruleset) for card in cards]
    cut = sheets.draw(faces)
    write_atomically(output, sheets.bytes())
    return Written(len(faces), -(-len(faces) // PER_PAGE), tuple(cut), dict(sheets.missing))
