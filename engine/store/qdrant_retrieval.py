"""Retrieval when Qdrant is the system of record: the same rules as `engine/retrieval/retrieve.py`
(scope, expiry, retention, supersession, relevance floor, newer-first ties, token budget), with
the candidates coming from Qdrant: `hybrid` is one fused query inside Qdrant, `keyword` the
sparse arm, `semantic` the dense arm, `recent` an ordered scroll.

The proxy path is bounded by `memory.retrieval_timeout_ms`; a timeout or an outage raises an
EngineError and the proxy sends the request without memory (fail-open).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from memtap.config.schema import MemoryConfig
from memtap.engine.retrieval.budget import walk
from memtap.engine.retrieval.plan import plan_retrieval
from memtap.engine.store.memories import Live
from memtap.engine.store.qdrant_store import QdrantMemoryStore
from memtap.engine.store.qdrant_transport import QdrantUnavailable
from memtap.engine.types import Hit, Retrieval, RetrievalRequest, estimate_tokens


async def _candidates(
    store: QdrantMemoryStore,
    req: RetrievalRequest,
    strategy: str,
    live: Live,
    pool: int,
    cfg: MemoryConfig,
    resolution: dict[str, Any],
) -> list[Hit]:
    if strategy == "recent":
        rows = await store.recent(live, pool)
        resolution["tiers"].append("recent")
        return [
            Hit(m, 1.0 / (cfg.rrf_k + i), "recent", estimate_tokens(m.content))
            for i, m in enumerate(rows, 1)
        ]
    if strategy == "keyword":
        found = await store.keyword(req.query, live, pool)
        resolution["tiers"].append("keyword")
        return [
            Hit(m, s, "keyword", estimate_tokens(m.content), fts_rank=i)
            for i, (m, s) in enumerate(found, 1)
            if s > cfg.min_score
        ]
    hits = await store.hybrid(req.query, live, pool, cfg.min_similarity)
    semantic_ok = store.embedder is not None and store.collection.has_dense
    resolution["tiers"].append("qdrant-hybrid" if semantic_ok else "qdrant-keyword")
    if not semantic_ok:
        resolution["fallbacks"].append(
            {"tier": "vector", "reason": "no dense vectors (no embedding source)"}
        )
    if strategy == "semantic":
        if not semantic_ok:
            return [h for h in hits if h.fts_rank is not None]
        dense = [
            h
            for h in hits
            if h.similarity is not None and h.similarity >= cfg.min_similarity
        ]
        return [
            Hit(
                h.memory,
                h.similarity or 0.0,
                "vector",
                h.tokens,
                vec_rank=h.vec_rank,
                similarity=h.similarity,
            )
            for h in dense
        ]
    return hits


async def retrieve_from_qdrant(
    store: QdrantMemoryStore, cfg: MemoryConfig, req: RetrievalRequest
) -> Retrieval:
    started = time.perf_counter()
    plan = plan_retrieval(req, cfg)
    strategy, budget, max_items = plan.strategy, plan.budget, plan.max_items
    pool, live = plan.pool, plan.live
    resolution = {**plan.resolution(cfg), "store": "qdrant"}
    timeout_s = cfg.retrieval_timeout_ms / 1000
    try:
        candidates = await asyncio.wait_for(
            _candidates(store, req, strategy, live, pool, cfg, resolution), timeout_s
        )
    except TimeoutError as exc:
        raise QdrantUnavailable(
            f"qdrant retrieval took over {cfg.retrieval_timeout_ms} ms"
        ) from exc
    ranked = sorted(
        candidates, key=lambda h: (-h.score, _newer_first(h.memory.updated_at))
    )
    hits = walk(
        [
            Hit(
                h.memory,
                round(h.score, 6),
                h.tier,
                h.tokens,
                h.fts_rank,
                h.vec_rank,
                h.similarity,
            )
            for h in ranked
        ],
        budget,
        max_items,
    )
    resolution["candidates"] = len(ranked)
    resolution["timings_ms"]["total"] = round((time.perf_counter() - started) * 1000, 3)
    return Retrieval(hits=tuple(hits), resolution=resolution)


def _newer_first(ts: str) -> tuple[int, ...]:
    return tuple(-ord(ch) for ch in ts)
