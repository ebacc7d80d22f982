"""The score pad's JSON API, its access control and its database, through FastAPI's test client.

- ``POST /api/score`` answers the very bytes ``critter-kitchen score --format json`` prints
  for every golden game (as JSON and as YAML), and the same located problems for a bad one.
- Games are kept, listed newest first, searched by player, read back and forgotten;
  a record that is not a legal game is never kept.
- Player and card statistics over three kept games, figured by hand from the golden results.
- Access: 401 without the token when one is in force, the login link's session, CSRF
  (double submit) for browsers, 413 past the body limit, 400 for a foreign Host on loopback.
- Errors are ``{"errors": [...]}`` (API) or an escaped HTML page, never a traceback.
- The schema's migrations, and an API fuzzed from its OpenAPI description (no 500).
"""

from __future__ import annotations

import argparse
import copy
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from fastapi.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocket, WebSocketDisconnect  # noqa: E402

from critter_kitchen.cli import main  # noqa: E402
from critter_kitchen.web import access  # noqa: E402
from critter_kitchen.web.app import Settings, create_app  # noqa: E402
from critter_kitchen.web.pages import NAMES_ASKED, again_setup  # noqa: E402
from critter_kitchen.web.server import address, addresses, listen, settings_for  # noqa: E402
from critter_kitchen.web.store import MIGRATIONS, Store, StoreError, default_path, folded  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
sys.path.insert(0, str(ROOT / "tools"))
from regen_golden import pack_args  # noqa: E402

TOKEN = "s3cret-token"


def golden_records() -> list[Path]:
    return sorted(GOLDEN.rglob("*.yaml"))


def packs_of(record: Path) -> tuple[str, ...]:
    args = pack_args(record)
    return tuple(str(ROOT / folder) for folder in args[1::2])


_apps: dict[tuple[str, ...], TestClient] = {}


@pytest.fixture(scope="module")
def db_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("serve-db")


def client_for(packs: tuple[str, ...], folder: Path) -> TestClient:
    """One app per set of packs for the module (loading packs is the slow part)."""
    if packs not in _apps:
        app = create_app(Settings(db=str(folder / f"games-{len(_apps)}.sqlite3"), packs=packs))
        _apps[packs] = TestClient(app, base_url="http://127.0.0.1:8000")
    return _apps[packs]


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    """A fresh app on an empty database, base pack only."""
    return TestClient(create_app(Settings(db=str(tmp_path / "games.sqlite3"))), base_url="http://127.0.0.1:8000")


def as_json(record: Path) -> bytes:
    return json.dumps(yaml.safe_load(record.read_text(encoding="utf-8"))).encode()


# scoring: the CLI's bytes


@pytest.mark.parametrize("record", golden_records(), ids=lambda p: p.relative_to(GOLDEN).as_posix())
def test_score_answers_the_bytes_score_prints(
    record: Path, db_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = as_json(record)
    as_file = tmp_path / "record.json"
    as_file.write_bytes(body)
    assert main(["score", str(as_file), "--format", "json", *pack_args_absolute(record)]) == 0
    printed = capsys.readouterr().out

    answer = client_for(packs_of(record), db_folder).post(
        "/api/score", content=body, headers={"content-type": "application/json"}
    )

    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.text == printed
    assert answer.text == record.with_suffix(".json").read_text(encoding="utf-8")


def pack_args_absolute(record: Path) -> list[str]:
    return [arg for folder in packs_of(record) for arg in ("--pack", folder)]


def test_a_yaml_body_scores_the_same(db_folder: Path) -> None:
    record = GOLDEN / "five-players.yaml"
    answer = client_for((), db_folder).post(
        "/api/score", content=record.read_bytes(), headers={"content-type": "application/yaml"}
    )
    assert answer.status_code == 200
    assert answer.text == record.with_suffix(".json").read_text(encoding="utf-8")


def base_record() -> dict:
    return yaml.safe_load((GOLDEN / "two-players.yaml").read_text(encoding="utf-8"))


def test_a_bad_record_gets_the_messages_score_gives(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = base_record()
    record["cards"]["critic"] = "madame-bouillion"
    record["challenge_meals"]["round3"]["Ana"]["sunday-roast"]["ingredients"][0]["value"] = -2
    body = json.dumps(record, indent=1).encode()
    (tmp_path / "record").write_bytes(body)
    import os

    os.chdir(tmp_path)
    try:
        assert main(["score", "record", "record", "--format", "json"]) == 1
    finally:
        os.chdir(ROOT)
    cli_errors = json.loads(capsys.readouterr().out.splitlines()[0])["errors"]

    answer = client.post("/api/score", content=body, headers={"content-type": "application/json"})

    assert answer.status_code == 422
    assert answer.json() == {"errors": cli_errors}
    assert answer.json()["errors"] == [
        "record:33:13: cards.critic: unknown critic card 'madame-bouillion'; did you mean 'madame-bouillon'?",
        "record:47:17: challenge_meals.round3.Ana.sunday-roast.ingredients[0].value: "
        "expected a positive whole number up to 1000000, got -2",
    ]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"players": [', "record:1:14: JSON syntax error: Expecting value"),
        (b'{"players": [], "players": []}', "record: duplicate key 'players'"),
        (b"\xff\xfe{}", "record:1:1: file is not UTF-8 text"),
        (b"[1, 2]", "record:1:1: record: expected a mapping, got a list"),
    ],
)
def test_an_unreadable_body_gets_a_located_message(client: TestClient, body: bytes, message: str) -> None:
    answer = client.post("/api/score", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 422
    assert answer.json() == {"errors": [message]}


# games kept


def renamed(record: dict, names: dict[str, str]) -> dict:
    """The same game with players renamed (the meals follow their players)."""
    out = copy.deepcopy(record)
    for player in out["players"]:
        player["name"] = names.get(player["name"], player["name"])
    for day in (out.get("challenge_meals") or {}).values():
        for old in list(day):
            day[names.get(old, old)] = day.pop(old)
    meals = out.get("critic_meals") or {}
    for old in list(meals):
        meals[names.get(old, old)] = meals.pop(old)
    return out


def golden(name: str) -> dict:
    return yaml.safe_load((GOLDEN / f"{name}.yaml").read_text(encoding="utf-8"))


def three_games() -> list[dict]:
    """Ana and Ben in three games: Ana wins the first and the third, Ben the second."""
    return [
        golden("two-players"),
        renamed(golden("three-players"), {"Dev": "Ana", "Cleo": "Ben"}),
        renamed(golden("four-players"), {"Fay": "Ana", "Ivo": "Ben"}),
    ]


def test_games_are_kept_listed_read_and_forgotten(client: TestClient) -> None:
    ids = []
    for record in three_games():
        answer = client.post("/api/games", json=record)
        assert answer.status_code == 201
        body = answer.json()
        assert answer.headers["location"] == f"/api/games/{body['id']}"
        assert body["result"] == client.post("/api/score", json=record).json()
        ids.append(body["id"])

    listed = client.get("/api/games").json()["games"]
    assert [g["id"] for g in listed] == ids[::-1]
    assert listed[-1]["winner"] == "Ana"
    assert listed[-1]["players"] == [{"name": "Ana", "rank": 1, "stars": 18}, {"name": "Ben", "rank": 2, "stars": 16}]
    assert [g["id"] for g in client.get("/api/games", params={"player": "hAn"}).json()["games"]] == [ids[2]]
    assert [g["id"] for g in client.get("/api/games", params={"player": "eli"}).json()["games"]] == [ids[1]]
    assert client.get("/api/games", params={"player": "Zed"}).json() == {"games": [], "total": 0}
    page = client.get("/api/games", params={"limit": 1, "offset": 1}).json()
    assert [g["id"] for g in page["games"]] == [ids[1]]
    assert page["total"] == 3  # every page's games, not this page's
    assert client.get("/api/games", params={"player": "an", "limit": 1}).json()["total"] == 3
    assert client.get("/api/games", params={"player": "eli", "offset": 5}).json() == {"games": [], "total": 1}

    kept = client.get(f"/api/games/{ids[1]}").json()
    assert set(kept) == {"id", "record", "result", "created", "version", "saved", "note"}  # the last three: its history
    assert kept["record"] == three_games()[1]
    assert kept["result"]["winner"] == "Ben"
    assert kept["created"].endswith("Z") and len(kept["created"]) == 20

    assert client.delete(f"/api/games/{ids[1]}").status_code == 204
    assert client.get(f"/api/games/{ids[1]}").json() == {"errors": [f"no game {ids[1]} is kept"]}
    assert client.delete(f"/api/games/{ids[1]}").status_code == 404
    assert client.get("/api/games").json()["total"] == 2
    assert [g["id"] for g in client.get("/api/games").json()["games"]] == [ids[2], ids[0]]


def test_a_bad_record_is_not_kept(client: TestClient) -> None:
    record = base_record()
    record["players"][0]["name"] = ""
    answer = client.post("/api/games", json=record)
    assert answer.status_code == 422
    assert answer.json()["errors"][0].startswith("record:")
    assert client.get("/api/games").json() == {"games": [], "total": 0}


def test_player_statistics(client: TestClient) -> None:
    for record in three_games():
        assert client.post("/api/games", json=record).status_code == 201

    ana = client.get("/api/players/Ana").json()

    assert ana == {
        "name": "Ana",
        "games": 3,
        "wins": 2,
        "shared_wins": 0,
        "win_rate": 0.667,
        "stars_mean": 18.333,  # 18, 16, 21
        "stars_per_stage": {
            "challenge.round3": 3.0,  # 1 + 3 + 5
            "challenge.round6": 4.333,  # 6 + 2 + 5
            "critic.best_course": 4.333,  # 5 + 4 + 4
            "critic.card_bonuses": 1.667,  # 2 + 1 + 2
            "critic.final_quality": 4.0,
            "critic.most_soup": 0.333,
            "critic.rumors": 0.667,
        },
        "best_game": {"id": 3, "stars": 21, "rank": 1, "created": ana["best_game"]["created"]},
        "frequent_rival": {"name": "Ben", "games": 3},
        "toughest_rival": {"name": "Ben", "games": 3, "ahead": 1},
    }
    eli = client.get("/api/players/Eli").json()
    assert (eli["games"], eli["wins"], eli["win_rate"]) == (1, 0, 0.0)
    assert eli["frequent_rival"] == {"name": "Ana", "games": 1}  # Ana and Ben tie: the first name
    assert eli["toughest_rival"] == {"name": "Ana", "games": 1, "ahead": 1}
    hana = client.get("/api/players/Hana").json()
    assert hana["toughest_rival"] == {"name": "Ana", "games": 1, "ahead": 1}
    assert client.get("/api/players/ana").status_code == 404  # names are compared exactly
    assert client.get("/api/players/Nobody").json() == {"errors": ["no kept game has a player named 'Nobody'"]}


def test_card_statistics(client: TestClient) -> None:
    for record in three_games():
        assert client.post("/api/games", json=record).status_code == 201

    cards = {c["id"]: c for c in client.get("/api/cards/stats").json()["cards"]}

    # the three-player game: Dev (renamed Ana, second) holds Harbor Master, Cleo (Ben, the winner) Spice Merchant
    assert cards["harbor-master"] == {
        "id": "harbor-master",
        "games": 1,
        "awards": 1,
        "stars": 1,
        "stars_per_game": 1.0,
        "holder_win_rate": 0.0,
    }
    assert cards["spice-merchant"]["holder_win_rate"] == 1.0
    assert cards["cheese-fanatic"] == {
        "id": "cheese-fanatic",
        "games": 1,
        "awards": 0,
        "stars": 0,
        "stars_per_game": 0.0,
        "holder_win_rate": None,
    }
    assert cards["base-rules"]["games"] == 3
    assert list(cards) == sorted(cards)


def test_card_statistics_score_each_kept_game_again_once_on_the_engine_pool(client: TestClient, monkeypatch) -> None:
    # Crediting challenge cards scores a kept game again once per card: engine work, done on
    # the engine pool (a full pool answers 503 at once) and once per game in the server's life.
    from critter_kitchen.web import stats

    for record in three_games():
        assert client.post("/api/games", json=record).status_code == 201
    worked_out: list[Any] = []

    def counted(rulesets: Any, record: Any) -> Any:
        worked_out.append(record)
        return credit(rulesets, record)

    credit = stats.challenge_credit
    monkeypatch.setattr(stats, "challenge_credit", counted)
    first = client.get("/api/cards/stats").json()
    assert len(worked_out) == 3
    assert client.get("/api/cards/stats").json() == first
    assert len(worked_out) == 3  # remembered
    pool = client.app.state.engine  # type: ignore[attr-defined]
    monkeypatch.setattr(pool, "waiting", -pool.workers)  # no room: every job is turned away
    busy = client.get("/api/cards/stats")
    assert busy.status_code == 503
    assert "Retry-After" in busy.headers


# errors


def test_errors_are_json_for_the_api_and_escaped_html_for_pages(client: TestClient) -> None:
    assert client.get("/api/games/x").json() == {
        "errors": ["path.game_id: Input should be a valid integer, unable to parse string as an integer"]
    }
    assert client.get("/api/games/0").status_code == 422
    assert client.get(f"/api/games/{1 << 63}").status_code == 422  # past SQLite's ids: refused, not a crash
    assert client.get("/api/nothing").json() == {"errors": ["Not Found"]}
    page = client.get("/nothing/<b>")
    assert page.status_code == 404
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    body, media = access.error_body("/x", 422, ["a <script>alert(1)</script> & more"])
    assert b"a &lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in body
    assert b"<script>" not in body


def test_an_internal_error_is_a_message_not_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(Settings(db=str(tmp_path / "games.sqlite3")))

    def broken(game_id: int) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(app.state.store, "get", broken)
    answer = TestClient(app, raise_server_exceptions=False).get("/api/games/1")
    assert answer.status_code == 500
    assert answer.json() == {"errors": ["internal error: the server could not answer this request"]}
    page = TestClient(app, raise_server_exceptions=False).get("/api/games/1", headers={"accept": "text/html"})
    assert b"Traceback" not in page.content and b"disk on fire" not in page.content


def test_a_database_that_cannot_be_written_is_503(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(Settings(db=str(tmp_path / "games.sqlite3")))

    def full(*args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(app.state.store, "add", full)
    answer = TestClient(app, raise_server_exceptions=False).post("/api/games", json=base_record())
    assert answer.status_code == 503
    assert answer.json() == {"errors": ["the games database cannot be used now: database or disk is full"]}


# access


def guarded(tmp_path: Path, **settings: object) -> TestClient:
    app = create_app(Settings(db=str(tmp_path / "games.sqlite3"), **settings))  # type: ignore[arg-type]
    return TestClient(app, base_url="http://192.0.2.1:8000", follow_redirects=False)


def test_with_a_token_in_force_every_request_needs_it(tmp_path: Path) -> None:
    client = guarded(tmp_path, token=TOKEN)
    record = base_record()
    for method, path in [("GET", "/api/games"), ("GET", "/openapi.json"), ("GET", "/"), ("GET", "/static/x.css")]:
        answer = client.request(method, path)
        assert answer.status_code == 401, path
    assert client.get("/api/games").json() == {"errors": [access.NEED_TOKEN]}
    assert client.post("/api/score", json=record).status_code == 401
    assert b'action="/login"' in client.get("/").content  # a page offers to enter the token
    wrong = client.get("/api/games", headers={"Authorization": "Bearer nope"})
    assert (wrong.status_code, wrong.json()) == (401, {"errors": [access.WRONG_TOKEN]})
    assert client.get("/api/games", params={"token": TOKEN}).status_code == 401  # the API takes the header

    bearer = {"Authorization": f"Bearer {TOKEN}"}
    assert client.get("/api/games", headers=bearer).status_code == 200
    assert client.post("/api/games", json=record, headers=bearer).status_code == 201  # no CSRF for a bearer


def test_a_websocket_needs_the_token_too(tmp_path: Path) -> None:
    client = guarded(tmp_path, token=TOKEN)

    @client.app.websocket("/socket")  # type: ignore[attr-defined]
    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text("open")
        await websocket.close()

    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect("/socket"):
            pass
    assert refused.value.code == 1008
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(
            "/socket", headers={"Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}
        ):
            pass
    with client.websocket_connect("/socket", headers={"Authorization": f"Bearer {TOKEN}"}) as opened:
        assert opened.receive_text() == "open"


def test_the_login_link_sets_a_session(tmp_path: Path) -> None:
    client = guarded(tmp_path, token=TOKEN)
    assert client.get("/login", params={"token": "wrong"}).status_code == 401
    assert "set-cookie" not in client.get("/login", params={"token": "wrong"}).headers

    answer = client.get("/history", params={"token": TOKEN, "player": "Ana"})

    assert answer.status_code == 303
    assert answer.headers["location"] == "/history?player=Ana"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{access.SESSION_COOKIE}={access.session_value(TOKEN)};")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert client.get("/api/games").status_code == 200  # the client keeps the cookie
    login = client.get("/login", params={"token": TOKEN, "next": "//evil.example/"})
    assert login.headers["location"] == "/"  # never a way off this site
    other = TestClient(client.app, base_url="http://192.0.2.1:8000")
    other.cookies.set(access.SESSION_COOKIE, "forged")
    assert other.get("/api/games").status_code == 401


def csrf_client(tmp_path: Path) -> tuple[TestClient, str]:
    """A browser-like client signed in, with the CSRF cookie a page gave it."""
    client = guarded(tmp_path, token=TOKEN)
    client.get("/login", params={"token": TOKEN})
    page = client.get("/")  # any page hands out the CSRF cookie (a 404 too)
    cookie = page.headers["set-cookie"]
    assert cookie.startswith(f"{access.CSRF_COOKIE}=") and "SameSite=Strict" in cookie
    assert "HttpOnly" not in cookie  # the page's script reads it
    return client, client.cookies[access.CSRF_COOKIE]


def test_a_browser_session_needs_the_csrf_token(tmp_path: Path) -> None:
    client, csrf = csrf_client(tmp_path)
    record = base_record()

    refused = client.post("/api/games", json=record)
    assert (refused.status_code, refused.json()) == (403, {"errors": [access.NEED_CSRF]})
    assert client.post("/api/games", json=record, headers={"X-CSRF-Token": "x" + csrf}).status_code == 403
    assert client.delete("/api/games/1").status_code == 403
    assert client.get("/api/games").json() == {"games": [], "total": 0}  # nothing was kept

    assert client.post("/api/games", json=record, headers={"X-CSRF-Token": csrf}).status_code == 201
    assert (
        client.post(
            "/api/score",
            content=f"csrf_token={csrf}".encode(),
            headers={"content-type": "application/x-www-form-urlencoded"},
        ).status_code
        == 422
    )  # past the CSRF check: the form is no record
    cross = client.post("/api/games", json=record, headers={"X-CSRF-Token": csrf, "Origin": "http://evil.example"})
    assert (cross.status_code, cross.json()) == (403, {"errors": [access.CROSS_SITE]})
    same = client.post("/api/score", json=record, headers={"X-CSRF-Token": csrf, "Origin": "http://192.0.2.1:8000"})
    assert same.status_code == 200


def test_without_a_token_another_sites_form_is_refused(client: TestClient) -> None:
    record = json.dumps(base_record())
    # what a form on another page can send to 127.0.0.1 without the browser asking first
    form = client.post("/api/games", content=record, headers={"content-type": "text/plain"})
    assert (form.status_code, form.json()) == (403, {"errors": [access.NEED_CSRF]})
    # a script elsewhere must ask first for JSON, and is not answered yes: a JSON client is no browser
    assert client.post("/api/games", content=record, headers={"content-type": "application/json"}).status_code == 201
    site = client.post(
        "/api/games", content=record, headers={"content-type": "application/json", "Sec-Fetch-Site": "cross-site"}
    )
    assert site.status_code == 403


def test_a_streamed_answer_is_not_cut_short(client: TestClient) -> None:
    """The body is read before the routes run; what the routes receive after it is the client's own."""
    from fastapi.responses import StreamingResponse

    async def pieces() -> Any:
        for n in range(50):
            yield f"{n}\n".encode()

    @client.app.post("/streamed")  # type: ignore[attr-defined]
    async def streamed() -> StreamingResponse:
        return StreamingResponse(pieces(), media_type="text/plain")

    answer = client.post("/streamed", content=b"{}", headers={"content-type": "application/json"})
    assert answer.text == "".join(f"{n}\n" for n in range(50))


def test_a_body_past_the_limit_gets_413(tmp_path: Path) -> None:
    client = TestClient(create_app(Settings(db=str(tmp_path / "g.sqlite3"), body_limit=1000)))
    message = {"errors": ["the request body is larger than 1000 bytes"]}
    big = b" " * 1001
    answer = client.post("/api/score", content=big, headers={"content-type": "application/json"})
    assert (answer.status_code, answer.json()) == (413, message)

    def chunks():  # no Content-Length: found while reading
        for _ in range(11):
            yield b" " * 100

    streamed = client.post("/api/score", content=chunks(), headers={"content-type": "application/json"})
    assert (streamed.status_code, streamed.json()) == (413, message)
    assert client.post("/api/score", content=b" " * 1000, headers={"content-type": "application/json"}).json() == {
        "errors": ["record:1:1001: JSON syntax error: Expecting value"]
    }


def serve_args(host: str, token: str | None = None) -> argparse.Namespace:
    return argparse.Namespace(host=host, port=8000, db="x.sqlite3", token=token, pack=[])


def test_a_token_is_always_in_force_off_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRITTER_KITCHEN_TOKEN", raising=False)
    for host in ("0.0.0.0", "192.0.2.1", "::", "example.org"):
        settings, generated = settings_for(serve_args(host))
        assert generated and settings.token is not None and len(settings.token) >= 40
        assert settings.trusted_hosts is None
    assert settings_for(serve_args("0.0.0.0", "given-on-the-line"))[0].token == "given-on-the-line"
    monkeypatch.setenv("CRITTER_KITCHEN_TOKEN", "from-the-environment")
    assert settings_for(serve_args("0.0.0.0"))[0].token == "from-the-environment"
    monkeypatch.delenv("CRITTER_KITCHEN_TOKEN")
    for host in ("127.0.0.1", "localhost", "::1", "127.3.4.5"):
        settings, generated = settings_for(serve_args(host))
        assert settings.token is None and not generated
        assert settings.trusted_hosts is not None and "localhost" in settings.trusted_hosts
    assert address("0.0.0.0", 8000, "abc") == "http://0.0.0.0:8000/?token=abc"
    assert address("::1", 80, None) == "http://[::1]:80/"
    assert addresses("0.0.0.0", 80, "t") == ["http://0.0.0.0:80/?token=t", "http://127.0.0.1:80/?token=t"]


def test_on_loopback_without_a_token_other_host_names_are_refused(tmp_path: Path) -> None:
    settings, _ = settings_for(serve_args("127.0.0.1"))
    app = create_app(Settings(db=str(tmp_path / "g.sqlite3"), trusted_hosts=settings.trusted_hosts))
    assert TestClient(app, base_url="http://localhost:8000").get("/api/games").status_code == 200
    assert TestClient(app, base_url="http://127.0.0.1:8000").get("/api/games").status_code == 200
    assert TestClient(app, base_url="http://[::1]:8000").get("/api/games").status_code == 200
    rebound = TestClient(app, base_url="http://evil.example:8000").get("/api/games")
    assert rebound.status_code == 400
    assert rebound.json() == {"errors": ["this score pad answers only at a loopback address such as 127.0.0.1"]}


# the command


def test_serve_refuses_what_it_cannot_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000"]) == 2
    assert capsys.readouterr().err == "critter-kitchen: --port: expected a whole number from 0 to 65535, got '70000'\n"
    assert main(["serve", "--db", str(tmp_path / "g.sqlite3"), "--pack", "no-such-pack"]) == 1
    assert "no-such-pack" in capsys.readouterr().err
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--db", str(tmp_path / "g.sqlite3"), "--port", str(port)]) == 1
    assert capsys.readouterr().err == f"critter-kitchen: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    not_a_db = tmp_path / "text.sqlite3"
    not_a_db.write_text("hello, this is not a database\n" * 100)
    assert main(["serve", "--db", str(not_a_db)]) == 1
    assert capsys.readouterr().err == (
        f"critter-kitchen: {not_a_db}: cannot use the games database: file is not a database\n"
    )


def test_without_the_web_extra_serve_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import critter_kitchen.web

    monkeypatch.delitem(sys.modules, "critter_kitchen.web.server")
    monkeypatch.delattr(critter_kitchen.web, "server")
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if not installed: importing it fails
    assert main(["serve"]) == 1
    assert capsys.readouterr().err == (
        "critter-kitchen: the score pad needs the web extra: pip install 'critter-kitchen[web]' "
        "(import of uvicorn halted; None in sys.modules)\n"
    )


def test_the_listening_socket_says_it_is_tcp() -> None:
    """asyncio turns Nagle's algorithm off only on a socket whose protocol is TCP; a bare
    socket() says 0, and then every small answer waited some 40 ms for a delayed ACK."""
    import socket

    sock = listen("127.0.0.1", 0)
    try:
        assert (sock.family, sock.type, sock.proto) == (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    finally:
        sock.close()


def test_the_default_database_is_in_the_users_data_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", "/data/home")
    assert default_path() == "/data/home/critter-kitchen/games.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", "/home/cook")
    assert default_path() == "/home/cook/.local/share/critter-kitchen/games.sqlite3"


# the database


def test_a_database_of_the_first_version_migrates(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    Store(path, MIGRATIONS[:1])
    result = (GOLDEN / "two-players.json").read_text(encoding="utf-8")
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO games (created, record, result) VALUES (?, ?, ?)",
            ("2026-01-01T00:00:00Z", json.dumps(base_record()), result),
        )
    assert Store(path, MIGRATIONS[:1]).version() == 1

    store = Store(path)

    assert store.version() == len(MIGRATIONS) == 6
    assert [g.id for g in store.games(player="ben")] == [1]
    assert store.games_of("Ana")[0].result == json.loads(result)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("SELECT name, rank, stars FROM game_players ORDER BY rank").fetchall() == [
            ("Ana", 1, 18),
            ("Ben", 2, 16),
        ]
    assert store.integrity() == "ok"


def test_names_kept_folded_by_case_alone_are_folded_again_for_look_alikes(tmp_path: Path) -> None:
    path = str(tmp_path / "v4.sqlite3")
    Store(path, MIGRATIONS[:4])
    result = json.loads((GOLDEN / "two-players.json").read_text(encoding="utf-8"))
    result["standings"][0]["name"] = "Аna"  # a Cyrillic А
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO games (created, record, result) VALUES ('2026-01-01T00:00:00Z', '{}', ?)",
            (json.dumps(result),),
        )
        db.execute("INSERT INTO game_players VALUES (1, 'Аna', 1, 18, 'аna'), (1, 'Ben', 2, 16, 'ben')")

    store = Store(path)

    assert folded("Аna") == folded("ＡＮＡ") == folded("ana") == "ana"
    assert [g.id for g in store.games(player="an")] == [1]  # found by its Latin look-alike
    assert store.spelling("ana") == "Аna"
    assert store.spelling("Аna") is None  # known as it is
    assert store.spelling("Cy") is None  # like no known name
    assert store.known_players() == [("Ben", "ben"), ("Аna", "ana")]


def test_names_typed_on_the_new_game_page_are_compared_with_the_known_ones(client: TestClient) -> None:
    assert client.post("/api/games", json=base_record()).status_code == 201
    answer = client.get("/ui/names", params=[("name", "ana"), ("name", "Ana"), ("name", "Zed"), ("name", " ")])
    assert answer.json() == {"like": ["Ana", None, None, None]}
    assert len(client.get("/ui/names", params=[("name", "ana")] * 40).json()["like"]) == NAMES_ASKED
    assert client.get("/new?again=99").status_code == 404  # no such game to play again
    assert client.get("/new?again=x").status_code == 404


def test_play_again_keeps_who_played_and_the_packs_not_what_they_did() -> None:
    from types import SimpleNamespace

    record = {
        "packs": ["solo"],
        "players": [
            {"name": "Ana", "restaurateur": "r", "kept": {"round3": 5}, "counters": {"x": 1}},
            {"name": "Bot", "automated": {"stars": 30, "critic_quality": 20}},
        ],
        "cards": {"critic": "c"},
        "challenge_meals": {},
    }
    assert again_setup(SimpleNamespace(record=record)) == {
        "packs": ["solo"],
        "players": [{"name": "Ana", "restaurateur": "r"}, {"name": "Bot", "automated": {}}],
    }
    assert again_setup(None) is None


def test_a_database_from_a_newer_version_is_left_alone(tmp_path: Path) -> None:
    path = str(tmp_path / "new.sqlite3")
    Store(path)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError) as caught:
        Store(path)
    assert str(caught.value) == (
        f"{path}: the games database has schema version 99, newer than this critter-kitchen knows ({len(MIGRATIONS)}): "
        "use a newer critter-kitchen"
    )


# the OpenAPI description, and the API fuzzed from it


def test_the_openapi_description_names_every_route(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert set(spec["paths"]) >= {
        "/api/score",
        "/api/games",
        "/api/games/{game_id}",
        "/api/players/{name}",
        "/api/cards/stats",
    }
    assert spec["paths"]["/api/score"]["post"]["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/GameRecord"
    }
    assert spec["components"]["schemas"]["GameRecord"]["title"] == "Critter Kitchen game record"


def test_no_request_from_the_openapi_description_gets_a_500(tmp_path: Path) -> None:
    """Valid and invalid requests drawn from the description (a longer run: tools/fuzz_serve.py)."""
    schemathesis = pytest.importorskip("schemathesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis.generation import GenerationMode

    app = create_app(Settings(db=str(tmp_path / "fuzz.sqlite3")))
    TestClient(app).post("/api/games", json=base_record())  # a game to read, list and delete
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures: list[str] = []
    calls = 0
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
        for operation in schema.get_all_operations():
            op = operation.ok()

            @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            @given(case=op.as_strategy(generation_mode=mode))
            def check(case: Any) -> None:
                nonlocal calls
                calls += 1
                response = case.call()
                if response.status_code >= 500:
                    failures.append(f"{case.operation.label}: {response.status_code} {response.text[:200]}")

            try:
                check()
            except Unsatisfiable:  # no invalid request exists for an operation without parameters
                assert mode == GenerationMode.NEGATIVE
    assert failures == []
    assert calls > 60
