"""Reads that rank: recent, keyword (sparse), hybrid (dense + sparse fused by RRF inside
Qdrant) and the vector tier's dense search, all over `QdrantPoints`."""

from __future__ import annotations

import numpy as np
from qdrant_client import models

from memtap.engine.sparse import query_vector
from memtap.engine.store.memories import Live
from memtap.engine.store.qdrant_collection import DENSE, SPARSE
from memtap.engine.store.qdrant_filters import live_filter, match, session_condition
from memtap.engine.store.qdrant_payload import payload_to_memory
from memtap.engine.store.qdrant_points import QdrantPoints, to_qdrant_sparse
from memtap.engine.types import Hit, Memory, estimate_tokens


async def recent(points: QdrantPoints, live: Live, limit: int) -> list[Memory]:
    records = await points.scroll(live_filter(live), limit, order_desc="updated_at_ts")
    return [payload_to_memory(r.payload or {}) for r in records]


async def keyword(
    points: QdrantPoints, query: str, live: Live, limit: int
) -> list[tuple[Memory, float]]:
    """Sparse (BM25-style) matches, best first, with Qdrant's score (higher is better)."""
    sparse = query_vector(query)
    if not len(sparse):
        return []
    name, flt = points.collection.name, live_filter(live)
    response = await points.call(
        "query_sparse",
        lambda c: c.query_points(
            name,
            query=to_qdrant_sparse(sparse),
            using=SPARSE,
            query_filter=flt,
            limit=limit,
            with_payload=True,
        ),
    )
    return [
        (payload_to_memory(p.payload or {}), float(p.score))
        for p in response.points
        if p.score > 0
    ]


async def hybrid(
    points: QdrantPoints,
    query: str,
    live: Live,
    limit: int,
    min_similarity: float,
    rrf_k: int,
) -> list[Hit]:
    """Dense and sparse candidates fused by RRF inside Qdrant: ONE query whose two prefetch
    arms share the visibility filter (the dense arm also requires the current embedding
    signature). The hits come back with their vectors, so the relevance floor is applied
    here: a hit stays when it shares a keyword with the query (sparse overlap) or its
    cosine reaches `min_similarity`. `fts_rank`/`vec_rank` rank the fused hits by those
    two signals."""
    sparse = query_vector(query)
    dense = await points.embed_query(query)
    prefetch: list[models.Prefetch] = []
    if dense is not None:
        prefetch.append(
            models.Prefetch(
                query=dense,
                using=DENSE,
                limit=limit,
                filter=models.Filter(must=[match("vec_sig", points.signature or "")]),
            )
        )
    if len(sparse):
        prefetch.append(
            models.Prefetch(query=to_qdrant_sparse(sparse), using=SPARSE, limit=limit)
        )
    if not prefetch:
        return []
    name, flt = points.collection.name, live_filter(live)
    # The top-level filter is propagated into every prefetch by Qdrant.
    response = await points.call(
        "query_hybrid",
        lambda c: c.query_points(
            name,
            prefetch=prefetch,
            query=models.RrfQuery(rrf=models.Rrf(k=rrf_k)),
            query_filter=flt,
            limit=limit,
            with_payload=True,
            with_vectors=[DENSE, SPARSE] if dense is not None else [SPARSE],
        ),
    )
    query_terms = set(sparse.indices)
    query_dense = np.asarray(dense, dtype=np.float32) if dense is not None else None
    scored: list[tuple[models.ScoredPoint, float | None, bool]] = []
    for point in response.points:
        vectors = point.vector if isinstance(point.vector, dict) else {}
        point_sparse = vectors.get(SPARSE)
        keyword = isinstance(point_sparse, models.SparseVector) and bool(
            query_terms & set(point_sparse.indices)
        )
        similarity: float | None = None
        point_dense = vectors.get(DENSE)
        if (
            query_dense is not None
            and isinstance(point_dense, list)
            and (point.payload or {}).get("vec_sig") == points.signature
        ):
            similarity = float(
                np.dot(query_dense, np.asarray(point_dense, dtype=np.float32))
            )
        if keyword or (similarity is not None and similarity >= min_similarity):
            scored.append((point, similarity, keyword))
    by_similarity = sorted(
        ((sim, p.id) for p, sim, _ in scored if sim is not None),
        key=lambda t: -t[0],
    )
    vec_rank = {pid: i for i, (_, pid) in enumerate(by_similarity, start=1)}
    fts_rank = {
        p.id: i for i, p in enumerate((p for p, _, kw in scored if kw), start=1)
    }
    hits: list[Hit] = []
    for point, similarity, _ in scored:
        memory = payload_to_memory(point.payload or {})
        hits.append(
            Hit(
                memory=memory,
                score=float(point.score),
                tier="qdrant",
                tokens=estimate_tokens(memory.content),
                fts_rank=fts_rank.get(point.id),
                vec_rank=vec_rank.get(point.id),
                similarity=similarity,
            )
        )
    return hits


async def dense_search(
    points: QdrantPoints, owner: str | None, query: str, session: str | None, limit: int
) -> list[tuple[str, float]]:
    """Nearest memories by the dense vector: (memory id, cosine), best first."""
    if points.embedder is None:
        return []
    await points.collection.ensure()
    if not points.collection.has_dense:
        return []
    dense = (await points.embedder.embed([query]))[0].astype(float).tolist()
    must: list[models.Condition] = [match("vec_sig", points.signature or "")]
    if owner is not None:
        must.append(match("owner", owner))
    if session is not None:
        must.append(session_condition(session))
    name, flt = points.collection.name, models.Filter(must=must)
    response = await points.transport.call(
        "query_dense",
        lambda c: c.query_points(
            name,
            query=dense,
            using=DENSE,
            query_filter=flt,
            limit=limit,
            with_payload=["memory_id"],
        ),
    )
    return [
        (str((p.payload or {})["memory_id"]), float(p.score)) for p in response.points
    ]
