"""Strategy `hybrid`: RRF over the keyword ranking and the vector ranking when the vector tier
answered; until then (no tier, or it failed) keyword ∪ recent, fused the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memtap.engine.retrieval.rrf import rrf_fuse
from memtap.engine.store import fts, memories
from memtap.engine.store.database import Database
from memtap.engine.store.memories import Live
from memtap.engine.types import Memory


def fuse(rankings: Sequence[Sequence[str]], k: int) -> list[tuple[str, float]]:
    """Fused (id, score) best first; empty rankings are ignored."""
    return rrf_fuse([r for r in rankings if r], k)


async def keyword_and_recent(
    db: Database, query: str, live: Live, limit: int, timeout_ms: int | None
) -> tuple[list[tuple[Memory, float]], list[Memory]]:
    """Both rankings of the no-vector hybrid in ONE trip to a reader thread (each trip costs
    a thread wake-up on the request path). The recent ranking is skipped when nothing
    matched: the relevance floor will return nothing anyway."""
    match = fts.build_match(fts.query_terms(query), live)
    if match is None:
        return [], []

    def run(conn: Any) -> tuple[list[tuple[Memory, float]], list[Memory]]:
        found = fts.search(conn, match, live, limit)
        return found, (memories.recent(conn, live, limit) if found else [])

    return await db.read(run, timeout_ms=timeout_ms)
