"""Strategy `hybrid`: RRF over the keyword ranking and the vector ranking when the vector index
answered; until then (no index, or it failed) keyword ∪ recent, fused the same way."""

from __future__ import annotations

from collections.abc import Sequence

from memtap.engine.retrieval.rrf import rrf_fuse


def fuse(rankings: Sequence[Sequence[str]], k: int) -> list[tuple[str, float]]:
    """Fused (id, score) best first; empty rankings are ignored."""
    return rrf_fuse([r for r in rankings if r], k)
