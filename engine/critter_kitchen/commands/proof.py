"""``critter-kitchen proof``: print-and-play proofs of the cards of some packs, as a PDF."""

from __future__ import annotations

from ..errors import printable
from . import EXIT_OK, Choices, tell

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

PAPERS = Choices("..proof.layout", "PAPER_NAMES")  # read when argparse first asks


def add_parser(commands: Any, formatter: type[argparse.HelpFormatter]) -> None:
    proof = commands.add_parser(
        "proof",
        formatter_class=formatter,
        help="print-and-play proofs of the cards of some packs, as a PDF",
        description="Lay out every card of the packs at poker size (63 x 88 mm, 3 mm bleed, crop marks), nine to "
        "a page, as a PDF: name, kind, requirements, the card's text and what its data does in English, its pack "
        'and a short hash of its data. Needs the print extra: pip install "critter-kitchen[print]".',
    )
    proof.add_argument(
        "packs",
        nargs="+",
        metavar="PACK",
        help="a pack whose cards to print (a folder, or the id of an installed pack, as --pack takes them), "
        "loaded on top of the base pack",
    )
    proof.add_argument("--output", default="cards.pdf", metavar="FILE", help="the PDF to write (default: cards.pdf)")
    proof.add_argument("--paper", choices=PAPERS, default="a4", help="paper size (default: %(default)s)")
    proof.add_argument(
        "--cards", nargs="+", metavar="ID", default=None, help="print only these cards (of any loaded pack)"
    )
    proof.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..proof import write_proofs

    written = write_proofs(args.packs, args.output, args.paper, args.cards)
    for cid, count in written.missing.items():
        tell(printable(f"{args.output}: card '{cid}': {count} characters the shipped font lacks printed as \ufffd"))
    if written.cut:
        tell(printable(f"{args.output}: text cut to fit, on {', '.join(written.cut)}"))
    pages = "page" if written.pages == 1 else "pages"
    print(printable(f"{args.output}: {written.cards} cards on {written.pages} {pages} ({args.paper})"))
    return EXIT_OK
