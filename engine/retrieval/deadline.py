"""How the retrieval time limit (`memory.retrieval_timeout_ms`) is shared between the legs.

The whole retrieval has `retrieval_timeout_ms` (kept by the engine for the proxy:
`Engine.retrieve(limit_ms=)`, which then answers with what was read before it,
`partial.py`); when the vector leg (query
embedding + KNN) had that same limit, a slow embedding used all of it and the request went
upstream with nothing, although the keyword leg had answered long before. The vector leg
therefore gets a share of the limit: when it misses its deadline the keyword results (fused
with recent ones, as for any vector fallback) still arrive inside the request's limit.

The limit counts from when the engine took the request (`RetrievalClock.started`), not from
when ranking began: the read-your-own-writes wait (`Engine._read_own_writes`) comes out of
the same limit, so a request that waited for its owner's turns gives the vector leg only what
is left. Otherwise a wait and a slow embedding added up past the limit and the
request lost the keyword results too, after the whole timeout.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from memtap.config.schema import MemoryConfig

VECTOR_SHARE = 0.6
"""Of `retrieval_timeout_ms`, what the vector leg may use; the rest is left for the
fallback ranking and the budget walk (a few ms) with ample margin under load."""
EPISODES_SHARE = 0.7
"""Of `retrieval_timeout_ms`, how long the facts wait for the episodes' snippets before
they go alone. Past the limit the request went upstream without the facts too: under a
saturated loop (`bench_load.py` at 400 streams, keyword, no slot limit) the facts were
ready at p50 106 ms and the snippets at 285 ms, and 61 % of requests lost both."""


@dataclass(frozen=True, slots=True)
class RetrievalClock:
    """When a retrieval started (monotonic seconds): what its legs' deadlines count from."""

    started: float = field(default_factory=time.monotonic)

    def elapsed_s(self) -> float:
        return time.monotonic() - self.started


def episodes_deadline_s(config: MemoryConfig, clock: RetrievalClock) -> float:
    """Seconds the facts still wait for the episodes' recall (0: not at all)."""
    return max(
        0.0, config.retrieval_timeout_ms / 1000 * EPISODES_SHARE - clock.elapsed_s()
    )


def vector_deadline_s(
    config: MemoryConfig, clock: RetrievalClock | None = None
) -> float:
    """Seconds the vector leg may take before retrieval goes on without it: its share of the
    limit, less whatever the request already spent (0: no time left for it)."""
    limit_s = config.retrieval_timeout_ms / 1000
    share_s = limit_s * VECTOR_SHARE
    if clock is None:
        return share_s
    # What the keyword fallback keeps whatever happened before: the limit minus the share.
    return max(0.0, share_s - clock.elapsed_s())
