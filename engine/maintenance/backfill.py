"""Vector backfill: no memory is left without a vector of the current signature.

Vector writes after a content write are best effort (`Engine._vector_upsert`): under load an
embedding can time out, a kill -9 or a replaced data dir leaves rows flagged
`needs_reindex`. This loop, started and stopped by the engine like the retention sweep,
embeds what waits in small batches until nothing does: at start (after a short delay), when
woken (a vector write failed, the store was reopened) and every `memory.backfill_interval_s`.
Each batch is its own write, so queries interleave; a failing batch backs off.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from memtap.engine.background import cancel_and_wait
from memtap.engine.fallbacks import describe_error

log = logging.getLogger("memtap.backfill")

BATCH = 64
BATCH_TIMEOUT_S = 30.0
FIRST_PASS_S = 2.0
"""Delay of the first pass after start or a wake: a burst of failed writes (a load peak)
is retried once the peak has a moment to pass, not while it is still at its height."""
MAX_BACKOFF_S = 60.0


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


Item = TypeVar("Item", bound=_HasId)


class VectorsInFlight:
    """Memories whose vector a write is computing now. A backfill that reads them as pending
    (their row says "no vector yet" until that write commits) leaves them to it: under load
    the extraction worker's write and a request's inline backfill embedded the same facts
    twice (74 of 274 fact embeddings in one c=8 run)."""

    def __init__(self) -> None:
        self._ids: set[str] = set()

    @contextlib.contextmanager
    def writing(self, items: Iterable[_HasId]) -> Iterator[None]:
        mine = {i.id for i in items} - self._ids
        self._ids |= mine
        try:
            yield
        finally:
            self._ids -= mine

    def not_being_written(self, items: Sequence[Item]) -> list[Item]:
        return [i for i in items if i.id not in self._ids]


class Backlog(Protocol):
    """What the loop needs of a vector index (`VectorIndex`)."""

    async def backfill(self, owner: str | None, max_items: int) -> int:
        """Embed and store up to `max_items` pending memories; how many were handled."""
        ...

    async def pending_count(self) -> int: ...


@dataclass(slots=True)
class BackfillStatus:
    """engine-status `vector.backfill`."""

    pending: int | None = None
    """Memories waiting for a vector at the last look (None before the first pass)."""
    done: int = 0
    """Memories embedded by the backfill since start."""
    passes: int = 0
    last_pass_at: float | None = None
    last_error: str | None = None
    failures: int = 0
    """Consecutive failed passes (0 after a good one)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "pending": self.pending,
            "done": self.done,
            "passes": self.passes,
            "last_pass_at": self.last_pass_at,
            "last_error": self.last_error,
            "failures": self.failures,
        }


class VectorBackfill:
    """The background loop over one vector index. `start`/`stop` are the engine's; `wake`
    asks for a pass soon; `run_pass` is one pass (tests call it directly)."""

    def __init__(self, index: Backlog, interval_s: Callable[[], float]) -> None:
        self.index = index
        self._interval_s = interval_s
        self.status = BackfillStatus()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.busy = asyncio.Lock()
        """Held by each pass, and by an operator's reindex (`Engine.reindex`): the two would
        otherwise share the rows marked pending, and the reindex's progress ("25 of 25")
        would not count the ones the backfill took."""

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._loop(), name="memtap-vector-backfill"
            )

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task)

    def wake(self) -> None:
        self._wake.set()

    async def run_pass(self) -> int:
        """Embed batches until nothing waits or a batch makes no progress (no embedding
        source, the embedding failing): how many were embedded. Raises what a batch raised."""
        async with self.busy:
            return await self._pass()

    async def _pass(self) -> int:
        done = 0
        while True:
            pending = await self.index.pending_count()
            self.status.pending = pending
            if pending == 0:
                break
            async with asyncio.timeout(BATCH_TIMEOUT_S):
                handled = await self.index.backfill(None, BATCH)
            if handled == 0:
                break
            done += handled
            self.status.done += handled
        self.status.passes += 1
        self.status.last_pass_at = time.time()
        return done

    async def _loop(self) -> None:
        delay = min(FIRST_PASS_S, self._interval_s())
        while True:
            await self._sleep(delay)
            try:
                done = await self.run_pass()
            except Exception as exc:  # noqa: BLE001 - retried after a backoff
                self.status.failures += 1
                self.status.last_error = describe_error(exc)
                delay = min(MAX_BACKOFF_S, 2.0**self.status.failures)
                log.warning(
                    "vector.backfill_failed",
                    extra={
                        "fields": {
                            "error": self.status.last_error,
                            "pending": self.status.pending,
                            "retry_in_s": delay,
                        }
                    },
                )
                continue
            self.status.failures = 0
            if done:
                log.info(
                    "vector.backfilled",
                    extra={"fields": {"done": done, "pending": self.status.pending}},
                )
            delay = self._interval_s()

    async def _sleep(self, seconds: float) -> None:
        """Sleep `seconds`, or until woken; a wake still waits `FIRST_PASS_S` (debounce)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(0.0, seconds)):
                await self._wake.wait()
        if self._wake.is_set():
            self._wake.clear()
            await asyncio.sleep(min(FIRST_PASS_S, self._interval_s()))
            self._wake.clear()
