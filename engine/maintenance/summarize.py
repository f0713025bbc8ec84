"""Compaction of old, long memories without losing them.

A candidate is a live memory older than `older_than_days` whose content is longer than its
summary (the first sentences, at most `SUMMARY_CHARS`). Compacting writes the summary as a
new memory (metadata `summary_of`) and marks the original superseded by it: the original
stays as history and is restored by `RecordStore.restore_summary` (clears its supersession,
deletes the summary). `run` is the one compaction over any record store.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from memtap.engine.clock import iso, now_iso
from memtap.engine.ports import RecordStore
from memtap.engine.text.sentences import sentences as split_sentences
from memtap.engine.text.tokens import estimate_tokens
from memtap.engine.types import Memory, NewMemory

Conn = Any
SUMMARY_SENTENCES = 3
SUMMARY_CHARS = 280
MIN_TOKENS = 40


def summary_of(text: str) -> str:
    sentences = split_sentences(text)
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


async def run(
    records: RecordStore, older_than_days: int, owner: str | None, dry_run: bool
) -> tuple[dict[str, Any], list[Memory]]:
    """Compact (or, `dry_run`, only list) the candidates; returns (report, summaries written)."""
    found = await records.summary_candidates(cutoff_for_age(older_than_days), owner)
    if dry_run:
        return dry_run_report(found), []
    pairs = [(original, summary_memory(original)) for original in found]
    written = await records.compact(pairs, now_iso())
    saved = sum(tokens_saved(o, s) for (o, _), s in zip(pairs, written, strict=True))
    return done_report(found, written, saved), written
