"""``critter-kitchen cards``: the loaded cards listed, or one card shown with its effects in plain English."""

from __future__ import annotations

from ..errors import did_you_mean, printable
from . import EXIT_INVALID, EXIT_OK, format_option, json_out, pack_option, tell

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

    from ..model.ruleset import Card, Ruleset


def _listing_text(ruleset: Ruleset) -> str:
    from ..report.cards import listing_text

    return listing_text(ruleset)


def _listing_json(ruleset: Ruleset) -> str:
    from ..report.cards import card_json

    return json_out([card_json(c, ruleset) for c in ruleset.cards.values()], indent=2)


def _card_text(card: Card, ruleset: Ruleset) -> str:
    from ..report.cards import card_text

    return card_text(card, ruleset)


def _card_json(card: Card, ruleset: Ruleset) -> str:
    from ..report.cards import card_json

    return json_out(card_json(card, ruleset), indent=2)


# each format: how it shows every card, and how it shows one
FORMATS: dict[str, tuple[Callable[[Ruleset], str], Callable[[Card, Ruleset], str]]] = {
    "text": (_listing_text, _card_text),
    "json": (_listing_json, _card_json),
}


def add_parser(commands: Any, formatter: type[argparse.HelpFormatter]) -> None:
    cards = commands.add_parser(
        "cards",
        formatter_class=formatter,
        help="list the loaded cards, or show one with its effects in plain English",
        description="List every loaded card, or show one card: its text, parameters and effects in plain English.",
    )
    cards.add_argument("card", nargs="?", metavar="ID", help="the card to show (default: list them all)")
    pack_option(cards)
    format_option(cards, tuple(FORMATS))
    cards.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..loading.resolve import Resolver

    ruleset = Resolver(args.pack).ruleset()
    listing, one = FORMATS[args.format]
    if args.card is None:
        print(listing(ruleset))
        return EXIT_OK
    card = ruleset.cards.get(args.card)
    if card is None:
        hint = did_you_mean(args.card, ruleset.cards)
        tell(printable(f"unknown card '{args.card}'{hint}"))
        return EXIT_INVALID
    print(one(card, ruleset))
    return EXIT_OK
