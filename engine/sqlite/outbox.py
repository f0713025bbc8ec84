"""The durable extraction queue: one row per completed turn, deleted once the turn's memories
are stored (in the same transaction when the record store is this SQLite file).

Rows are read in pages (`page`), so a burst larger than RAM waits on disk.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from memtap.engine.ports import OutboxRow
from memtap.engine.sqlite.database import Database
from memtap.engine.types import Turn

Conn = Any


def insert(conn: Conn, turn: Turn, now: str, floor: int = 1) -> int:
    """Insert one turn with a seq at least `floor`. The table's INTEGER PRIMARY KEY alone
    would give an emptied table's next row seq 1 again, while the worker may still be
    finishing the old row 1 (read-your-own-writes and the worker's cursor key on seq)."""
    payload = json.dumps(asdict(turn), ensure_ascii=False)
    cur = conn.execute(
        "INSERT INTO outbox(seq, request_id, owner, payload, enqueued_at) VALUES ("
        "(SELECT max(coalesce(max(seq), 0) + 1, ?) FROM outbox), ?, ?, ?, ?)",
        (floor, turn.request_id, turn.owner, payload, now),
    )
    return int(cur.lastrowid)


def insert_many(conn: Conn, turns: list[Turn], now: str) -> None:
    conn.executemany(
        "INSERT INTO outbox(request_id, owner, payload, enqueued_at) VALUES (?, ?, ?, ?)",
        [
            (t.request_id, t.owner, json.dumps(asdict(t), ensure_ascii=False), now)
            for t in turns
        ],
    )


def _to_turn(payload: str) -> Turn:
    data = json.loads(payload)
    fields = set(Turn.__dataclass_fields__)
    return Turn(**{k: v for k, v in data.items() if k in fields})


def page(conn: Conn, after_seq: int, limit: int) -> list[OutboxRow]:
    rows = conn.execute(
        "SELECT seq, payload, attempts FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
        (after_seq, limit),
    ).fetchall()
    out = []
    for seq, payload, attempts in rows:
        try:
            turn = _to_turn(payload)
        except (ValueError, TypeError):
            turn = Turn(
                request_id=f"corrupt-{seq}",
                owner="",
                session=None,
                format="openai-chat",
                user_text="",
                assistant_text="",
            )
        out.append(OutboxRow(int(seq), turn, int(attempts)))
    return out


def delete(conn: Conn, seqs: Sequence[int]) -> None:
    conn.executemany("DELETE FROM outbox WHERE seq = ?", [(s,) for s in seqs])


def record_failure(conn: Conn, seq: int, error: str) -> int:
    row = conn.execute(
        "UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE seq = ? RETURNING attempts",
        (error[:500], seq),
    ).fetchone()
    return int(row[0]) if row else 0


def pending_rows(conn: Conn) -> list[tuple[int, str]]:
    rows = conn.execute("SELECT seq, owner FROM outbox ORDER BY seq").fetchall()
    return [(int(seq), str(owner or "")) for seq, owner in rows]


def depth(conn: Conn) -> int:
    return int(conn.execute("SELECT count(*) FROM outbox").fetchone()[0])


def erase_owner(conn: Conn, owner: str) -> int:
    return int(conn.execute("DELETE FROM outbox WHERE owner = ?", (owner,)).rowcount)


class SqliteOutbox:
    """`Outbox` over the local SQLite file (whatever the record store)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._next_seq = 1
        """Above every seq this process handed out: seqs never repeat while it runs."""

    async def insert(self, turn: Turn, now: str) -> int:
        seq = await self.db.write(lambda conn: insert(conn, turn, now, self._next_seq))
        self._next_seq = max(self._next_seq, seq + 1)
        return seq

    async def pending_rows(self) -> list[tuple[int, str]]:
        return await self.db.read(pending_rows)

    async def page(self, after_seq: int, limit: int) -> list[OutboxRow]:
        return await self.db.read(
            functools.partial(page, after_seq=after_seq, limit=limit)
        )

    async def ack(self, seqs: Sequence[int]) -> None:
        await self.db.write(functools.partial(delete, seqs=list(seqs)))

    async def record_failure(self, seq: int, error: str) -> int:
        return await self.db.write(
            functools.partial(record_failure, seq=seq, error=error)
        )

    async def depth(self) -> int:
        return await self.db.read(depth)

    async def erase_owner(self, owner: str) -> int:
        return await self.db.write(lambda conn: erase_owner(conn, owner))
