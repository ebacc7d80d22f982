"""The score pad's application: the JSON API under ``/api/``, the pages, and what guards them.

FastAPI serves the OpenAPI description of the API at ``/openapi.json``; the routes read
their bodies themselves, so that a record is read by the engine's own reader (with its
limits and messages), never by a second model of it.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import sqlite3

from fastapi import FastAPI, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from ..errors import CritterError, InputError, printable
from ..loading.records import MAX_NAME
from . import openapi
from .access import Guard, error_body
from .limits import CREDITS_KEPT, ENGINE_QUEUE, ENGINE_SECONDS, ENGINE_WORKERS, NOTE_CHARS, UNDO_MINUTES
from .rooms import RoomHub, add_rooms
from .scoring import Rulesets, Scored, messages, score_body, score_data
from .stats import Credits, card_stats, player_stats, winners_of
from .store import MAX_ID, Store
from .work import Busy, EnginePool, engine

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")


@dataclasses.dataclass(frozen=True)
class Settings:
    """How one score pad runs: where games are kept, which packs it adds, who may use it."""

    db: str
    packs: tuple[str, ...] = ()
    token: str | None = None  # None: no token needed (the server listens on loopback only)
    body_limit: int = 1 << 20  # bytes of one request body
    trusted_hosts: frozenset[str] | None = None  # Host names answered (None: any)
    engine_workers: int = ENGINE_WORKERS  # engine jobs at once (see limits.py)
    engine_queue: int = ENGINE_QUEUE  # engine jobs waiting
    engine_seconds: float = ENGINE_SECONDS  # how long an answer waits for its engine job


def create_app(settings: Settings) -> FastAPI:
    """The score pad for ``settings``: its database opened (and migrated), its packs loaded once asked."""
    app = FastAPI(
        title="Critter Kitchen score pad",
        version=_version(),
        description="Score Critter Kitchen games by the rules of the loaded card packs, keep them, "
        "and read players' and cards' statistics. Results are the JSON `critter-kitchen score "
        '--format json` prints; every error is `{"errors": [messages]}`.',
        docs_url=None,  # the interactive pages would fetch their scripts from the internet
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.store = Store(settings.db)
    app.state.rulesets = Rulesets(settings.packs)
    app.state.credits = Credits(app.state.rulesets, CREDITS_KEPT)
    app.state.engine = EnginePool(settings.engine_workers, settings.engine_queue, settings.engine_seconds)
    app.state.rooms = rooms = RoomHub(app.state.store)
    app.add_middleware(
        Guard,
        token=settings.token,
        body_limit=settings.body_limit,
        trusted_hosts=settings.trusted_hosts,
        rooms=rooms.admits,
    )
    _add_error_handlers(app)
    _add_api(app)
    add_rooms(app)
    _add_pages(app)
    app.openapi = lambda: openapi.described(app)  # type: ignore[method-assign]
    return app


def _version() -> str:
    from .. import __version__

    return __version__


def _add_pages(app: FastAPI) -> None:
    try:
        from . import pages  # type: ignore[attr-defined,unused-ignore]
    except ImportError:  # the API alone
        pass
    else:
        app.include_router(pages.router)
    if os.path.isdir(STATIC):
        from .assets import Assets

        app.add_route("/static/{name}", Assets(STATIC).serve, methods=["GET", "HEAD"], include_in_schema=False)


def _errors(request: Request, status: int, found: list[str], headers: dict[str, str] | None = None) -> Response:
    body, media = error_body(request.url.path, status, found)
    return Response(body, status_code=status, media_type=media, headers=headers)


def _add_error_handlers(app: FastAPI) -> None:
    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _errors(request, exc.status_code, [printable(str(exc.detail))], dict(exc.headers or {}))

    async def invalid_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return _errors(request, 422, [_validation_message(e) for e in exc.errors()])

    async def database(request: Request, exc: Exception) -> Response:
        # a full disk, a lock held past the wait, a file gone read-only: the request is not done
        return _errors(request, 503, [printable(f"the games database cannot be used now: {exc}")])

    async def busy(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Busy)
        return _errors(request, 503, [exc.message], {"Retry-After": str(exc.retry)})

    async def internal(request: Request, exc: Exception) -> Response:
        return _errors(request, 500, ["internal error: the server could not answer this request"])

    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Busy, busy)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(sqlite3.Error, database)
    app.add_exception_handler(Exception, internal)


def _validation_message(error: Any) -> str:
    place = ".".join(str(part) for part in error.get("loc", ()))
    return printable(f"{place}: {error.get('msg', 'invalid value')}")


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def _scored(request: Request) -> Scored | Response:
    """The request's record scored (on the engine pool), or the 422 response that lists its problems."""
    raw = await request.body()
    media = request.headers.get("content-type", "application/json")
    try:
        return await engine(request, score_body, request.app.state.rulesets, raw, media)
    except InputError as e:
        return JSONResponse({"errors": messages(e)}, status_code=422)
    except CritterError as e:
        return JSONResponse({"errors": [printable(str(e))]}, status_code=422)


def _not_found(game_id: int) -> JSONResponse:
    return JSONResponse({"errors": [f"no game {game_id} is kept"]}, status_code=404)


def _add_api(app: FastAPI) -> None:
    """The JSON API's routes, in the order its OpenAPI description lists them."""
    _add_scoring(app)
    _add_games(app)
    _add_statistics(app)


def _add_scoring(app: FastAPI) -> None:
    @app.post("/api/score", tags=["scoring"], **openapi.SCORE)
    async def score(request: Request) -> Response:
        """Score one record (JSON, or YAML with a YAML media type) without keeping it."""
        scored = await _scored(request)
        if isinstance(scored, Response):
            return scored
        return Response(scored.result_text, media_type="application/json")


def _add_games(app: FastAPI) -> None:
    game_id = Path(ge=1, le=MAX_ID, description="the game's id")

    @app.post("/api/games", tags=["games"], status_code=201, **openapi.CREATE)
    async def create_game(request: Request) -> Response:
        """Score one record and keep it with its result; nothing is kept if it is not a legal game."""
        scored = await _scored(request)
        if isinstance(scored, Response):
            return scored
        store: Store = request.app.state.store
        new_id = await run_in_threadpool(store.add, scored.data, scored.result_text, _now())
        body = f'{{"id": {new_id}, "result": {scored.result_text.rstrip()}}}\n'
        location = {"Location": f"/api/games/{new_id}"}
        return Response(body, status_code=201, media_type="application/json", headers=location)

    @app.get("/api/games", tags=["games"], **openapi.LIST)
    def list_games(
        request: Request,
        player: str | None = Query(None, max_length=100, description="only games with a player whose name holds this"),
        limit: int = Query(100, ge=1, le=1000),
        offset: int = Query(0, ge=0, le=MAX_ID),
    ) -> dict[str, Any]:
        """The kept games, newest first, a page at a time; ``total`` counts every page."""
        store: Store = request.app.state.store
        games = [summary(g.id, g.created, g.result) for g in store.games(player, limit, offset)]
        return {"games": games, "total": store.count(player)}

    @app.get("/api/games/{game_id}", tags=["games"], **openapi.READ)
    def read_game(request: Request, game_id: int = game_id) -> Any:
        """One kept game: its record, its result and when it was saved."""
        found = request.app.state.store.get(game_id)
        return _not_found(game_id) if found is None else found.to_json()

    @app.delete("/api/games/{game_id}", tags=["games"], status_code=204, **openapi.DELETE)
    def delete_game(request: Request, game_id: int = game_id) -> Response:
        """Delete one kept game: gone at once from the history and the statistics, and forgotten
        for good after the undo time (``POST /api/games/{id}/undelete`` brings it back until then)."""
        return Response(status_code=204) if request.app.state.store.delete(game_id) else _not_found(game_id)

    @app.post("/api/games/{game_id}/undelete", tags=["games"], **openapi.UNDELETE)
    def undelete_game(request: Request, game_id: int = game_id) -> Response:
        """Bring back a game deleted within the undo time: the game as it was, its history with it."""
        store: Store = request.app.state.store
        if not store.undelete(game_id):
            return JSONResponse({"errors": [no_undo(game_id)]}, status_code=404)
        found = store.get(game_id)
        return _not_found(game_id) if found is None else JSONResponse(found.to_json())

    note = Query("", max_length=NOTE_CHARS, description="what the edit changed, in a few words")
    based_on = Query(None, ge=1, le=MAX_ID, description="the version the edit was based on (409 if not the latest)")

    @app.put("/api/games/{game_id}", tags=["games"], **openapi.EDIT)
    async def edit_game(
        request: Request, game_id: int = game_id, note: str = note, based_on: int | None = based_on
    ) -> Response:
        """Keep a new version of a kept game: the record scored as a new game is, nothing kept if it
        is not a legal game; the version it replaces is kept in the game's history."""
        scored = await _scored(request)
        if isinstance(scored, Response):
            return scored
        return await _new_version(request, game_id, scored, printable(note), based_on)

    @app.get("/api/games/{game_id}/versions", tags=["games"], **openapi.HISTORY)
    def game_history(request: Request, game_id: int = game_id) -> Response:
        """A kept game's versions, the latest first: each one's number, when it was kept and its note."""
        found = request.app.state.store.history(game_id)
        if found is None:
            return _not_found(game_id)
        return JSONResponse({"id": game_id, "versions": [v.to_json() for v in found]})

    number = Path(ge=1, le=MAX_ID, description="the version's number")

    @app.get("/api/games/{game_id}/versions/{version}", tags=["games"], **openapi.READ_VERSION)
    def read_version(request: Request, game_id: int = game_id, version: int = number) -> Response:
        """One version of a kept game, as ``GET /api/games/{id}`` gives the latest."""
        found = request.app.state.store.game_version(game_id, version)
        return _no_version(game_id, version) if found is None else JSONResponse(found.to_json())

    @app.post("/api/games/{game_id}/versions/{version}/restore", tags=["games"], **openapi.RESTORE)
    async def restore_version(request: Request, game_id: int = game_id, version: int = number) -> Response:
        """Make an earlier version the latest again: its record scored again and kept as a new
        version (the one it replaces stays in the history, so a restore is undone by another)."""
        store: Store = request.app.state.store
        earlier = await run_in_threadpool(store.game_version, game_id, version)
        if earlier is None:
            return _no_version(game_id, version)
        try:
            scored = await engine(request, score_data, request.app.state.rulesets, earlier.record)
        except InputError as e:
            return JSONResponse({"errors": messages(e)}, status_code=422)
        except CritterError as e:
            return JSONResponse({"errors": [printable(str(e))]}, status_code=422)
        return await _new_version(request, game_id, scored, f"restored version {version}", None)


async def _new_version(request: Request, game_id: int, scored: Scored, note: str, based_on: int | None) -> Response:
    store: Store = request.app.state.store
    done = await run_in_threadpool(store.edit, game_id, scored.data, scored.result_text, _now(), note, based_on)
    if done is None:
        return _not_found(game_id)
    if done[0] == "stale":
        return JSONResponse({"errors": [stale_edit(game_id, done[1], based_on or 0)]}, status_code=409)
    body = f'{{"id": {game_id}, "version": {done[1]}, "result": {scored.result_text.rstrip()}}}\n'
    return Response(body, media_type="application/json")


def _no_version(game_id: int, version: int) -> JSONResponse:
    return JSONResponse({"errors": [f"game {game_id} has no version {version} kept"]}, status_code=404)


def no_undo(game_id: int) -> str:
    return f"no game {game_id} was deleted in the last {UNDO_MINUTES} minutes: it cannot be brought back"


def stale_edit(game_id: int, now: int, based_on: int) -> str:
    return (
        f"game {game_id} was changed meanwhile (now version {now}, this edit was based on version {based_on}): "
        "open it again and make your change there"
    )


def _add_statistics(app: FastAPI) -> None:
    player_name = Path(
        min_length=1, max_length=MAX_NAME, description="the player's name, as records spell it (it may hold '/')"
    )

    @app.get("/api/players/{name:path}", tags=["statistics"], **openapi.PLAYER)
    def player(request: Request, name: str = player_name) -> Any:
        """A player's statistics over the kept games (the name compared exactly)."""
        stats = player_stats(name, request.app.state.store.games_of(name))
        if stats is None:
            return JSONResponse({"errors": [printable(f"no kept game has a player named '{name}'")]}, status_code=404)
        return stats

    @app.get("/api/cards/stats", tags=["statistics"], **openapi.CARDS)
    async def cards(request: Request) -> dict[str, Any]:
        """Per card, over the kept games: games in play, awards, stars, and how often its holder won."""
        state = request.app.state
        # each kept game is scored again once per challenge card, once in the server's life
        # (state.credits remembers it): engine work, on the engine pool with its limits
        return {"cards": await engine(request, lambda: card_stats(state.store.every_game(), state.credits.of))}


def summary(game_id: int, created: str, result: Any) -> dict[str, Any]:
    """A kept game as the history lists it: when, who won, and each player's rank and stars."""
    return {
        "id": game_id,
        "created": created,
        "winner": result["winner"],
        "winners": winners_of(result),
        "players": [{"name": s["name"], "rank": s["rank"], "stars": s["stars"]} for s in result["standings"]],
    }
