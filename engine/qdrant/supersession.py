"""Supersession in the Qdrant record collection: the live memories about a subject, marking
memories as history (a newer fact, or a summary, replaced them) and undoing it, and finding
what `summarize` would compact. Functions over `QdrantPoints`, run by
`memories.QdrantMemoryStore`; the SQLite store's semantics (`sqlite/sql/memories.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from qdrant_client import models

from memtap.engine.maintenance.summarize import is_candidate
from memtap.engine.qdrant.filters import match, memory_ids_filter
from memtap.engine.qdrant.memory_writes import overwrite_payload
from memtap.engine.qdrant.payload import iso_to_ts, payload_to_memory
from memtap.engine.qdrant.points import QdrantPoints
from memtap.engine.types import Memory

SUPERSEDE_PAGE = 1000
"""Points marked per scroll while superseding (marked points leave the filter)."""


def _about(owner: str, subject: str) -> list[models.Condition]:
    return [
        match("owner", owner),
        match("subject", subject),
        match("superseded", False),
    ]


async def supersede(
    points: QdrantPoints, owner: str, subject: str, new_id: str, now: str
) -> list[str]:
    """Mark the owner's other live memories about `subject` as superseded by `new_id`,
    unless one was said later (as in SQLite: then `new_id` is late history)."""
    said = await points.find(new_id)
    if said is not None:
        later = models.Filter(
            must=[
                *_about(owner, subject),
                models.FieldCondition(
                    key="updated_at_ts",
                    range=models.Range(
                        gt=float((said.payload or {}).get("updated_at_ts") or 0.0)
                    ),
                ),
            ],
            must_not=[match("memory_id", new_id)],
        )
        newer = [
            payload_to_memory(r.payload or {})
            for r in await points.scroll(later, SUPERSEDE_PAGE)
        ]
        if newer:
            newest = max(newer, key=lambda m: m.updated_at)
            await mark_superseded(points, [new_id], newest.id, newest.updated_at)
            return []
    flt = models.Filter(
        must=_about(owner, subject), must_not=[match("memory_id", new_id)]
    )
    superseded: list[str] = []
    while True:  # marked points leave the filter: scroll again until none is left
        ids = [
            str((r.payload or {})["memory_id"])
            for r in await points.scroll(flt, SUPERSEDE_PAGE)
        ]
        await mark_superseded(points, ids, new_id, now)
        superseded += ids
        if len(ids) < SUPERSEDE_PAGE:
            return superseded


async def live_about(points: QdrantPoints, owner: str, subject: str) -> list[Memory]:
    flt = models.Filter(must=_about(owner, subject))
    return [payload_to_memory(r.payload or {}) for r in await points.scroll(flt, 1000)]


async def replace_ids(
    points: QdrantPoints, owner: str, ids: Sequence[str], new_id: str, now: str
) -> list[str]:
    """Mark `ids` superseded by `new_id`: only those that are `owner`'s and live."""
    mine: list[str] = []
    for memory_id in dict.fromkeys(ids):
        record = await points.find(memory_id) if memory_id != new_id else None
        found = payload_to_memory(record.payload or {}) if record else None
        if found is not None and found.owner == owner and found.superseded_by is None:
            mine.append(memory_id)
    if mine:
        await mark_superseded(points, mine, new_id, now)
    return mine


async def make_live(points: QdrantPoints, memory_id: str) -> Memory | None:
    """Clear a memory's supersession (undoing a compaction); None when it is gone."""
    record = await points.find(memory_id)
    if record is None:
        return None
    payload = record.payload or {}
    memory = replace(payload_to_memory(payload), superseded_by=None, valid_to=None)
    await overwrite_payload(points, record.id, memory, payload)
    return memory


async def mark_superseded(
    points: QdrantPoints, ids: list[str], by: str, now: str
) -> None:
    """`ids` are history from now on, replaced by memory `by`."""
    if not ids:
        return
    name = points.collection.name
    change = {
        "superseded_by": by,
        "valid_to": now,
        "superseded": True,
        "valid_to_ts": iso_to_ts(now),
        "live_until_ts": 0.0,
    }
    await points.call(
        "set_payload",
        lambda c: c.set_payload(
            name,
            payload=change,
            points=memory_ids_filter(ids),
            wait=True,
            ordering=models.WriteOrdering.STRONG,
        ),
    )


async def summary_candidates(
    points: QdrantPoints, cutoff: str, owner: str | None, limit: int = 1000
) -> list[Memory]:
    """Live memories last written at or before `cutoff` that `summarize` would compact."""
    must: list[models.Condition] = [
        match("superseded", False),
        models.FieldCondition(
            key="updated_at_ts", range=models.Range(lte=iso_to_ts(cutoff))
        ),
    ]
    if owner is not None:
        must.append(match("owner", owner))
    records = await points.scroll(models.Filter(must=must), limit)
    found = [payload_to_memory(r.payload or {}) for r in records]
    return sorted((m for m in found if is_candidate(m)), key=lambda m: m.updated_at)
