"""Engine work of the score pad's requests (scoring, checking, planning, loading packs) on
one bounded pool of worker threads, so that no request holds up the event loop that
answers everyone else.

At most :data:`~.limits.ENGINE_WORKERS` jobs run at once and :data:`~.limits.ENGINE_QUEUE`
wait; a job past that is refused at once (:class:`Busy`, answered 503 with Retry-After)
rather than queued without end. A request's answer waits :data:`~.limits.ENGINE_SECONDS`
for its job, then is 503 too: a job not yet begun is dropped, one running finishes within
the engine's own budgets (steps of effect work, meals the planner checks) and its result is
thrown away; its worker is counted busy until then. The workers are daemon threads, so a
server told to stop does not wait for a job it no longer needs.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from dataclasses import dataclass

from .limits import ENGINE_QUEUE, ENGINE_SECONDS, ENGINE_WORKERS, RETRY_SECONDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from fastapi import Request

    T = TypeVar("T")

BUSY = "the score pad is busy with other requests: try again in a few seconds"
IDLE_SECONDS = 60.0  # a worker with nothing to do for this long ends (another starts when needed)


def too_long(seconds: float) -> str:
    return f"this request needed more than {seconds:g} seconds of the server's work, and was given up"


class Busy(Exception):
    """No answer now (the pool is full, or the job took too long): the message, and when to try again."""

    def __init__(self, message: str, retry: int = RETRY_SECONDS) -> None:
        super().__init__(message)
        self.message = message
        self.retry = retry


@dataclass(slots=True, eq=False)
class _Job:
    call: Callable[..., Any]
    args: tuple[Any, ...]
    loop: asyncio.AbstractEventLoop
    future: Any
    dropped: bool = False  # its answer is no longer awaited: not begun, it is skipped


class EnginePool:
    """The pool (see the module's text); :meth:`run` does one job from a request."""

    def __init__(
        self, workers: int = ENGINE_WORKERS, waiting: int = ENGINE_QUEUE, seconds: float = ENGINE_SECONDS
    ) -> None:
        self.workers = workers
        self.waiting = waiting
        self.seconds = seconds
        self.jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.admitted = 0  # jobs queued or running
        self.threads = 0  # workers alive

    async def run(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` on a worker; Busy if the pool is full or the answer takes too long."""
        loop = asyncio.get_running_loop()
        job = _Job(call, args, loop, loop.create_future())
        with self.lock:
            if self.admitted >= self.workers + self.waiting:
                raise Busy(BUSY)
            self.admitted += 1
            self.jobs.put(job)  # under the lock: a worker that finds the queue empty ends only then
            if self.threads < min(self.workers, self.admitted):
                self.threads += 1
                threading.Thread(target=self._work, name="critter-kitchen-engine", daemon=True).start()
        try:
            result: T = await asyncio.wait_for(job.future, self.seconds)
        except TimeoutError:
            job.dropped = True
            raise Busy(too_long(self.seconds)) from None
        except asyncio.CancelledError:  # the client went away
            job.dropped = True
            raise
        return result

    def busy(self) -> int:
        """Jobs queued or running now."""
        with self.lock:
            return self.admitted

    def _work(self) -> None:
        while True:
            try:
                job = self.jobs.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self.lock:
                    if self.jobs.empty():
                        self.threads -= 1
                        return
                continue
            try:
                if not job.dropped:
                    _settle_from(job)
            finally:
                with self.lock:
                    self.admitted -= 1


def _settle_from(job: _Job) -> None:
    """Run the job and hand its result (or its exception) to the request that waits for it."""
    try:
        outcome: tuple[bool, Any] = (True, job.call(*job.args))
    except BaseException as e:  # every failure is the request's to answer
        outcome = (False, e)
    try:
        job.loop.call_soon_threadsafe(_settle, job.future, outcome)
    except RuntimeError:  # the event loop is closed: the server has stopped
        pass


def _settle(future: asyncio.Future[Any], outcome: tuple[bool, Any]) -> None:
    if future.done():  # given up meanwhile
        return
    ok, value = outcome
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


async def engine(request: Request, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` on the application's engine pool (``app.state.engine``)."""
    pool: EnginePool = request.app.state.engine
    return await pool.run(call, *args)
