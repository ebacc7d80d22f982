"""A kept game's history, undo, the room fixes and the card statistics' count, over HTTP.

- An edit of a kept game (``PUT /api/games/{id}``) keeps a new version; the one it replaces
  stays in the game's history (``/versions``), readable and restorable (a restore is a new
  version, undone by restoring again); the statistics count the latest version only; a stale
  edit is 409; the versions of a game are bounded; the schema's step 6 migrates a database.
- A deleted game is hidden at once and brought back (``/undelete``) within the undo time,
  then forgotten for good; an ended room is opened again (``/reopen``) within it.
- A room is kept once, for the room (the server remembers which game), and only with the
  server's token; meals changed after are kept as the game's new version.
- The room page warns when it was opened at a loopback address, and shows a phone (the
  room's key only) no link that would answer 401.
- The card statistics count each challenge meal's awards once: under the meal's card.
"""

from __future__ import annotations

import copy
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("segno")

from fastapi.testclient import TestClient  # noqa: E402
from test_serve_rooms import OWNER, TOKEN, open_room, part_of, phone, write  # noqa: E402

from critter_kitchen.web import limits  # noqa: E402
from critter_kitchen.web.access import NEED_TOKEN  # noqa: E402
from critter_kitchen.web.app import Settings, create_app  # noqa: E402
from critter_kitchen.web.store import MIGRATIONS, Store  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TWO = ROOT / "examples" / "two-players.yaml"
FIVE = ROOT / "examples" / "five-players.yaml"


def two() -> dict[str, Any]:
    return yaml.safe_load(TWO.read_text())


def renamed(record: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """``record`` with player ``old`` called ``new`` everywhere (a typo fixed after the game)."""
    data = copy.deepcopy(record)
    for p in data["players"]:
        if p["name"] == old:
            p["name"] = new
    for by_player in data.get("challenge_meals", {}).values():
        if old in by_player:
            by_player[new] = by_player.pop(old)
    if old in data.get("critic_meals", {}):
        data["critic_meals"][new] = data["critic_meals"].pop(old)
    return data


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    app = create_app(Settings(db=str(tmp_path / "games.sqlite3")))
    return TestClient(app, base_url="http://127.0.0.1:8000", headers={"X-CSRF-Token": "t"}, cookies={"ck_csrf": "t"})


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return create_app(Settings(db=str(tmp_path / "games.sqlite3"), token=TOKEN))


@pytest.fixture
def owner(app: Any) -> TestClient:
    return TestClient(app, headers=OWNER)


# --- editing a kept game ------------------------------------------------------------------


def test_an_edit_keeps_a_new_version_and_the_statistics_follow_the_latest(client: TestClient) -> None:
    first = client.post("/api/games", json=two()).json()
    game = first["id"]
    assert client.get("/api/players/Ana").json()["games"] == 1

    fixed = renamed(two(), "Ana", "Ann")
    edited = client.put(f"/api/games/{game}", params={"note": "Ana is Ann", "based_on": 1}, json=fixed)

    assert edited.status_code == 200
    assert edited.json()["version"] == 2
    assert edited.json()["result"]["standings"][0]["name"] == "Ann"
    latest = client.get(f"/api/games/{game}").json()
    assert (latest["version"], latest["note"], latest["created"]) == (2, "Ana is Ann", first_created(client, game))
    assert [p["name"] for p in latest["record"]["players"]] == ["Ann", "Ben"]
    history = client.get(f"/api/games/{game}/versions").json()
    assert [(v["version"], v["note"]) for v in history["versions"]] == [(2, "Ana is Ann"), (1, "")]
    earlier = client.get(f"/api/games/{game}/versions/1").json()
    assert earlier["record"] == two() and earlier["version"] == 1
    assert earlier["result"] == first["result"]
    # the statistics and the history's search count the latest version only
    assert client.get("/api/players/Ana").status_code == 404
    assert client.get("/api/players/Ann").json()["games"] == 1
    assert client.get("/api/games", params={"player": "ann"}).json()["total"] == 1
    assert client.get("/api/games", params={"player": "ana"}).json()["total"] == 0
    assert client.get("/api/games").json()["total"] == 1


def first_created(client: TestClient, game: int) -> str:
    return str(client.get(f"/api/games/{game}/versions/1").json()["created"])


def test_an_edit_is_checked_as_a_new_game_and_a_stale_one_is_refused(client: TestClient) -> None:
    game = client.post("/api/games", json=two()).json()["id"]
    bad = two()
    bad["players"][0]["restaurateur"] = "no-such-card"
    refused = client.put(f"/api/games/{game}", json=bad)
    assert refused.status_code == 422
    assert client.get(f"/api/games/{game}").json()["version"] == 1  # nothing kept
    fixed = renamed(two(), "Ana", "Ann")
    assert client.put(f"/api/games/{game}", json=fixed, params={"based_on": 1}).status_code == 200
    stale = client.put(f"/api/games/{game}", json=two(), params={"based_on": 1})
    assert (stale.status_code, stale.json()) == (
        409,
        {
            "errors": [
                f"game {game} was changed meanwhile (now version 2, this edit was based on version 1): "
                "open it again and make your change there"
            ]
        },
    )
    assert client.put("/api/games/99", json=two()).json() == {"errors": ["no game 99 is kept"]}
    long_note = client.put(f"/api/games/{game}", json=two(), params={"note": "x" * (limits.NOTE_CHARS + 1)})
    assert long_note.status_code == 422
    assert client.get(f"/api/games/{game}/versions/7").json() == {"errors": [f"game {game} has no version 7 kept"]}


def test_restoring_an_earlier_version_is_a_new_version_undone_by_restoring_again(client: TestClient) -> None:
    game = client.post("/api/games", json=two()).json()["id"]
    client.put(f"/api/games/{game}", json=renamed(two(), "Ana", "Ann"))
    restored = client.post(f"/api/games/{game}/versions/1/restore", json={})
    assert restored.status_code == 200 and restored.json()["version"] == 3
    assert client.get(f"/api/games/{game}").json()["record"] == two()
    assert client.get("/api/players/Ann").status_code == 404
    versions = client.get(f"/api/games/{game}/versions").json()["versions"]
    assert [(v["version"], v["note"]) for v in versions] == [(3, "restored version 1"), (2, ""), (1, "")]
    undone = client.post(f"/api/games/{game}/versions/2/restore", json={})  # the undo of the restore
    assert undone.json()["version"] == 4
    assert client.get("/api/players/Ann").json()["games"] == 1


def test_a_game_keeps_a_bounded_number_of_versions(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "games.sqlite3"))
    result = json.dumps({"standings": [{"name": "Ana", "rank": 1, "stars": 3}]})
    game = store.add({"v": 0}, result, "2026-01-01T00:00:00Z")
    for n in range(1, 6):
        saved = f"2026-01-0{n + 1}T00:00:00Z"
        assert store.edit(game, {"v": n}, result, saved, f"edit {n}", versions=3) == ("ok", n + 1)
    assert [v.version for v in store.history(game) or []] == [6, 5, 4]  # the oldest forgotten
    assert store.game_version(game, 3) is None
    assert store.game_version(game, 4).record == {"v": 3}  # type: ignore[union-attr]
    assert limits.GAME_VERSIONS == 50
    assert Store.edit.__defaults__ == (None, limits.GAME_VERSIONS)


def test_the_schema_step_6_migrates_a_database_of_step_5(tmp_path: Path) -> None:
    path = str(tmp_path / "v5.sqlite3")
    Store(path, MIGRATIONS[:5])
    result = (ROOT / "tests" / "golden" / "two-players.json").read_text()
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO games (created, record, result) VALUES ('2026-01-01T00:00:00Z', ?, ?)",
            (json.dumps(two()), result),
        )
        db.execute("INSERT INTO game_players VALUES (1, 'Ana', 1, 18, 'ana'), (1, 'Ben', 2, 16, 'ben')")
        db.execute("INSERT INTO rooms VALUES ('ABCDEF', 'key', '{}', 1, NULL, NULL, '2026-01-01T00:00:00Z', 1e12)")

    store = Store(path)

    assert store.version() == len(MIGRATIONS) == 6
    game = store.get(1)
    assert game is not None
    assert (game.version, game.saved, game.note) == (1, "2026-01-01T00:00:00Z", "")
    assert [v.to_json() for v in store.history(1) or []] == [
        {"version": 1, "saved": "2026-01-01T00:00:00Z", "note": ""}
    ]
    assert store.edit(1, two(), result, "2026-02-01T00:00:00Z", "again") == ("ok", 2)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT kept, kept_at, ended FROM rooms").fetchall() == [(None, None, None)]
    assert store.integrity() == "ok"


# --- undo: a deleted game, an ended room --------------------------------------------------


def test_a_deleted_game_is_hidden_and_brought_back_within_the_undo_time(client: TestClient) -> None:
    game = client.post("/api/games", json=two()).json()["id"]
    client.put(f"/api/games/{game}", json=renamed(two(), "Ana", "Ann"))
    assert client.delete(f"/api/games/{game}").status_code == 204
    assert client.get(f"/api/games/{game}").status_code == 404
    assert client.get("/api/games").json() == {"games": [], "total": 0}
    assert client.get("/api/players/Ann").status_code == 404
    assert client.get("/api/cards/stats").json() == {"cards": []}
    assert client.delete(f"/api/games/{game}").status_code == 404  # deleted already

    back = client.post(f"/api/games/{game}/undelete", json={})

    assert back.status_code == 200
    assert (back.json()["version"], back.json()["record"]) == (2, renamed(two(), "Ana", "Ann"))
    assert client.get("/api/players/Ann").json()["games"] == 1
    assert len(client.get(f"/api/games/{game}/versions").json()["versions"]) == 2  # its history with it
    assert client.post(f"/api/games/{game}/undelete", json={}).json() == {
        "errors": [f"no game {game} was deleted in the last {limits.UNDO_MINUTES} minutes: it cannot be brought back"]
    }


def test_a_deleted_game_is_forgotten_for_good_once_its_undo_has_run_out(tmp_path: Path) -> None:
    path = str(tmp_path / "games.sqlite3")
    store = Store(path)
    result = json.dumps({"standings": [{"name": "Ana", "rank": 1, "stars": 3}]})
    game = store.add({"v": 0}, result, "2026-01-01T00:00:00Z")
    store.edit(game, {"v": 1}, result, "2026-01-02T00:00:00Z", "")
    assert store.delete(game, now=1000.0)
    assert not store.undelete(game, now=1000.0 + limits.UNDO_MINUTES * 60)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM game_versions").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM game_players").fetchone() == (0,)


def test_an_ended_room_is_opened_again_within_the_undo_time(app: Any, owner: TestClient) -> None:
    made = open_room(owner)
    code = made["code"]
    member = phone(app, made["join"])
    assert owner.delete(f"/api/rooms/{code}").status_code == 204
    assert owner.get(f"/api/rooms/{code}").status_code == 404
    assert member.get(f"/api/rooms/{code}").status_code == 401  # its key opens nothing now
    assert owner.get("/api/rooms").json() == {"rooms": []}
    empty = {"challenge_meals": {}, "critic_meal": None}
    assert write(owner, code, 0, 1, empty).status_code == 404  # nothing is written to an ended room
    assert member.post(f"/api/rooms/{code}/reopen", json={}).status_code == 401  # the token's to undo

    back = owner.post(f"/api/rooms/{code}/reopen", json={})

    assert back.status_code == 200
    assert back.json()["version"] == made["room"]["version"] + 1  # its phones hear of it
    assert member.get(f"/api/rooms/{code}").status_code == 200  # the same key again
    assert owner.post(f"/api/rooms/{code}/reopen", json={}).json() == {
        "errors": [f"no room {code} was ended in the last {limits.UNDO_MINUTES} minutes: it cannot be opened again"]
    }
    hub = app.state.rooms
    owner.delete(f"/api/rooms/{code}")
    clock = hub.clock
    hub.clock = lambda: clock() + limits.UNDO_MINUTES * 60 + 1
    assert owner.post(f"/api/rooms/{code}/reopen", json={}).status_code == 404


# --- a room's game kept once, for the room --------------------------------------------------


def complete(app: Any, owner: TestClient) -> tuple[str, TestClient]:
    made = open_room(owner)
    code = made["code"]
    member = phone(app, made["join"])
    data = two()
    write(member, code, 0, 1, part_of(data, "Ana"), done=True)
    write(member, code, 1, 1, part_of(data, "Ben"), done=True)
    return code, member


def test_a_room_is_kept_once_for_the_room_with_the_token_only(app: Any, owner: TestClient) -> None:
    code, member = complete(app, owner)
    assert member.post(f"/api/rooms/{code}/keep", json={}).json() == {"errors": [NEED_TOKEN]}

    first = owner.post(f"/api/rooms/{code}/keep", json={})
    again = owner.post(f"/api/rooms/{code}/keep", json={})  # another device of the pad

    assert first.status_code == 201 and again.status_code == 200
    game = first.json()["id"]
    assert again.json()["id"] == game
    assert owner.get("/api/games").json()["total"] == 1
    room = member.get(f"/api/rooms/{code}").json()  # every device sees it, the phones too
    assert room["kept"] == {"id": game, "version": room["version"]}
    assert owner.get(f"/api/games/{game}").json()["record"] == member.get(f"/api/rooms/{code}/record").json()

    # a meal changed in the room after: kept as the game's new version, not as another game
    ben = room["players"][1]
    part = copy.deepcopy(ben["part"])
    part["critic_meal"]["soup"] = part["critic_meal"].get("soup", 0) + 1
    write(member, code, 1, ben["version"], part, done=True)
    changed = owner.post(f"/api/rooms/{code}/keep", json={})
    assert changed.status_code == 200 and changed.json()["id"] == game
    assert owner.get("/api/games").json()["total"] == 1
    versions = owner.get(f"/api/games/{game}/versions").json()["versions"]
    assert [(v["version"], v["note"]) for v in versions] == [(2, f"changed in room {code}"), (1, "")]


def test_a_room_without_its_result_is_not_kept(owner: TestClient) -> None:
    code = open_room(owner)["code"]
    answer = owner.post(f"/api/rooms/{code}/keep", json={})
    assert answer.status_code == 409
    assert answer.json()["errors"] == [
        f"room {code} has no result to keep yet: every player must be done and the game legal"
    ]


# --- the room page: the loopback warning, a phone's links -----------------------------------


def test_the_room_page_warns_when_opened_at_a_loopback_address(app: Any) -> None:
    made = open_room(TestClient(app, headers=OWNER))
    code = made["code"]
    at_loopback = TestClient(app, base_url="http://127.0.0.1:8000", headers=OWNER).get(f"/room/{code}").text
    assert 'id="loopback"' in at_loopback
    assert "Phones cannot join from this address." in at_loopback
    assert "critter-kitchen serve --host 0.0.0.0" in at_loopback
    assert made["join"].startswith("http://testserver/")
    at_lan = TestClient(app, base_url="http://192.168.1.20:8000", headers=OWNER).get(f"/room/{code}").text
    assert 'id="loopback"' not in at_lan
    assert 'id="end-room"' in at_lan


def test_a_phone_sees_no_link_that_answers_401_for_it(app: Any, owner: TestClient) -> None:
    made = open_room(owner)
    member = phone(app, made["join"])
    page = member.get(f"/room/{made['code']}").text
    links = set(re.findall(r'href="([^"#]+)"', page)) | set(re.findall(r'src="([^"]+)"', page))
    assert links, page
    for link in links:
        if link.startswith("data:"):
            continue
        assert member.get(link).status_code == 200, link
    assert 'href="/"' not in page and 'href="/new"' not in page and 'href="/cards"' not in page
    assert 'id="end-room"' not in page
    assert "data-member" in page
    owned = owner.get(f"/room/{made['code']}").text  # the pad's own device keeps its links
    assert 'href="/new"' in owned and 'href="/cards"' in owned


# --- the card statistics count each challenge meal once --------------------------------------


def test_challenge_meals_are_counted_under_their_cards_and_not_under_the_rules_card_too(client: TestClient) -> None:
    record = yaml.safe_load(FIVE.read_text())
    kept = client.post("/api/games", json=record).json()
    cards = {c["id"]: c for c in client.get("/api/cards/stats").json()["cards"]}
    # the rules card gave 24 awards (44 stars); 11 of them (20 stars) are the challenge meals'
    rules = [a for a in kept["result"]["awards"] if a["card"] == "base-rules"]
    assert (len(rules), sum(a["stars"] for a in rules)) == (24, 44)
    assert (cards["base-rules"]["awards"], cards["base-rules"]["stars"]) == (13, 24)
    meals = [a for a in rules if a["stage"].startswith("challenge.")]
    assert (len(meals), sum(a["stars"] for a in meals)) == (11, 20)
    challenge = {c for rnd in record["cards"]["challenges"].values() for c in rnd}
    assert sum(cards[c]["stars"] for c in challenge) == 20 + 4  # and what those meals earned besides


def test_the_openapi_description_names_the_history_routes(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert set(paths["/api/games/{game_id}"]) == {"get", "put", "delete"}
    assert set(paths["/api/games/{game_id}/versions"]) == {"get"}
    assert set(paths["/api/games/{game_id}/versions/{version}"]) == {"get"}
    assert set(paths["/api/games/{game_id}/versions/{version}/restore"]) == {"post"}
    assert set(paths["/api/games/{game_id}/undelete"]) == {"post"}
    assert set(paths["/api/rooms/{code}/reopen"]) == {"post"}
    assert set(paths["/api/rooms/{code}/keep"]) == {"post"}
    edit = paths["/api/games/{game_id}"]["put"]
    assert edit["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/GameRecord"}
    assert set(edit["responses"]) >= {"200", "404", "409", "422"}
