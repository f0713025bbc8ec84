"""Retrieval: strategy dispatch, scope, filters, relevance floor, ranking and the budget walk,
once for every store: the candidates come from the ports (`RecordStore.keyword` / `recent`,
`VectorIndex.search`), the ranking is here.

One code path serves the proxy and `retrieve-preview` (`side_effects=False` only turns off
metrics here; lazy backfill belongs to the vector index and is skipped too).

Rules every strategy obeys:
- scope: `session` = only memories of the request's session (memories with no session when
  the request has none); `owner` = every memory of the owner; `global` = every owner's
  memories — cross-owner by explicit configuration only (`memory.scope: global`);
- expiry (`expires_at`), `retention_days` (counted from `updated_at`, the last time a memory
  was written or re-stated) and supersession are enforced by the record store's `Live`
  filter on every path, including vector hits (returned live by the index, or re-read
  through `RecordStore.live_many`);
- relevance floor: `keyword`, `semantic` and `hybrid` return nothing unless the query had a
  keyword match (relevance > `min_score`) or a vector match (cosine >= `min_similarity`, or
  a short fact that clearly leads every other: `floor.py`);
  `recent` has no floor, only the budget;
- ties: the newer memory wins (`updated_at` desc); of two conflicting hits only the newer
  is returned, and questions about the present rank newer versions first (`present.py`);
- budget: `max_tokens` (1..16000) walked in rank order, at most `max_items`/`limit` hits.

With a vector index, `semantic` ranks by it and `hybrid` is RRF(keyword, vector) with
`rrf_k`; the keyword and vector searches run concurrently. When the index is absent or
failing (exception, or past its share of `retrieval_timeout_ms`: `deadline.py`), `semantic`
falls back to keyword and `hybrid` to RRF(keyword, recent), and `resolution["fallbacks"]`
says why. The same fallback is what a retrieval answers with when the caller's time limit
cuts it after the keyword leg (`partial.py`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from memtap.config.schema import MemoryConfig
from memtap.engine.claims import ClaimReader
from memtap.engine.fallbacks import NoVectors
from memtap.engine.memory_block import MemoryLine, line_tokens
from memtap.engine.memory_rules import Live
from memtap.engine.metrics import Metrics
from memtap.engine.ports import RecordStore, VectorIndex
from memtap.engine.retrieval.budget import walk
from memtap.engine.retrieval.coincidence import coincidences
from memtap.engine.retrieval.confidence import keyword_coverage
from memtap.engine.retrieval.deadline import RetrievalClock, vector_deadline_s
from memtap.engine.retrieval.floor import vector_floor
from memtap.engine.retrieval.gate import VectorGate
from memtap.engine.retrieval.hybrid import fuse
from memtap.engine.retrieval.partial import PartialAnswer
from memtap.engine.retrieval.plan import RetrievalPlan, plan_retrieval
from memtap.engine.retrieval.present import settle
from memtap.engine.types import (
    Hit,
    Memory,
    Retrieval,
    RetrievalRequest,
    Tier,
    reads_vectors,
)

log = logging.getLogger("memtap.retrieval")


@dataclass(frozen=True, slots=True)
class RetrievalContext:
    records: RecordStore
    config: MemoryConfig
    vectors: VectorIndex | None
    metrics: Metrics | None = None
    clock: RetrievalClock | None = None
    """When the engine took the request: the vector deadline counts from it."""
    gate: VectorGate | None = None
    """Whether the vector legs run (shared with the episodes' recall); None: this
    retrieval's own (`VectorGate.for_request`)."""
    own_vectors: Callable[[], Awaitable[object]] | None = None
    """Waits (bounded) for the vectors of the owner's just-completed turns: the vector leg
    calls it before searching, the keyword leg never waits for it."""
    partial: PartialAnswer | None = None
    """Where the keyword leg offers its answer, for the engine's time limit to take."""
    read_claim: ClaimReader | None = None
    """The claim of a hit that carries none in its metadata (older rows, admin writes)."""


@dataclass(frozen=True, slots=True)
class _VectorAnswer:
    candidates: list[_Candidate] | None
    """None: no vector ranking for this request (no index, or it failed)."""
    recent_fallback: bool = True
    """Whether `hybrid` fuses the recent ranking instead (not when the index has no
    vectors at all: then keywords alone answer, as the relevance floor wants)."""


@dataclass(slots=True)
class _Candidate:
    memory: Memory
    score: float
    tier: Tier
    fts_rank: int | None = None
    vec_rank: int | None = None
    similarity: float | None = None


async def _vector(
    ctx: RetrievalContext,
    gate: VectorGate,
    side_effects: bool,
    req: RetrievalRequest,
    live: Live,
    limit: int,
    resolution: dict[str, Any],
) -> _VectorAnswer:
    """Vector candidates above `min_similarity`, or None when the index is missing/failed
    or the keyword leg answered (`gate`)."""
    tier = ctx.vectors
    assert tier is not None  # _vector_at_once answered otherwise
    if not await gate.run_vectors():
        if gate.shed:
            return _shed(ctx, gate, resolution)
        return _VectorAnswer(None, recent_fallback=False)  # keywords alone answer
    started = time.perf_counter()
    deadline_s = vector_deadline_s(
        ctx.config, ctx.clock
    )  # a share: keywords still arrive
    try:
        if deadline_s <= 0:
            raise TimeoutError  # the wait for own writes took the vector leg's share
        # A timeout scope, not wait_for: no task of its own whose error could go
        # unretrieved when the retrieval is cancelled as it fails (episodes/recall.py).
        async with asyncio.timeout(deadline_s):
            found = await _vector_rows(ctx, tier, live, req.query, limit, side_effects)
    except NoVectors as exc:
        resolution["fallbacks"].append({"tier": "vector", "reason": str(exc)})
        return _VectorAnswer(None, recent_fallback=False)
    except Exception as exc:  # noqa: BLE001 - the vector tier is optional: fall back
        reason = (
            "timeout"
            if isinstance(exc, TimeoutError)
            else f"{type(exc).__name__}: {exc}"[:200]
        )
        resolution["fallbacks"].append({"tier": "vector", "reason": reason})
        if ctx.metrics is not None:
            ctx.metrics.memory_fallbacks.inc(
                "vector_timeout" if isinstance(exc, TimeoutError) else "vector_error"
            )
        return _VectorAnswer(None)
    resolution["timings_ms"]["vector"] = round(
        (time.perf_counter() - started) * 1000, 3
    )
    resolution["tiers"].append(tier.name)
    resolution["embedding"] = tier.embedding()
    tier_name: Tier = "qdrant" if tier.name == "qdrant" else "vector"
    good = vector_floor(found, ctx.config.min_similarity)
    return _VectorAnswer(
        [
            _Candidate(m, sim, tier_name, vec_rank=rank, similarity=sim)
            for rank, (m, sim) in enumerate(good, start=1)
        ]
    )


def _vector_at_once(
    ctx: RetrievalContext, gate: VectorGate, resolution: dict[str, Any]
) -> _VectorAnswer | None:
    """The vector leg's answer when it cannot run (no index; shed from the start), without a
    task: its result would come back an iteration or two of a late loop later."""
    if ctx.vectors is None:
        resolution["fallbacks"].append({"tier": "vector", "reason": "no vector tier"})
        return _VectorAnswer(None)
    if gate.shed:
        return _shed(ctx, gate, resolution)
    return None


def _shed(
    ctx: RetrievalContext, gate: VectorGate, resolution: dict[str, Any]
) -> _VectorAnswer:
    """Shed under load: what a missed vector deadline gives, without its cost."""
    resolution["fallbacks"].append({"tier": "vector", **(gate.skipped or {})})
    if ctx.metrics is not None:
        ctx.metrics.memory_fallbacks.inc("vector_shed")
    return _VectorAnswer(None)


async def _vector_rows(
    ctx: RetrievalContext,
    index: VectorIndex,
    live: Live,
    query: str,
    limit: int,
    backfill: bool,
) -> list[tuple[Memory, float]]:
    """The index's hits as live rows, best first: returned live by the index, or re-read
    through the record store's `Live` filter."""
    if ctx.own_vectors is not None:
        await ctx.own_vectors()
    found = await index.search(live, query, limit, backfill=backfill)
    rows = found.rows
    if rows is None:
        rows = await ctx.records.live_many([mid for mid, _ in found.ranked], live)
    return [(rows[mid], sim) for mid, sim in found.ranked if mid in rows]


async def retrieve(
    ctx: RetrievalContext, req: RetrievalRequest, *, side_effects: bool = True
) -> Retrieval:
    cfg = ctx.config
    started = time.perf_counter()
    plan = plan_retrieval(req, cfg)
    strategy = plan.strategy
    pool, live = plan.pool, plan.live
    resolution = {**plan.resolution(cfg), "store": ctx.records.name}

    candidates: list[_Candidate] = []
    if strategy == "recent":
        rows = await ctx.records.recent(live, pool)
        resolution["tiers"].append("recent")
        candidates = [
            _Candidate(m, 1.0 / (cfg.rrf_k + i), "recent")
            for i, m in enumerate(rows, start=1)
        ]
    else:
        # The vector search (embedding, KNN: hops through threads or the network) runs
        # beside the keyword search: the request waits for the slower one, not for the
        # sum — unless the gate waits for the keyword answer (memory.vector_skip_coverage).
        gate = (
            ctx.gate if ctx.gate is not None else VectorGate.for_request(strategy, cfg)
        )
        at_once = (
            _vector_at_once(ctx, gate, resolution) if reads_vectors(strategy) else None
        )
        vector_task = (
            asyncio.ensure_future(
                _vector(ctx, gate, side_effects, req, live, pool, resolution)
            )
            if reads_vectors(strategy) and at_once is None
            else None
        )
        t0 = time.perf_counter()
        recent_rows: list[Memory] | None = None
        try:
            # Hybrid reads the recent ranking in the same read as the keywords: when the
            # vector leg misses its deadline (or the limit cuts the retrieval) the fallback
            # needs no further read.
            if strategy == "hybrid":
                found, recent_rows = await ctx.records.keyword_and_recent(
                    req.query, live, pool
                )
            else:
                found = await ctx.records.keyword(req.query, live, pool)
        except BaseException:
            if vector_task is not None:
                vector_task.cancel()
            gate.decide(True)  # the episodes' vector arm may still answer
            raise
        kw = [(m, s) for m, s in found if s > cfg.min_score]
        resolution["timings_ms"]["keyword"] = round(
            (time.perf_counter() - t0) * 1000, 3
        )
        resolution["tiers"].insert(0, "keyword")
        kw_cands = [
            _Candidate(m, s, "keyword", fts_rank=i)
            for i, (m, s) in enumerate(kw, start=1)
        ]
        if gate.deferred:
            _decide(
                gate,
                req.query,
                kw_cands,
                cfg.vector_skip_coverage,
                # Without a vector index the facts rank as before (keyword + recent);
                # the gate still spares the episodes' query embedding.
                resolution if ctx.vectors is not None else {},
            )
        if vector_task is not None and ctx.partial is not None:
            task = vector_task
            ctx.partial.offer(
                "keyword",
                lambda: _keyword_answer(
                    ctx, req, plan, kw_cands, recent_rows, resolution, started, task
                ),
            )
        if vector_task is not None:
            answer = await vector_task
        else:
            answer = at_once or _VectorAnswer(None)
        candidates = _facts(
            ctx, strategy, kw_cands, answer, resolution, recent_rows, req.query
        )
    return _present(ctx, req, plan, candidates, resolution, started, side_effects)


def _keyword_answer(
    ctx: RetrievalContext,
    req: RetrievalRequest,
    plan: RetrievalPlan,
    kw_cands: list[_Candidate],
    recent_rows: list[Memory] | None,
    resolution: dict[str, Any],
    started: float,
    vector_task: asyncio.Future[_VectorAnswer],
) -> Retrieval:
    """The answer from the keyword leg, as when the vector leg misses its deadline (the
    time limit cut the retrieval before the vector leg's answer was taken; if it had come
    in already, it is used)."""
    # Copies: the cut retrieval's vector task may still add to the lists as it unwinds.
    cut: dict[str, Any] = {
        k: list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v
        for k, v in resolution.items()
    }
    if (
        vector_task.done()
        and not vector_task.cancelled()
        and vector_task.exception() is None
    ):
        answer = vector_task.result()
    else:
        skipped = "vector_skipped" in cut  # the keywords answer: no recent ranking
        answer = _VectorAnswer(None, recent_fallback=not skipped)
        if not skipped:
            fallbacks: list[dict[str, Any]] = cut["fallbacks"]
            fallbacks.append({"tier": "vector", "reason": "time_limit"})
    candidates = _facts(
        ctx,
        plan.strategy,
        [dataclasses.replace(c) for c in kw_cands],
        answer,
        cut,
        recent_rows,
        req.query,
    )
    return _present(ctx, req, plan, candidates, cut, started, side_effects=False)


def _facts(
    ctx: RetrievalContext,
    strategy: str,
    kw_cands: list[_Candidate],
    answer: _VectorAnswer,
    resolution: dict[str, Any],
    recent_rows: list[Memory] | None,
    query: str,
) -> list[_Candidate]:
    vec = answer.candidates
    if strategy == "keyword" or (strategy == "semantic" and vec is None):
        if strategy == "semantic":
            resolution["fallbacks"].append(
                {
                    "tier": "semantic",
                    "to": "keyword",
                    "reason": "vector unavailable",
                }
            )
        return kw_cands
    if strategy == "semantic":
        return vec or []
    return _hybrid(ctx, kw_cands, answer, resolution, recent_rows or [], query)


def _present(
    ctx: RetrievalContext,
    req: RetrievalRequest,
    plan: RetrievalPlan,
    candidates: list[_Candidate],
    resolution: dict[str, Any],
    started: float,
    side_effects: bool,
) -> Retrieval:
    # Two stable sorts: newest first, then by score, so newer wins among equal scores.
    ranked = sorted(candidates, key=lambda c: c.memory.updated_at, reverse=True)
    ranked.sort(key=lambda c: -c.score)
    settled = settle(
        [
            Hit(
                memory=c.memory,
                score=round(c.score, 6),
                tier=c.tier,
                tokens=line_tokens(
                    MemoryLine(
                        c.memory.content,
                        (c.memory.updated_at or c.memory.created_at)[:10] or None,
                    )
                ),
                fts_rank=c.fts_rank,
                vec_rank=c.vec_rank,
                similarity=c.similarity,
            )
            for c in ranked
        ],
        req.query,
        ctx.read_claim,
    )
    if settled.dropped:
        resolution["superseded_by_newer"] = settled.dropped
    hits = walk(settled.hits, plan.budget, plan.max_items)
    elapsed_ms = (time.perf_counter() - started) * 1000
    resolution["timings_ms"]["total"] = round(elapsed_ms, 3)
    resolution["candidates"] = len(ranked)
    if side_effects and ctx.metrics is not None:
        ctx.metrics.retrieval_duration.observe(elapsed_ms, plan.strategy)
    return Retrieval(hits=tuple(hits), resolution=resolution)


def _decide(
    gate: VectorGate,
    query: str,
    kw: list[_Candidate],
    min_coverage: float,
    resolution: dict[str, Any],
) -> None:
    coverage = keyword_coverage(query, [c.memory.content for c in kw])
    run = coverage < min_coverage
    why = {
        "reason": "keyword_answers",
        "coverage": round(coverage, 3),
        "min_coverage": min_coverage,
    }
    gate.decide(run, why)
    if not run:
        resolution["vector_skipped"] = why


def _hybrid(
    ctx: RetrievalContext,
    kw: list[_Candidate],
    answer: _VectorAnswer,
    resolution: dict[str, Any],
    recent_rows: list[Memory],
    query: str,
) -> list[_Candidate]:
    """RRF of the keyword and vector rankings, or of keyword and recent ones (read in the
    keyword leg's hop) when the vector leg gave none."""
    vec = answer.candidates
    if vec is not None or "vector_skipped" in resolution:
        # Skipped because the keywords answer: a hit sharing only a generic verb with the
        # question is still a coincidence (none of them was found similar).
        similar = {c.memory.id for c in vec or []}
        dropped = coincidences(
            query,
            {c.memory.id: c.memory.content for c in kw if c.memory.id not in similar},
        )
        if dropped:
            resolution["keyword_coincidences"] = dropped
            kw = [c for c in kw if c.memory.id not in dropped]
    if not kw and not vec:
        return []  # relevance floor: nothing matched the query
    by_id: dict[str, _Candidate] = {}
    rankings: list[list[str]] = [[c.memory.id for c in kw]]
    for c in kw:
        by_id[c.memory.id] = c
    if vec is not None:
        rankings.append([c.memory.id for c in vec])
        for c in vec:
            prev = by_id.get(c.memory.id)
            if prev is not None:
                prev.vec_rank, prev.similarity = c.vec_rank, c.similarity
            else:
                by_id[c.memory.id] = c
    elif answer.recent_fallback:
        resolution["tiers"].append("recent")
        rankings.append([m.id for m in recent_rows])
        for m in recent_rows:
            by_id.setdefault(m.id, _Candidate(m, 0.0, "recent"))
    # Hits fused from both arms are "hybrid"; with Qdrant as the record store both arms
    # are Qdrant's, and every fused hit is labelled "qdrant" (the tier the store reports).
    fused: Tier = "qdrant" if ctx.records.name == "qdrant" else "hybrid"
    out = []
    for mid, score in fuse(rankings, ctx.config.rrf_k):
        c = by_id[mid]
        c.score = score
        if fused == "qdrant" or (c.fts_rank is not None and c.vec_rank is not None):
            c.tier = fused
        out.append(c)
    return out
