"""engine-status counts of the Qdrant record collection: live per type, superseded, expired,
owners, and points still waiting for their dense vector."""

from __future__ import annotations

from typing import Any

from qdrant_client import models

from memtap.engine.qdrant.filters import match
from memtap.engine.qdrant.payload import iso_to_ts
from memtap.engine.qdrant.points import QdrantPoints
from memtap.engine.types import MEMORY_TYPES

OWNERS_FACET_MAX = 100_000


async def collection_counts(points: QdrantPoints, now: str) -> dict[str, Any]:
    """engine-status "counts" of one record collection (each an exact count)."""
    by_type = {
        t: await points.count(
            models.Filter(must=[match("type", t), match("superseded", False)])
        )
        for t in MEMORY_TYPES
    }
    superseded = await points.count(models.Filter(must=[match("superseded", True)]))
    expired = await points.count(
        models.Filter(
            must=[
                models.FieldCondition(
                    key="expires_at_ts", range=models.Range(lte=iso_to_ts(now))
                )
            ]
        )
    )
    stale = (
        models.Filter(must_not=[match("vec_sig", points.signature)])
        if points.signature
        else None
    )
    pending = (
        await points.count(stale)
        if stale is not None and points.collection.has_dense
        else 0
    )
    name = points.collection.name
    owners = await points.call(
        "facet",
        lambda c: c.facet(name, key="owner", limit=OWNERS_FACET_MAX, exact=True),
    )
    return {
        "by_type": by_type,
        "live": sum(by_type.values()),
        "superseded": superseded,
        "expired": expired,
        "owners": len(owners.hits),
        "needs_reindex": pending,
    }
