"""Who may use the score pad, and what a request may carry: the access token, CSRF, body size.

One ASGI middleware, :class:`Guard`, runs before every route, in this order:

1. **Host.** When the server listens on a loopback address without a token, it answers
   only requests addressed to a loopback name: a page elsewhere that points its own
   name at 127.0.0.1 (DNS rebinding) gets 400.
2. **Token.** When a token is in force, a request needs ``Authorization: Bearer TOKEN`` or
   the session cookie that ``/login?token=TOKEN`` (or any page's ``?token=TOKEN``) sets;
   anything else gets 401 (but a game room's own pages and API with that room's key, see
   rooms.py: ``request.state.room_member`` then tells the pages to show that room alone).
   Tokens are compared in constant time, as bytes. A client
   address that sent :data:`~.limits.GUESSES_AT_ONCE` wrong tokens may then send one more
   each :data:`~.limits.GUESS_SECONDS`; a token it sends before then gets 429 with
   Retry-After, unchecked (see :class:`Guesses`).
3. **Size.** A body larger than the limit gets 413, told by its Content-Length or found
   while reading it, and one not whole within :data:`~.limits.BODY_SECONDS` gets 408; the
   body is read here once and handed on.
4. **CSRF** (double submit). Every response from a browser's visit carries a random
   ``ck_csrf`` cookie (readable by the page's script, sent by the browser only to this
   site), also in ``request.state.csrf_token`` for the templates; API answers set none. A request that changes
   something (not GET, HEAD or OPTIONS) and is not authorised by a bearer header must
   carry it back in the ``X-CSRF-Token`` header or a ``csrf_token`` form field when it
   comes from a browser: when it has cookies, or is a POST of a type another site's form
   can send (form data, plain text). A request marked cross-site by its ``Origin`` or
   ``Sec-Fetch-Site`` header is refused outright. Each refusal is 403.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import ipaddress
import json
import math
import secrets
import time
from collections import OrderedDict
from urllib.parse import parse_qsl, quote, urlencode

import anyio

from .limits import BODY_SECONDS, CLIENTS_TRACKED, GUESS_SECONDS, GUESSES_AT_ONCE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping, MutableMapping
    from typing import Any

    Scope = MutableMapping[str, Any]
    Message = MutableMapping[str, Any]
    Receive = Callable[[], Awaitable[Message]]
    Send = Callable[[Message], Awaitable[None]]
    ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
    # whether a request without the token may go on: path, ?key=, cookies, method
    RoomAccess = Callable[[str, str | None, Mapping[str, str], str], bool]

SESSION_COOKIE = "ck_session"
CSRF_COOKIE = "ck_csrf"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
TOKEN_PARAMETER = "token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SESSION_DAYS = 30
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
# the body types a form or a script on another site can send without the browser asking first
SIMPLE_TYPES = frozenset({"", "application/x-www-form-urlencoded", "multipart/form-data", "text/plain"})

NEED_TOKEN = "this score pad needs its access token: open the address the server printed at start"
WRONG_TOKEN = "wrong access token"
NEED_CSRF = (
    "missing or wrong CSRF token: send the ck_csrf cookie's value in the X-CSRF-Token header "
    "(reload the page and try again)"
)
CROSS_SITE = "a request from another site is refused"


def too_many_guesses(seconds: int) -> str:
    return f"too many wrong access tokens from this address: wait {seconds} s before trying again"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) can only be reached from this machine."""
    if host.strip("[]").lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    return secrets.token_urlsafe(32)


def session_value(token: str) -> str:
    """The session cookie's value for ``token``: derived from it, so that it cannot be forged
    without the token, and a restart with the same token keeps browsers signed in."""
    return hmac.new(token.encode(), b"critter-kitchen session", hashlib.sha256).hexdigest()


def is_api(path: str) -> bool:
    return path == "/api" or path.startswith("/api/") or path == "/openapi.json"


def is_page_json(path: str) -> bool:
    """Whether ``path`` is JSON the pages' scripts ask for (``/ui/...``)."""
    return path.startswith("/ui/")


def error_body(path: str, status: int, messages: list[str], *, login: bool = False) -> tuple[bytes, str]:
    """An error's body and media type: ``{"errors": [...]}`` for the API, the problems the
    pages' scripts show for ``/ui/...``, a small HTML page otherwise."""
    if is_api(path):
        return json.dumps({"errors": messages}, ensure_ascii=False, separators=(",", ":")).encode(), "application/json"
    if is_page_json(path):
        problems = [{"where": "", "message": m, "code": ""} for m in messages]
        text = json.dumps({"problems": problems}, ensure_ascii=False, separators=(",", ":"))
        return text.encode(), "application/json"
    items = "".join(f"<p>{html.escape(m)}</p>" for m in messages)
    form = (
        '<form method="get" action="/login"><label>Access token <input name="token" type="password" '
        'autocomplete="current-password"></label> <button>Open</button></form>'
        if login
        else ""
    )
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{status} · Critter Kitchen score pad</title></head>"
        f'<body><main><h1>{status}</h1>{items}{form}<p><a href="/">Back to the score pad</a></p></main></body></html>'
    )
    return page.encode(), "text/html; charset=utf-8"


class Guard:
    """The access middleware (see the module's text); ``token`` None means none is needed."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None = None,
        body_limit: int = 1 << 20,
        trusted_hosts: frozenset[str] | None = None,
        guesses: Guesses | None = None,
        body_seconds: float = BODY_SECONDS,
        rooms: RoomAccess | None = None,
    ) -> None:
        self.app = app
        self.token = token
        self.session = session_value(token) if token is not None else None
        self.body_limit = body_limit
        self.trusted_hosts = trusted_hosts
        self.guesses = guesses if guesses is not None else Guesses()
        self.body_seconds = body_seconds
        self.rooms = rooms  # who may use a game room without the token (see rooms.py)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):  # lifespan
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        cookies = _cookies(headers.get("cookie", ""))
        if scope["type"] == "websocket":
            await self._socket(scope, receive, send, headers, cookies)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        path = scope.get("path", "/")
        if self.trusted_hosts is not None and _host_name(headers.get("host", "")) not in self.trusted_hosts:
            await _refuse(send, path, 400, "this score pad answers only at a loopback address such as 127.0.0.1")
            return
        asks_login = path == "/login" or (not is_api(path) and any(k == TOKEN_PARAMETER for k, _ in query))
        if scope["method"] in ("GET", "HEAD") and asks_login:
            await self._login(scope, send, path, query)
            return
        bearer = _bearer(headers.get("authorization", ""))
        member = False  # let in by a room's key alone: the pages show such a phone that room only
        if self.token is not None and bearer is not None and await self._held_back(scope, send, path):
            return
        if self.token is not None and not self._is_authorised(bearer, cookies.get(SESSION_COOKIE)):
            key = next((v for k, v in query if k == "key"), None)
            if key is not None and await self._held_back(scope, send, path):  # a room's key is guessed as a token is
                return
            member = bearer is None and self.rooms is not None and self.rooms(path, key, cookies, scope["method"])
            if not member:  # a room's key opens that room alone (see rooms.py)
                if bearer is not None or key is not None:
                    self.guesses.failed(_client(scope))
                await _refuse(send, path, 401, WRONG_TOKEN if bearer is not None else NEED_TOKEN, login=True)
                return
        body = await self._body(scope, receive, send, headers, path)
        if body is None:
            return
        csrf = cookies.get(CSRF_COOKIE) or ""
        # issued with pages only: a script on the page sends it back; an API client needs none
        fresh = "" if csrf or is_api(path) else secrets.token_urlsafe(24)
        scope["state"] = {**scope.get("state", {}), "csrf_token": csrf or fresh, "room_member": member}
        if scope["method"] not in SAFE_METHODS and bearer is None:
            refusal = _csrf_refusal(scope["method"], headers, cookies, body, csrf)
            if refusal is not None:
                await _refuse(send, path, 403, refusal, cookie=_csrf_cookie(fresh) if fresh else None)
                return
        await self.app(scope, _replay(body, receive), _with_cookie(send, _csrf_cookie(fresh)) if fresh else send)

    async def _socket(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str], cookies: dict[str, str]
    ) -> None:
        """A WebSocket is opened only with the token (when one is in force), and only from this site."""
        origin = headers.get("origin")
        allowed = self.token is None or self._is_authorised(
            _bearer(headers.get("authorization", "")), cookies.get(SESSION_COOKIE)
        )
        if not allowed or (origin is not None and not _same_origin(origin, headers.get("host", ""))):
            await receive()  # the client's connect
            await send({"type": "websocket.close", "code": 1008})  # policy violation: refused before accept
            return
        await self.app(scope, receive, send)

    def _is_authorised(self, bearer: str | None, session: str | None) -> bool:
        if bearer is not None:
            return self.token is not None and _same(bearer, self.token)
        return session is not None and self.session is not None and _same(session, self.session)

    async def _held_back(self, scope: Scope, send: Send, path: str) -> bool:
        """Whether this client sent too many wrong tokens of late: then 429 has been sent."""
        wait = self.guesses.wait(_client(scope))
        if wait <= 0:
            return False
        seconds = max(1, math.ceil(wait))
        body, media = error_body(path, 429, [too_many_guesses(seconds)])
        await _respond(send, 429, body, media, [(b"retry-after", str(seconds).encode())])
        return True

    async def _login(self, scope: Scope, send: Send, path: str, query: list[tuple[str, str]]) -> None:
        """``?token=`` on any page (or ``/login?token=``): set the session and go to the page without it."""
        given = next((v for k, v in query if k == TOKEN_PARAMETER), None)
        rest = [(k, v) for k, v in query if k not in (TOKEN_PARAMETER, "next")]
        if path == "/login":
            target = _local_target(next((v for k, v in query if k == "next"), "/"))
        else:  # ``//evil.example?token=`` is this server's path, but as a Location another site
            target = _local_target(quote(path) + ("?" + urlencode(rest) if rest else ""))
        if self.token is None:
            await _redirect(send, target, None)
            return
        if given and await self._held_back(scope, send, path):
            return
        if given is None or not _same(given, self.token):
            if given:
                self.guesses.failed(_client(scope))
            await _refuse(send, path, 401, WRONG_TOKEN if given else NEED_TOKEN, login=True)
            return
        assert self.session is not None
        cookie = f"{SESSION_COOKIE}={self.session}; Path=/; HttpOnly; SameSite=Lax; Max-Age={SESSION_DAYS * 86400}"
        await _redirect(send, target, cookie)

    async def _body(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str], path: str
    ) -> bytes | None:
        """The whole request body, or None once 413 has been sent for one past the limit."""
        too_large = f"the request body is larger than {self.body_limit} bytes"
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.body_limit:
            await _refuse(send, path, 413, too_large)
            return None
        chunks: list[bytes] = []
        size = 0
        with anyio.move_on_after(self.body_seconds):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return None
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.body_limit:
                    await _refuse(send, path, 413, too_large)
                    return None
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks)
        await _refuse(send, path, 408, f"the request body did not arrive within {self.body_seconds:g} seconds")
        return None


def _csrf_refusal(method: str, headers: dict[str, str], cookies: dict[str, str], body: bytes, csrf: str) -> str | None:
    """Why a request that changes something is refused as possibly forged, or None."""
    site = headers.get("sec-fetch-site", "")
    origin = headers.get("origin")
    if site == "cross-site" or (origin is not None and not _same_origin(origin, headers.get("host", ""))):
        return CROSS_SITE
    media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if not cookies and (method != "POST" or media not in SIMPLE_TYPES):
        return None  # not a browser: another site's page cannot send this without asking first
    sent = headers.get(CSRF_HEADER)
    if sent is None and media == "application/x-www-form-urlencoded":
        sent = next((v for k, v in parse_qsl(body.decode("latin-1")) if k == CSRF_FIELD), None)
    if not csrf or sent is None or not _same(sent, csrf):
        return NEED_CSRF
    return None


class Guesses:
    """Wrong access tokens by client address, and which addresses must wait before the next.

    Each address may send :data:`~.limits.GUESSES_AT_ONCE` wrong tokens, and gets one more
    for each :data:`~.limits.GUESS_SECONDS` since (a token bucket). At most
    :data:`~.limits.CLIENTS_TRACKED` addresses are remembered, the one that guessed least
    recently forgotten first, so the table stays small whoever fills it; an address whose
    allowance is whole again is forgotten. Used from the event loop only.
    """

    def __init__(
        self,
        at_once: int = GUESSES_AT_ONCE,
        seconds: float = GUESS_SECONDS,
        tracked: int = CLIENTS_TRACKED,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.at_once = at_once
        self.seconds = seconds
        self.tracked = tracked
        self.clock = clock
        self.clients: OrderedDict[str, tuple[float, float]] = OrderedDict()  # address: (guesses left, when)

    def _left(self, client: str) -> float:
        entry = self.clients.get(client)
        if entry is None:
            return float(self.at_once)
        left, when = entry
        return min(float(self.at_once), left + (self.clock() - when) / self.seconds)

    def wait(self, client: str) -> float:
        """Seconds until ``client`` may send a token again (0: now)."""
        left = self._left(client)
        if left >= self.at_once:
            self.clients.pop(client, None)
        return 0.0 if left >= 1 else (1 - left) * self.seconds

    def failed(self, client: str) -> None:
        """``client`` sent a wrong token."""
        self.clients[client] = (max(0.0, self._left(client) - 1), self.clock())
        self.clients.move_to_end(client)
        while len(self.clients) > self.tracked:
            self.clients.popitem(last=False)


def _same(given: str, expected: str) -> bool:
    """Whether two secrets are equal, compared in constant time as UTF-8 bytes (a str with
    characters past ASCII cannot be compared as one)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass"))


def _client(scope: Scope) -> str:
    """The address the request came from (the server's peer)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


def _local_target(target: str) -> str:
    """``target`` if it is a path on this site, else ``/``: a login link must not lead elsewhere."""
    is_path = target.startswith("/") and not target.startswith(("//", "/\\"))
    return target if is_path and target.isascii() and target.isprintable() and " " not in target else "/"


def _same_origin(origin: str, host: str) -> bool:
    return origin.split("://", 1)[-1].rstrip("/").lower() == host.lower()


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (a repeated one: its first value)."""
    out: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        out.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return out


def _cookies(header: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in header.split(";"):
        name, eq, value = part.strip().partition("=")
        if eq and name not in out:
            out[name] = value.strip().strip('"')
    return out


def _bearer(header: str) -> str | None:
    scheme, _, value = header.strip().partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def _host_name(host: str) -> str:
    """The name in a Host header, without its port (``[::1]:8000`` is ``::1``)."""
    if host.startswith("["):
        return host[1:].split("]", 1)[0].lower()
    return host.rsplit(":", 1)[0].lower() if host.count(":") == 1 else host.lower()


def _csrf_cookie(value: str) -> str:
    return f"{CSRF_COOKIE}={value}; Path=/; SameSite=Strict"


def _replay(body: bytes, client: Receive) -> Receive:
    """A receive that gives the body already read, then the client's own messages (its going
    away: a streamed answer listens for that, and must not hear it before it happens)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await client()

    return receive


def _with_cookie(send: Send, cookie: str) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie.encode("latin-1"))]
        await send(message)

    return sending


async def _respond(send: Send, status: int, body: bytes, media: str, extra: list[tuple[bytes, bytes]]) -> None:
    headers = [(b"content-type", media.encode()), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _refuse(
    send: Send, path: str, status: int, message: str, *, login: bool = False, cookie: str | None = None
) -> None:
    body, media = error_body(path, status, [message], login=login)
    extra = [(b"set-cookie", cookie.encode())] if cookie else []
    if status == 401 and not is_api(path):
        extra.append((b"cache-control", b"no-store"))
    if status == 401:
        extra.append((b"www-authenticate", b"Bearer"))
    await _respond(send, status, body, media, extra)


async def _redirect(send: Send, target: str, cookie: str | None) -> None:
    extra = [(b"location", target.encode("utf-8")), (b"cache-control", b"no-store")]
    if cookie is not None:
        extra.append((b"set-cookie", cookie.encode()))
    await _respond(send, 303, b"", "text/plain", extra)
