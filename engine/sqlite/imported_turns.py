"""The record of imported turns, beside the outbox in the local SQLite file.

`enqueue_new` records a turn and queues it for extraction in ONE transaction: a turn is
either recorded and durably queued (the worker will apply it) or neither, so a re-import
after any crash imports exactly what is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memtap.engine.sqlite import outbox
from memtap.engine.sqlite.database import Database
from memtap.engine.types import Turn

Conn = Any


def enqueue_new(conn: Conn, turns: Sequence[Turn], now: str) -> list[int | None]:
    seqs: list[int | None] = []
    for turn in turns:
        recorded = conn.execute(
            "INSERT INTO imported_turns(request_id, owner, said_at, imported_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT(request_id) DO NOTHING RETURNING 1",
            (turn.request_id, turn.owner, turn.created_at, now),
        ).fetchone()
        seqs.append(outbox.insert(conn, turn, now) if recorded else None)
    return seqs


class SqliteTurnLedger:
    """`TurnLedger` over the local file (whatever the record store: the outbox is local)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def enqueue_new(self, turns: Sequence[Turn], now: str) -> list[int | None]:
        batch = list(turns)
        return await self.db.write(lambda conn: enqueue_new(conn, batch, now))

    async def erase_owner(self, owner: str) -> int:
        return await self.db.write(
            lambda conn: int(
                conn.execute(
                    "DELETE FROM imported_turns WHERE owner = ?", (owner,)
                ).rowcount
            )
        )
