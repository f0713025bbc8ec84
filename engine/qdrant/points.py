"""The low-level side of the Qdrant store: one collection's points, read and written.

`QdrantPoints` owns what every store operation needs: calls through the transport once the
collection is ready, building points (payload + sparse vector + dense vector from the
embedding source), finding a memory's point by id or by (owner, key), and embedding queries.
A failing embedding source never fails a write: the point is stored without its dense vector
(`vec_sig` None) and `reindex` fills it in later.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from qdrant_client import AsyncQdrantClient, models

from memtap.engine.api import EngineError
from memtap.engine.embeddings.base import EmbeddingError, EmbeddingSource
from memtap.engine.embeddings.projected import embed_query
from memtap.engine.metrics import Metrics
from memtap.engine.qdrant.collection import DENSE, SPARSE, Collection
from memtap.engine.qdrant.filters import memory_ids_filter
from memtap.engine.qdrant.payload import id_point, memory_to_payload, point_id
from memtap.engine.qdrant.sparse import SparseVector, document_vector
from memtap.engine.qdrant.transport import QdrantTransport
from memtap.engine.types import Memory

log = logging.getLogger("memtap.store.qdrant")

T = TypeVar("T")

EMBED_BATCH = 64


def to_qdrant_sparse(vector: SparseVector) -> models.SparseVector:
    return models.SparseVector(indices=list(vector.indices), values=list(vector.values))


def point_vectors(text: str, dense: list[float] | None) -> dict[str, Any]:
    """A point's named vectors: the sparse one of `text` (none when it has no token) and
    `dense` when there is one."""
    vector: dict[str, Any] = {}
    sparse = document_vector(text)
    if len(sparse):
        vector[SPARSE] = to_qdrant_sparse(sparse)
    if dense is not None:
        vector[DENSE] = dense
    return vector


def document_text(memory: Memory) -> str:
    # The keyword tier indexes content and key; so does the sparse vector.
    return memory.content if memory.key is None else f"{memory.content} {memory.key}"


class QdrantPoints:
    def __init__(
        self,
        transport: QdrantTransport,
        collection: Collection,
        embedder: EmbeddingSource | None,
        metrics: Metrics | None,
    ) -> None:
        self.transport = transport
        self.collection = collection
        self.embedder = embedder
        self.metrics = metrics

    @property
    def signature(self) -> str | None:
        return self.embedder.signature if self.embedder else None

    async def call(self, op: str, fn: Callable[[AsyncQdrantClient], Awaitable[T]]) -> T:
        """`fn(client)` once the collection exists and matches (first call creates it)."""
        await self.collection.ensure()
        return await self.transport.call(op, fn)

    async def nearest(
        self,
        op: str,
        query: list[float] | models.SparseVector,
        flt: models.Filter,
        limit: int,
        payload: bool | list[str] = True,
    ) -> list[models.ScoredPoint]:
        """The points `flt` keeps nearest to `query` (a dense vector, or memtap's sparse
        keyword vector), best first, with their payloads (`payload`: all, or these keys)."""
        name = self.collection.name
        using = SPARSE if isinstance(query, models.SparseVector) else DENSE
        response = await self.call(
            op,
            lambda c: c.query_points(
                name,
                query=query,
                using=using,
                query_filter=flt,
                limit=limit,
                with_payload=payload,
            ),
        )
        return list(response.points)

    async def delete_where(
        self, op: str, flt: models.Filter, *, strong: bool = True
    ) -> None:
        """Delete the points `flt` matches and wait until it is applied. `strong`: ordered
        through the leader after every earlier write (the record stores read their own
        deletes back at once; the episode store has always sent its deletes unordered)."""
        name = self.collection.name
        ordering = models.WriteOrdering.STRONG if strong else None
        await self.call(
            op,
            lambda c: c.delete(
                name,
                points_selector=models.FilterSelector(filter=flt),
                wait=True,
                ordering=ordering,
            ),
        )

    async def write(
        self,
        items: Sequence[tuple[str, Memory, str | None]],
        *,
        insert_only: bool = False,
        moved: bool = False,
    ) -> bool:
        """Upsert (point id, memory, subject) items with both vectors. `moved`: a memory now
        lives at another point (its key changed), so its older point is removed. Returns
        whether dense vectors were stored (False: no source, or it failed; reindex fills them)."""
        if not items:
            return False
        await self.collection.ensure()
        dense = await self.embed_many([document_text(m) for _, m, _ in items])
        points: list[models.PointStruct] = []
        for i, (pid, memory, subject) in enumerate(items):
            vector = point_vectors(
                document_text(memory), dense[i] if dense is not None else None
            )
            payload = memory_to_payload(
                memory, self.signature if dense is not None else None
            )
            payload["subject"] = subject
            points.append(models.PointStruct(id=pid, vector=vector, payload=payload))
        name = self.collection.name
        mode = models.UpdateMode.INSERT_ONLY if insert_only else None
        await self.transport.call(
            "upsert",
            lambda c: c.upsert(
                name,
                points=points,
                wait=True,
                ordering=models.WriteOrdering.STRONG,
                update_mode=mode,
            ),
        )
        if moved:
            stale = models.Filter(
                must=memory_ids_filter([m.id for _, m, _ in items]).must,
                must_not=[models.HasIdCondition(has_id=[p.id for p in points])],
            )
            await self.delete_where("delete_moved", stale)
        return dense is not None

    async def embed_many(self, texts: list[str]) -> list[list[float]] | None:
        if self.embedder is None or not self.collection.has_dense:
            return None
        try:
            rows: list[list[float]] = []
            for start in range(0, len(texts), EMBED_BATCH):
                matrix = await self.embedder.embed(texts[start : start + EMBED_BATCH])
                rows.extend(matrix.astype(float).tolist())
            return rows
        except EmbeddingError as exc:
            log.warning(
                "qdrant.embed_failed",
                extra={"fields": {"cause": exc.cause, "count": len(texts)}},
            )
            if self.metrics is not None:
                self.metrics.memory_fallbacks.inc(f"qdrant_{exc.cause}")
            return None

    async def scroll(
        self, flt: models.Filter, limit: int, order_desc: str | None = None
    ) -> list[models.Record]:
        name = self.collection.name
        order = (
            models.OrderBy(key=order_desc, direction=models.Direction.DESC)
            if order_desc
            else None
        )
        records, _ = await self.call(
            "scroll",
            lambda c: c.scroll(
                name, scroll_filter=flt, limit=limit, order_by=order, with_payload=True
            ),
        )
        return list(records)

    async def find(self, memory_id: str) -> models.Record | None:
        # Keyless memories sit at their id's point: one lookup. Keyed ones are found by the
        # (indexed) memory_id payload field.
        name, pid = self.collection.name, id_point(memory_id)
        records = await self.call(
            "retrieve", lambda c: c.retrieve(name, ids=[pid], with_payload=True)
        )
        if records and (records[0].payload or {}).get("memory_id") == memory_id:
            return records[0]
        found = await self.scroll(memory_ids_filter([memory_id]), 1)
        return found[0] if found else None

    async def at_key(self, owner: str, key: str) -> models.Record | None:
        pid = point_id(owner, key, "")
        name = self.collection.name
        records = await self.call(
            "retrieve", lambda c: c.retrieve(name, ids=[pid], with_payload=True)
        )
        return records[0] if records else None

    async def count(self, flt: models.Filter | None = None) -> int:
        name = self.collection.name
        result = await self.call(
            "count", lambda c: c.count(name, count_filter=flt, exact=True)
        )
        return int(result.count)

    async def embed_query(self, query: str) -> list[float] | None:
        """The query's dense vector, or None: no source, or it failed (keyword arm only)."""
        await self.collection.ensure()
        if self.embedder is None or not self.collection.has_dense:
            return None
        try:
            embedded = await embed_query(self.embedder, query)
            return [float(x) for x in embedded.vector]
        except EmbeddingError as exc:
            log.warning(
                "qdrant.query_embed_failed", extra={"fields": {"cause": exc.cause}}
            )
            if self.metrics is not None:
                self.metrics.memory_fallbacks.inc(f"qdrant_{exc.cause}")
            return None


async def collection_status(points: QdrantPoints) -> dict[str, Any]:
    """engine-status details of one collection: reachability, latency, points, vectors."""
    probe = await points.collection.probe()
    out: dict[str, Any] = {
        "tier": "qdrant",
        "mode": points.transport.mode,
        "collection": points.collection.name,
        "healthy": probe.ok,
        "latency_ms": probe.latency_ms,
        "embedding": points.signature,
        "dense": points.collection.has_dense,
    }
    if not probe.ok:
        out["error"] = probe.error
        return out
    try:
        out.update(await points.collection.describe())
    except EngineError as exc:
        out["error"] = str(exc)
    return out
