"""Strategy `keyword`: FTS5 bm25 over content and key, owner/session filtered inside MATCH."""

from __future__ import annotations

from memtap.engine.store import fts
from memtap.engine.store.database import Database
from memtap.engine.store.memories import Live
from memtap.engine.types import Memory


async def keyword(
    db: Database, query: str, live: Live, limit: int, timeout_ms: int | None
) -> list[tuple[Memory, float]]:
    """Live memories matching any topical term of `query`, best first, with relevance > 0.
    Empty when the query has no topical term (the relevance floor starts here)."""
    match = fts.build_match(fts.query_terms(query), live)
    if match is None:
        return []
    return await db.read(
        lambda conn: fts.search(conn, match, live, limit), timeout_ms=timeout_ms
    )
