"""Game rooms: one game entered from several phones at the table, each player their own meals.

Starting a room (``POST /api/rooms`` with the game's setup, by someone holding the server's
token) gives it a short code and a room key. The QR code (``/api/rooms/CODE/qr.svg``) is the
room's address with that key, ``/room/CODE?key=KEY``: a phone that opens it gets a cookie for
that room alone (see :meth:`RoomHub.admits`), never the server's token, so a photo of the
code opens one game until it expires, not the history, the statistics or the other rooms.

Each player (a seat) has their own meals and their own version: a write names the version
it was based on, and a stale one is refused (409) with the meals as they are now, so two
phones editing one player's meals never silently overwrite each other. Every change raises
the room's version, which numbers the live updates: ``/api/rooms/CODE/events`` is a stream
of server-sent events, each the whole room at that version (``id:`` the version), so a phone
that comes back with ``Last-Event-ID`` (or ``?since=``) gets the room as it is now if it
changed, once, and nothing twice. A stream waits on an event of the event loop: it holds no
worker of the engine pool nor a thread. Once every player is done, the record is scored on
the engine pool by :func:`~.scoring.score_data`, as ``critter-kitchen score`` scores it.

Rooms are kept in the games database (they survive a restart), expire
:data:`~.limits.ROOM_HOURS` after their last write, and are bounded by :mod:`.limits`.
"""

from __future__ import annotations

import asyncio
import datetime
import io
import json
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass

from fastapi import FastAPI, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, RedirectResponse, Response, StreamingResponse

from ..errors import CritterError, InputError, printable
from ..loading.records import MAX_NAME
from .access import SAFE_METHODS, is_api, is_loopback
from .limits import (
    MAX_ROOMS,
    ROOM_HOURS,
    ROOM_STREAMS,
    ROOM_WRITE_BYTES,
    STREAM_PING_SECONDS,
    STREAMS_TOTAL,
    UNDO_MINUTES,
)
from .scoring import messages, parse_body, score_data
from .store import MAX_ID, Store, insert_game, record_text
from .work import Busy, engine

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Mapping
    from typing import Any

    from starlette.types import Receive, Scope, Send

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud or typed without doubt
CODE_LENGTH = 6
ROOM_COOKIE = "ck_room_"  # and the code: one cookie per room joined
KEY_PARAMETER = "key"
MEAL_FIELDS = ("challenge_meals", "critic_meal")
WRITE_FIELDS = ("version", "done", "part")
MAX_SEAT = 99  # a seat number past any game's players (SQLite's integers end at 2**63)
_PATH = re.compile(r"/(?:room|api/rooms)/([A-Z2-9]{6})(/[a-z0-9.]+|/players/[0-9]{1,2})?")
_MEMBER_PATHS = frozenset({None, "/events", "/qr.svg", "/record"})

OPEN_ROOMS = "SELECT count(*) FROM rooms WHERE ended IS NULL"  # expired ones are purged first
ROOMS_FULL = f"this score pad has {MAX_ROOMS} rooms open, as many as it keeps: finish or wait for one to expire"


def no_room(code: str) -> str:
    shown = code[: 2 * CODE_LENGTH]
    return printable(f"no room {shown} is open (rooms expire {ROOM_HOURS} hours after their last change)")


def too_many_streams(limit: int, where: str) -> str:
    return f"{where} already has {limit} live connections, as many as it allows: close the pad on another device"


def stale(name: str, now: int, based_on: int) -> str:
    return (
        f"{name}'s meals were changed on another device (now version {now}, this change was based on "
        f"version {based_on}): their meals as they are now are shown; make your change again"
    )


@dataclass(frozen=True, slots=True)
class Write:
    """One player's meals as a phone sends them, with the version they were based on."""

    version: int
    done: bool
    part: dict[str, Any]


def empty_part() -> dict[str, Any]:
    return {"challenge_meals": {}, "critic_meal": None}


def read_write(raw: bytes, content_type: str) -> Write:
    """A write's body, read by the engine's JSON reader and checked; InputError with what is wrong."""
    from ..errors import Problem

    if len(raw) > ROOM_WRITE_BYTES:
        raise InputError([Problem("write", 0, 0, f"a player's meals may take at most {ROOM_WRITE_BYTES} bytes")])
    data = parse_body(raw, content_type, "write").data
    found: list[str] = []
    if not isinstance(data, dict):
        found.append("write: expected an object with version, done and part")
    else:
        found += [f"write.{k}: unknown field (expected version, done and part)" for k in data if k not in WRITE_FIELDS]
        found += [f"write: missing {k}" for k in WRITE_FIELDS if k not in data]
        version = data.get("version")
        if "version" in data and (type(version) is not int or version < 0):
            found.append("write.version: expected the whole number of the version the change is based on")
        if "done" in data and type(data["done"]) is not bool:
            found.append("write.done: expected true or false")
        if "part" in data:
            found += part_problems(data["part"], "write.part")
    if found:  # each "place: message", as the engine's problems of a record are told
        raise InputError([Problem(m.partition(": ")[0], 0, 0, m.partition(": ")[2]) for m in found])
    return Write(data["version"], data["done"], data["part"])


def part_problems(part: Any, where: str) -> list[str]:
    """What is wrong with the shape of one player's meals (their contents the engine checks when scoring)."""
    if not isinstance(part, dict):
        return [f"{where}: expected an object with challenge_meals and critic_meal"]
    unknown = [k for k in part if k not in MEAL_FIELDS]
    found = [f"{where}.{k}: unknown field (expected challenge_meals and critic_meal)" for k in unknown]
    found += [f"{where}: missing {k}" for k in MEAL_FIELDS if k not in part]
    meals = part.get("challenge_meals", {})
    if not isinstance(meals, dict):
        found.append(f"{where}.challenge_meals: expected an object of rounds, each an object of card ids to meals")
    else:
        for round_id, by_card in meals.items():
            if not isinstance(by_card, dict) or not all(isinstance(m, dict) for m in by_card.values()):
                found.append(f"{where}.challenge_meals.{round_id}: expected an object of card ids to meals")
    critic = part.get("critic_meal")
    if critic is not None and not isinstance(critic, dict):
        found.append(f"{where}.critic_meal: expected a meal (an object) or null")
    return found


def split_record(data: Any) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
    """A record as a room's setup (the record without meals), its players' names and each one's meals."""
    setup = {k: v for k, v in data.items() if k not in ("challenge_meals", "critic_meals")}
    names = [p["name"] for p in data.get("players", [])]
    parts = []
    for name in names:
        rounds = {r: dict(by[name]) for r, by in (data.get("challenge_meals") or {}).items() if name in (by or {})}
        parts.append({"challenge_meals": rounds, "critic_meal": (data.get("critic_meals") or {}).get(name)})
    return setup, names, parts


def join_record(setup: Mapping[str, Any], names: list[str], parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The room's record: its setup, and each player's meals where a record keeps them."""
    record = dict(setup)
    challenge: dict[str, dict[str, Any]] = {}
    critic: dict[str, Any] = {}
    for name, part in zip(names, parts, strict=True):
        for round_id, by_card in part["challenge_meals"].items():
            if by_card:
                challenge.setdefault(round_id, {})[name] = by_card
        if part["critic_meal"] is not None:
            critic[name] = part["critic_meal"]
    if challenge:
        record["challenge_meals"] = challenge
    if critic:
        record["critic_meals"] = critic
    return record


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class RoomStore:
    """The rooms in the games database (the tables of the store's schema step 4)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def keys(self, now: float) -> dict[str, str]:
        """Each open room's key by its code (expired rooms forgotten first)."""
        with self.store._connection() as db:
            self._purge(db, now)
            return {str(c): str(k) for c, k in db.execute("SELECT code, room_key FROM rooms WHERE ended IS NULL")}

    def _purge(self, db: sqlite3.Connection, now: float) -> None:
        """Forget the rooms that expired, and those ended longer ago than their undo lasts."""
        db.execute("DELETE FROM rooms WHERE expires <= ? OR ended <= ?", (now, now - UNDO_MINUTES * 60))

    def create(
        self, setup: Any, names: list[str], parts: list[dict[str, Any]], limit: int, now: float
    ) -> tuple[str, str] | None:
        """A new room's code and key; None if ``limit`` rooms are open."""
        key = secrets.token_urlsafe(18)
        with self.store._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                self._purge(db, now)
                if int(db.execute(OPEN_ROOMS).fetchone()[0]) >= limit:
                    db.execute("ROLLBACK")
                    return None
                while True:
                    code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
                    if db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is None:
                        break
                db.execute(
                    "INSERT INTO rooms (code, room_key, setup, version, created, expires) VALUES (?, ?, ?, 1, ?, ?)",
                    (code, key, record_text(setup), _now(), now + ROOM_HOURS * 3600),
                )
                db.executemany(
                    "INSERT INTO room_players (code, seat, name, version, done, part) VALUES (?, ?, ?, 1, 0, ?)",
                    [(code, seat, n, record_text(p)) for seat, (n, p) in enumerate(zip(names, parts, strict=True))],
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return code, key

    def snapshot(self, code: str, now: float) -> dict[str, Any] | None:
        """The room as its members see it (and its record's parts), or None if it is not open."""
        with self.store._connection() as db:
            row = db.execute(
                "SELECT setup, version, result, problems, created, expires, kept, kept_at FROM rooms "
                "WHERE code = ? AND expires > ? AND ended IS NULL",
                (code, now),
            ).fetchone()
            if row is None:
                return None
            players = db.execute(
                "SELECT seat, name, version, done, part FROM room_players WHERE code = ? ORDER BY seat", (code,)
            ).fetchall()
        return {
            "code": code,
            "version": int(row[1]),
            "created": row[4],
            "expires": _iso(row[5]),
            "setup": json.loads(row[0]),
            "players": [
                {"seat": int(s), "name": n, "version": int(v), "done": bool(d), "part": json.loads(p)}
                for s, n, v, d, p in players
            ],
            "complete": bool(players) and all(bool(p[3]) for p in players),
            "result": None if row[2] is None else json.loads(row[2]),
            "problems": None if row[3] is None else json.loads(row[3]),
            # the game this room was kept as (its id), and the room's version when it was
            "kept": None if row[6] is None else {"id": int(row[6]), "version": int(row[7])},
        }

    def write(self, code: str, seat: int, change: Write, now: float) -> tuple[str, int] | None:
        """Keep one player's meals if they were based on the current version: ("ok", room version),
        ("stale", their version now), or None if the room or seat is not there."""
        with self.store._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                found = db.execute(
                    "SELECT p.version FROM room_players p JOIN rooms r ON r.code = p.code "
                    "WHERE p.code = ? AND p.seat = ? AND r.expires > ? AND r.ended IS NULL",
                    (code, seat, now),
                ).fetchone()
                if found is None or int(found[0]) != change.version:
                    db.execute("ROLLBACK")
                    return None if found is None else ("stale", int(found[0]))
                db.execute(
                    "UPDATE room_players SET version = version + 1, done = ?, part = ? WHERE code = ? AND seat = ?",
                    (int(change.done), record_text(change.part), code, seat),
                )
                db.execute(
                    "UPDATE rooms SET version = version + 1, result = NULL, problems = NULL, expires = ? "
                    "WHERE code = ?",
                    (now + ROOM_HOURS * 3600, code),
                )
                version = int(db.execute("SELECT version FROM rooms WHERE code = ?", (code,)).fetchone()[0])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return "ok", version

    def settle(self, code: str, version: int, result: str | None, problems: list[str] | None) -> bool:
        """Keep the result (or the problems) of the room's record at ``version``; False if it changed since."""
        with self.store._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                changed = db.execute(
                    "UPDATE rooms SET version = version + 1, result = ?, problems = ? WHERE code = ? AND version = ?",
                    (result, None if problems is None else json.dumps(problems), code, version),
                ).rowcount
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return changed > 0

    def codes(self, now: float) -> list[str]:
        """The open rooms' codes, the newest first."""
        with self.store._connection() as db:
            rows = db.execute(
                "SELECT code FROM rooms WHERE expires > ? AND ended IS NULL ORDER BY created DESC, code", (now,)
            )
            return [str(row[0]) for row in rows]

    def end(self, code: str, now: float) -> bool:
        """End an open room: hidden at once, forgotten :data:`~.limits.UNDO_MINUTES` later unless reopened."""
        with self.store._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                self._purge(db, now)
                ended = db.execute(
                    "UPDATE rooms SET ended = ? WHERE code = ? AND ended IS NULL AND expires > ?", (now, code, now)
                ).rowcount
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return ended > 0

    def reopen(self, code: str, now: float, limit: int) -> str | None:
        """Open again a room ended less than :data:`~.limits.UNDO_MINUTES` ago (its version raised,
        so its phones hear of it); its key, "" if ``limit`` rooms are open, or None."""
        with self.store._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                self._purge(db, now)
                row = db.execute(
                    "SELECT room_key FROM rooms WHERE code = ? AND ended IS NOT NULL AND expires > ?", (code, now)
                ).fetchone()
                if row is not None and int(db.execute(OPEN_ROOMS).fetchone()[0]) >= limit:
                    db.execute("ROLLBACK")
                    return ""
                if row is not None:
                    db.execute("UPDATE rooms SET ended = NULL, version = version + 1 WHERE code = ?", (code,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return None if row is None else str(row[0])

    def keep(self, code: str, version: int, record: Any, result_text: str, created: str) -> tuple[str, int] | None:
        """Keep the room's game, scored at room ``version``, once: ("kept", the new game's id), or
        ("already", the id it was kept as), or ("changed", the room's version now) when the room
        changed since; None if the room is not open. The game and the room's note of it are
        written together."""
        with self.store._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute("SELECT version, kept FROM rooms WHERE code = ? AND ended IS NULL", (code,)).fetchone()
                if row is None or row[1] is not None or int(row[0]) != version:
                    db.execute("ROLLBACK")
                    if row is None:
                        return None
                    return ("already", int(row[1])) if row[1] is not None else ("changed", int(row[0]))
                game_id = insert_game(db, record, result_text, created)
                db.execute(
                    "UPDATE rooms SET kept = ?, kept_at = version + 1, version = version + 1 WHERE code = ?",
                    (game_id, code),
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return "kept", game_id

    def kept_again(self, code: str, version: int) -> bool:
        """Note that the room's game at ``version`` was kept again (as a new version of its game)."""
        with self.store._connection() as db:
            changed = db.execute(
                "UPDATE rooms SET kept_at = version + 1, version = version + 1 WHERE code = ? AND version = ?",
                (code, version),
            ).rowcount
        return changed > 0


class RoomHub:
    """The open rooms' keys (for the access check, which runs on the event loop), their live
    streams counted, and one asyncio event per room that a change sets."""

    def __init__(self, store: Store) -> None:
        self.rooms = RoomStore(store)
        self.clock = time.time
        self.max_rooms = MAX_ROOMS
        self.room_streams = ROOM_STREAMS
        self.streams_total = STREAMS_TOTAL
        self.ping_seconds = STREAM_PING_SECONDS
        self.keys: dict[str, str] = self.rooms.keys(self.clock())
        self.streams: dict[str, int] = {}
        self.changed: dict[str, asyncio.Event] = {}
        # each room as last read, kept fresh by every change before its streams are woken:
        # a stream reads here, so hundreds of them woken at once read the database once
        self.latest: dict[str, dict[str, Any]] = {}
        self.closing = False

    def admits(self, path: str, key: str | None, cookies: Mapping[str, str], method: str) -> bool:
        """Whether a request without the server's token may go on: to a room's page or API
        with that room's key (its cookie, or ``?key=`` on the page), or for the pad's static
        files, the rules' description (``/ui/cards``, read-only) and a meal's stars (``/ui/meal``,
        which keeps nothing) with the key of any open room. Creating, listing or ending rooms needs
        the server's token."""
        page_json = path == "/ui/cards" and method in SAFE_METHODS or path == "/ui/meal" and method == "POST"
        if path.startswith("/static/") and method in SAFE_METHODS or page_json:  # /ui/meal: a meal's stars
            return any(self._key_ok(c[len(ROOM_COOKIE) :], v) for c, v in cookies.items() if c.startswith(ROOM_COOKIE))
        match = _PATH.fullmatch(path)
        if match is None:
            return False
        code, rest = match.group(1), match.group(2)
        if rest is not None and rest.startswith("/players/"):
            allowed = method == "PUT" and is_api(path)
        else:
            allowed = rest in _MEMBER_PATHS and method in SAFE_METHODS
        given = key if key is not None and not is_api(path) else cookies.get(ROOM_COOKIE + code)
        return allowed and given is not None and self._key_ok(code, given)

    def _key_ok(self, code: str, given: str) -> bool:
        import hmac

        expected = self.keys.get(code)
        return expected is not None and hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode())

    def close(self) -> None:
        """The server stops: every stream ends now (a phone reconnects once it is back)."""
        self.closing = True
        for event in self.changed.values():
            event.set()
        self.changed.clear()

    def event(self, code: str) -> asyncio.Event:
        return self.changed.setdefault(code, asyncio.Event())

    def notify(self, code: str) -> None:
        """Wake the room's streams: they read the room again."""
        event = self.changed.pop(code, None)
        if event is not None:
            event.set()


# --- the routes ---------------------------------------------------------------------------


def _join(request: Request, code: str, key: str) -> str:
    """The room's join address (what its QR code carries): this server as the request reached it."""
    return f"{str(request.base_url).rstrip('/')}/room/{code}?{KEY_PARAMETER}={key}"


def _errors(status: int, found: list[str], headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse({"errors": found, **extra}, status_code=status, headers=headers)


def _hub(request: Request) -> RoomHub:
    hub: RoomHub = request.app.state.rooms
    return hub


async def _snapshot(hub: RoomHub, code: str) -> dict[str, Any] | None:
    """The room read from the database now (and kept as its latest), or None if it is not open."""
    room = await run_in_threadpool(hub.rooms.snapshot, code, hub.clock())
    if room is None:
        hub.keys.pop(code, None)
        hub.latest.pop(code, None)
    else:
        hub.latest[code] = room
    return room


async def _latest(hub: RoomHub, code: str) -> dict[str, Any] | None:
    """The room as last read, unless it has expired since; read now if it was not yet."""
    room = hub.latest.get(code)
    if room is not None and room["expires"] > _iso(hub.clock()):
        return room
    return await _snapshot(hub, code)


def _iso(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _setup_problems(data: Any) -> list[str]:
    if not isinstance(data, dict) or not isinstance(data.get("players"), list) or not data["players"]:
        return ["record: a room needs a game's setup with its players (the meals may come later)"]
    names = [p.get("name") if isinstance(p, dict) else None for p in data["players"]]
    if not all(isinstance(n, str) and 0 < len(n) <= MAX_NAME for n in names):
        return [f"record.players: every player needs a name of 1 to {MAX_NAME} characters"]
    return []


def add_rooms(app: FastAPI) -> None:
    """The rooms' API and page on ``app`` (whose ``state.rooms`` is its :class:`RoomHub`)."""

    @app.post("/api/rooms", tags=["rooms"], status_code=201)
    async def create_room(request: Request) -> Response:
        """Open a room for one game: its setup (a record; meals in it are its players' first meals).
        The setup is checked as ``score`` checks a record; the answer has the code, key and join address."""
        hub = _hub(request)
        raw = await request.body()
        media = request.headers.get("content-type", "application/json")
        try:
            data = parse_body(raw, media).data
            found = _setup_problems(data)
            if found:
                return _errors(422, found)
            await engine(request, score_data, request.app.state.rulesets, data)
        except InputError as e:
            return _errors(422, messages(e))
        except CritterError as e:
            return _errors(422, [printable(str(e))])
        setup, names, parts = split_record(data)
        made = await run_in_threadpool(hub.rooms.create, setup, names, parts, hub.max_rooms, hub.clock())
        if made is None:
            return _errors(503, [ROOMS_FULL])
        code, key = made
        hub.keys[code] = key
        room = await _snapshot(hub, code)
        body = {"code": code, "key": key, "join": _join(request, code, key), "room": room}
        return JSONResponse(body, status_code=201, headers={"Location": f"/api/rooms/{code}"})

    @app.get("/api/rooms", tags=["rooms"])
    async def list_rooms(request: Request) -> Response:
        """The open rooms, the newest first, each as its members see it (with its join address)."""
        hub = _hub(request)
        found = []
        for code in await run_in_threadpool(hub.rooms.codes, hub.clock()):
            room = await _snapshot(hub, code)
            if room is not None and code in hub.keys:
                found.append({**room, "join": _join(request, code, hub.keys[code])})
        return JSONResponse({"rooms": found})

    @app.get("/rooms", include_in_schema=False)
    async def rooms_page(request: Request) -> Response:
        """The open rooms, and a new one started from a game's setup."""
        from .pages import templates  # type: ignore[attr-defined,unused-ignore]

        return templates.TemplateResponse(request, "rooms.html", {})

    @app.get("/api/rooms/{code}", tags=["rooms"])
    async def read_room(request: Request, code: str) -> Response:
        """The room as its members see it: setup, each player's meals, version and whether done, the result."""
        room = await _snapshot(_hub(request), code)
        return _errors(404, [no_room(code)]) if room is None else JSONResponse(room)

    @app.get("/api/rooms/{code}/record", tags=["rooms"])
    async def room_record(request: Request, code: str) -> Response:
        """The room's record as it stands: what ``critter-kitchen score`` reads (and the pad keeps)."""
        room = await _snapshot(_hub(request), code)
        if room is None:
            return _errors(404, [no_room(code)])
        names = [p["name"] for p in room["players"]]
        return JSONResponse(join_record(room["setup"], names, [p["part"] for p in room["players"]]))

    @app.delete("/api/rooms/{code}", tags=["rooms"], status_code=204)
    async def end_room(request: Request, code: str) -> Response:
        """End a room (its streams are told it is gone); ``POST /api/rooms/{code}/reopen`` undoes it
        for a while (the README's limits: ``UNDO_MINUTES``)."""
        hub = _hub(request)
        gone = await run_in_threadpool(hub.rooms.end, code, hub.clock())
        hub.keys.pop(code, None)
        hub.latest.pop(code, None)
        hub.notify(code)
        return Response(status_code=204) if gone else _errors(404, [no_room(code)])

    @app.post("/api/rooms/{code}/reopen", tags=["rooms"])
    async def reopen_room(request: Request, code: str) -> Response:
        """Open again a room ended within the undo time, as it was (its key too): the room."""
        hub = _hub(request)
        key = await run_in_threadpool(hub.rooms.reopen, code, hub.clock(), hub.max_rooms)
        if key is None:
            return _errors(404, [no_reopen(code)])
        if not key:
            return _errors(503, [ROOMS_FULL])
        hub.keys[code] = key
        room = await _snapshot(hub, code)
        return _errors(404, [no_room(code)]) if room is None else JSONResponse(room)

    @app.post("/api/rooms/{code}/keep", tags=["rooms"])
    async def keep_room(request: Request, code: str) -> Response:
        """Keep the complete room's game in the history, once per room: 201 with the new game's id;
        200 with the id it was kept as when it was; when its meals changed since, the game kept
        gets a new version (its history keeps the one before). 409 while the room has no result."""
        return await _keep(request, _hub(request), code)

    @app.get("/api/rooms/{code}/qr.svg", tags=["rooms"])
    async def room_qr(request: Request, code: str) -> Response:
        """The QR code of the room's join address (its key in it), drawn here: nothing is fetched."""
        import segno

        hub = _hub(request)
        key = hub.keys.get(code)
        if key is None or await _snapshot(hub, code) is None:
            return _errors(404, [no_room(code)])
        out = io.BytesIO()
        drawn = segno.make(_join(request, code, key), error="m")
        drawn.save(out, kind="svg", scale=5, border=2, xmldecl=False, title=f"Room {code}")
        return Response(out.getvalue(), media_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    @app.put("/api/rooms/{code}/players/{seat}", tags=["rooms"])
    async def write_player(
        request: Request, code: str, seat: int = Path(ge=0, le=MAX_SEAT, description="the player's place, from 0")
    ) -> Response:
        """One player's meals, and whether they are done, based on the version the phone had.
        A stale version gets 409 with the room as it is now; once all are done the record is scored."""
        hub = _hub(request)
        try:
            change = read_write(await request.body(), request.headers.get("content-type", "application/json"))
        except InputError as e:
            return _errors(422, messages(e))
        outcome = await run_in_threadpool(hub.rooms.write, code, seat, change, hub.clock())
        room = await _snapshot(hub, code)
        if outcome is None or room is None:
            missing = no_room(code) if room is None else f"room {code} has no player {seat}"
            return _errors(404, [missing])
        if outcome[0] == "stale":
            name = room["players"][seat]["name"]
            return _errors(409, [stale(name, outcome[1], change.version)], room=room)
        hub.notify(code)
        if room["complete"]:
            room = await _settle(request, hub, room)
        return JSONResponse(room)

    @app.get("/api/rooms/{code}/events", tags=["rooms"])
    async def room_events(request: Request, code: str, since: int | None = Query(None, ge=0, le=MAX_ID)) -> Response:
        """Server-sent events: ``room`` with the whole room each time its version rises (``id:`` the
        version), from the version after ``Last-Event-ID`` (or ``since``); ``gone`` when it ends."""
        hub = _hub(request)
        last_id = request.headers.get("last-event-id", "")
        last = int(last_id) if last_id.isdigit() and len(last_id) < 19 else (since if since is not None else 0)
        if code not in hub.keys and await _snapshot(hub, code) is None:
            return _errors(404, [no_room(code)])
        if hub.streams.get(code, 0) >= hub.room_streams:
            return _errors(503, [too_many_streams(hub.room_streams, f"room {code}")], headers={"Retry-After": "5"})
        if sum(hub.streams.values()) >= hub.streams_total:
            return _errors(503, [too_many_streams(hub.streams_total, "this score pad")], headers={"Retry-After": "5"})
        return _Stream(hub, code, _events(hub, code, last))

    @app.get("/room/{code}", include_in_schema=False)
    async def room_page(request: Request, code: str) -> Response:
        """The room's page; with ``?key=``, the room's cookie is set and the key leaves the address."""
        from .pages import templates  # type: ignore[attr-defined,unused-ignore]

        hub = _hub(request)
        key = request.query_params.get(KEY_PARAMETER)
        if key is not None:
            if key != hub.keys.get(code):  # for the server's token holder, a wrong key: not the room's
                return _errors(404, [no_room(code)])
            page = RedirectResponse(f"/room/{code}", status_code=303, headers={"Cache-Control": "no-store"})
            age = ROOM_HOURS * 3600
            page.set_cookie(ROOM_COOKIE + code, key, max_age=age, path="/", httponly=True, samesite="lax")
            return page
        if await _snapshot(hub, code) is None:
            return _errors(404, [no_room(code)])
        host = request.url.hostname or ""
        # the QR code carries the address this page was opened at: a loopback one, phones cannot reach
        member = getattr(request.state, "room_member", False)
        shown = {"code": code, "member": member, "loopback": host if is_loopback(host) else None}
        return templates.TemplateResponse(request, "room.html", shown)


def no_reopen(code: str) -> str:
    shown = code[: 2 * CODE_LENGTH]
    return printable(f"no room {shown} was ended in the last {UNDO_MINUTES} minutes: it cannot be opened again")


def not_complete(code: str) -> str:
    return f"room {code} has no result to keep yet: every player must be done and the game legal"


async def _keep(request: Request, hub: RoomHub, code: str) -> Response:
    """The room's game kept (see ``keep_room``), as the room's record scored again now."""
    room = await _snapshot(hub, code)
    if room is None:
        return _errors(404, [no_room(code)])
    kept = room["kept"]
    if kept is not None and room["version"] <= kept["version"]:
        return JSONResponse({"id": kept["id"], "room": room})
    if not room["complete"] or room["result"] is None:
        return _errors(409, [not_complete(code)], room=room)
    names = [p["name"] for p in room["players"]]
    record = join_record(room["setup"], names, [p["part"] for p in room["players"]])
    try:
        scored = await engine(request, score_data, request.app.state.rulesets, record)
    except (InputError, CritterError) as e:
        return _errors(422, messages(e) if isinstance(e, InputError) else [printable(str(e))])
    if kept is None:
        done = await run_in_threadpool(hub.rooms.keep, code, room["version"], record, scored.result_text, _now())
        status = 201
    else:  # changed in the room since it was kept: a new version of the game kept
        store: Store = request.app.state.store
        edit = await run_in_threadpool(
            store.edit, kept["id"], record, scored.result_text, _now(), f"changed in room {code}"
        )
        if edit is None:
            return _errors(404, [f"game {kept['id']}, which room {code} was kept as, is no longer kept"])
        await run_in_threadpool(hub.rooms.kept_again, code, room["version"])
        done, status = ("kept", kept["id"]), 200
    fresh = await _snapshot(hub, code)
    hub.notify(code)
    if done is None or fresh is None:
        return _errors(404, [no_room(code)])
    if done[0] == "changed":
        return _errors(409, [f"room {code} changed meanwhile: look at its result again"], room=fresh)
    return JSONResponse({"id": done[1], "room": fresh}, status_code=status if done[0] == "kept" else 200)


async def _settle(request: Request, hub: RoomHub, room: dict[str, Any]) -> dict[str, Any]:
    """Score the room's complete record on the engine pool, as ``score`` does, and keep what it says."""
    names = [p["name"] for p in room["players"]]
    record = join_record(room["setup"], names, [p["part"] for p in room["players"]])
    result: str | None = None
    problems: list[str] | None = None
    try:
        result = (await engine(request, score_data, request.app.state.rulesets, record)).result_text
    except InputError as e:
        problems = messages(e)
    except CritterError as e:
        problems = [printable(str(e))]
    except Busy as e:
        problems = [e.message]
    settled = await run_in_threadpool(hub.rooms.settle, room["code"], room["version"], result, problems)
    fresh = await _snapshot(hub, room["code"])
    if settled:
        hub.notify(room["code"])
    return fresh if fresh is not None else room


def _event(kind: str, data: Any, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


async def _events(hub: RoomHub, code: str, last: int) -> AsyncIterator[bytes]:
    """The stream's events: the room each time its version passes the last one sent; never twice."""
    yield b"retry: 2000\n\n"
    while not hub.closing:
        changed = hub.event(code)  # before reading: a change meanwhile sets this one
        room = await _latest(hub, code)
        if room is None:
            yield _event("gone", {"errors": [no_room(code)]})
            return
        if room["version"] > last:
            last = room["version"]
            yield _event("room", room, last)
        try:
            await asyncio.wait_for(changed.wait(), hub.ping_seconds)
        except TimeoutError:
            yield b": still here\n\n"


class _Stream(StreamingResponse):
    """A room's event stream, counted among the room's and the server's from start to end."""

    def __init__(self, hub: RoomHub, code: str, events: AsyncIterator[bytes]) -> None:
        super().__init__(
            events, media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        )
        self.hub = hub
        self.code = code
        hub.streams[code] = hub.streams.get(code, 0) + 1

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            left = self.hub.streams.get(self.code, 1) - 1
            if left > 0:
                self.hub.streams[self.code] = left
            else:
                self.hub.streams.pop(self.code, None)
