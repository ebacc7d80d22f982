"""The OpenAPI description of the JSON API: bodies and answers, with the shipped record schema.

The routes read their bodies themselves (through the engine's reader), so what a request
carries is described here rather than by a model class.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from fastapi import FastAPI


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


ERRORS = _json(_ref("Errors"), "the problems, each as `score` reports it")
_RETRY = {"Retry-After": {"description": "seconds to wait before asking again", "schema": {"type": "integer"}}}
# when a token is in force: this client address sent too many wrong ones of late
TOO_MANY = {429: {**_json(_ref("Errors"), "too many wrong access tokens from this address"), "headers": _RETRY}}
# the engine pool is full, or the answer waited past its time (see the README's limits)
BUSY = {
    503: {**_json(_ref("Errors"), "the server is busy, or the request needed too much of its work"), "headers": _RETRY}
}
SLOW_BODY = {408: _json(_ref("Errors"), "the request body did not arrive in time")}
RECORD_BODY = {
    "openapi_extra": {
        "requestBody": {
            "required": True,
            "description": "a game record, as `critter-kitchen score` reads it",
            "content": {
                "application/json": {"schema": _ref("GameRecord")},
                "application/yaml": {"schema": {"type": "string"}},
            },
        }
    }
}
GAME_ID_ERRORS = {404: _json(_ref("Errors"), "no such game"), 422: ERRORS}

SCORE: dict[str, Any] = {
    **RECORD_BODY,
    "responses": {
        200: _json(_ref("Result"), "the result `score --format json` prints"),
        **SLOW_BODY,
        413: ERRORS,
        422: ERRORS,
        **TOO_MANY,
        **BUSY,
    },
}
CREATE: dict[str, Any] = {
    **RECORD_BODY,
    "responses": {
        201: _json(_ref("Created"), "the game was kept"),
        **SLOW_BODY,
        413: ERRORS,
        422: ERRORS,
        **TOO_MANY,
        **BUSY,
    },
}
LIST: dict[str, Any] = {
    "responses": {200: _json(_ref("GameList"), "the kept games, newest first"), 422: ERRORS, **TOO_MANY}
}
READ: dict[str, Any] = {"responses": {200: _json(_ref("Game"), "the game"), **GAME_ID_ERRORS, **TOO_MANY}}
DELETE: dict[str, Any] = {
    "responses": {
        204: {"description": "the game is deleted (undone by /undelete for a while)"},
        **GAME_ID_ERRORS,
        **TOO_MANY,
    }
}
UNDELETE: dict[str, Any] = {
    "responses": {200: _json(_ref("Game"), "the game, brought back"), **GAME_ID_ERRORS, **TOO_MANY}
}
EDIT: dict[str, Any] = {
    **RECORD_BODY,
    "responses": {
        200: _json(_ref("Edited"), "the new version was kept"),
        **GAME_ID_ERRORS,
        409: ERRORS,
        **SLOW_BODY,
        413: ERRORS,
        **TOO_MANY,
        **BUSY,
    },
}
HISTORY: dict[str, Any] = {
    "responses": {200: _json(_ref("History"), "the game's versions, the latest first"), **GAME_ID_ERRORS, **TOO_MANY}
}
READ_VERSION: dict[str, Any] = {
    "responses": {200: _json(_ref("Game"), "that version of the game"), **GAME_ID_ERRORS, **TOO_MANY}
}
RESTORE: dict[str, Any] = {
    "responses": {
        200: _json(_ref("Edited"), "the earlier version was kept as the latest"),
        **GAME_ID_ERRORS,
        **TOO_MANY,
        **BUSY,
    }
}
PLAYER: dict[str, Any] = {
    "responses": {200: _json(_ref("PlayerStats"), "the player's statistics"), 404: ERRORS, 422: ERRORS, **TOO_MANY}
}
CARDS: dict[str, Any] = {"responses": {200: _json(_ref("CardStats"), "per-card statistics"), **TOO_MANY}}

_INT = {"type": "integer"}
_NUMBER = {"type": "number"}
_STRING = {"type": "string"}
_STANDING = {
    "type": "object",
    "required": ["rank", "name", "stars", "critic_quality"],
    "properties": {
        "rank": _INT,
        "name": _STRING,
        "stars": _INT,
        "critic_quality": _INT,
        "automated": {"type": "boolean"},
        "left": {
            "type": "object",
            "description": "what the player had left unused at the end of the game, when the record says",
            "properties": {
                "ingredients": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"type": _STRING, "value": _INT}},
                },
                "spices": {"type": "array", "items": _STRING},
            },
        },
    },
}
_AWARD = {
    "type": "object",
    "required": ["player", "stage", "stars", "card", "reason"],
    "properties": {"player": _STRING, "stage": _STRING, "stars": _INT, "card": _STRING, "reason": _STRING},
}
_WINNERS = {
    "type": "array",
    "items": _STRING,
    "description": "the winners in priority order: one, unless the rules end a tie on every ranking key with a "
    "shared win",
}
_RIVAL = {
    "type": ["object", "null"],
    "required": ["name", "games"],
    "properties": {"name": _STRING, "games": _INT, "ahead": _INT},
}
SCHEMAS: dict[str, Any] = {
    "Errors": {
        "type": "object",
        "required": ["errors"],
        "properties": {"errors": {"type": "array", "items": _STRING}},
    },
    "Result": {
        "type": "object",
        "required": ["winner", "standings", "awards"],
        "properties": {
            "winner": {**_STRING, "description": "the first of the winners"},
            "winners": _WINNERS,
            "standings": {"type": "array", "items": _STANDING},
            "awards": {"type": "array", "items": _AWARD},
            "decided_by": _STRING,
            "notes": {"type": "array", "items": _STRING},
        },
    },
    "Created": {"type": "object", "required": ["id", "result"], "properties": {"id": _INT, "result": _ref("Result")}},
    "Game": {
        "type": "object",
        "required": ["id", "record", "result", "created"],
        "properties": {
            "id": _INT,
            "record": _ref("GameRecord"),
            "result": _ref("Result"),
            "created": {**_STRING, "description": "when the game was first kept"},
            "version": {**_INT, "description": "which version of the game this is (1: as first kept)"},
            "saved": {**_STRING, "description": "when this version was kept"},
            "note": {**_STRING, "description": "what the edit that made this version said"},
        },
    },
    "Edited": {
        "type": "object",
        "required": ["id", "version", "result"],
        "properties": {"id": _INT, "version": _INT, "result": _ref("Result")},
    },
    "History": {
        "type": "object",
        "required": ["id", "versions"],
        "properties": {
            "id": _INT,
            "versions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["version", "saved", "note"],
                    "properties": {"version": _INT, "saved": _STRING, "note": _STRING},
                },
            },
        },
    },
    "GameList": {
        "type": "object",
        "required": ["games", "total"],
        "properties": {
            "total": {**_INT, "description": "how many games the query keeps, over every page"},
            "games": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "created", "winner", "players"],
                    "properties": {
                        "id": _INT,
                        "created": _STRING,
                        "winner": _STRING,
                        "winners": _WINNERS,
                        "players": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {"name": _STRING, "rank": _INT, "stars": _INT},
                            },
                        },
                    },
                },
            },
        },
    },
    "PlayerStats": {
        "type": "object",
        "required": ["name", "games", "wins", "win_rate", "stars_per_stage", "best_game"],
        "properties": {
            "name": _STRING,
            "games": _INT,
            "wins": {**_INT, "description": "the games they won, alone or sharing the win"},
            "shared_wins": {**_INT, "description": "of those, the wins they shared"},
            "win_rate": {**_NUMBER, "description": "wins per game, a win shared by k players counting 1/k"},
            "stars_mean": _NUMBER,
            "stars_per_stage": {"type": "object", "additionalProperties": _NUMBER},
            "best_game": {
                "type": "object",
                "properties": {"id": _INT, "stars": _INT, "rank": _INT, "created": _STRING},
            },
            "frequent_rival": _RIVAL,
            "toughest_rival": _RIVAL,
        },
    },
    "CardStats": {
        "type": "object",
        "required": ["cards"],
        "properties": {
            "cards": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": _STRING,
                        "games": _INT,
                        "awards": _INT,
                        "stars": _INT,
                        "stars_per_game": _NUMBER,
                        "holder_win_rate": {"type": ["number", "null"]},
                    },
                },
            }
        },
    },
}


def record_schema() -> dict[str, Any]:
    """The shipped game-record schema, as a component (its own ``$schema`` and ``$id`` left out)."""
    from ..loading.paths import schemas

    with open(os.path.join(schemas(), "game-record.schema.json"), encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    return {k: v for k, v in schema.items() if k not in ("$schema", "$id")}


def described(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI description, built once."""
    if app.openapi_schema is None:
        from fastapi.openapi.utils import get_openapi

        spec = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        spec.setdefault("components", {}).setdefault("schemas", {}).update(SCHEMAS, GameRecord=record_schema())
        app.openapi_schema = spec
    return app.openapi_schema
