"""`SqliteFactWriter`: the outbox worker's unit of work when the memory rows live in the
local SQLite file with the outbox — the facts and the deletion of their rows in ONE
transaction, so each turn takes effect exactly once, whatever crashes when."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memtap.engine.ports import PlannedTurn, WrittenTurn
from memtap.engine.sqlite import outbox
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.memories import apply_facts


class SqliteFactWriter:
    """`FactWriter` over the local file: `memories.apply_facts`, then `outbox.delete`, in one
    write transaction of `db`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def write(self, turns: Sequence[PlannedTurn], now: str) -> list[WrittenTurn]:
        seqs = [item.row.seq for item in turns]

        def both(conn: Any) -> list[WrittenTurn]:
            results = apply_facts(conn, turns, now)
            outbox.delete(conn, seqs)
            return results

        return await self.db.write(both)
