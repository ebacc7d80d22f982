"""Game rooms of the score pad: one game entered from several phones.

- A room gets a short code and a QR code of its join address (the room's key in it); the key
  opens that room alone (its page, its API, its stream), never the history, the statistics,
  another room, or the making and ending of rooms.
- Each player's meals carry a version: a stale write is refused (409) with the exact message
  and the meals as they are now; nothing is overwritten.
- The live stream (server-sent events, a real uvicorn) resumes from ``Last-Event-ID`` with
  nothing lost and nothing twice, holds no engine worker, and is bounded per room and in all.
- Rooms survive a restart, expire, are bounded; bad writes get exact messages.
- The complete room's result is the very JSON ``critter-kitchen score --format json`` prints
  for the room's exported record.
"""

from __future__ import annotations

import copy
import http.client
import io
import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
segno = pytest.importorskip("segno")

from fastapi.testclient import TestClient  # noqa: E402

from critter_kitchen.cli import main  # noqa: E402
from critter_kitchen.web import rooms  # noqa: E402
from critter_kitchen.web.access import NEED_CSRF, NEED_TOKEN, too_many_guesses  # noqa: E402
from critter_kitchen.web.app import Settings, create_app  # noqa: E402
from critter_kitchen.web.limits import MAX_ROOMS, ROOM_HOURS, ROOM_WRITE_BYTES  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "two-players.yaml"
TOKEN = "s3cret-token-for-rooms"
OWNER = {"Authorization": f"Bearer {TOKEN}"}


def record() -> dict[str, Any]:
    return yaml.safe_load(EXAMPLE.read_text())


def setup_only() -> dict[str, Any]:
    data = record()
    del data["challenge_meals"], data["critic_meals"]
    return data


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return create_app(Settings(db=str(tmp_path / "games.sqlite3"), token=TOKEN))


@pytest.fixture
def owner(app: Any) -> TestClient:
    return TestClient(app, headers=OWNER)


def open_room(owner: TestClient, data: Any = None) -> dict[str, Any]:
    answer = owner.post("/api/rooms", json=setup_only() if data is None else data)
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def phone(app: Any, join: str) -> TestClient:
    """A phone that scanned the QR code: no token, the join address only."""
    client = TestClient(app)
    answer = client.get(join.replace("http://testserver", ""), follow_redirects=False)
    page = join.split("?")[0].replace("http://testserver", "")
    assert answer.status_code == 303 and answer.headers["location"] == page
    assert "key=" not in answer.headers["location"]
    client.get(answer.headers["location"])  # the page: its CSRF cookie
    client.headers["X-CSRF-Token"] = client.cookies["ck_csrf"]
    return client


def write(client: TestClient, code: str, seat: int, version: int, part: Any, done: bool = False) -> Any:
    return client.put(f"/api/rooms/{code}/players/{seat}", json={"version": version, "done": done, "part": part})


def part_of(data: dict[str, Any], name: str) -> dict[str, Any]:
    rounds = {r: by[name] for r, by in data["challenge_meals"].items() if name in by}
    return {"challenge_meals": rounds, "critic_meal": data["critic_meals"].get(name)}


# --- codes, the QR code, who gets in -------------------------------------------------------


def test_a_room_has_a_short_code_and_a_qr_code_of_its_join_address(app: Any, owner: TestClient) -> None:
    made = open_room(owner)
    code, key = made["code"], made["key"]
    assert len(code) == rooms.CODE_LENGTH and set(code) <= set(rooms.CODE_LETTERS)
    assert made["join"] == f"http://testserver/room/{code}?key={key}"
    assert len(key) >= 24  # 18 random bytes
    assert [(p["name"], p["version"], p["done"]) for p in made["room"]["players"]] == [
        ("Ana", 1, False),
        ("Ben", 1, False),
    ]
    qr = owner.get(f"/api/rooms/{code}/qr.svg")
    assert qr.status_code == 200 and qr.headers["content-type"] == "image/svg+xml"
    expected = io.BytesIO()
    drawn = segno.make(made["join"], error="m")
    drawn.save(expected, kind="svg", scale=5, border=2, xmldecl=False, title=f"Room {code}")
    assert qr.content == expected.getvalue()  # the join address, and nothing else
    assert b"http" not in qr.content.replace(b"http://www.w3.org", b"")  # no external reference drawn in


def test_the_open_rooms_are_listed_with_their_join_addresses(owner: TestClient) -> None:
    first, second = open_room(owner), open_room(owner)
    listed = owner.get("/api/rooms").json()["rooms"]
    assert sorted((r["code"], r["join"]) for r in listed) == sorted((m["code"], m["join"]) for m in (first, second))
    assert owner.get("/rooms").status_code == 200


def test_the_room_key_opens_that_room_alone(app: Any, owner: TestClient) -> None:
    made, other = open_room(owner), open_room(owner)
    member = phone(app, made["join"])
    code = made["code"]
    for path in (f"/room/{code}", f"/api/rooms/{code}", f"/api/rooms/{code}/record", f"/api/rooms/{code}/qr.svg"):
        assert member.get(path).status_code == 200, path
    assert member.get("/static/room.js").status_code == 200
    assert member.get("/ui/cards").status_code == 200
    refused = [
        member.get("/api/games"),
        member.get("/api/rooms"),
        member.get("/rooms"),
        member.get("/"),
        member.get("/api/players/Ana"),
        member.get(f"/api/rooms/{other['code']}"),
        member.get(f"/room/{other['code']}"),
        member.post("/api/rooms", json=setup_only()),
        member.delete(f"/api/rooms/{code}"),
        member.post("/api/score", json=record()),
    ]
    for answer in refused:
        assert answer.status_code == 401, answer.request.url
    assert refused[0].json() == {"errors": [NEED_TOKEN]}
    forged = member.put(
        f"/api/rooms/{code}/players/0",
        json={"version": 1, "done": False, "part": rooms.empty_part()},
        headers={"X-CSRF-Token": "another-site-cannot-read-the-cookie"},
    )
    assert (forged.status_code, forged.json()) == (403, {"errors": [NEED_CSRF]})
    stranger = TestClient(app)
    wrong = stranger.get(f"/room/{code}?key=not-the-key", follow_redirects=False)
    assert wrong.status_code == 401 and "ck_room" not in wrong.headers.get("set-cookie", "")
    assert stranger.get(f"/api/rooms/{code}").status_code == 401
    # a room's key for another room's code
    assert stranger.get(f"/room/{other['code']}?key={made['key']}", follow_redirects=False).status_code == 401


def test_wrong_room_keys_are_held_back_as_wrong_tokens_are(app: Any, owner: TestClient) -> None:
    made = open_room(owner)
    stranger = TestClient(app)
    answers = [stranger.get(f"/room/{made['code']}?key=guess-{i}", follow_redirects=False) for i in range(11)]
    assert [a.status_code for a in answers] == [401] * 10 + [429]
    assert f"<p>{too_many_guesses(1)}</p>" in answers[-1].text  # a page: the message in HTML
    assert too_many_guesses(1) == "too many wrong access tokens from this address: wait 1 s before trying again"
    right = stranger.get(made["join"].replace("http://testserver", ""), follow_redirects=False)
    assert right.status_code == 429  # unchecked until the address may guess again


# --- versions: no write silently overwrites another ---------------------------------------------


def test_a_stale_write_is_refused_with_the_meals_as_they_are(app: Any, owner: TestClient) -> None:
    made = open_room(owner)
    code = made["code"]
    first, second = phone(app, made["join"]), phone(app, made["join"])
    ana = part_of(record(), "Ana")
    saved = write(first, code, 0, 1, ana)
    assert saved.status_code == 200
    assert saved.json()["players"][0]["version"] == 2 and saved.json()["players"][0]["part"] == ana
    mine = copy.deepcopy(ana)
    mine["critic_meal"] = None
    refused = write(second, code, 0, 1, mine)  # based on version 1, which is gone
    assert refused.status_code == 409
    assert refused.json()["errors"] == [
        "Ana's meals were changed on another device (now version 2, this change was based on version 1): "
        "their meals as they are now are shown; make your change again"
    ]
    assert refused.json()["room"]["players"][0]["part"] == ana  # the state to show
    assert owner.get(f"/api/rooms/{code}").json()["players"][0]["part"] == ana  # nothing overwritten
    again = write(second, code, 0, 2, mine)  # based on what it was shown
    assert again.status_code == 200 and again.json()["players"][0]["part"] == mine
    assert again.json()["players"][1]["version"] == 1  # another player's version is their own


def test_the_complete_room_is_scored_as_score_scores_its_record(
    app: Any, owner: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = open_room(owner)
    code = made["code"]
    data = record()
    ana, ben = phone(app, made["join"]), phone(app, made["join"])
    assert write(ana, code, 0, 1, part_of(data, "Ana"), done=True).json()["result"] is None  # Ben not done
    last = write(ben, code, 1, 1, part_of(data, "Ben"), done=True).json()
    assert last["complete"] and last["problems"] is None
    exported = ben.get(f"/api/rooms/{code}/record").json()
    path = tmp_path / "room.json"
    path.write_text(json.dumps(exported))
    capsys.readouterr()
    assert main(["score", "--format", "json", str(path)]) == 0
    assert last["result"] == json.loads(capsys.readouterr().out)
    assert main(["score", "--format", "json", str(EXAMPLE)]) == 0  # the same game as the example file
    assert last["result"] == json.loads(capsys.readouterr().out)
    # a change after the result: the result goes until all are done again
    changed = write(ben, code, 1, 2, part_of(data, "Ben"), done=False).json()
    assert changed["result"] is None and not changed["complete"]


def test_a_complete_room_with_an_illegal_meal_shows_the_problems(app: Any, owner: TestClient) -> None:
    made = open_room(owner)
    code = made["code"]
    data = record()
    bad = part_of(data, "Ben")
    bad["critic_meal"]["courses"]["carrot"]["value"] = "lots"
    write(owner, code, 0, 1, part_of(data, "Ana"), done=True)
    last = write(owner, code, 1, 1, bad, done=True).json()
    assert last["result"] is None
    where = "record: critic_meals.Ben.courses.carrot.value"
    assert last["problems"] == [f"{where}: expected a positive whole number up to 1000000, got 'lots'"]


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ("[1]", ["write: expected an object with version, done and part"]),
        (
            '{"version": -1, "done": "yes", "part": {}, "extra": 1}',
            [
                "write.extra: unknown field (expected version, done and part)",
                "write.version: expected the whole number of the version the change is based on",
                "write.done: expected true or false",
                "write.part: missing challenge_meals",
                "write.part: missing critic_meal",
            ],
        ),
        ('{"version": 1, "done": false}', ["write: missing part"]),
        (
            '{"version": 1, "done": false, "part": {"challenge_meals": {"round3": [1]}, "critic_meal": 3}}',
            [
                "write.part.challenge_meals.round3: expected an object of card ids to meals",
                "write.part.critic_meal: expected a meal (an object) or null",
            ],
        ),
        ('{"version": 1, "version": 2}', ["write: duplicate key 'version'"]),
    ],
)
def test_bad_writes_get_exact_messages(app: Any, owner: TestClient, body: str, errors: list[str]) -> None:
    code = open_room(owner)["code"]
    answer = owner.put(f"/api/rooms/{code}/players/0", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 422
    assert answer.json() == {"errors": errors}
    assert owner.get(f"/api/rooms/{code}").json()["version"] == 1  # nothing kept


def test_a_write_past_its_size_and_unknown_rooms_and_seats(app: Any, owner: TestClient) -> None:
    code = open_room(owner)["code"]
    huge = json.dumps({"version": 1, "done": False, "part": {"challenge_meals": {"r": {"x" * ROOM_WRITE_BYTES: {}}}}})
    answer = owner.put(f"/api/rooms/{code}/players/0", content=huge, headers={"Content-Type": "application/json"})
    assert answer.status_code == 422
    assert answer.json() == {"errors": [f"write: a player's meals may take at most {ROOM_WRITE_BYTES} bytes"]}
    missing = write(owner, code, 7, 1, rooms.empty_part())
    assert (missing.status_code, missing.json()) == (404, {"errors": [f"room {code} has no player 7"]})
    huge = write(owner, code, 1 << 70, 1, rooms.empty_part())
    assert huge.status_code == 422
    assert huge.json() == {"errors": ["path.seat: Input should be less than or equal to 99"]}
    gone = owner.get("/api/rooms/ZZZZZZ")
    message = f"no room ZZZZZZ is open (rooms expire {ROOM_HOURS} hours after their last change)"
    assert (gone.status_code, gone.json()) == (404, {"errors": [message]})


def test_a_room_needs_a_legal_setup(owner: TestClient) -> None:
    answer = owner.post("/api/rooms", json={"cards": {}})
    assert answer.status_code == 422
    assert answer.json() == {
        "errors": ["record: a room needs a game's setup with its players (the meals may come later)"]
    }
    bad = setup_only()
    bad["cards"]["critic"] = "no-such-critic"
    answer = owner.post("/api/rooms", json=bad)
    assert answer.status_code == 422
    assert any("no-such-critic" in m for m in answer.json()["errors"])


# --- persistence, expiry, the number of rooms ----------------------------------------------------


def test_rooms_survive_a_restart_and_expire(tmp_path: Path) -> None:
    settings = Settings(db=str(tmp_path / "games.sqlite3"), token=TOKEN)
    first = create_app(settings)
    made = open_room(TestClient(first, headers=OWNER))
    write(TestClient(first, headers=OWNER), made["code"], 0, 1, part_of(record(), "Ana"))
    again = create_app(settings)  # the server restarted
    member = phone(again, made["join"])  # the key still opens it
    room = member.get(f"/api/rooms/{made['code']}").json()
    assert room["players"][0]["version"] == 2 and room["players"][0]["part"] == part_of(record(), "Ana")
    hub = again.state.rooms
    now = time.time()
    hub.clock = lambda: now + ROOM_HOURS * 3600 + 5
    assert member.get(f"/api/rooms/{made['code']}").status_code == 404
    assert made["code"] not in hub.keys  # its key no longer opens anything
    assert member.get(f"/api/rooms/{made['code']}").status_code == 401


def test_the_number_of_rooms_is_bounded(app: Any, owner: TestClient) -> None:
    assert MAX_ROOMS == app.state.rooms.max_rooms
    app.state.rooms.max_rooms = 2
    first = open_room(owner)
    open_room(owner)
    answer = owner.post("/api/rooms", json=setup_only())
    assert answer.status_code == 503
    assert answer.json() == {"errors": [rooms.ROOMS_FULL]}
    assert rooms.ROOMS_FULL == (
        f"this score pad has {MAX_ROOMS} rooms open, as many as it keeps: finish or wait for one to expire"
    )
    assert owner.delete(f"/api/rooms/{first['code']}").status_code == 204
    assert owner.post("/api/rooms", json=setup_only()).status_code == 201


# --- the live stream (a real server) ----------------------------------------------------------


class Server:
    """uvicorn on 127.0.0.1 in a thread, serving ``app``."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                return
            time.sleep(0.05)
        raise AssertionError("the server did not start")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


class Events:
    """One event stream, read event by event."""

    def __init__(self, port: int, path: str, headers: dict[str, str]) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status

    def next(self) -> dict[str, str]:
        """The next event with data (comments and the retry line skipped)."""
        fields: dict[str, str] = {}
        while True:
            line = self.response.readline().decode().rstrip("\n")
            if not line:
                if "data" in fields:
                    return fields
                fields = {}
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(": ")
            fields[name] = value

    def close(self) -> None:
        self.connection.close()


@pytest.fixture
def live(app: Any) -> Any:
    app.state.rooms.ping_seconds = 0.2
    server = Server(app)
    yield server
    server.stop()


def test_a_phone_that_comes_back_gets_what_it_missed_once(app: Any, owner: TestClient, live: Server) -> None:
    made = open_room(owner)
    code = made["code"]
    path = f"/api/rooms/{code}/events"
    stream = Events(live.port, path, OWNER)
    assert stream.status == 200 and stream.response.getheader("content-type").startswith("text/event-stream")
    first = stream.next()
    assert (first["id"], first["event"], json.loads(first["data"])["version"]) == ("1", "room", 1)
    data = record()
    write(owner, code, 0, 1, part_of(data, "Ana"))
    second = stream.next()
    assert second["id"] == "2" and json.loads(second["data"])["players"][0]["version"] == 2
    stream.close()  # the phone sleeps; two changes meanwhile
    write(owner, code, 0, 2, part_of(data, "Ana"), done=True)
    write(owner, code, 1, 1, part_of(data, "Ben"))
    back = Events(live.port, path, {**OWNER, "Last-Event-ID": "2"})
    caught_up = back.next()
    room = json.loads(caught_up["data"])
    assert caught_up["id"] == "4" and room["version"] == 4
    assert [(p["version"], p["done"]) for p in room["players"]] == [(3, True), (2, False)]  # both changes
    write(owner, code, 1, 2, part_of(data, "Ben"), done=True)  # the last: then the result
    seen = [back.next()]  # the write (5), then its result (6): at once, perhaps as one event of 6
    while seen[-1]["id"] != "6":
        seen.append(back.next())
    ids = [int(e["id"]) for e in seen]
    assert ids in ([5, 6], [6]) and ids == sorted(set(ids))  # nothing twice, ever rising
    assert json.loads(seen[-1]["data"])["result"] == owner.get(f"/api/rooms/{code}").json()["result"] is not None
    back.close()
    # up to date: the stream sends nothing until the next change
    current = Events(live.port, f"{path}?since=6", OWNER)
    owner.delete(f"/api/rooms/{code}")
    assert current.next()["event"] == "gone"
    current.close()


def test_streams_are_bounded_and_hold_no_engine_worker(app: Any, owner: TestClient, live: Server) -> None:
    hub = app.state.rooms
    hub.room_streams, hub.streams_total = 3, 4
    a, b = open_room(owner)["code"], open_room(owner)["code"]
    held = [Events(live.port, f"/api/rooms/{a}/events", OWNER) for _ in range(3)]
    for stream in held:
        assert stream.next()["event"] == "room"
    refused = Events(live.port, f"/api/rooms/{a}/events", OWNER)
    assert refused.status == 503 and refused.response.getheader("retry-after") == "5"
    assert json.loads(refused.response.read()) == {
        "errors": [f"room {a} already has 3 live connections, as many as it allows: close the pad on another device"]
    }
    held.append(Events(live.port, f"/api/rooms/{b}/events", OWNER))
    assert held[-1].next()["event"] == "room"
    refused = Events(live.port, f"/api/rooms/{b}/events", OWNER)
    assert refused.status == 503
    assert json.loads(refused.response.read()) == {
        "errors": [
            "this score pad already has 4 live connections, as many as it allows: close the pad on another device"
        ]
    }
    assert app.state.engine.busy() == 0  # waiting streams hold no worker of the 2
    connection = http.client.HTTPConnection("127.0.0.1", live.port, timeout=10)
    started = time.perf_counter()
    headers = {**OWNER, "Content-Type": "application/json"}
    connection.request("POST", "/api/score", body=json.dumps(record()), headers=headers)
    assert connection.getresponse().status == 200
    assert time.perf_counter() - started < 5  # everyone else is still answered
    for stream in held:
        stream.close()
    for _ in range(100):  # a closed stream is no longer counted (found at its next ping)
        if not hub.streams:
            break
        time.sleep(0.05)
    assert hub.streams == {}
