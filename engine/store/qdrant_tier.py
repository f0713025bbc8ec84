"""Vector-tier bookkeeping when the rows live in SQLite and only vectors go to Qdrant.

The engine marks a row `needs_reindex = 1` on every content write; the Qdrant tier clears the
flag once the row's point holds a dense vector, so a write that missed Qdrant (outage,
embedding failure) is picked up by `reindex` from SQLite, where it is durable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memtap.engine.store.memories import COLUMNS, to_memory
from memtap.engine.types import Memory

Conn = Any


def pending_rows(conn: Conn, limit: int) -> list[Memory]:
    """Rows whose vector is missing in the tier, oldest change first."""
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM memories WHERE needs_reindex = 1 ORDER BY updated_at LIMIT ?",
        (int(limit),),
    )
    return [to_memory(r) for r in rows]


def clear_flags(conn: Conn, ids: Sequence[str]) -> None:
    conn.executemany(
        "UPDATE memories SET needs_reindex = 0 WHERE id = ?", [(i,) for i in ids]
    )


def mark_all(conn: Conn) -> int:
    marked: int = conn.execute("UPDATE memories SET needs_reindex = 1").rowcount
    return marked


def count_pending(conn: Conn) -> int:
    count: int = conn.execute(
        "SELECT count(*) FROM memories WHERE needs_reindex = 1"
    ).fetchone()[0]
    return count
