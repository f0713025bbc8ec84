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

from memtap.engine.clock import iso, now_iso
from memtap.engine.store import memories
from memtap.engine.store.memories import COLUMNS, to_memory
from memtap.engine.types import Memory, NewMemory, estimate_tokens

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


def is_candidate(memory: Memory) -> bool:
    """Long enough to be worth compacting, not a summary itself, and its summary is shorter.
    (The stores select by age, owner and supersession; this is the rest.)"""
    return (
        len(memory.content) > MIN_TOKENS * 4
        and "summary_of" not in memory.metadata
        and len(summary_of(memory.content)) < len(memory.content)
    )


def cutoff_for_age(older_than_days: int) -> str:
    return iso(datetime.now(UTC) - timedelta(days=older_than_days))


def candidates(
    conn: Conn, older_than_days: int, owner: str | None, limit: int = 1000
) -> list[Memory]:
    sql = (
        f"SELECT {COLUMNS} FROM memories WHERE superseded_by IS NULL AND updated_at < ? "
        f"AND length(content) > ? AND json_extract(metadata, '$.summary_of') IS NULL"
    )
    params: list[Any] = [cutoff_for_age(older_than_days), MIN_TOKENS * 4]
    if owner is not None:
        sql += " AND owner = ?"
        params.append(owner)
    rows = conn.execute(sql + " ORDER BY updated_at LIMIT ?", (*params, limit))
    return [m for m in (to_memory(r) for r in rows) if is_candidate(m)]


def summary_memory(original: Memory) -> NewMemory:
    """The summary that replaces `original` (same owner, type, session and expiry)."""
    return NewMemory(
        owner=original.owner,
        content=summary_of(original.content),
        type=original.type,
        key=f"{original.key}#summary" if original.key else None,
        session=original.session,
        metadata={"summary_of": original.id, "source": "summarize"},
        expires_at=original.expires_at,
    )


def tokens_saved(original: Memory, summary: Memory | NewMemory) -> int:
    return estimate_tokens(original.content) - estimate_tokens(summary.content)


def dry_run_report(found: list[Memory]) -> dict[str, Any]:
    return {
        "dry_run": True,
        "candidates": len(found),
        "tokens_saved": sum(tokens_saved(m, summary_memory(m)) for m in found),
        "ids": [m.id for m in found],
    }


def done_report(
    found: list[Memory], written: list[Memory], saved: int
) -> dict[str, Any]:
    return {
        "dry_run": False,
        "candidates": len(found),
        "tokens_saved": saved,
        "summaries": [m.id for m in written],
        "originals": [m.id for m in found],
    }


def compact(conn: Conn, items: list[Memory]) -> tuple[list[Memory], int]:
    """Write summaries and supersede the originals; returns (summaries, tokens saved)."""
    now = now_iso()
    written: list[Memory] = []
    saved = 0
    for original in items:
        summary, _ = memories.upsert(conn, summary_memory(original), now)
        conn.execute(
            "UPDATE memories SET superseded_by = ?, valid_to = ? WHERE id = ?",
            (summary.id, now, original.id),
        )
        saved += tokens_saved(original, summary)
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
