"""How many retrievals run their vector legs at once (`memory.max_concurrent_retrievals`).

The vector legs (the query embedding, the facts' KNN, the episodes' vector arm) are a
retrieval's costly part. When a burst arrives together — clients in step, a queue draining,
a deploy — and every retrieval embeds at once, they share the one core and all finish late.
So at most `limit` retrievals run vector legs at once, first come first served; one that
cannot get a slot within its wait (`gate.SHED_AFTER_SHARE` of the limit) runs keyword only,
as a missed vector deadline would leave it, without the cost.

The keyword legs never queue here. They used to: a slot was held for a whole retrieval,
and under a saturated loop a retrieval's hops wait for the loop, so eight slots served ~80
retrievals a second while 500 arrived; 8,313 of 10,432 retrievals that timed out at 400
streams never got a slot (`bench_load.py`, keyword only with no slot limit: 98.9 % injected
where relevant against 26.6 % with eight slots).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator

CROWDED_PER_S = 128
"""Retrievals in progress at once, per second of `memory.retrieval_timeout_ms` (32 of 250
ms), from which a new one runs the facts' keyword leg alone. In a burst of 400 on one core
(`bench_load.py`), full retrievals that started with 32-47 others in progress missed the
limit 16 % of the time, with 64-95 others 47 %, with 96 or more 65 %; those run keyword
alone at any crowd: none."""
CROWDED_REASON = "retrievals_crowded"


class Admission:
    """One retrieval's claim on a vector slot: `wait` once, `release` when it ends."""

    def __init__(
        self, slots: RetrievalSlots, semaphore: asyncio.Semaphore | None, until: float
    ) -> None:
        self._slots = slots
        self._semaphore = semaphore
        self._until = until
        self._held = False
        self.waited_s = 0.0

    async def wait(self) -> bool:
        """True once a slot is held (at once with no limit); False when none came free
        before `until`."""
        if self._semaphore is None:
            return True
        started = time.perf_counter()
        waiting = int(self._semaphore.locked())
        self._slots.queued += waiting
        try:
            # A free slot is taken without suspending, so even a wait of 0 gets it.
            async with asyncio.timeout(max(0.0, self._until - time.monotonic())):
                await self._semaphore.acquire()
        except TimeoutError:
            return False
        finally:
            self._slots.queued -= waiting
            self.waited_s = time.perf_counter() - started
        self._held = True
        return True

    def release(self) -> None:
        if self._held and self._semaphore is not None:
            self._held = False
            self._semaphore.release()


class RetrievalSlots:
    def __init__(self) -> None:
        self._limit = 0
        self._slots: asyncio.Semaphore | None = None
        self.queued = 0
        """Retrievals waiting for a vector slot now."""
        self.running = 0
        """Retrievals running now (with no limit too: engine-status shows the load either way)."""

    @contextlib.contextmanager
    def retrieving(self) -> Iterator[None]:
        """Counts a retrieval in `running` while it runs."""
        self.running += 1
        try:
            yield
        finally:
            self.running -= 1

    def crowded(self, retrieval_timeout_ms: int) -> bool:
        """So many retrievals are in progress that a new one's vector legs and episodes'
        recall would likely end past the limit (`CROWDED_PER_S`)."""
        return self.running >= CROWDED_PER_S * retrieval_timeout_ms / 1000

    def admission(self, limit: int, until: float) -> Admission:
        """A claim on one of `limit` vector slots (0: no limit), waiting at most until
        `until` (time.monotonic()). A changed limit (hot reload) applies to the claims
        made after it."""
        if limit <= 0:
            return Admission(self, None, until)
        if limit != self._limit or self._slots is None:
            self._limit, self._slots = limit, asyncio.Semaphore(limit)
        return Admission(self, self._slots, until)

    def to_json(self, limit: int) -> dict[str, int]:
        """engine-status `retrievals`: a queue here means requests wait to run their vector
        legs (they go keyword only if none frees in time)."""
        return {"max_concurrent": limit, "running": self.running, "queued": self.queued}
