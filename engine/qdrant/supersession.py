"""Supersession in the Qdrant record collection: marking memories as history (a newer fact,
or a summary, replaced them) and finding what `summarize` would compact."""

from __future__ import annotations

from qdrant_client import models

from memtap.engine.maintenance.summarize import is_candidate
from memtap.engine.qdrant.filters import match, memory_ids_filter
from memtap.engine.qdrant.payload import iso_to_ts, payload_to_memory
from memtap.engine.qdrant.points import QdrantPoints
from memtap.engine.types import Memory


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
