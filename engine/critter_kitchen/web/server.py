"""``critter-kitchen serve``: the score pad on uvicorn, one process, one worker.

On a loopback address no token is needed unless one is given; on any other address a
token is always in force, generated and printed at start when not given (as Jupyter
does). The packs and the database are opened before the server listens, so a wrong
``--pack`` or an unusable database stops it at once with a message.
"""

from __future__ import annotations

import os
import sys

import fastapi  # noqa: F401 - the web extra: without it the command says so before anything starts
import uvicorn

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    import socket
    from typing import Any

    from fastapi import FastAPI

TOKEN_VARIABLE = "CRITTER_KITCHEN_TOKEN"  # a token kept out of the process list


class StartError(Exception):
    """The server cannot start: why, in one line."""


def settings_for(args: argparse.Namespace) -> tuple[Any, bool]:
    """The app's settings from the command line, and whether the token was generated here."""
    from .access import LOOPBACK_NAMES, is_loopback, new_token
    from .app import Settings
    from .store import default_path

    token = args.token or os.environ.get(TOKEN_VARIABLE) or None
    generated = False
    loopback = is_loopback(args.host)
    if token is None and not loopback:
        token, generated = new_token(), True
    # answered only under loopback names while no token guards it: another site's name pointed at
    # 127.0.0.1 must not reach the games (DNS rebinding)
    trusted = LOOPBACK_NAMES | {args.host.strip("[]").lower()} if loopback and token is None else None
    return Settings(db=args.db or default_path(), packs=tuple(args.pack), token=token, trusted_hosts=trusted), generated


def build(args: argparse.Namespace) -> tuple[FastAPI, bool]:
    """The app, its packs loaded and its database opened; StartError if either cannot be."""
    from ..errors import InputError
    from .app import create_app
    from .store import StoreError

    settings, generated = settings_for(args)
    try:
        app = create_app(settings)
        app.state.rulesets()  # the server's own packs load now: a wrong one fails at start
    except StoreError as e:
        raise StartError(str(e)) from None
    except InputError as e:
        raise StartError("; ".join(p.line_text() for p in e.problems[:5])) from None
    return app, generated


def address(host: str, port: int, token: str | None) -> str:
    """The address to open, with the token when one is in force."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def addresses(host: str, port: int, token: str | None) -> list[str]:
    """The addresses to print: the one listened on, and this machine's own when that is every address."""
    shown = [address(host, port, token)]
    if host in ("0.0.0.0", "::", ""):
        shown.append(address("127.0.0.1", port, token))
    return shown


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; the exit status."""
    app, generated = build(args)
    settings = app.state.settings

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                port = self.servers[0].sockets[0].getsockname()[1] if self.servers else args.port
                _announce(addresses(args.host, port, settings.token), settings.db, generated)

    listening = listen(args.host, args.port)  # bound here, so a taken address is this command's message
    config = uvicorn.Config(
        app, host=args.host, port=args.port, workers=1, log_level="warning", access_log=False, server_header=False
    )
    server = Server(config)
    try:
        server.run(sockets=[listening])
    finally:
        listening.close()
    return 0 if server.started else 1


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host`` and ``port``; OSError if the address cannot be used."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named: asyncio turns Nagle's algorithm off only on sockets that say they are TCP,
    # and with it on, each small answer waits some 40 ms for the client's delayed ACK
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait for old connections
        sock.bind((host.strip("[]"), port))
    except OSError:
        sock.close()
        raise
    return sock


def _announce(urls: list[str], db: str, generated: bool) -> None:
    print(f"critter-kitchen: the score pad is at {urls[0]}", flush=True)
    for url in urls[1:]:
        print(f"critter-kitchen:                  or {url}", flush=True)
    print(f"critter-kitchen: games are kept in {db}", flush=True)
    if generated:
        print("critter-kitchen: (a new access token was made for this run; give --token to keep one)", flush=True)
    sys.stdout.flush()
