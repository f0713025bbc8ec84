"""The request log's entries in the local SQLite file (`admin.request_log_store: database`):
opaque JSON records keyed by request id, newest kept, so the Studio's Requests tab survives a
restart. Ids, counts and reasons only — the proxy never hands prompt text to this table."""

from __future__ import annotations

import json
from typing import Any

from memtap.engine.sqlite.database import Database

Conn = Any


def save(
    conn: Conn, request_id: str, owner: str | None, record: dict[str, Any], keep: int
) -> None:
    conn.execute(
        "INSERT INTO request_log(request_id, owner, record) VALUES (?, ?, ?) "
        "ON CONFLICT(request_id) DO UPDATE SET record = excluded.record",
        (request_id, owner, json.dumps(record, ensure_ascii=False)),
    )
    conn.execute(
        "DELETE FROM request_log WHERE seq <= "
        "(SELECT seq FROM request_log ORDER BY seq DESC LIMIT 1 OFFSET ?)",
        (max(0, keep),),
    )


def load(conn: Conn, limit: int) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT record FROM (SELECT seq, record FROM request_log ORDER BY seq DESC LIMIT ?) "
        "ORDER BY seq",
        (max(0, limit),),
    ).fetchall()
    out = []
    for (text,) in rows:
        try:
            out.append(json.loads(text))
        except ValueError:
            continue
    return out


def erase_owner(conn: Conn, owner: str) -> int:
    return int(
        conn.execute("DELETE FROM request_log WHERE owner = ?", (owner,)).rowcount
    )


class SqliteRequestLog:
    """`RequestLogStore` over the local SQLite file."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def save(
        self, request_id: str, owner: str | None, record: dict[str, Any], keep: int
    ) -> None:
        await self.db.write(lambda conn: save(conn, request_id, owner, record, keep))

    async def load(self, limit: int) -> list[dict[str, Any]]:
        return await self.db.read(lambda conn: load(conn, limit))

    async def erase_owner(self, owner: str) -> int:
        return await self.db.write(lambda conn: erase_owner(conn, owner))
