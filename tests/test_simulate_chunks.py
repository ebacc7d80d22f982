"""The balance lab's chunks: sized from a few games' CPU time, shrinking toward each look and the
end when workers share them, fixed by numbers only, and changing no byte of the report."""

from __future__ import annotations

import json
import time
import types
from pathlib import Path

from critter_kitchen.api import packs_for
from critter_kitchen.simulate import run as lab_run
from critter_kitchen.simulate.precision import looks
from critter_kitchen.simulate.report import build
from critter_kitchen.simulate.run import MAX_CHUNK_GAMES, SIZING_GAMES, TAIL_SHARE, Spec, run

LAB = str(Path(__file__).resolve().parent / "packs" / "lab")
FOLDERS = (*packs_for({}, [LAB]),)


def cut(spec: Spec) -> list[tuple[int, int]]:
    return [spec.bounds(c) for c in range(spec.chunks)]


def test_with_two_workers_the_last_chunks_shrink_to_one_game():
    spec = Spec(FOLDERS, 100, 3, 1, chunk_games=10, first=4, workers=2)
    bounds = cut(spec)
    assert bounds[0] == (4, 14) and bounds[-1] == (99, 100)
    assert all(a == b for (_, a), (b, _) in zip(bounds, bounds[1:], strict=False))  # every game once
    # 96 games, at most a quarter of those left a chunk: 10 while more than 36 are left, then shrinking
    assert [b - a for a, b in bounds] == [10] * 6 + [9, 7, 5, 4, 3, 2, 2, 1, 1, 1, 1]


def test_each_chunk_holds_at_most_its_share_of_the_games_left():
    spec = Spec(FOLDERS, 5000, 4, 1, chunk_games=30, first=4, workers=3, looks=looks(5000))
    bounds = cut(spec)
    stops = [n for n in spec.looks if n > spec.first]
    for start, stop in bounds:
        next_stop = min(n for n in stops if n >= stop)  # no chunk crosses a look
        assert 1 <= stop - start <= min(30, -(-(next_stop - start) // (TAIL_SHARE * 3)))
    assert [b for _, b in bounds if b in spec.looks] == list(spec.looks)  # each look ends a chunk
    assert sum(b - a for a, b in bounds) == 4996


def test_one_worker_keeps_chunks_of_the_same_size():
    spec = Spec(FOLDERS, 100, 3, 1, chunk_games=10, first=4)
    assert [b - a for a, b in cut(spec)] == [10] * 9 + [6]


def test_the_cut_is_the_same_for_the_same_numbers():
    args = (FOLDERS, 3000, 4, 1)
    one = cut(Spec(*args, chunk_games=25, first=4, workers=2, looks=looks(3000)))
    assert one == cut(Spec(*args, chunk_games=25, first=4, workers=2, looks=looks(3000)))
    assert one != cut(Spec(*args, chunk_games=25, first=4, workers=4, looks=looks(3000)))


def test_a_run_of_millions_is_cut_at_once():
    started = time.perf_counter()
    spec = Spec(FOLDERS, 100_000_000, 4, 1, chunk_games=1, first=4, workers=64)
    last = spec.bounds(spec.chunks - 1)
    assert last == (99_999_999, 100_000_000)
    assert spec.bounds(0) == (4, 5) and spec.bounds(spec.chunks) == (100_000_000, 100_000_000)
    assert time.perf_counter() - started < 1.0


def test_chunks_are_sized_from_the_cpu_time_of_the_games_after_the_first(monkeypatch):
    played = []
    plain = lab_run.play_chunk

    def timed(spec, chunk):
        played.append(spec.bounds(chunk))
        return plain(spec, chunk)

    clock = iter([0.0, 5.0] + [x for i in range(1, SIZING_GAMES) for x in (10.0 * i, 10.0 * i + 0.25)])
    monkeypatch.setattr(lab_run, "play_chunk", timed)
    monkeypatch.setattr(lab_run, "time", types.SimpleNamespace(thread_time=lambda: next(clock)))
    run(Spec(FOLDERS, 20, 3, 2))
    alone = [(i, i + 1) for i in range(SIZING_GAMES)]
    assert played[:SIZING_GAMES] == alone  # the first games, one at a time
    size = min(MAX_CHUNK_GAMES, int(lab_run.CHUNK_SECONDS / 0.25))  # the first game's 5 s left out
    assert played[SIZING_GAMES] == (SIZING_GAMES, SIZING_GAMES + size)
    assert played[-1][1] == 20


def test_shrinking_chunks_on_two_workers_give_the_one_worker_bytes_and_records():
    reports, kept = set(), []
    rs = lab_run.ruleset_of(FOLDERS)
    for workers, chunk_games in ((1, 0), (1, 40), (2, 6), (2, 0)):
        records: list[dict] = []
        spec = Spec(FOLDERS, 40, 3, 6, chunk_games=chunk_games, records=True)
        summary = run(spec, workers=workers, on_records=records.extend)
        reports.add(json.dumps(build(summary, rs, players=3, seed=6, effort="fast", studies=())))
        kept.append([json.dumps(r, sort_keys=True) for r in records])
    assert len(reports) == 1
    assert len(kept[0]) == 40 and all(k == kept[0] for k in kept)  # the records in game order


def test_runs_shorter_than_the_sizing_games():
    assert run(Spec(FOLDERS, 0, 3, 1)).games == 0
    assert run(Spec(FOLDERS, 2, 3, 1), workers=2).games == 2
