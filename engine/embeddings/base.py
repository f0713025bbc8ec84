"""The one interface every embedding source implements, and helpers they share.

A source turns texts into unit-length float32 vectors. `signature` ("source:model:dim")
identifies the vector space: vectors with different signatures are never compared, and a
change of signature makes the vector tier rebuild its table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
"""Shape (n, dim), float32, every row L2-normalised (an all-zero row stays zero)."""


class EmbeddingError(Exception):
    """A source could not embed; the caller falls back to the keyword tier for that request."""

    def __init__(self, message: str, cause: str = "embedding_error") -> None:
        super().__init__(message)
        self.cause = cause
        """Short stable label for logs and the `memory_fallbacks` metric."""


@dataclass(slots=True)
class CoalescerStats:
    """Counts of a local model's coalesced runs (`embeddings.coalesce.Coalescer`), and what
    a new query would wait for now (the query-embedding budget: `expected_wait_s`)."""

    runs: int = 0
    requests: int = 0
    texts: int = 0
    largest_run: int = 0
    queued_queries: int = 0
    """Urgent texts waiting for a run."""
    running_texts: int = 0
    """Texts of the query run in progress (0: idle)."""
    admitted_queries: int = 0
    """Urgent texts a caller is committed to that are not queued yet: a shared query
    embedding (`cache.CachedSource`) runs as its own task, which queues its text one step
    of the loop later; without these, every query of a burst saw the queue empty."""
    seconds_per_query: float = 0.0
    """Moving average of a query run's time per text (0: none measured yet)."""

    def expected_wait_s(self) -> float:
        """Roughly how long a query queued now would take to come back: the run in
        progress, the queries ahead of it and itself (0 until a query run was measured)."""
        ahead = self.running_texts + self.queued_queries + self.admitted_queries
        return (ahead + 1) * self.seconds_per_query


@runtime_checkable
class EmbeddingSource(Protocol):
    @property
    def name(self) -> str:
        """`onnx`, `static` or `remote`."""
        ...

    @property
    def model(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def signature(self) -> str:
        """`name:model:dim`; equal signatures mean comparable vectors."""
        ...

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        """Embed `texts` in order; returns (len(texts), dim) float32 unit vectors.

        `urgent`: a request is waiting for these (a query embedding); a local model serves
        urgent texts before any write's (extraction, backfill). Raises `EmbeddingError`.
        Never blocks the event loop."""
        ...

    def batch_stats(self) -> CoalescerStats | None:
        """How a local model coalesced requests into runs (None: the source does not batch)."""
        ...

    async def close(self) -> None:
        """Release sessions and threads; the source is unusable afterwards."""
        ...


def make_signature(name: str, model: str, dim: int) -> str:
    return f"{name}:{model}:{dim}"


def l2_normalize(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Row-wise unit length in float32; zero rows (nothing known about the text) stay zero."""
    out = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)
    result: Vectors = out / norms
    return result


def empty_vectors(dim: int) -> Vectors:
    return np.zeros((0, dim), dtype=np.float32)
