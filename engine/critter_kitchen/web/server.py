"""``critter-kitchen serve``: the score pad on uvicorn, one process, one worker.

On a loopback address no token is needed unless one is given; on any other address a
token is always in force, generated and printed at start when not given (as Jupyter
does). The packs and the database are opened before the server listens, so a wrong
``--pack`` or an unusable database stops it at once with a message.

Connections are held to what :mod:`.limits` says, before any token is checked: HTTP/1.1
on h11 (:class:`LimitedH11`), whose request line and headers must arrive within
:data:`~.limits.HEADER_SECONDS` of the connection opening or of the last answer, and at
most :data:`~.limits.MAX_CONNECTIONS` connections (fewer if the process may open too few
files), the one waiting longest for its headers closed to make room for a new one.
uvicorn itself offers no header timeout: its keep-alive timeout runs only between
requests, and stops at the first byte of the next.
"""

from __future__ import annotations

import asyncio
import os
import sys

import fastapi  # noqa: F401 - the web extra: without it the command says so before anything starts
import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .limits import (
    HEADER_SECONDS,
    KEEP_ALIVE_SECONDS,
    MAX_CONNECTIONS,
    MAX_FILES,
    MAX_HEADER_BYTES,
    MIN_TOKEN,
    SWITCH_SECONDS,
)

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
    if token is not None and len(token) < MIN_TOKEN:
        raise StartError(short_token(len(token)))
    generated = False
    loopback = is_loopback(args.host)
    if token is None and not loopback:
        token, generated = new_token(), True
    # answered only under loopback names while no token guards it: another site's name pointed at
    # 127.0.0.1 must not reach the games (DNS rebinding)
    trusted = LOOPBACK_NAMES | {args.host.strip("[]").lower()} if loopback and token is None else None
    return Settings(db=args.db or default_path(), packs=tuple(args.pack), token=token, trusted_hosts=trusted), generated


def short_token(length: int) -> str:
    return (
        f"the access token is too short ({length} of at least {MIN_TOKEN} characters): a shorter one can be "
        "guessed over the network; give a longer one, or none to have one made"
    )


def build(args: argparse.Namespace) -> tuple[FastAPI, bool]:
    """The app, its packs loaded and its database opened; StartError if either cannot be."""
    from ..errors import InputError
    from .app import create_app
    from .store import StoreError

    settings, generated = settings_for(args)
    if not args.db:  # the default database's folder is made on first use; a --db one must exist
        try:
            os.makedirs(os.path.dirname(settings.db), exist_ok=True)
        except OSError as e:
            raise StartError(f"{settings.db}: cannot create the games database: {e.strerror or e}") from None
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
    sys.setswitchinterval(SWITCH_SECONDS)  # the event loop waits less for a worker to hand over
    more_files()
    app, generated = build(args)
    settings = app.state.settings

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                port = self.servers[0].sockets[0].getsockname()[1] if self.servers else args.port
                _announce(addresses(args.host, port, settings.token), settings.db, generated)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            app.state.rooms.close()  # the game rooms' live streams end, or stopping would wait for them
            await super().shutdown(sockets)

    listening = listen(args.host, args.port)  # bound here, so a taken address is this command's message
    config = uvicorn.Config(app, host=args.host, port=args.port, **server_limits(connection_cap()))
    server = Server(config)
    try:
        server.run(sockets=[listening])
    finally:
        listening.close()
    return 0 if server.started else 1


def server_limits(cap: int) -> dict[str, Any]:
    """uvicorn's settings for a server of at most ``cap`` connections (see :mod:`.limits`)."""
    return {
        "workers": 1,
        "log_level": "warning",
        "access_log": False,
        "server_header": False,
        "http": limited_protocol(cap),
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
        # uvicorn answers 503 at this many connections or requests in progress: one past the cap,
        # so that only requests in progress (which outlive a closed connection) reach it
        "limit_concurrency": cap + 1,
    }


def more_files() -> None:
    """Let this process open as many files as it may (up to :data:`~.limits.MAX_FILES`): the
    event loop accepts a burst of connections before closing those past the cap, and a
    refused accept stops it accepting for a second."""
    try:
        import resource
    except ImportError:  # not a Unix
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MAX_FILES if hard == resource.RLIM_INFINITY else min(hard, MAX_FILES)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):  # not allowed here: the cap follows the limit there is
            pass


def connection_cap() -> int:
    """:data:`~.limits.MAX_CONNECTIONS`, or half the files this process may open if that is fewer."""
    try:
        import resource
    except ImportError:  # not a Unix
        return MAX_CONNECTIONS
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return MAX_CONNECTIONS if soft == resource.RLIM_INFINITY else max(1, min(MAX_CONNECTIONS, soft // 2))


class LimitedH11(H11Protocol):
    """uvicorn's HTTP/1.1 connection with a header timeout and a cap on connections (see the module's text)."""

    max_connections = MAX_CONNECTIONS
    header_seconds = HEADER_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timer: asyncio.TimerHandle | None = None
        self.waiting_since = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_headers()
        if len(self.connections) > self.max_connections:
            self._make_room()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete:  # a request's headers came
            self._stop_waiting()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._await_headers()  # for the next request (a pipelined one may have begun already)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._stop_waiting()
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def _await_headers(self) -> None:
        self._stop_waiting()
        self.waiting_since = self.loop.time()
        self.header_timer = self.loop.call_later(self.header_seconds, self._too_slow)

    def _stop_waiting(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def _too_slow(self) -> None:
        """Close this connection, which sends no request (or too slowly)."""
        self._stop_waiting()
        self.connections.discard(self)
        self.transport.close()

    def _make_room(self) -> None:
        """Close the connection that has waited longest for a request's headers (this one if none waits)."""
        waiting = [c for c in self.connections if isinstance(c, LimitedH11) and c.header_timer is not None]
        oldest = min(waiting, key=lambda c: c.waiting_since, default=self)
        oldest._too_slow()


def limited_protocol(cap: int, header_seconds: float = HEADER_SECONDS) -> type[LimitedH11]:
    """:class:`LimitedH11` of at most ``cap`` connections, ``header_seconds`` for a request's headers."""
    return type("LimitedH11", (LimitedH11,), {"max_connections": cap, "header_seconds": header_seconds})


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
