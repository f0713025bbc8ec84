"""Compaction in SQL: candidates, summaries written with their originals superseded (one
transaction), and the undo. The rules (what is a candidate, what a summary says) are
`engine.maintenance.summarize`'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memtap.engine.maintenance.summarize import MIN_TOKENS, is_candidate
from memtap.engine.sqlite.sql import memories
from memtap.engine.sqlite.sql.memories import COLUMNS, to_memory
from memtap.engine.types import Memory, NewMemory

Conn = Any


def candidates(
    conn: Conn, cutoff: str, owner: str | None, limit: int = 1000
) -> list[Memory]:
    sql = (
        f"SELECT {COLUMNS} FROM memories WHERE superseded_by IS NULL AND updated_at <= ? "
        f"AND length(content) > ? AND json_extract(metadata, '$.summary_of') IS NULL"
    )
    params: list[Any] = [cutoff, MIN_TOKENS * 4]
    if owner is not None:
        sql += " AND owner = ?"
        params.append(owner)
    rows = conn.execute(sql + " ORDER BY updated_at LIMIT ?", (*params, limit))
    return [m for m in (to_memory(r) for r in rows) if is_candidate(m)]


def compact(
    conn: Conn, pairs: Sequence[tuple[Memory, NewMemory]], now: str
) -> list[Memory]:
    """Write the summaries and supersede their originals; returns the summaries."""
    written: list[Memory] = []
    for original, new in pairs:
        summary, _ = memories.upsert(conn, new, now)
        conn.execute(
            "UPDATE memories SET superseded_by = ?, valid_to = ? WHERE id = ?",
            (summary.id, now, original.id),
        )
        written.append(summary)
    return written


def restore(conn: Conn, summary_id: str) -> str | None:
    """Undo one compaction: the original becomes live again, the summary goes; returns the
    original's id (None: `summary_id` is not a summary)."""
    row = conn.execute(
        "SELECT json_extract(metadata, '$.summary_of') FROM memories WHERE id = ?",
        (summary_id,),
    ).fetchone()
    if not row or not row[0]:
        return None
    conn.execute(
        "UPDATE memories SET superseded_by = NULL, valid_to = NULL WHERE id = ?",
        (row[0],),
    )
    conn.execute("DELETE FROM memories WHERE id = ?", (summary_id,))
    return str(row[0])
