"""How many retrievals run at once (`memory.max_concurrent_retrievals`).

A retrieval is a handful of hops (reader threads, the event loop, the query embedding). When a
burst of requests arrives together — clients in step, a queue draining, a deploy — and every
one of them runs at once, they share the one core between them and all finish late: past
`retrieval_timeout_ms` every request goes upstream without memory, after the whole wait.
Admitting a few at a time, first come first served, lets the first ones finish inside the
limit and the later ones start on a quieter core; a request still queued when its limit runs
out goes on without memory, as it would have anyway (measured with `scripts/bench_load.py`:
a burst of 400 keyword retrievals on one core, median 23 % -> 31 % of them in time; see
docs/performance.md).

The time spent queued comes out of the request's limit (`RetrievalClock`), so the vector leg
of a request admitted late gets what is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator


class RetrievalSlots:
    def __init__(self) -> None:
        self._limit = 0
        self._slots: asyncio.Semaphore | None = None
        self.queued = 0
        """Retrievals waiting for a slot now."""
        self.running = 0
        """Retrievals running now (with no limit too: engine-status shows the load either way)."""

    @contextlib.asynccontextmanager
    async def slot(self, limit: int) -> AsyncIterator[float]:
        """Run the body once one of `limit` slots is free (0: at once); yields how long it
        waited for it, in seconds. A changed limit (hot reload) takes effect for the
        retrievals that arrive after it."""
        slots: asyncio.Semaphore | None = None
        started = time.perf_counter()
        if limit > 0:
            if limit != self._limit or self._slots is None:
                self._limit, self._slots = limit, asyncio.Semaphore(limit)
            slots = self._slots
            waiting = int(slots.locked())
            self.queued += waiting
            try:
                await slots.acquire()
            finally:
                self.queued -= waiting
        self.running += 1
        try:
            yield time.perf_counter() - started
        finally:
            self.running -= 1
            if slots is not None:
                slots.release()

    def to_json(self, limit: int) -> dict[str, int]:
        """engine-status `retrievals`: a queue here means requests are waiting for memory."""
        return {"max_concurrent": limit, "running": self.running, "queued": self.queued}
