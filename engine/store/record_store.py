"""The system-of-record seam: where memory rows live. Two implementations, one test suite.

- `SqliteRecordStore` (default): the local SQLite file, through `engine/store/memories.py` and
  `engine/store/fts.py` run on `Database` (one writer task, pooled readers).
- `engine.store.qdrant_store.QdrantMemoryStore` (`vector_store.kind: qdrant`): one Qdrant
  collection shared by every memtap replica that points at it.

`tests/test_store_contract.py` runs the same suite against both: upsert on (owner, key),
`Live` visibility (owner, session scope, expiry, retention, supersession), listing, sweep,
erase, export. The local outbox and settings overrides are not part of this seam: they stay
in each replica's SQLite file whatever the store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from memtap.engine.store import fts, memories
from memtap.engine.store.database import Database
from memtap.engine.store.memories import Live
from memtap.engine.types import ListQuery, Memory, MemoryPatch, NewMemory, Page

EXPORT_PAGE = 500


class RecordStore(Protocol):
    name: str
    """"sqlite" | "qdrant"."""

    async def upsert_memory(
        self, new: NewMemory, now: str, subject: str | None = None
    ) -> tuple[Memory, bool]:
        """Insert, or update the memory with the same id or the same (owner, key); a re-stated
        superseded memory becomes live again; metadata is merge-patched. (memory, created)."""
        ...

    async def get_memory(self, memory_id: str) -> Memory | None: ...

    async def update_memory(
        self, memory_id: str, patch: MemoryPatch, now: str
    ) -> Memory | None:
        """None when missing; `InvalidInput` (field `key`) when the owner has that key already."""
        ...

    async def delete_memory(self, memory_id: str) -> bool: ...

    async def supersede(
        self, owner: str, subject: str, new_id: str, now: str
    ) -> list[str]:
        """Mark the owner's other live memories about `subject` superseded by `new_id`."""
        ...

    async def recent(self, live: Live, limit: int) -> list[Memory]:
        """Newest live memories first (by `updated_at`)."""
        ...

    async def keyword(
        self, query: str, live: Live, limit: int
    ) -> list[tuple[Memory, float]]:
        """Live memories sharing a topical word with `query`, best first, relevance > 0."""
        ...

    async def list_page(self, query: ListQuery) -> Page:
        """Admin listing, newest `created_at` first, with the total."""
        ...

    def export_owner(self, owner: str) -> AsyncIterator[Memory]: ...

    async def erase_owner(self, owner: str) -> int: ...

    async def sweep(self, now: str, cutoff: str | None, limit: int = 5000) -> list[str]:
        """Delete expired and out-of-retention memories; returns their ids."""
        ...

    async def counts(self, now: str) -> dict[str, Any]: ...


class SqliteRecordStore:
    """`RecordStore` over the SQLite store modules (the engine's default path)."""

    name = "sqlite"

    def __init__(self, db: Database, read_timeout_ms: int | None = None) -> None:
        self.db = db
        self.read_timeout_ms = read_timeout_ms

    async def upsert_memory(
        self, new: NewMemory, now: str, subject: str | None = None
    ) -> tuple[Memory, bool]:
        return await self.db.write(
            lambda conn: memories.upsert(conn, new, now, subject)
        )

    async def get_memory(self, memory_id: str) -> Memory | None:
        return await self.db.read(lambda conn: memories.get(conn, memory_id))

    async def update_memory(
        self, memory_id: str, patch: MemoryPatch, now: str
    ) -> Memory | None:
        return await self.db.write(
            lambda conn: memories.update(conn, memory_id, patch, now)
        )

    async def delete_memory(self, memory_id: str) -> bool:
        return await self.db.write(lambda conn: memories.delete(conn, memory_id))

    async def supersede(
        self, owner: str, subject: str, new_id: str, now: str
    ) -> list[str]:
        return await self.db.write(
            lambda conn: memories.supersede(conn, owner, subject, new_id, now)
        )

    async def recent(self, live: Live, limit: int) -> list[Memory]:
        return await self.db.read(
            lambda conn: memories.recent(conn, live, limit),
            timeout_ms=self.read_timeout_ms,
        )

    async def keyword(
        self, query: str, live: Live, limit: int
    ) -> list[tuple[Memory, float]]:
        match = fts.build_match(fts.query_terms(query), live)
        if match is None:
            return []
        return await self.db.read(
            lambda conn: fts.search(conn, match, live, limit),
            timeout_ms=self.read_timeout_ms,
        )

    async def list_page(self, query: ListQuery) -> Page:
        match = fts.list_match(query.q) if query.q else None
        return await self.db.read(lambda conn: memories.list_page(conn, query, match))

    async def export_owner(self, owner: str) -> AsyncIterator[Memory]:
        after = 0
        while True:

            def read_page(conn: Any, start: int = after) -> list[tuple[int, Memory]]:
                return memories.owner_page(conn, owner, start, EXPORT_PAGE)

            page = await self.db.read(read_page)
            for rowid, memory in page:
                after = rowid
                yield memory
            if len(page) < EXPORT_PAGE:
                return

    async def erase_owner(self, owner: str) -> int:
        return await self.db.write(lambda conn: memories.erase_owner(conn, owner))

    async def sweep(self, now: str, cutoff: str | None, limit: int = 5000) -> list[str]:
        return await self.db.write(
            lambda conn: memories.sweep(conn, now, cutoff, limit)
        )

    async def counts(self, now: str) -> dict[str, Any]:
        return await self.db.read(lambda conn: memories.counts(conn, now))
