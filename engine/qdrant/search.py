"""Qdrant reads that rank candidates: recent (ordered scroll), keyword (the sparse arm), and
the dense arm (live rows of the record collection, or ids of a vectors-only collection).
The ranking itself (RRF, floor, ties, budget) is `engine.retrieval`'s, once."""

from __future__ import annotations

from qdrant_client import models

from memtap.engine.embeddings.projected import embed_query
from memtap.engine.memory_rules import Live
from memtap.engine.qdrant.filters import (
    live_conditions,
    live_filter,
    match,
    session_condition,
)
from memtap.engine.qdrant.payload import payload_to_memory
from memtap.engine.qdrant.points import QdrantPoints, to_qdrant_sparse
from memtap.engine.qdrant.sparse import query_vector
from memtap.engine.types import Memory


async def recent(points: QdrantPoints, live: Live, limit: int) -> list[Memory]:
    records = await points.scroll(live_filter(live), limit, order_desc="updated_at_ts")
    return [payload_to_memory(r.payload or {}) for r in records]


async def keyword(
    points: QdrantPoints, query: str, live: Live, limit: int
) -> list[tuple[Memory, float]]:
    """Sparse (BM25-style) matches, best first, with Qdrant's score (higher is better)."""
    sparse = query_vector(query)
    if not len(sparse):
        # Nothing to match, but an outage must still surface (as every other read does).
        await points.collection.ensure()
        return []
    found = await points.nearest(
        "query_sparse", to_qdrant_sparse(sparse), live_filter(live), limit
    )
    return [
        (payload_to_memory(p.payload or {}), float(p.score))
        for p in found
        if p.score > 0
    ]


async def dense_live(
    points: QdrantPoints, live: Live, query: str, limit: int
) -> list[tuple[Memory, float]]:
    """The live points nearest to `query` by the dense vector, (memory, cosine) best first:
    the record collection's points carry the whole memory, so nothing is re-read."""
    dense = await points.embed_query(query)
    if dense is None:
        return []
    must = [*live_conditions(live), match("vec_sig", points.signature or "")]
    found = await points.nearest("query_dense", dense, models.Filter(must=must), limit)
    return [(payload_to_memory(p.payload or {}), float(p.score)) for p in found]


async def dense_search(
    points: QdrantPoints, owner: str | None, query: str, session: str | None, limit: int
) -> list[tuple[str, float]]:
    """Nearest memories by the dense vector: (memory id, cosine), best first."""
    if points.embedder is None:
        return []
    await points.collection.ensure()
    if not points.collection.has_dense:
        return []
    embedded = await embed_query(points.embedder, query)
    dense = embedded.vector.astype(float).tolist()
    must: list[models.Condition] = [match("vec_sig", points.signature or "")]
    if owner is not None:
        must.append(match("owner", owner))
    if session is not None:
        must.append(session_condition(session))
    found = await points.nearest(
        "query_dense", dense, models.Filter(must=must), limit, payload=["memory_id"]
    )
    return [
        (str((p.payload or {})["memory_id"]), embedded.calibrated(float(p.score)))
        for p in found
    ]
