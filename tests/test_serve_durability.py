"""Nothing acknowledged is lost: the score pad as run by ``critter-kitchen serve``, a real uvicorn
on 127.0.0.1 (a free port), saving games from many clients at once, and killed mid-save.

- 20 clients save games at the same time: every save is acknowledged (201), every game is
  kept once, with its record and result intact.
- The server is killed with SIGKILL while clients save; the database passes
  ``PRAGMA integrity_check``, and after a restart every game that was acknowledged is there
  and intact, and every game kept is a whole game.
"""

from __future__ import annotations

import http.client
import json
import os
import selectors
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")

from test_serve_api import golden, renamed  # noqa: E402

CLIENTS = 20
GAMES_EACH = 5
START_SECONDS = 60  # a loaded machine; the server itself starts well within 2 s (tools/bench_serve.py)


class Server:
    """``critter-kitchen serve --port 0`` on a database; its address read from what it prints."""

    def __init__(self, db: Path, *options: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "critter_kitchen", "serve", "--port", "0", "--db", str(db), *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self._first_line()
        prefix = "critter-kitchen: the score pad is at http://127.0.0.1:"
        assert line.startswith(prefix), line + self.process.stderr.read()  # type: ignore[union-attr]
        self.port = int(line[len(prefix) :].split("/", 1)[0])

    def _first_line(self) -> str:
        assert self.process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(START_SECONDS):
                self.process.kill()
                raise AssertionError("the server printed nothing")
        return self.process.stdout.readline()

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        connection = self.connection()
        try:
            data = None if body is None else json.dumps(body).encode()
            connection.request(method, path, data, {"Content-Type": "application/json"})
            response = connection.getresponse()
            text = response.read()
            return response.status, json.loads(text) if text else None
        finally:
            connection.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def record_for(client: int, game: int) -> dict[str, Any]:
    """A distinct legal game for each client and turn: the golden two-player game, renamed."""
    return renamed(golden("two-players"), {"Ana": f"Ana {client}-{game}", "Ben": f"Ben {client}-{game}"})


def check_kept(server: Server, game_id: int, record: dict[str, Any], result: dict[str, Any]) -> None:
    status, kept = server.request("GET", f"/api/games/{game_id}")
    assert status == 200, (game_id, kept)
    assert kept["record"] == record
    assert kept["result"] == result


@pytest.fixture
def server(tmp_path: Path):
    running = Server(tmp_path / "games.sqlite3")
    yield running
    running.stop()


def test_twenty_clients_saving_at_once_lose_nothing(server: Server) -> None:
    expected = server.request("POST", "/api/score", golden("two-players"))[1]
    saved: dict[int, dict[str, Any]] = {}
    failed: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(CLIENTS)

    def client(number: int) -> None:
        start.wait()  # all at once
        for game in range(GAMES_EACH):
            record = record_for(number, game)
            try:
                status, body = server.request("POST", "/api/games", record)
            except OSError as e:
                status, body = 0, str(e)
            with lock:
                if status == 201:
                    saved[body["id"]] = record
                else:
                    failed.append(f"client {number}, game {game}: {status} {body}")

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)

    assert failed == []
    assert len(saved) == CLIENTS * GAMES_EACH
    status, listed = server.request("GET", "/api/games?limit=1000")
    assert sorted(g["id"] for g in listed["games"]) == sorted(saved)
    for game_id, record in saved.items():
        names = {p["name"] for p in record["players"]}
        result = renamed_result(expected, names)
        check_kept(server, game_id, record, result)


def renamed_result(result: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """The golden result with Ana and Ben renamed to the names given (``Ana …``, ``Ben …``)."""
    by_old = {old: next(n for n in names if n.startswith(old + " ")) for old in ("Ana", "Ben")}
    text = json.dumps(result)
    for old, new in by_old.items():
        text = text.replace(f'"{old}"', json.dumps(new))
    return json.loads(text)


def test_a_server_killed_mid_save_keeps_every_acknowledged_game(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    server = Server(db)
    expected = server.request("POST", "/api/score", golden("two-players"))[1]
    acknowledged: dict[int, dict[str, Any]] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def client(number: int) -> None:
        for game in range(200):  # bounded; the kill ends it long before
            if stop.is_set():
                return
            record = record_for(number, game)
            try:
                status, body = server.request("POST", "/api/games", record)
            except (OSError, http.client.HTTPException, json.JSONDecodeError):
                return  # the server is gone: this save was never acknowledged
            if status == 201:
                with lock:
                    acknowledged[body["id"]] = record

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 120
    while len(acknowledged) < 40 and time.monotonic() < deadline and any(t.is_alive() for t in threads):
        time.sleep(0.01)
    os.kill(server.process.pid, signal.SIGKILL)  # in the middle of saves: clients are still sending
    server.process.wait()
    stop.set()
    for t in threads:
        t.join(60)
    server.stop()
    assert len(acknowledged) >= 40

    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]

    restarted = Server(db)
    try:
        for game_id, record in acknowledged.items():
            names = {p["name"] for p in record["players"]}
            check_kept(restarted, game_id, record, renamed_result(expected, names))
        status, listed = restarted.request("GET", "/api/games?limit=1000")
        for game in listed["games"]:  # a save that was not acknowledged is whole or absent
            status, kept = restarted.request("GET", f"/api/games/{game['id']}")
            names = {p["name"] for p in kept["record"]["players"]}
            assert kept["result"] == renamed_result(expected, names)
            assert [p["name"] for p in game["players"]] == [s["name"] for s in kept["result"]["standings"]]
        assert set(acknowledged) <= {g["id"] for g in listed["games"]}
    finally:
        restarted.stop()
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
