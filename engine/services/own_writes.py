"""Read-your-own-writes on the retrieval path: a retrieval first waits, bounded, for the
turns its owner completed before it arrived (`engine/retrieval/admission/pending.py` keeps
which)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from memtap.engine.metrics import Metrics
from memtap.engine.retrieval.admission.pending import PendingTurns
from memtap.engine.retrieval.deadline import RetrievalClock

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

log = logging.getLogger("memtap.engine")

READ_YOUR_WRITES_MAX_S = 0.2
"""The longest a retrieval waits for its owner's just-completed turns to be applied."""


class Applier(Protocol):
    """What applies the pending turns (the outbox worker)."""

    @property
    def running(self) -> bool: ...

    def hurry(self) -> None:
        """A retrieval waits for rows: apply them now instead of gathering a batch."""
        ...


class OwnWrites:
    def __init__(
        self,
        pending: PendingTurns,
        applier: Applier,
        holder: ConfigHolder,
        metrics: Metrics,
    ) -> None:
        self.pending = pending
        self.applier = applier
        self.holder = holder
        self.metrics = metrics

    def _left_s(self, clock: RetrievalClock) -> float:
        """What is left, since `clock` started, of the time a retrieval may wait for its
        owner's turns: at most half the retrieval budget, and at most
        READ_YOUR_WRITES_MAX_S."""
        budget_s = min(
            READ_YOUR_WRITES_MAX_S,
            self.holder.current.memory.retrieval_timeout_ms / 2000,
        )
        return max(0.0, budget_s - clock.elapsed_s())

    async def turns_whole(self, owner: str, clock: RetrievalClock) -> None:
        """The episodes' recall waits, like the vector leg, until the owner's pending turns
        are stored whole (episodes and vectors), within the same bound. Not counted nor
        logged: the vector leg's own wait for the same rows is."""
        if not self.pending.pending(owner):
            return
        left_s = self._left_s(clock)
        if self.pending.expected_wait_s(owner, vectors=True) > left_s:
            return  # the worker is that far behind: the recall reads what is stored
        await self.pending.wait_for(owner, left_s, vectors=True)

    async def applied(
        self, owner: str, clock: RetrievalClock, *, vectors: bool, wait: bool = True
    ) -> bool:
        """Turns of this owner that completed before the request arrived take effect first
        (`vectors`: their vectors too; bounded: at most half the retrieval budget since
        `clock` started; after that retrieval goes on with what is stored). Owners with
        nothing pending do not wait at all; nor does anyone with `wait` False (memtap
        saturated). False when the wait timed out or did not happen."""
        if not self.pending.pending(owner) or not self.applier.running:
            return True
        if not wait:
            # Not even a wait of 0: under a lagging loop it still costs two iterations.
            self._still_pending(owner, time.perf_counter())
            return False
        self.applier.hurry()
        started = time.perf_counter()
        left_s = self._left_s(clock)
        behind_s = self.pending.expected_wait_s(owner, vectors=vectors)
        if behind_s > left_s:
            # The worker is that far behind: waiting would only cost this request its
            # time before it retrieves what is stored anyway.
            self._still_pending(owner, started, behind_s)
            return False
        try:
            applied = await self.pending.wait_for(owner, left_s, vectors=vectors)
        except asyncio.CancelledError:
            # Cut short: by the vector leg's deadline (a busy loop can fire both timers
            # at once; retrieval goes on without these writes) or with the request.
            self._still_pending(owner, started)
            raise
        if not applied:
            self._still_pending(owner, started)
        else:
            waited_ms = round((time.perf_counter() - started) * 1000, 3)
            log.debug(
                "memory.own_writes_applied",
                extra={"fields": {"owner": owner, "waited_ms": waited_ms}},
            )
        return applied

    def _still_pending(
        self, owner: str, started: float, behind_s: float | None = None
    ) -> None:
        self.metrics.memory_fallbacks.inc("own_writes_pending")
        fields: dict[str, Any] = {
            "owner": owner,
            "waited_ms": round((time.perf_counter() - started) * 1000, 3),
        }
        if behind_s is not None:
            fields["behind_ms"] = round(behind_s * 1000, 1)  # why it did not wait
        log.warning("memory.own_writes_pending", extra={"fields": fields})
