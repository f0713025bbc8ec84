"""Whether a retrieval's vector legs run: the facts' and the episodes' (one query embedding
serves both), decided once, before either embeds the query.

Hybrid retrieval with `memory.vector_skip_coverage` > 0 defers the decision to the facts'
keyword leg (`confidence.py`): when it answers the question, neither vector leg runs.
Otherwise (every other strategy, or the setting at 0) the gate is open from the start and
the legs run side by side as before. A hybrid retrieval that waited long for its slot is
shed to keyword only (`SHED_AFTER_SHARE`): the gate is closed from the start. Whatever happens to the keyword leg, the gate is
decided (`close` on the way out), so no leg waits on it for ever.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memtap.config.schema import MemoryConfig


SHED_AFTER_SHARE = 0.2
"""A hybrid retrieval that waited longer than this share of `memory.retrieval_timeout_ms`
for its slot (`memory.max_concurrent_retrievals`) runs keyword only: memtap is past what it
serves in time, and a vector leg started that late mostly missed its deadline after
spending its query embedding and KNN (bench_load saturated: ~1,600 `vector_timeout` in a
12 s run, ~10 with this rule; injected where relevant +4 to +32 points in 4 of 5
interleaved pairs, -4 in one)."""
SHED_REASON = "retrievals_queued"


class VectorGate:
    @classmethod
    def for_request(
        cls, strategy: str, config: MemoryConfig, *, slot_wait_s: float = 0.0
    ) -> VectorGate:
        """Deferred for hybrid retrieval when `memory.vector_skip_coverage` > 0; closed
        when the retrieval waited for its slot longer than `SHED_AFTER_SHARE` of its limit."""
        limit_s = config.retrieval_timeout_ms / 1000
        if strategy == "hybrid" and slot_wait_s > SHED_AFTER_SHARE * limit_s:
            gate = cls(deferred=True)
            gate.decide(
                False,
                {
                    "reason": SHED_REASON,
                    "slot_wait_ms": round(slot_wait_s * 1000, 1),
                },
            )
            return gate
        return cls(deferred=strategy == "hybrid" and config.vector_skip_coverage > 0)

    def __init__(self, *, deferred: bool) -> None:
        self._decision: asyncio.Future[bool] = (
            asyncio.get_running_loop().create_future()
        )
        self.skipped: dict[str, Any] | None = None
        """Why the vector legs did not run (for the resolution); None: they ran."""
        if not deferred:
            self._decision.set_result(True)

    @property
    def deferred(self) -> bool:
        """The keyword leg has yet to decide."""
        return not self._decision.done()

    def decide(self, run: bool, why: dict[str, Any] | None = None) -> None:
        """Once: later calls change nothing."""
        if self._decision.done():
            return
        if not run:
            self.skipped = why or {}
        self._decision.set_result(run)

    def close(self) -> None:
        """The retrieval is over: a leg still waiting does not run."""
        self.decide(False, {"reason": "retrieval_ended"})

    async def run_vectors(self) -> bool:
        return await asyncio.shield(self._decision)
