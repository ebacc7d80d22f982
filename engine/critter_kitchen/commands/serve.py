"""``critter-kitchen serve``: the score pad (web pages and a JSON API), run on uvicorn; the server is web/'s."""

from __future__ import annotations

from ..errors import printable
from . import EXIT_INVALID, needs_extra, pack_option, tell, whole_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

MAX_PORT = 65535  # ports are from 0 (any free one) to this


def add_parser(commands: Any, formatter: type[argparse.HelpFormatter]) -> None:
    serve = commands.add_parser(
        "serve",
        formatter_class=formatter,
        help="run the score pad: web pages and a JSON API that score and keep games",
        description="Run the score pad (needs the web extra: pip install 'critter-kitchen[web]'). "
        "On an address other than loopback an access token is always needed: given with --token "
        "(or the CRITTER_KITCHEN_TOKEN variable), else made and printed at start.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    whole_option(serve, "--port", 0, MAX_PORT, default=8000, help="port to listen on (default: 8000; 0: any free one)")
    serve.add_argument(
        "--db",
        metavar="PATH",
        help="the games database (default: $XDG_DATA_HOME/critter-kitchen/games.sqlite3, "
        "else ~/.local/share/critter-kitchen/games.sqlite3)",
    )
    serve.add_argument("--token", help="the access token to require (default: none on loopback, else a new one)")
    pack_option(serve)
    serve.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        from ..web import server
    except ImportError as e:
        return needs_extra("the score pad", "web", e)
    try:
        return server.run(args)
    except server.StartError as e:
        tell(printable(str(e)))
        return EXIT_INVALID
    except OSError as e:  # the address cannot be used (taken, not this machine's)
        tell(printable(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}"))
        return EXIT_INVALID
