"""How long a game room's live update takes to reach the other phones, on loopback.

Starts ``critter-kitchen serve`` (with a token, a fresh database), opens a room for
``examples/four-players.yaml``'s setup, holds ``--clients`` event streams open (each a phone)
and writes one player's meals ``--writes`` times, alternating players; for each write it
takes the time from sending it until each stream has the event of its version. Prints the
median, p95 and largest delay over every (write, stream), or one JSON object with ``--json``.

    python tools/bench_room.py [--clients 4] [--writes 100] [--json]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-room-token-0123456789"
HEADERS = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def request(port: int, method: str, path: str, body: object = None) -> tuple[int, object]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=HEADERS)
    answer = connection.getresponse()
    data = json.loads(answer.read() or b"null")
    connection.close()
    return answer.status, data


def listen(port: int, code: str, seen: dict[int, float], ready: threading.Event) -> None:
    """One phone: the time each version's event arrived."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", f"/api/rooms/{code}/events", headers=HEADERS)
    stream = connection.getresponse()
    while True:
        line = stream.readline()
        if not line:
            return
        if line.startswith(b"id: "):
            seen[int(line[4:])] = time.perf_counter()
            ready.set()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--writes", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    record = yaml.safe_load((ROOT / "examples" / "four-players.yaml").read_text())
    setup = {k: v for k, v in record.items() if k not in ("challenge_meals", "critic_meals")}
    names = [p["name"] for p in record["players"]]
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "critter_kitchen", "serve", "--db", os.path.join(folder, "g.sqlite3")]
        command += ["--port", str(port), "--token", TOKEN]
        server = subprocess.Popen(command, stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    request(port, "GET", "/api/games")
                    break
                except OSError:
                    time.sleep(0.1)
            status, made = request(port, "POST", "/api/rooms", setup)
            assert status == 201 and isinstance(made, dict), made
            code = made["code"]
            phones: list[dict[int, float]] = []
            for _ in range(args.clients):
                seen: dict[int, float] = {}
                ready = threading.Event()
                threading.Thread(target=listen, args=(port, code, seen, ready), daemon=True).start()
                ready.wait(10)
                phones.append(seen)
            versions = [1] * len(names)
            delays: list[float] = []
            for i in range(args.writes):
                seat = i % len(names)
                name = names[seat]
                part = {
                    "challenge_meals": {r: by[name] for r, by in record["challenge_meals"].items() if name in by},
                    "critic_meal": record["critic_meals"].get(name) if i % 2 else None,
                }
                sent = time.perf_counter()
                body = {"version": versions[seat], "done": False, "part": part}
                status, room = request(port, "PUT", f"/api/rooms/{code}/players/{seat}", body)
                assert status == 200 and isinstance(room, dict), room
                versions[seat] = room["players"][seat]["version"]
                target = room["version"]
                deadline = time.perf_counter() + 10
                while any(target not in seen for seen in phones) and time.perf_counter() < deadline:
                    time.sleep(0.0005)
                delays += [1000 * (seen[target] - sent) for seen in phones]
        finally:
            server.terminate()
            server.wait(20)
    delays.sort()
    figures = {
        "clients": args.clients,
        "writes": args.writes,
        "live_update_median_ms": round(statistics.median(delays), 1),
        "live_update_p95_ms": round(delays[int(0.95 * (len(delays) - 1))], 1),
        "live_update_max_ms": round(delays[-1], 1),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
