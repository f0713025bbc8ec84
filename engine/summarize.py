"""Compaction of old, long memories without losing them.

A candidate is a live memory older than `older_than_days` whose content is longer than its
summary (the first sentences, at most `SUMMARY_CHARS`). Compacting writes the summary as a
new memory (metadata `summary_of`) and marks the original superseded by it: the original
stays as history and is restored by `restore` (clears its supersession, deletes the summary).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.store import memories
from engine.store.memories import COLUMNS, iso, now_iso, to_memory
from engine.types import Memory, NewMemory, estimate_tokens

Conn = Any
SUMMARY_SENTENCES = 3
SUMMARY_CHARS = 280
MIN_TOKENS = 40
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def summary_of(text: str) -> str:
    sentences = _SENTENCE.split(text.strip())
    out = " ".join(sentences[:SUMMARY_SENTENCES])
    if len(out) > SUMMARY_CHARS:
        out = out[: SUMMARY_CHARS - 1].rstrip() + "…"
    return out


def candidates(
    conn: Conn, older_than_days: int, owner: str | None, limit: int = 1000
) -> list[Memory]:
    cutoff = iso(datetime.now(UTC) - timedelta(days=older_than_days))
    sql = (
        f"SELECT {COLUMNS} FROM memories WHERE superseded_by IS NULL AND updated_at < ? "
        f"AND length(content) > ? AND json_extract(metadata, '$.summary_of') IS NULL"
    )
    params: list[Any] = [cutoff, MIN_TOKENS * 4]
    if owner is not None:
        sql += " AND owner = ?"
        params.append(owner)
    rows = conn.execute(sql + " ORDER BY updated_at LIMIT ?", (*params, limit))
    return [
        m
        for m in (to_memory(r) for r in rows)
        if len(summary_of(m.content)) < len(m.content)
    ]


def compact(conn: Conn, items: list[Memory]) -> tuple[list[Memory], int]:
    """Write summaries and supersede the originals; returns (summaries, tokens saved)."""
    now = now_iso()
    written: list[Memory] = []
    saved = 0
    for original in items:
        text = summary_of(original.content)
        summary, _ = memories.upsert(
            conn,
            NewMemory(
                owner=original.owner,
                content=text,
                type=original.type,
                key=f"{original.key}#summary" if original.key else None,
                session=original.session,
                metadata={"summary_of": original.id, "source": "summarize"},
                expires_at=original.expires_at,
            ),
            now,
        )
        conn.execute(
            "UPDATE memories SET superseded_by = ?, valid_to = ? WHERE id = ?",
            (summary.id, now, original.id),
        )
        saved += estimate_tokens(original.content) - estimate_tokens(text)
        written.append(summary)
    return written, saved


def restore(conn: Conn, summary_id: str) -> str | None:
    """Undo one compaction: the original becomes live again; returns its id."""
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
