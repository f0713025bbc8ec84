"""Which rows still wait for their vector: `memories.needs_reindex`, set on every content
write, cleared once a vector index stored the row's vector. Progress of a reindex lives here,
on disk, so an interrupted one resumes where it stopped. The adapter is
`sqlite/reindex_flags.py:SqliteReindexFlags`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memtap.engine.clock import now_iso
from memtap.engine.sqlite.sql.memories import COLUMNS, to_memory
from memtap.engine.types import Memory

Conn = Any


def pending(conn: Conn, owner: str | None, limit: int) -> list[Memory]:
    """Unexpired memories still waiting for a vector (oldest change first), at most `limit`."""
    sql = f"SELECT {COLUMNS} FROM memories WHERE needs_reindex = 1"
    params: list[Any] = []
    if owner is not None:
        sql += " AND owner = ?"
        params.append(owner)
    sql += " AND (expires_at IS NULL OR expires_at > ?) ORDER BY updated_at LIMIT ?"
    params += [now_iso(), int(limit)]
    return [to_memory(r) for r in conn.execute(sql, params)]


def clear(conn: Conn, ids: Sequence[str]) -> None:
    conn.executemany(
        "UPDATE memories SET needs_reindex = 0 WHERE id = ?", [(i,) for i in ids]
    )


def mark_all(conn: Conn) -> int:
    marked: int = conn.execute("UPDATE memories SET needs_reindex = 1").rowcount
    return marked


def count(conn: Conn) -> int:
    """Unexpired memories waiting for a vector (what `pending` would return, uncapped): an
    expired row is never embedded, so it must not keep the count above 0 until the sweep."""
    found: int = conn.execute(
        "SELECT count(*) FROM memories WHERE needs_reindex = 1"
        " AND (expires_at IS NULL OR expires_at > ?)",
        (now_iso(),),
    ).fetchone()[0]
    return found
