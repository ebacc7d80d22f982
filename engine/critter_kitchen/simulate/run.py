"""A run of simulated games cut into chunks, on one process, a local pool, or a Dask cluster.

Game ``i`` of a run depends only on the run's seed and ``i`` (see game.game_rng), and a
chunk's summary holds only integers, so the merged summary, and the report's bytes, are the
same whatever the chunk order, the number of workers or the backend.
"""

from __future__ import annotations

import functools
import os
import statistics
import time

from ..errors import CritterError, shown
from .stats import Summary, win_moved, win_shares

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Generator, Iterator
    from typing import Any

    from ..loading.resolve import Resolver
    from ..model.ruleset import Ruleset
    from .game import Setup
    from .precision import Stopping

CHUNK_SECONDS = 1.0  # CPU time per chunk: the scheduler's cost per task (milliseconds) vanishes beside it
MAX_CHUNK_GAMES = 1024
SIZING_GAMES = 4  # games played alone before the chunks are sized: the first warms up, the others are timed
# With W workers, a chunk holds at most 1/(TAIL_SHARE x W) of the games left before the next look
# or the end: the last chunks shrink toward one game, so no worker is left playing long after the others
TAIL_SHARE = 2
MAX_WORKERS_DEFAULT = 64  # the default (every core) is capped: a huge machine gets a pool of this size
WINDOW = 4  # chunks waiting per worker: enough to keep workers busy, few enough to keep memory flat
# How long ``--dask ADDRESS`` waits for the scheduler to connect and answer before the run
# gives up: a scheduler on a busy network answers in well under a second; an address where
# nothing listens, or something that never speaks Dask, must not hold the run.
DASK_CONNECT_SECONDS = 10.0


class Spec:
    """What a worker needs to play a chunk: plain values only, so it pickles anywhere."""

    def __init__(
        self,
        folders: tuple[str, ...],
        games: int,
        players: int,
        seed: int,
        *,
        effort: str = "fast",
        card_counts: tuple[tuple[str, int], ...] = (),
        studies: tuple[str, ...] = (),
        records: bool = False,
        chunk_games: int = 0,
        first: int = 0,
        looks: tuple[int, ...] = (),
        workers: int = 1,
    ) -> None:
        self.folders = folders
        self.games = games
        self.players = players
        self.seed = seed
        self.effort = effort
        self.card_counts = card_counts
        self.studies = studies
        self.records = records
        self.chunk_games = chunk_games  # 0: sized from the time of the first games (see run)
        self.first = first  # games before this one are played apart
        # game counts at which the run may stop (--precision): no chunk holds games on both sides of one
        self.looks = looks
        self.workers = workers  # the workers sharing the chunks (set by run): more than one shrinks the last ones

    @property
    def chunks(self) -> int:
        return sum(full + len(tail) for full, tail in (self._cut(a, b) for a, b in self._segments()))

    def bounds(self, chunk: int) -> tuple[int, int]:
        """The games of chunk ``chunk``: from the first, and to the one before the second.

        Each stretch of games between looks is cut into chunks of ``chunk_games`` games; with
        more than one worker, a chunk holds at most 1/(TAIL_SHARE x workers) of the games left
        in the stretch, so its last chunks shrink toward one game (guided self-scheduling).
        The cut depends on these numbers only, never on timing."""
        size = max(1, self.chunk_games)
        for start, stop in self._segments():
            full, tail = self._cut(start, stop)
            if chunk < full:
                return start + chunk * size, start + (chunk + 1) * size
            if chunk < full + len(tail):
                first = start + full * size + sum(tail[: chunk - full])
                return first, first + tail[chunk - full]
            chunk -= full + len(tail)
        return self.games, self.games

    def _cut(self, start: int, stop: int) -> tuple[int, tuple[int, ...]]:
        """The chunks of the stretch from ``start`` to ``stop``: how many of ``chunk_games`` games
        lead, and the sizes of the shrinking ones after them."""
        share = TAIL_SHARE * self.workers if self.workers > 1 else 0
        return _cut(stop - start, max(1, self.chunk_games), share)

    def _segments(self) -> list[tuple[int, int]]:
        """The games after the first, cut at the looks."""
        cuts = [n for n in self.looks if self.first < n < self.games]
        edges = [self.first, *cuts, self.games]
        return [(a, b) for a, b in zip(edges, edges[1:], strict=False) if a < b]

    def sized(self, chunk_games: int, first: int, workers: int | None = None) -> Spec:
        return Spec(
            self.folders,
            self.games,
            self.players,
            self.seed,
            effort=self.effort,
            card_counts=self.card_counts,
            studies=self.studies,
            records=self.records,
            chunk_games=chunk_games,
            first=first,
            looks=self.looks,
            workers=self.workers if workers is None else workers,
        )


@functools.lru_cache(maxsize=64)
def _cut(length: int, size: int, share: int) -> tuple[int, tuple[int, ...]]:
    """A stretch of ``length`` games in chunks of at most ``size`` games, each (with ``share``)
    at most 1/share of the games left: how many chunks of ``size`` games lead (counted, so a
    stretch of millions costs nothing), and the sizes of the chunks after them, shrinking.

    While more than share x (size - 1) games are left, 1/share of them is ``size`` or more, so
    the leading chunks are worked out at once; the shrinking tail is a few dozen chunks."""
    full = length // size if share == 0 else max(0, -(-(length - share * (size - 1)) // size))
    left = length - full * size
    tail = []
    while left > 0:
        games = min(size, left if share == 0 else -(-left // share))
        tail.append(games)
        left -= games
    return full, tuple(tail)


RULESETS_PER_PROCESS = 4  # a worker keeps the rulesets of this many lists of pack folders


def ruleset_of(folders: tuple[str, ...]) -> Ruleset:
    """The ruleset of these pack folders, loaded once per process (of the last few lists)."""
    return _resolver().load(folders)


@functools.cache
def _resolver() -> Resolver:
    from ..loading.resolve import Resolver

    return Resolver(kept=RULESETS_PER_PROCESS)


@functools.lru_cache(maxsize=4)
def _setup(spec_key: tuple[Any, ...]) -> Setup:
    from .deal import DealModel
    from .game import Setup

    folders, players, seed, effort, card_counts = spec_key
    rs = ruleset_of(folders)
    return Setup(
        DealModel(rs),
        players,
        seed,
        effort=effort,
        card_counts=dict(card_counts),
        pack_ids=tuple(p.id for p in rs.packs[1:]),
    )


def setup_of(spec: Spec) -> Setup:
    return _setup((spec.folders, spec.players, spec.seed, spec.effort, spec.card_counts))


def play_chunk(spec: Spec, chunk: int) -> tuple[int, Summary, list[dict[str, Any]]]:
    """Play and score chunk ``chunk`` of the run: its summary, and its records when asked."""
    from .game import play

    setup = setup_of(spec)
    rs = setup.model.ruleset
    summary = Summary()
    records: list[dict[str, Any]] = []
    for index in range(*spec.bounds(chunk)):
        record = play(setup, index)
        tally_game(rs, summary, record)
        if spec.records:
            records.append(record)
        for card_id in spec.studies:
            card = rs.cards[card_id]
            with_card = total_stars(rs, play(setup, index, card, forced=True))
            without = total_stars(rs, play(setup, index, card, forced=False))
            summary.add_study(card_id, with_card, without)
    return chunk, summary, records


def total_stars(rs: Ruleset, record: dict[str, Any]) -> int:
    from ..loading.records import read_record
    from ..stages.runner import score_game

    result = score_game(read_record(rs, record, "<simulated>"))
    return sum(p.stars for p in result.game.players)


def tally_game(rs: Ruleset, summary: Summary, record: dict[str, Any]) -> None:
    """Score the game, then again without each card in play, and count what each card did."""
    from ..loading.records import read_record
    from ..stages.credit import credited
    from ..stages.runner import score_game
    from .paired import rescored_without

    result = score_game(read_record(rs, record, "<simulated>"))
    summary.add_game(result, [s.name for s in rs.stages])
    game = result.game
    shares = win_shares(result)
    total = sum(p.stars for p in game.players)
    seen: set[str] = set()
    for card, _ in game.cards_in_play():
        if card.kind == rs.rules_kind or card.id in seen:
            continue
        seen.add(card.id)
        again = rescored_without(rs, record, game, card.id)
        change = total - sum(p.stars for p in again.game.players)
        stars = credited(rs, result, again, card.id)[1]  # a challenge card: what its meals earned
        owners = [(p.index, shares.get(p.index, 0)) for p in game.players if card in p.owned]
        summary.add_card(card.id, stars, change, win_moved(shares, win_shares(again)), owners)


def run(
    spec: Spec,
    workers: int = 1,
    dask: str | None = None,
    progress: Callable[[int], None] | None = None,
    on_records: Callable[[list[dict[str, Any]]], None] | None = None,
    stopping: Stopping | None = None,
) -> Summary:
    """Every chunk of the run, merged in chunk order; ``progress`` hears the games done,
    ``on_records`` gets each chunk's records in game order.

    Unless the spec fixes the chunk size, the first ``SIZING_GAMES`` games are played here, one
    at a time, and the CPU time of all but the first (which pays for loading and first calls)
    sizes the chunks of the others to about ``CHUNK_SECONDS`` each; with more than one worker
    (the pool's, or the Dask scheduler's at the start), the chunks shrink toward each look and
    the end (see Spec.bounds), so the workers finish together. Which games a chunk holds never
    changes what a game is, so the sizes change no figure.

    With ``stopping`` (``--precision``), the run is looked at when the games merged in order
    reach one of the spec's looks, and ends there once ``stopping.enough``: the chunks played
    ahead are dropped, so the summary holds the games before that look, whoever played them."""
    client = connect(dask) if dask is not None else None  # before the first game: a bad address costs none
    try:
        return _run(spec, workers, client, progress, on_records, stopping)
    finally:
        if client is not None:
            client.close()


def _run(
    spec: Spec,
    workers: int,
    client: Any,
    progress: Callable[[int], None] | None,
    on_records: Callable[[list[dict[str, Any]]], None] | None,
    stopping: Stopping | None,
) -> Summary:
    total = Summary()
    pending: dict[int, tuple[Summary, list[dict[str, Any]]]] = {}
    next_chunk = 0
    done = 0

    def take(summary: Summary, records: list[dict[str, Any]]) -> bool:
        """A chunk's games counted in, in order; True when the run may stop after them."""
        nonlocal done
        total.merge(summary)
        done += summary.games
        if on_records is not None:
            on_records(records)
        if progress is not None:
            progress(done)
        return stopping is not None and done in spec.looks and stopping.enough(total)

    sharing = max(1, len(client.scheduler_info().get("workers", {}))) if client is not None else max(1, workers)
    if spec.chunk_games == 0:
        timed = []
        while done < min(SIZING_GAMES, spec.games):
            started = time.thread_time()  # this thread's CPU: what a game needs, however loaded the machine
            _, summary, records = play_chunk(spec.sized(1, done, 1), 0)
            timed.append(time.thread_time() - started)
            if take(summary, records):
                return total
        each = statistics.fmean(timed[1:] or timed or [CHUNK_SECONDS])  # the first game pays for first calls
        spec = spec.sized(max(1, min(MAX_CHUNK_GAMES, int(CHUNK_SECONDS / max(each, 1e-6)))), done, sharing)
    else:
        spec = spec.sized(spec.chunk_games, spec.first, sharing)
    results = _results(spec, workers, client)
    try:
        for chunk, summary, records in results:
            pending[chunk] = (summary, records)
            while next_chunk in pending:
                summary, records = pending.pop(next_chunk)
                next_chunk += 1
                if take(summary, records):
                    return total
    finally:
        results.close()  # a pool's workers stop, a cluster's futures are let go
    return total


def _results(spec: Spec, workers: int, client: Any) -> Generator[tuple[int, Summary, list[dict[str, Any]]]]:
    chunks = range(spec.chunks)
    if client is not None:
        yield from _dask_results(spec, client)
    elif workers <= 1 or spec.chunks <= 1:
        for chunk in chunks:
            yield play_chunk(spec, chunk)
    else:
        yield from _pool_results(spec, min(workers, spec.chunks))


def _pool_results(spec: Spec, workers: int) -> Iterator[tuple[int, Summary, list[dict[str, Any]]]]:
    """The chunks on a local process pool, a few waiting per worker (never every chunk at once,
    so ten million games queue no more than a short window)."""
    import collections

    with pool_context().Pool(workers) as pool:
        chunks = iter(range(spec.chunks))
        pending = collections.deque(pool.apply_async(play_chunk, (spec, c)) for c in _take(chunks, workers * WINDOW))
        while pending:
            result = pending.popleft().get()
            pending.extend(pool.apply_async(play_chunk, (spec, c)) for c in _take(chunks, 1))
            yield result


def pool_context() -> Any:
    """How the local workers are started: each a new process of this environment's python, so
    it runs the build installed here (compiled or pure: see build.py)."""
    import multiprocessing

    return multiprocessing.get_context("spawn" if os.name == "nt" else "forkserver")


def connect(address: str) -> Any:
    """A Dask client of the scheduler at ``address``; CritterError, one line, if none answers
    within DASK_CONNECT_SECONDS.

    Dask's own connect timeout ends at the TCP connection: a listener that accepts and then
    says nothing would hold its handshake forever. So the handshake is first tried alone,
    bounded as a whole, and the client made only once a scheduler has answered."""
    import asyncio

    from distributed import Client
    from distributed.comm.core import connect as comm_connect

    seconds = DASK_CONNECT_SECONDS

    async def handshake() -> None:
        comm = await asyncio.wait_for(comm_connect(address, timeout=seconds), seconds)  # type: ignore[no-untyped-call]
        await comm.close()

    try:
        asyncio.run(handshake())
        return Client(address, timeout=seconds)  # type: ignore[no-untyped-call]
    except OSError:  # TimeoutError is one
        raise CritterError(f"--dask {shown(address)}: no Dask scheduler answered within {seconds:g} s") from None
    except (ValueError, TypeError) as e:  # Dask's own words for an address it cannot read
        raise CritterError(f"--dask {shown(address)}: not a Dask scheduler address: {e}") from None


def _dask_results(spec: Spec, client: Any) -> Iterator[tuple[int, Summary, list[dict[str, Any]]]]:
    from distributed import as_completed

    try:
        chunks = iter(range(spec.chunks))
        first = [client.submit(play_chunk, spec, c, pure=False) for c in _take(chunks, spec.workers * WINDOW)]
        queue = as_completed(first)  # type: ignore[no-untyped-call]
        for future in queue:
            result = future.result()
            future.release()
            for c in _take(chunks, 1):
                queue.add(client.submit(play_chunk, spec, c, pure=False))  # type: ignore[no-untyped-call]
            yield result
    except OSError as e:  # the scheduler went away (Dask's closed connections are OSErrors)
        raise CritterError(f"--dask: the Dask scheduler stopped answering: {e}") from None


def _take(items: Iterator[int], n: int) -> list[int]:
    out = []
    for _ in range(n):
        try:
            out.append(next(items))
        except StopIteration:
            break
    return out


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
