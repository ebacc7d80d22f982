"""The score pad's figures: start time, a stateless score request, concurrent saves, and
how quickly one client is answered while another's request keeps the engine busy.

    python tools/bench_serve.py [--requests 400] [--starts 5] [--clients 20] [--games 5]
                                [--only start,score,saves,busy,rulesets,connections] [--plan-items 16]
                                [--plan-spices 12] [--pack-lists 100] [--idle 1100]

- **start**: ``critter-kitchen serve --port 0`` until it prints its address (it listens
  then), and until its first answer; the median of ``--starts`` runs (goal: under 2 s).
- **score**: ``POST /api/score`` of the golden 5-player record on 127.0.0.1, one worker,
  one keep-alive connection, one request at a time: median, p95 and p99 (goal: p95 at
  most 20 ms); beside it the same record scored in this process by ``score_record`` (the
  engine alone) and by the server's own path (JSON text read by the engine's reader,
  scored, written), so the ratio tells what HTTP and the framework add.
- **saves**: ``--clients`` clients saving ``--games`` games each at once: how many were
  acknowledged, failed and then found kept (goal: none lost, none failed), and the rate.
- **busy**: one client asks ``POST /ui/plan`` for a pantry that took the planner seconds
  before its spices were bounded (``--plan-items`` ingredients and ``--plan-spices``
  spices, a challenge round), then for one that takes it seconds still (a table whose
  restaurateur works hard in every stage run: the plan ends at its work budget); meanwhile
  a second client sends ``GET /api/games`` every 100 ms: how long each took (goal: well
  under a second), and how the plan request ended.
- **rulesets**: ``--pack-lists`` requests ``POST /ui/check`` of one record naming the base
  pack 1, 2, 3... times over: the server's resident memory (``VmRSS``) before and after, and
  the time they took (the ruleset cache must not grow with such lists).
- **connections**: a connection that sends part of its headers and then nothing: how long
  until the server closes it; then ``--idle`` connections that send nothing, and how long a
  real ``GET /api/games`` takes beside them. Run it as ``ulimit -Sn 1024; python
  tools/bench_serve.py --only connections`` to give the server 1,024 files (this script
  raises its own limit once the server has started).

The machine is shared and noisy: compare figures within one run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_serve_durability import Server, record_for  # noqa: E402
from test_serve_limits import BUSY, busy_pantry, spice_pantry  # noqa: E402

RECORD = ROOT / "tests" / "golden" / "five-players.yaml"


def percentile(times: list[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def figures(times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    median, p95, p99 = statistics.median(ms), percentile(ms, 0.95), percentile(ms, 0.99)
    return f"median {median:6.2f} ms  p95 {p95:6.2f} ms  p99 {p99:6.2f} ms"


def bench_start(starts: int) -> None:
    listening, answering = [], []
    for _ in range(starts):
        with tempfile.TemporaryDirectory() as folder:
            began = time.perf_counter()
            server = Server(Path(folder) / "games.sqlite3")
            listening.append(time.perf_counter() - began)
            server.request("GET", "/api/games")
            answering.append(time.perf_counter() - began)
            server.stop()
    print(
        f"start: listening after {statistics.median(listening):.2f} s, first answer after "
        f"{statistics.median(answering):.2f} s (median of {starts}; goal: under 2 s)"
    )


def timed(call: Any, count: int) -> list[float]:
    times = []
    for _ in range(count):
        began = time.perf_counter()
        call()
        times.append(time.perf_counter() - began)
    return times


def bench_score(requests: int) -> None:
    from critter_kitchen import load_ruleset, score_record
    from critter_kitchen.web.scoring import Rulesets, score_body

    record = yaml.safe_load(RECORD.read_text(encoding="utf-8"))
    body = json.dumps(record).encode()
    ruleset = load_ruleset()
    rulesets = Rulesets()
    engine = timed(lambda: score_record(record, ruleset), requests)
    server_path = timed(lambda: score_body(rulesets, body), requests)
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "games.sqlite3")
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)

        def post() -> None:
            connection.request("POST", "/api/score", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            assert response.status == 200, response.status

        timed(post, 20)  # warm: the first requests load what the rest reuse
        http_times = timed(post, requests)
        connection.close()
        server.stop()
    base = percentile(engine, 0.95)
    print(f"score, 5 players, {requests} requests:")
    print(f"  score_record in process   {figures(engine)}")
    print(f"  the server's path, no HTTP {figures(server_path)}  (p95 x{percentile(server_path, 0.95) / base:.1f})")
    print(
        f"  POST /api/score, loopback {figures(http_times)}  (p95 x{percentile(http_times, 0.95) / base:.1f}; "
        "goal: p95 <= 20 ms)"
    )


def bench_saves(clients: int, games: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "games.sqlite3")
        acknowledged: list[int] = []
        failed: list[str] = []
        lock = threading.Lock()
        barrier = threading.Barrier(clients)

        def client(number: int) -> None:
            barrier.wait()
            for game in range(games):
                try:
                    status, answer = server.request("POST", "/api/games", record_for(number, game))
                except OSError as e:
                    status, answer = 0, str(e)
                with lock:
                    (acknowledged.append(answer["id"]) if status == 201 else failed.append(f"{status} {answer}"))

        threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
        began = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.perf_counter() - began
        kept = {g["id"] for g in server.request("GET", "/api/games?limit=1000")[1]["games"]}
        server.stop()
    lost = len(set(acknowledged) - kept)
    print(
        f"saves: {clients} clients x {games} games: {len(acknowledged)} acknowledged, {len(failed)} failed, "
        f"{lost} lost; {len(acknowledged) / took:.0f} saves/s"
    )


def resident_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def bench_rulesets(lists: int) -> None:
    record = yaml.safe_load((ROOT / "tests" / "golden" / "two-players.yaml").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "games.sqlite3")
        server.request("POST", "/ui/check", record)  # the base pack's ruleset, loaded once
        before = resident_kib(server.process.pid)
        began = time.perf_counter()
        statuses: dict[int, int] = {}
        for n in range(1, lists + 1):
            status, _ = server.request("POST", "/ui/check", {**record, "packs": ["base"] * n})
            statuses[status] = statuses.get(status, 0) + 1
        took = time.perf_counter() - began
        after = resident_kib(server.process.pid)
        server.stop()
    print(
        f"rulesets: {lists} /ui/check naming the base pack 1 to {lists} times ({statuses}): {took:.1f} s, "
        f"server memory {before / 1024:.0f} MiB before, {after / 1024:.0f} MiB after "
        f"(+{(after - before) / 1024:.0f} MiB)"
    )


def bench_connections(idle_count: int) -> None:
    import resource
    import socket

    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "games.sqlite3")
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))  # this client's, not the server's
        with socket.create_connection(("127.0.0.1", server.port)) as partial:
            partial.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            partial.settimeout(15)
            began = time.perf_counter()
            try:
                shown = "closed" if partial.recv(100) == b"" else "answered"
            except TimeoutError:
                shown = "still open"
            print(f"connections: unfinished headers {shown} after {time.perf_counter() - began:.1f} s")
        idle = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(idle_count)]
        time.sleep(1)
        began = time.perf_counter()
        try:
            answer = str(server.request("GET", "/api/games")[0])
        except OSError as e:
            answer = f"no answer ({e})"
        print(f"  with {len(idle)} idle connections: GET /api/games {answer} after {time.perf_counter() - began:.2f} s")
        for sock in idle:
            sock.close()
        server.stop()


def bench_busy(items: int, spices: int) -> None:
    shown = f"{items} ingredients, {spices + spices // 3} spices"
    bench_busy_with(shown, spice_pantry(items, spices))
    bench_busy_with("the busy restaurateur's table", busy_pantry(), "--pack", str(BUSY))


def bench_busy_with(shown_pantry: str, pantry: dict[str, Any], *options: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "games.sqlite3", *options)
        server.request("GET", "/api/games")  # warm
        ended: list[str] = []

        def plan() -> None:
            began = time.perf_counter()
            try:
                status, answer = server.request("POST", "/ui/plan", pantry)
                how = f"{status}" + ("" if status == 200 else f" {answer}")
            except OSError as e:
                how = f"no answer ({e})"
            ended.append(f"{how} after {time.perf_counter() - began:.2f} s")

        planner = threading.Thread(target=plan)
        planner.start()
        time.sleep(0.3)  # the plan has begun
        waits: list[float] = []
        while planner.is_alive() and len(waits) < 600:
            began = time.perf_counter()
            status, _ = server.request("GET", "/api/games")
            waits.append(time.perf_counter() - began)
            assert status == 200, status
            time.sleep(0.1)
        planner.join()
        server.stop()
    shown = figures(waits) + f"  max {max(waits) * 1000:7.2f} ms" if waits else "none sent: the plan ended first"
    print(f"busy: POST /ui/plan ({shown_pantry}) answered {ended[0]}")
    print(f"  GET /api/games meanwhile, {len(waits)} requests: {shown}  (goal: well under a second)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument(
        "--only", default="start,score,saves,busy,rulesets,connections", help="the figures to measure, comma-separated"
    )
    parser.add_argument("--plan-items", type=int, default=16)
    parser.add_argument("--plan-spices", type=int, default=12)
    parser.add_argument("--pack-lists", type=int, default=100)
    parser.add_argument("--idle", type=int, default=1100)
    args = parser.parse_args()
    only = set(args.only.split(","))
    os.chdir(ROOT)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    if "start" in only:
        bench_start(args.starts)
    if "score" in only:
        bench_score(args.requests)
    if "saves" in only:
        bench_saves(args.clients, args.games)
    if "busy" in only:
        bench_busy(args.plan_items, args.plan_spices)
    if "rulesets" in only:
        bench_rulesets(args.pack_lists)
    if "connections" in only:
        bench_connections(args.idle)


if __name__ == "__main__":
    main()
