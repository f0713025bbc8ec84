"""`SqliteReindexFlags`: the `ReindexFlags` port over the local file (`memories.needs_reindex`,
SQL in `sql/reindex_flags.py`), for a vector index whose vectors live elsewhere."""

from __future__ import annotations

from collections.abc import Sequence

from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.sql.reindex_flags import clear, count, mark_all, pending
from memtap.engine.types import Memory


class SqliteReindexFlags:
    """`ReindexFlags` over the local file, for an index whose vectors live elsewhere."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def pending(self, owner: str | None, limit: int) -> list[Memory]:
        return await self.db.read(lambda conn: pending(conn, owner, limit))

    async def clear(self, ids: Sequence[str]) -> None:
        wanted = list(ids)
        await self.db.write(lambda conn: clear(conn, wanted))

    async def mark_all(self) -> int:
        return await self.db.write(mark_all)

    async def count(self) -> int:
        return await self.db.read(count)
