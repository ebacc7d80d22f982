"""A web request is untrusted input: the score pad gives each one bounded time and memory,
and stays responsive to everyone else.

- Engine work runs on a bounded pool: a slow plan from one client does not hold up another
  client's request (a real server on 127.0.0.1); a full pool or an answer past its time is
  503 with Retry-After, in the API's and the pages' own shapes.
- Connections (a real uvicorn on 127.0.0.1, raw sockets): headers that never end, or come a
  byte at a time, are cut off; idle connections past the cap make room for a real request.
- Pack lists are read as a record's are (capped, ids only, once each) on every route, and the
  ruleset cache is keyed by the folders loaded and bounded by count and size.
- The token: short ones refused, wrong ones slowed down per client address, a malformed
  session cookie a 401; ``?token=`` redirects only to this server's paths.
- A failing card effect is the same problem on every route; a game id past SQLite's is a
  missing game; names are searched by Unicode case folding; a name may hold "/"; the database
  must be a regular file.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from fastapi.testclient import TestClient  # noqa: E402
from test_serve_api import base_record, golden, renamed  # noqa: E402
from test_serve_durability import Server  # noqa: E402

from critter_kitchen.cli import main  # noqa: E402
from critter_kitchen.web import access  # noqa: E402
from critter_kitchen.web.app import Settings, create_app  # noqa: E402
from critter_kitchen.web.store import MIGRATIONS, Store  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "a-token-of-some-length"
BUDGET = "the effects of this game took more than 200,000 steps (statements, loop items and awards)"


def spice_pantry(items: int = 16, spices: int = 12) -> dict[str, Any]:
    """A challenge round's pantry of many spices (one that took the planner seconds before it
    offered an ingredient only the spices it may carry)."""
    types = ["carrot", "fish", "mushroom", "cheese", "bread", "meat"]
    return {
        "for": "round3",
        "cards": {"challenges": {"round3": ["harbor-stew", "forest-risotto", "farmhouse-pie"]}},
        "player": {"name": "Ana"},
        "pantry": {
            "ingredients": [{"type": types[i % 6], "value": 1 + i % 9} for i in range(items)],
            "spices": [types[i % 6] for i in range(spices)] + ["allspice"] * (spices // 3),
            "soup": 2,
            "bisque": 1,
        },
    }


BUSY = ROOT / "tests" / "hostile" / "busy-restaurateur"


def busy_pantry() -> dict[str, Any]:
    """A pantry whose plan takes seconds however quick the planner: its player's restaurateur
    (the hostile pack's busy-bee) does about 45,000 steps of work in every stage run, and the
    plan ends only at its work budget."""
    kinds = ["carrot", "cheese", "bread", "mushroom", "cheese"]
    return {
        "for": "round3",
        "cards": {"challenges": {"round3": ["garden-gratin", "toasted-cheese", "mushroom-toast"]}},
        "player": {"name": "Ana", "restaurateur": "busy-bee"},
        "pantry": {
            "ingredients": [{"type": kinds[i % 5], "value": 1 + (i * 5) % 9} for i in range(5)],
            "spices": ["allspice"],
            "soup": 1,
            "bisque": 1,
        },
    }


def app_client(tmp_path: Path, **settings: Any) -> TestClient:
    """A browser's client of a fresh app: it sends the CSRF token back with its cookie."""
    app = create_app(Settings(db=str(tmp_path / "games.sqlite3"), **settings))
    client = TestClient(app, base_url="http://127.0.0.1:8000", raise_server_exceptions=False, follow_redirects=False)
    client.cookies.set(access.CSRF_COOKIE, "csrf-token")
    client.headers["X-CSRF-Token"] = "csrf-token"
    return client


# --- 8: engine work on a bounded pool ----------------------------------------------------------


def test_a_slow_plan_does_not_hold_up_another_client(tmp_path: Path) -> None:
    server = Server(tmp_path / "games.sqlite3", "--pack", str(BUSY))
    try:
        assert server.request("GET", "/api/games")[0] == 200
        planned: list[float] = []

        def plan() -> None:
            began = time.perf_counter()
            try:
                server.request("POST", "/ui/plan", busy_pantry())
            except OSError:  # the server was stopped first
                pass
            planned.append(time.perf_counter() - began)

        planner = threading.Thread(target=plan, daemon=True)
        planner.start()
        time.sleep(0.5)  # the plan has begun
        waits = []
        for _ in range(3):
            connection = server.connection()
            connection.timeout = 5
            began = time.perf_counter()
            try:
                connection.request("GET", "/api/games")
                response = connection.getresponse()
                response.read()
                status = response.status
            except TimeoutError:
                status = 0
            finally:
                connection.close()
            waits.append(time.perf_counter() - began)
            assert status == 200, f"no answer within {waits[-1]:.1f} s while another client plans"
        assert planned == [], "the plan ended before the other client's requests: make it slower"
        assert max(waits) < 0.5, waits
    finally:
        stopping = time.perf_counter()
        server.stop()  # the workers are daemon threads: the server stops without finishing the plan
    assert time.perf_counter() - stopping < 10


def test_a_full_pool_is_503_with_retry_after(tmp_path: Path) -> None:
    client = app_client(tmp_path, engine_workers=0, engine_queue=0)
    api = client.post("/api/score", json=base_record())
    assert (api.status_code, api.headers["retry-after"]) == (503, "2")
    assert api.json() == {"errors": ["the score pad is busy with other requests: try again in a few seconds"]}
    page = client.post("/ui/check", json=base_record())
    assert (page.status_code, page.headers["retry-after"]) == (503, "2")
    busy = "the score pad is busy with other requests: try again in a few seconds"
    assert page.json() == {"problems": [{"where": "", "message": busy, "code": ""}]}
    assert client.get("/api/games").status_code == 200  # no engine work: answered


def test_an_answer_past_its_time_is_503_and_the_pool_is_free_again(tmp_path: Path) -> None:
    client = app_client(tmp_path, engine_seconds=0.2, packs=(str(BUSY),))
    answer = client.post("/ui/plan", json=busy_pantry())
    assert (answer.status_code, answer.headers["retry-after"]) == (503, "2")
    message = "this request needed more than 0.2 seconds of the server's work, and was given up"
    assert answer.json() == {"problems": [{"where": "", "message": message, "code": ""}]}
    pool = client.app.state.engine  # type: ignore[attr-defined]
    deadline = time.monotonic() + 120
    while pool.busy() and time.monotonic() < deadline:  # the plan runs on to its end, then its worker is free
        time.sleep(0.05)
    assert pool.busy() == 0
    assert client.post("/api/score", json=base_record()).status_code == 200


def test_the_pool_runs_so_many_at_once_queues_so_many_and_refuses_the_rest() -> None:
    from critter_kitchen.web.work import BUSY, Busy, EnginePool

    release = threading.Event()
    running: list[int] = []

    def job(n: int) -> int:
        running.append(n)
        release.wait(30)
        return n

    async def scenario() -> list[Any]:
        pool = EnginePool(workers=2, waiting=1, seconds=30)
        tasks = [asyncio.ensure_future(pool.run(job, n)) for n in range(3)]
        await asyncio.sleep(0.2)
        assert sorted(running) == [0, 1] and pool.busy() == 3  # two run, one waits
        with pytest.raises(Busy) as refused:
            await pool.run(job, 3)
        assert (refused.value.message, refused.value.retry) == (BUSY, 2)
        release.set()
        done = await asyncio.gather(*tasks)
        await asyncio.sleep(0.05)
        return [*done, pool.busy()]

    assert asyncio.run(scenario()) == [0, 1, 2, 0]


def test_a_job_that_fails_fails_its_request_only() -> None:
    from critter_kitchen.web.work import EnginePool

    async def scenario() -> tuple[str, int]:
        pool = EnginePool()
        with pytest.raises(ZeroDivisionError):
            await pool.run(lambda: 1 // 0)
        return "next", await pool.run(lambda: 7)

    assert asyncio.run(scenario()) == ("next", 7)


# --- 11: connections --------------------------------------------------------------------------


class InProcess:
    """uvicorn serving the app in a thread of this process, with the server's limits (smaller ones given)."""

    def __init__(self, tmp_path: Path, cap: int, header_seconds: float) -> None:
        import uvicorn

        from critter_kitchen.web.server import limited_protocol, listen, server_limits

        app = create_app(Settings(db=str(tmp_path / "games.sqlite3")))
        options = {**server_limits(cap), "http": limited_protocol(cap, header_seconds)}
        self.socket = listen("127.0.0.1", 0)
        self.port = self.socket.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, **options))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.server.started

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        return sock

    def get(self, path: str = "/api/games") -> tuple[float, bytes]:
        """Seconds until a whole answer to one request on a new connection, and its first line."""
        began = time.perf_counter()
        with self.connect() as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        return time.perf_counter() - began, answer.split(b"\r\n", 1)[0]

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        self.socket.close()


@pytest.fixture
def in_process(tmp_path: Path):
    running = InProcess(tmp_path, cap=20, header_seconds=1.0)
    yield running
    running.stop()


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed ``sock`` (reading what it sends), or None if it did not."""
    began = time.perf_counter()
    sock.settimeout(0.1)
    while time.perf_counter() - began < seconds:
        try:
            if sock.recv(65536) == b"":
                return time.perf_counter() - began
        except TimeoutError:
            continue
        except ConnectionResetError:
            return time.perf_counter() - began
    return None


def test_headers_that_never_end_are_cut_off(in_process: InProcess) -> None:
    with in_process.connect() as sock:
        sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and nothing more
        took = closed_within(sock, 5)
    assert took is not None and took < 2.5


def test_headers_sent_a_byte_at_a_time_are_cut_off(in_process: InProcess) -> None:
    request = b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100
    with in_process.connect() as sock:
        began = time.perf_counter()
        for byte in request:  # bounded: 150 bytes, 0.05 s apart
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            time.sleep(0.05)
        took = closed_within(sock, 5)
    assert took is not None
    assert time.perf_counter() - began < 5  # one second for the headers, whatever trickles in


def test_a_kept_alive_connection_must_send_its_next_headers_in_time(in_process: InProcess) -> None:
    with in_process.connect() as sock:
        sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        time.sleep(0.3)
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        sock.sendall(b"GET /api/games HTTP/1.1\r\n")  # stops the keep-alive timer, but not the header one
        took = closed_within(sock, 5)
    assert took is not None and took < 2.5


def test_idle_connections_past_the_cap_make_room_for_a_real_request(in_process: InProcess) -> None:
    idle = [in_process.connect() for _ in range(60)]  # three times the cap, sending nothing
    try:
        time.sleep(0.3)
        took, status = in_process.get()
        assert status == b"HTTP/1.1 200 OK"
        assert took < 1.0
        closed = sum(closed_within(sock, 0.05) is not None for sock in idle)
        assert closed >= 60 - 20
    finally:
        for sock in idle:
            sock.close()


def test_the_server_runs_with_the_named_limits() -> None:
    from critter_kitchen.web import limits
    from critter_kitchen.web.server import server_limits

    options = server_limits(limits.MAX_CONNECTIONS)
    assert options["timeout_keep_alive"] == limits.KEEP_ALIVE_SECONDS == 5
    assert options["limit_concurrency"] == limits.MAX_CONNECTIONS + 1 == 201
    assert options["h11_max_incomplete_event_size"] == limits.MAX_HEADER_BYTES == 16 * 1024
    assert options["http"].max_connections == 200
    assert options["http"].header_seconds == limits.HEADER_SECONDS == 10


# --- 9 and 10: pack lists, and the ruleset cache ------------------------------------------------


def test_every_route_that_reads_packs_caps_them(tmp_path: Path) -> None:
    client = app_client(tmp_path)
    many = [f"no-such-pack-{n}" for n in range(3000)]
    problem = {"where": "packs", "message": "3000 packs; a record may name at most 64", "code": "CK301"}
    began = time.perf_counter()
    check = client.post("/ui/check", json={**base_record(), "packs": many})
    answer = check.json()  # (with the spice boxes each meal may have, which the pad draws)
    assert (check.status_code, answer["problems"], answer["result"]) == (200, [problem], None)
    plan = client.post("/ui/plan", json={**spice_pantry(4, 1), "packs": many})
    assert (plan.status_code, plan.json()) == (422, {"problems": [problem]})
    cards = client.get("/ui/cards", params={"packs": ",".join(many)})
    assert (cards.status_code, cards.json()) == (422, {"problems": [problem]})
    assert client.post("/api/score", json={**base_record(), "packs": many}).json() == {
        "errors": ["record: packs: 3000 packs; a record may name at most 64"]
    }
    assert time.perf_counter() - began < 5
    bad = client.post("/ui/check", json={**base_record(), "packs": ["../cards"]}).json()
    assert bad["problems"] == [
        {
            "where": "packs[0]",
            "message": "expected a pack id (lower-case letters, digits, '-', '_', '.'), got '../cards'",
            "code": "CK301",
        }
    ]


def test_pack_lists_that_load_the_same_packs_share_one_ruleset(tmp_path: Path) -> None:
    client = app_client(tmp_path)
    for n in range(1, 31):
        answer = client.post("/ui/check", json={**base_record(), "packs": ["base"] * n})
        assert answer.json()["problems"] == []
    rulesets = client.app.state.rulesets  # type: ignore[attr-defined]
    assert len(rulesets.loaded) == 1  # the base pack's, however often "base" is named
    same = rulesets(("a-la-carte",))
    assert rulesets(("base", "a-la-carte", "base")) is same
    assert rulesets(("a-la-carte", "a-la-carte")) is same
    assert rulesets(("a-la-carte", "base")) is same
    assert len(rulesets.loaded) == 2


def test_the_ruleset_cache_drops_the_least_recently_used() -> None:
    from critter_kitchen.web.scoring import Rulesets

    by_count = Rulesets(kept=2)
    base = by_count(())
    alc = by_count(("a-la-carte",))
    assert by_count(()) is base  # now the most recently used
    by_count(("solo",))
    assert by_count.held()[0] == 2
    assert by_count(()) is base  # kept
    assert by_count(("a-la-carte",)) is not alc  # dropped, and loaded again
    by_size = Rulesets(size=1)  # every ruleset is larger: only the last one is kept
    by_size(())
    by_size(("a-la-carte",))
    count, size = by_size.held()
    assert count == 1 and size > 1


# --- 12 and 16: the token --------------------------------------------------------------------


def guarded(tmp_path: Path, address: str, app: Any = None) -> TestClient:
    app = app or create_app(Settings(db=str(tmp_path / "games.sqlite3"), token=TOKEN))
    return TestClient(app, base_url="http://192.0.2.1:8000", follow_redirects=False, client=(address, 50000))


def test_a_session_cookie_past_ascii_is_a_401(tmp_path: Path) -> None:
    client = guarded(tmp_path, "198.51.100.1")
    answer = client.get("/api/games", headers={"cookie": "ck_session=\xe9t\xe9".encode("latin-1")})
    assert (answer.status_code, answer.json()) == (401, {"errors": [access.NEED_TOKEN]})
    bearer = client.get("/api/games", headers={"authorization": "Bearer \xe9".encode("latin-1")})
    assert (bearer.status_code, bearer.json()) == (401, {"errors": [access.WRONG_TOKEN]})
    login = client.get("/login", params={"token": "ëë"})
    assert login.status_code == 401


def test_wrong_tokens_are_slowed_down_per_client(tmp_path: Path) -> None:
    guesser = guarded(tmp_path, "198.51.100.7")
    other = guarded(tmp_path, "198.51.100.8", guesser.app)
    for n in range(10):
        assert guesser.get("/api/games", headers={"authorization": f"Bearer guess-{n}"}).status_code == 401
    held = guesser.get("/api/games", headers={"authorization": "Bearer guess-10"})
    assert (held.status_code, held.headers["retry-after"]) == (429, "1")
    assert held.json() == {"errors": ["too many wrong access tokens from this address: wait 1 s before trying again"]}
    right = {"authorization": f"Bearer {TOKEN}"}
    assert guesser.get("/api/games", headers=right).status_code == 429  # unchecked while held back
    login = guesser.get("/login", params={"token": TOKEN})
    assert login.status_code == 429 and b"wait 1 s before trying again" in login.content
    assert other.get("/api/games", headers=right).status_code == 200  # another client is not held back
    time.sleep(1.1)  # one more guess a second
    assert guesser.get("/api/games", headers=right).status_code == 200


def test_the_guess_table_refills_and_stays_small() -> None:
    now = [0.0]
    guesses = access.Guesses(at_once=3, seconds=2.0, tracked=4, clock=lambda: now[0])
    for _ in range(3):
        assert guesses.wait("a") == 0
        guesses.failed("a")
    assert guesses.wait("a") == 2.0
    now[0] = 1.0
    assert guesses.wait("a") == 1.0
    now[0] = 2.0
    assert guesses.wait("a") == 0
    for n in range(10):
        guesses.failed(f"client-{n}")
    assert len(guesses.clients) == 4  # the table is bounded: the earliest guessers are forgotten
    assert list(guesses.clients) == [f"client-{n}" for n in range(6, 10)]
    now[0] = 100.0
    assert guesses.wait("client-9") == 0 and "client-9" not in guesses.clients  # whole again: forgotten


@pytest.fixture
def never_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve`` stops where it would start serving, rather than serve until interrupted."""
    import uvicorn

    def serving(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server started")

    monkeypatch.setattr(uvicorn.Server, "run", serving)


def test_a_short_token_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, never_serves: None
) -> None:
    monkeypatch.delenv("CRITTER_KITCHEN_TOKEN", raising=False)
    db = str(tmp_path / "g.sqlite3")
    assert main(["serve", "--host", "0.0.0.0", "--port", "0", "--token", "7", "--db", db]) == 1
    assert capsys.readouterr().err == (
        "critter-kitchen: the access token is too short (1 of at least 16 characters): a shorter one can be "
        "guessed over the network; give a longer one, or none to have one made\n"
    )
    monkeypatch.setenv("CRITTER_KITCHEN_TOKEN", "fifteen-letters")
    assert main(["serve", "--port", "0", "--db", db]) == 1
    assert "too short (15 of at least 16 characters)" in capsys.readouterr().err


# --- 15: redirects ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("//evil.example", "/"),
        ("/%2F/evil.example", "/"),
        ("///evil.example", "/"),
        ("/\\evil.example", "/%5Cevil.example"),  # a path of this server: the backslash is escaped
    ],
)
@pytest.mark.parametrize("token", [TOKEN, None])
def test_the_login_link_redirects_only_to_this_servers_paths(
    tmp_path: Path, path: str, location: str, token: str | None
) -> None:
    app = create_app(Settings(db=str(tmp_path / "games.sqlite3"), token=token))
    client = TestClient(app, base_url="http://127.0.0.1:8000", follow_redirects=False)
    answer = client.get(f"http://127.0.0.1:8000{path}?token={TOKEN}")
    assert answer.status_code == 303
    assert answer.headers["location"] == location
    kept = client.get(f"http://127.0.0.1:8000/history/a%20b?token={TOKEN}&player=Ana")
    assert kept.headers["location"] == "/history/a%20b?player=Ana"


# --- 13: a failing card effect ----------------------------------------------------------------


@pytest.fixture
def costly_pack(tmp_path: Path) -> Path:
    """A pack whose rumor takes more than the step budget of one game."""
    folder = tmp_path / "costly"
    folder.mkdir()
    (folder / "pack.yaml").write_text("id: costly\nname: Costly cards\n", "utf-8")
    loops = [" " * i + f"for v{i} in ingredient_types:" for i in range(4)]
    body = "".join("      " + line + "\n" for line in [*loops, *[" " * 4 + "let x = 1 + 2 * 3"] * 20])
    card = f"id: probe\nkind: rumor\nname: Probe\neffects:\n  - after: critic.rumors\n    do: |\n{body}"
    (folder / "card.yaml").write_text(card, "utf-8")
    return folder


def test_a_failing_card_effect_is_the_same_problem_on_every_route(tmp_path: Path, costly_pack: Path) -> None:
    client = app_client(tmp_path, packs=(str(costly_pack),))
    record = golden("five-players")
    record["cards"]["rumors"] = ["probe"]
    message = f"{costly_pack}/card.yaml: card 'probe' at stage 'critic.rumors': {BUDGET}"
    api = client.post("/api/score", json=record)
    assert (api.status_code, api.json()) == (422, {"errors": [f"record: {message}"]})
    check = client.post("/ui/check", json=record)
    problem = {"where": "", "message": f"record: {message}", "code": "CK301"}
    answer = check.json()  # (with the spice boxes each meal may have, which the pad draws)
    assert (check.status_code, answer["problems"], answer["result"]) == (200, [problem], None)
    pantry = {**spice_pantry(4, 1), "for": "critic", "cards": {"rumors": ["probe"]}}
    plan = client.post("/ui/plan", json=pantry)
    problem = {"where": "", "message": f"pantry: {message}", "code": "CK301"}
    assert (plan.status_code, plan.json()) == (422, {"problems": [problem]})


# --- 14: ids, and searching names ----------------------------------------------------------------


def test_a_game_id_past_sqlites_is_a_missing_game(tmp_path: Path) -> None:
    client = app_client(tmp_path)
    for game_id in ["9999999999999999999", "9223372036854775808"]:
        for path in [f"/games/{game_id}", f"/games/{game_id}/record.json"]:
            answer = client.get(path)
            assert answer.status_code == 404, path
            assert f"No game {game_id} is kept" in answer.text


def test_names_are_searched_without_case_in_every_script(tmp_path: Path) -> None:
    client = app_client(tmp_path)
    record = renamed(golden("two-players"), {"Ana": "Zoë", "Ben": "Straße"})
    assert client.post("/api/games", json=record).status_code == 201
    for part in ["ZOË", "zoë", "Zoë", "STRASSE", "straße"]:
        assert client.get("/api/games", params={"player": part}).json()["total"] == 1, part
    assert client.get("/api/games", params={"player": "ZOE"}).json()["total"] == 0
    assert "Zoë" in client.get("/", params={"player": "ZOË"}).text


def test_an_older_database_gets_its_names_folded_when_opened(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    Store(path, MIGRATIONS[:2])
    result = json.loads((ROOT / "tests/golden/two-players.json").read_text(encoding="utf-8"))
    text = json.dumps(result).replace('"Ana"', '"Zoë"')
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO games (created, record, result) VALUES ('2026-01-01T00:00:00Z', '{}', ?)", (text,))
        db.execute("INSERT INTO game_players VALUES (1, 'Zoë', 1, 18)")
    store = Store(path)
    assert store.version() == len(MIGRATIONS)
    assert [g.id for g in store.games("ZOË")] == [1]
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name, folded FROM game_players").fetchall() == [("Zoë", "zoë")]


# --- 17: a name with "/" ---------------------------------------------------------------------


def test_a_player_whose_name_holds_a_slash_has_a_page_and_statistics(tmp_path: Path) -> None:
    client = app_client(tmp_path)
    record = renamed(golden("two-players"), {"Ana": "A/B"})
    assert client.post("/api/games", json=record).status_code == 201
    stats = client.get("/api/players/A%2FB")
    assert stats.status_code == 200
    assert (stats.json()["name"], stats.json()["games"]) == ("A/B", 1)
    page = client.get("/players/A%2FB")
    assert page.status_code == 200
    assert 'data-source="/api/players/A%2FB"' in page.text
    assert 'href="/players/A%2FB"' in client.get("/").text


# --- 18: the database path ------------------------------------------------------------------


def test_a_database_path_that_is_no_regular_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], never_serves: None
) -> None:
    journal = Path("/dev/full-journal")  # what SQLite left beside the device, run as root
    there = journal.exists()
    assert main(["serve", "--port", "0", "--db", "/dev/full"]) == 1
    assert capsys.readouterr().err == "critter-kitchen: /dev/full: cannot use the games database: not a regular file\n"
    assert journal.exists() == there
    assert main(["serve", "--port", "0", "--db", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (
        f"critter-kitchen: {tmp_path}: cannot use the games database: not a regular file\n"
    )
    missing = tmp_path / "no" / "such" / "games.sqlite3"
    assert main(["serve", "--port", "0", "--db", str(missing)]) == 1
    assert capsys.readouterr().err == (
        f"critter-kitchen: {missing}: cannot create the games database: no folder {missing.parent}\n"
    )
    assert not (tmp_path / "no").exists()


def test_the_openapi_description_names_the_new_answers(tmp_path: Path) -> None:
    spec = app_client(tmp_path).get("/openapi.json").json()
    score = spec["paths"]["/api/score"]["post"]["responses"]
    assert set(score) >= {"200", "408", "413", "422", "429", "503"}
    assert score["503"]["headers"]["Retry-After"]["schema"] == {"type": "integer"}
    assert set(spec["paths"]["/api/games"]["post"]["responses"]) >= {"429", "503"}
    assert "429" in spec["paths"]["/api/games"]["get"]["responses"]
    assert "/api/players/{name}" in spec["paths"]  # a name that holds "/" still has the one path


def test_a_body_that_does_not_arrive_in_time_is_408() -> None:
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the route was reached")

    async def receive() -> dict[str, Any]:
        if not sent and not received:
            received.append(1)
            return {"type": "http.request", "body": b"{", "more_body": True}
        await asyncio.sleep(60)  # the rest never comes
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    received: list[int] = []
    guard = access.Guard(app, body_seconds=0.2)
    scope = {"type": "http", "method": "POST", "path": "/api/score", "headers": [], "query_string": b""}
    began = time.perf_counter()
    asyncio.run(guard(scope, receive, send))
    assert time.perf_counter() - began < 5
    assert sent[0]["status"] == 408
    assert json.loads(sent[1]["body"]) == {"errors": ["the request body did not arrive within 0.2 seconds"]}


def test_the_server_may_open_enough_files_for_a_burst_of_connections() -> None:
    """A burst of 1,100 connections against 1,024 files made every accept fail for a second at a time."""
    import resource

    from critter_kitchen.web.server import connection_cap, more_files

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))
        more_files()
        raised = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert raised == min(hard, 8192) or hard == resource.RLIM_INFINITY
        assert connection_cap() == min(200, raised // 2)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
