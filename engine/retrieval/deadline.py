"""How the retrieval time limit (`memory.retrieval_timeout_ms`) is shared between the legs.

The proxy gives the whole retrieval `retrieval_timeout_ms`; when the vector leg (query
embedding + KNN) had that same limit, a slow embedding used all of it and the request went
upstream with nothing, although the keyword leg had answered long before. The vector leg
therefore gets a share of the limit: when it misses its deadline the keyword results (fused
with recent ones, as for any vector fallback) still arrive inside the request's limit.
"""

from __future__ import annotations

from memtap.config.schema import MemoryConfig

VECTOR_SHARE = 0.6
"""Of `retrieval_timeout_ms`, what the vector leg may use; the rest is left for the
fallback ranking and the budget walk (a few ms) with ample margin under load."""


def vector_deadline_s(config: MemoryConfig) -> float:
    """Seconds the vector leg may take before retrieval goes on without it."""
    return config.retrieval_timeout_ms * VECTOR_SHARE / 1000
