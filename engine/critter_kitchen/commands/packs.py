"""``critter-kitchen packs``: the packs that can be loaded by id, and the folders ``--pack`` adds."""

from __future__ import annotations

from ..errors import printable
from . import EXIT_INVALID, EXIT_OK, format_option, json_out, pack_option, tell

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

    from ..loading.resolve import PackInfo


def _text(packs: list[PackInfo]) -> str:
    from ..report.packs import packs_text

    return packs_text(packs)


def _json(packs: list[PackInfo]) -> str:
    from ..report.packs import packs_json

    return json_out(packs_json(packs), indent=2)


FORMATS: dict[str, Callable[[list[PackInfo]], str]] = {"text": _text, "json": _json}


def add_parser(commands: Any, formatter: type[argparse.HelpFormatter]) -> None:
    packs = commands.add_parser(
        "packs",
        formatter_class=formatter,
        help="list the packs that can be loaded by id",
        description="List the card packs that can be loaded by id (shipped with the engine, or installed by "
        "other Python distributions), with their name, version and where they come from.",
    )
    pack_option(packs, "list this pack folder too (repeatable)")
    format_option(packs, tuple(FORMATS))
    packs.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..loading.resolve import installed_listing

    listing = installed_listing(args.pack)
    print(FORMATS[args.format](listing.packs))
    for message in listing.problems:
        tell(printable(message))
    return EXIT_INVALID if listing.problems else EXIT_OK
