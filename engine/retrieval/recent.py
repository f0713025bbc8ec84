"""Strategy `recent`: the newest live memories in scope (no relevance floor; budget only)."""

from __future__ import annotations

from memtap.engine.store import memories
from memtap.engine.store.database import Database
from memtap.engine.store.memories import Live
from memtap.engine.types import Memory


async def recent(
    db: Database, live: Live, limit: int, timeout_ms: int | None
) -> list[Memory]:
    return await db.read(
        lambda conn: memories.recent(conn, live, limit), timeout_ms=timeout_ms
    )
