"""One retrieval, admitted: what it sheds while memtap is saturated (the event loop lags,
many retrievals at once), the wait for its owner's own writes, a vector slot, the ranking of
the facts (`engine/retrieval/`) and the episodes' snippets, and what it answers with when
the caller's time limit cuts it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from memtap.engine.api import InvalidInput, RetrievalTimeout
from memtap.engine.episodes.service import EpisodeService
from memtap.engine.metrics import Metrics
from memtap.engine.ports import RecordStore
from memtap.engine.retrieval.admission import loop_lag
from memtap.engine.retrieval.admission.loop_lag import LoopLag
from memtap.engine.retrieval.admission.slots import CROWDED_REASON, RetrievalSlots
from memtap.engine.retrieval.deadline import RetrievalClock
from memtap.engine.retrieval.gate import SHED_AFTER_SHARE, VectorGate
from memtap.engine.retrieval.partial import PartialAnswer
from memtap.engine.retrieval.retrieve import RetrievalContext, retrieve
from memtap.engine.services.own_writes import OwnWrites
from memtap.engine.services.vectors import VectorUpkeep
from memtap.engine.supersession.conflict import claim_of_memory
from memtap.engine.types import Retrieval, RetrievalRequest, reads_vectors

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder


class RetrievalService:
    def __init__(
        self,
        *,
        holder: ConfigHolder,
        metrics: Metrics,
        store: RecordStore,
        vectors: VectorUpkeep,
        episodes: EpisodeService,
        own_writes: OwnWrites,
        slots: RetrievalSlots,
        lag: LoopLag,
    ) -> None:
        self.holder = holder
        self.metrics = metrics
        self.store = store
        self.vectors = vectors
        self.episodes = episodes
        self.own_writes = own_writes
        self.slots = slots
        """How many retrievals run their vector legs at once."""
        self.lag = lag
        """How late the event loop runs: retrieval sheds multi-hop legs while it lags."""

    async def retrieve(
        self, request: RetrievalRequest, side_effects: bool, limit_ms: int | None
    ) -> Retrieval:
        if not request.owner:
            raise InvalidInput("owner is required", "owner")
        # The request's `limit` bounds its results, facts and episodes' snippets together
        # (the facts' walk and the snippets' slots each have their own bound below it).
        retrieval = await self._within(request, side_effects, limit_ms)
        if request.limit is None or len(retrieval.hits) <= request.limit:
            return retrieval
        return Retrieval(retrieval.hits[: request.limit], retrieval.resolution)

    async def _within(
        self, request: RetrievalRequest, side_effects: bool, limit_ms: int | None
    ) -> Retrieval:
        clock = RetrievalClock()  # the waits below come out of the same time limit
        if limit_ms is None:
            return await self._retrieve(request, side_effects, clock, None)
        partial = PartialAnswer()
        limit = asyncio.timeout(limit_ms / 1000)
        try:
            async with limit:
                return await self._retrieve(request, side_effects, clock, partial)
        except TimeoutError:
            if not limit.expired():
                raise
        # Cut by the limit (its timer fires an iteration late on a busy loop: the hops a
        # retrieval still needed would come later still): what it read before answers.
        answer = partial.take()
        if answer is None:
            raise RetrievalTimeout(f"nothing retrieved within {limit_ms} ms") from None
        self.metrics.memory_fallbacks.inc("retrieval_partial")
        answer.resolution.setdefault("fallbacks", []).append(
            {
                "tier": "retrieval",
                "reason": "time_limit",
                "answered_with": partial.stage,
            }
        )
        return answer

    def _shed(self) -> dict[str, Any] | None:
        """Why this retrieval runs the facts' keyword leg alone, or None. A saturated
        loop: only that leg (one hop) makes it in time, and waiting for the owner's turns
        (a worker behind, more hops) would not either. So do many retrievals in progress
        at once (a burst arrives in one iteration, before the loop's lag shows)."""
        timeout_ms = self.holder.current.memory.retrieval_timeout_ms
        lag_s = self.lag.now_s()
        if loop_lag.lagging(lag_s, timeout_ms):
            return {"reason": loop_lag.REASON, "lag_ms": round(lag_s * 1000, 1)}
        if self.slots.crowded(timeout_ms):
            return {"reason": CROWDED_REASON, "running": self.slots.running}
        return None

    async def _retrieve(
        self,
        request: RetrievalRequest,
        side_effects: bool,
        clock: RetrievalClock,
        partial: PartialAnswer | None,
    ) -> Retrieval:
        cfg = self.holder.current.memory
        strategy = request.strategy or cfg.strategy
        shed = self._shed()
        # The keyword leg waits for the owner's rows; the vector leg, if it runs, for
        # their vectors too (a retrieval that reads no vectors never waits for a write
        # embedding).
        rows_applied = await self.own_writes.applied(
            request.owner, clock, vectors=False, wait=shed is None
        )

        async def own_vectors() -> None:
            if rows_applied:
                await self.own_writes.applied(request.owner, clock, vectors=True)

        async def own_episodes() -> None:
            if rows_applied:
                await self.own_writes.turns_whole(request.owner, clock)

        # Only the vector legs wait for a slot, and not past the shed point; a request
        # waiting for its owner's turns (above) holds none.
        admission = (
            self.slots.admission(
                cfg.max_concurrent_retrievals,
                clock.started + SHED_AFTER_SHARE * cfg.retrieval_timeout_ms / 1000,
            )
            if reads_vectors(strategy) and shed is None
            else None
        )
        gate = VectorGate.for_request(strategy, cfg, admission=admission, shed=shed)
        context = self._context(clock, gate, own_vectors, partial)
        with self.slots.retrieving():
            try:
                facts = retrieve(context, request, side_effects=side_effects)
                return await self.episodes.retrieve(
                    facts,
                    request,
                    clock,
                    gate,
                    shed=shed,
                    partial=partial,
                    # Not for strategies that read no vectors: they never wait for a
                    # write embedding (the previous turn is in the history a chat re-sends).
                    own_turns=own_episodes if reads_vectors(strategy) else None,
                )
            finally:
                gate.close()

    def _context(
        self,
        clock: RetrievalClock | None = None,
        gate: VectorGate | None = None,
        own_vectors: Callable[[], Awaitable[object]] | None = None,
        partial: PartialAnswer | None = None,
    ) -> RetrievalContext:
        return RetrievalContext(
            self.store,
            self.holder.current.memory,
            self.vectors.index,
            self.metrics,
            clock,
            gate,
            own_vectors,
            partial,
            claim_of_memory,
        )
