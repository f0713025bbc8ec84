"""Whether a retrieval's vector legs run: the facts' and the episodes' (one query embedding
serves both), decided once, before either embeds the query.

Hybrid retrieval with `memory.vector_skip_coverage` > 0 defers the decision to the facts'
keyword leg (`confidence.py`): when it answers the question, neither vector leg runs.
Otherwise (every other strategy, or the setting at 0) the gate is open from the start and
the legs run side by side as before. Whatever happens to the keyword leg, the gate is
decided (`close` on the way out), so no leg waits on it for ever.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memtap.config.schema import MemoryConfig


class VectorGate:
    @classmethod
    def for_request(cls, strategy: str, config: MemoryConfig) -> VectorGate:
        """Deferred for hybrid retrieval when `memory.vector_skip_coverage` > 0."""
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
