"""Whether a retrieval's vector legs run: the facts' and the episodes' (one query embedding
serves both), decided once, before either embeds the query.

Hybrid retrieval with `memory.vector_skip_coverage` > 0 defers the decision to the facts'
keyword leg (`confidence.py`): when it answers the question, neither vector leg runs.
Otherwise (every other strategy, or the setting at 0) the gate is open from the start and
the legs run side by side as before. Then the vector legs wait for a vector slot
(`admission/slots.py`); a retrieval that gets none in time is shed to keyword only
(`SHED_AFTER_SHARE`). Whatever happens to the keyword leg, the gate is decided (`close` on
the way out, which also gives the slot back), so no leg waits on it for ever.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memtap.config.schema import MemoryConfig
    from memtap.engine.retrieval.admission.slots import Admission


SHED_AFTER_SHARE = 0.2
"""A retrieval that cannot get a vector slot (`memory.max_concurrent_retrievals`) within this
share of `memory.retrieval_timeout_ms` runs keyword only: memtap is past what it serves in
time, and a vector leg started that late mostly missed its deadline after spending its query
embedding and KNN (bench_load saturated: ~1,600 `vector_timeout` in a 12 s run, ~10 with
this rule; injected where relevant +4 to +32 points in 4 of 5 interleaved pairs, -4 in one)."""
SHED_REASON = "retrievals_queued"


class VectorGate:
    @classmethod
    def for_request(
        cls,
        strategy: str,
        config: MemoryConfig,
        *,
        admission: Admission | None = None,
        shed: dict[str, Any] | None = None,
    ) -> VectorGate:
        """Deferred for hybrid retrieval when `memory.vector_skip_coverage` > 0. With
        `admission`, the vector legs run only once it holds a vector slot (the keyword legs
        never wait for one). `shed`: closed from the start, for that reason (memtap is
        saturated), whatever the strategy."""
        if shed is not None:
            gate = cls(deferred=True)
            gate.decide(False, shed)
            gate.shed = True
            return gate
        gate = cls(deferred=strategy == "hybrid" and config.vector_skip_coverage > 0)
        gate._admission = admission
        return gate

    def __init__(self, *, deferred: bool) -> None:
        self._decision: asyncio.Future[bool] = (
            asyncio.get_running_loop().create_future()
        )
        self._admission: Admission | None = None
        self._admitted: asyncio.Future[bool] | None = None
        self._closed = False
        self.skipped: dict[str, Any] | None = None
        """Why the vector legs did not run (for the resolution); None: they ran."""
        self.shed = False
        """They did not run because memtap is under load (counted as `vector_shed`)."""
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
        """The retrieval is over: a leg still waiting does not run; its slot goes back."""
        self._closed = True
        self.decide(False, {"reason": "retrieval_ended"})
        if self._admitted is not None and not self._admitted.done():
            self._admitted.cancel()
        if self._admission is not None:
            self._admission.release()

    async def run_vectors(self) -> bool:
        if not await asyncio.shield(self._decision):
            return False
        admission = self._admission
        if admission is None:
            return True
        if self._closed:
            return False  # a slot taken now would never be given back
        if self._admitted is None:  # the first leg asks; the other shares its answer
            self._admitted = asyncio.ensure_future(admission.wait())
        if await asyncio.shield(self._admitted):
            return True
        if self.skipped is None:
            self.shed = True
            self.skipped = {
                "reason": SHED_REASON,
                "slot_wait_ms": round(admission.waited_s * 1000, 1),
            }
        return False
