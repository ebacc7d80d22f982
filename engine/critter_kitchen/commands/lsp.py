"""``critter-kitchen lsp``: the language server, over standard input and output."""

from __future__ import annotations

from . import needs_extra, pack_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any


def add_parser(commands: Any, formatter: type[argparse.HelpFormatter]) -> None:
    lsp = commands.add_parser(
        "lsp",
        formatter_class=formatter,
        help="run the language server for editors (card files, packs, records)",
        description="Run the language server (needs the editor extra: pip install 'critter-kitchen[editor]'), "
        "speaking the Language Server Protocol over standard input and output: the problems validate "
        "finds as you type, hovers, completions and definitions for card files, pack.yaml, rules cards "
        "and game records.",
    )
    pack_option(lsp, "check with this card pack loaded too (a folder, or the id of an installed pack; repeatable)")
    lsp.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        from ..lsp import server
    except ImportError as e:
        return needs_extra("the language server", "editor", e)
    return server.run(args.pack)
