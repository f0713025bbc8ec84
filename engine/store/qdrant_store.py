"""Qdrant as memtap's shared memory store: one collection, one point per memory.

`QdrantMemoryStore` plays two roles over the same collection and point layout
(`engine/store/qdrant_payload.py`):

- **system of record** (the `RecordStore` methods): every memory operation the SQLite store's
  `engine/store/memories.py` + `fts.py` offer, with the same semantics (upsert on
  `(owner, key)`, `Live` visibility, supersession, listing, sweep, erase, export), and hybrid
  search that runs inside Qdrant (dense + sparse prefetch fused with RRF). Several memtap
  replicas pointed at one Qdrant server/cluster share one memory this way.
  `tests/test_store_contract.py` runs one suite against both stores.
- **vector tier** (`engine.store.protocol.VectorTier`: `search/upsert/delete/erase_owner/
  reindex/status/health/embedding/close`) for an engine that keeps its rows in SQLite.

Every call goes through `QdrantTransport` (timeouts, retries, `EngineError`s), so a Qdrant
outage surfaces as `QdrantUnavailable` and callers fail open.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np
from qdrant_client import AsyncQdrantClient, models

from config.schema import Config
from engine.api import EngineError, InvalidInput
from engine.embeddings.base import EmbeddingError, EmbeddingSource
from engine.metrics import Metrics
from engine.sparse import SparseVector, document_vector, query_vector
from engine.store.memories import Live, normalise_ts, validate_new
from engine.store.qdrant_collection import DENSE, SPARSE, Collection, Probe
from engine.store.qdrant_filters import (
    list_filter,
    live_filter,
    match,
    memory_ids_filter,
    owner_filter,
    session_condition,
)
from engine.store.qdrant_payload import (
    id_point,
    iso_to_ts,
    memory_to_payload,
    payload_to_memory,
    point_id,
)
from engine.store.qdrant_transport import (
    QdrantTransport,
    QdrantUnavailable,
    open_transport,
)
from engine.types import (
    MEMORY_TYPES,
    Hit,
    ListQuery,
    Memory,
    MemoryPatch,
    NewMemory,
    Page,
    estimate_tokens,
)

log = logging.getLogger("memtap.store.qdrant")

T = TypeVar("T")

PAGE = 256
OWNERS_FACET_MAX = 100_000
EMBED_BATCH = 64


def merge_patch(target: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """RFC 7386 JSON merge patch (what SQLite's `json_patch` does to metadata on upsert)."""
    out = dict(target)
    for name, value in patch.items():
        if value is None:
            out.pop(name, None)
        elif isinstance(value, dict) and isinstance(out.get(name), dict):
            out[name] = merge_patch(out[name], value)
        else:
            out[name] = value
    return out


def _to_qdrant_sparse(vector: SparseVector) -> models.SparseVector:
    return models.SparseVector(indices=list(vector.indices), values=list(vector.values))


def _document_text(memory: Memory) -> str:
    # The keyword tier indexes content and key; so does the sparse vector.
    return memory.content if memory.key is None else f"{memory.content} {memory.key}"


class QdrantMemoryStore:
    """One collection; safe to share between Engine instances (and replicas) in one process."""

    name = "qdrant"

    def __init__(
        self,
        transport: QdrantTransport,
        collection: str,
        embedder: EmbeddingSource | None,
        metrics: Metrics | None = None,
        *,
        rrf_k: int = 60,
        owns_transport: bool = True,
    ) -> None:
        self.transport = transport
        self.embedder = embedder
        self.metrics = metrics
        self.rrf_k = rrf_k
        self.collection = Collection(
            transport,
            collection,
            embedder.dim if embedder else None,
            embedder.signature if embedder else None,
        )
        self._owns_transport = owns_transport
        self._last_probe: Probe | None = None

    def replace_transport(
        self, transport: QdrantTransport, *, owns_transport: bool = False
    ) -> None:
        """Talk to Qdrant through another client from now on (a reconnect after the
        `vector_store.qdrant` settings changed); the collection is re-checked on next use."""
        self.transport = transport
        self._owns_transport = owns_transport
        self.collection = Collection(
            transport,
            self.collection.name,
            self.collection.dim,
            self.collection.signature,
        )

    @property
    def signature(self) -> str | None:
        return self.embedder.signature if self.embedder else None

    async def _call(
        self, op: str, fn: Callable[[AsyncQdrantClient], Awaitable[T]]
    ) -> T:
        await self.collection.ensure()
        return await self.transport.call(op, fn)

    # -- writing points ---------------------------------------------------------------
    async def _write(
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
        dense = await self._embed_many([_document_text(m) for _, m, _ in items])
        points: list[models.PointStruct] = []
        for i, (pid, memory, subject) in enumerate(items):
            vector: dict[str, Any] = {}
            sparse = document_vector(_document_text(memory))
            if len(sparse):
                vector[SPARSE] = _to_qdrant_sparse(sparse)
            if dense is not None:
                vector[DENSE] = dense[i]
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
            await self.transport.call(
                "delete_moved",
                lambda c: c.delete(
                    name, points_selector=models.FilterSelector(filter=stale), wait=True
                ),
            )
        return dense is not None

    async def _embed_many(self, texts: list[str]) -> list[list[float]] | None:
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

    async def _scroll(
        self, flt: models.Filter, limit: int, order_desc: str | None = None
    ) -> list[models.Record]:
        name = self.collection.name
        order = (
            models.OrderBy(key=order_desc, direction=models.Direction.DESC)
            if order_desc
            else None
        )
        records, _ = await self._call(
            "scroll",
            lambda c: c.scroll(
                name, scroll_filter=flt, limit=limit, order_by=order, with_payload=True
            ),
        )
        return list(records)

    async def _find(self, memory_id: str) -> models.Record | None:
        # Keyless memories sit at their id's point: one lookup. Keyed ones are found by the
        # (indexed) memory_id payload field.
        name, pid = self.collection.name, id_point(memory_id)
        records = await self._call(
            "retrieve", lambda c: c.retrieve(name, ids=[pid], with_payload=True)
        )
        if records and (records[0].payload or {}).get("memory_id") == memory_id:
            return records[0]
        found = await self._scroll(memory_ids_filter([memory_id]), 1)
        return found[0] if found else None

    async def _at_point(self, owner: str, key: str) -> models.Record | None:
        pid = point_id(owner, key, "")
        name = self.collection.name
        records = await self._call(
            "retrieve", lambda c: c.retrieve(name, ids=[pid], with_payload=True)
        )
        return records[0] if records else None

    async def _key_free(self, owner: str, key: str | None, memory_id: str) -> None:
        if key is None:
            return
        holder = await self._at_point(owner, key)
        if holder is not None and (holder.payload or {}).get("memory_id") != memory_id:
            raise InvalidInput(
                "another memory of this owner already has that key", "key"
            )

    # -- system of record ---------------------------------------------------------------
    async def upsert_memory(
        self, new: NewMemory, now: str, subject: str | None = None
    ) -> tuple[Memory, bool]:
        """Insert, or update the memory with the same id or the same (owner, key); a re-stated
        superseded memory becomes live again. Returns (memory, created)."""
        validate_new(new)
        expires = normalise_ts(new.expires_at, "expires_at") if new.expires_at else None
        created_at = (
            normalise_ts(new.created_at, "created_at") if new.created_at else now
        )
        updated_at = (
            normalise_ts(new.updated_at, "updated_at") if new.updated_at else now
        )
        # Only an import sets these (history stays history); anything else re-states the memory.
        valid_to = (
            normalise_ts(new.valid_to, "valid_to")
            if new.superseded_by and new.valid_to
            else None
        )
        existing = await self._find(new.id) if new.id else None
        if existing is None and new.key is not None:
            existing = await self._at_point(new.owner, new.key)
        if existing is None:
            memory = Memory(
                id=new.id or str(uuid.uuid4()),
                owner=new.owner,
                session=new.session,
                type=new.type,
                key=new.key,
                content=new.content,
                metadata=dict(new.metadata),
                created_at=created_at,
                updated_at=updated_at,
                expires_at=expires,
                superseded_by=new.superseded_by,
                valid_to=valid_to,
            )
            pid = point_id(memory.owner, memory.key, memory.id)
            if new.key is None:
                await self._write([(pid, memory, subject)])
                return memory, True
            # Insert-only on the key's point: when another replica inserted the same key
            # between our read and this write, theirs stays and we merge into it below, so
            # both replicas end up with one memory and one id.
            await self._write([(pid, memory, subject)], insert_only=True)
            existing = await self._at_point(new.owner, new.key)
            if (
                existing is None
                or (existing.payload or {}).get("memory_id") == memory.id
            ):
                return memory, True
        payload = existing.payload or {}
        old = payload_to_memory(payload)
        key = new.key if new.id is not None and old.id == new.id else old.key
        if key != old.key:
            await self._key_free(old.owner, key, old.id)
        memory = replace(
            old,
            session=new.session,
            type=new.type,
            key=key,
            content=new.content,
            metadata=merge_patch(old.metadata, new.metadata),
            updated_at=updated_at,
            expires_at=expires,
            superseded_by=new.superseded_by,
            valid_to=valid_to,
        )
        pid = point_id(memory.owner, memory.key, memory.id)
        await self._write(
            [(pid, memory, subject or payload.get("subject"))],
            moved=pid != str(existing.id),
        )
        return memory, False

    async def get_memory(self, memory_id: str) -> Memory | None:
        record = await self._find(memory_id)
        return payload_to_memory(record.payload or {}) if record else None

    async def update_memory(
        self, memory_id: str, patch: MemoryPatch, now: str
    ) -> Memory | None:
        record = await self._find(memory_id)
        if record is None:
            return None
        payload = record.payload or {}
        old = payload_to_memory(payload)
        memory = old
        if patch.content is not None:
            if not patch.content.strip() or len(patch.content) > 20_000:
                raise InvalidInput("content must be 1..20000 characters", "content")
            memory = replace(memory, content=patch.content)
        if patch.type is not None:
            if patch.type not in MEMORY_TYPES:
                raise InvalidInput(
                    f"type must be one of {', '.join(MEMORY_TYPES)}", "type"
                )
            memory = replace(memory, type=patch.type)
        if patch.key is not None:
            memory = replace(memory, key=patch.key or None)
            await self._key_free(memory.owner, memory.key, memory.id)
        if patch.session is not None:
            memory = replace(memory, session=patch.session or None)
        if patch.metadata is not None:
            memory = replace(memory, metadata=dict(patch.metadata))
        if patch.clear_expires_at:
            memory = replace(memory, expires_at=None)
        elif patch.expires_at is not None:
            memory = replace(
                memory, expires_at=normalise_ts(patch.expires_at, "expires_at")
            )
        memory = replace(memory, updated_at=now)
        pid = point_id(memory.owner, memory.key, memory.id)
        if memory.content == old.content and pid == str(record.id):
            await self._overwrite_payload(record.id, memory, payload)
        else:
            await self._write(
                [(pid, memory, payload.get("subject"))], moved=pid != str(record.id)
            )
        return memory

    async def _overwrite_payload(
        self, pid: models.ExtendedPointId, memory: Memory, old: dict[str, Any]
    ) -> None:
        payload = memory_to_payload(memory, old.get("vec_sig"))
        payload["subject"] = old.get("subject")
        name = self.collection.name
        await self._call(
            "overwrite_payload",
            lambda c: c.overwrite_payload(
                name, payload=payload, points=[pid], wait=True
            ),
        )

    async def delete_memory(self, memory_id: str) -> bool:
        if await self._find(memory_id) is None:
            return False
        await self.delete([memory_id])
        return True

    async def supersede(
        self, owner: str, subject: str, new_id: str, now: str
    ) -> list[str]:
        """Mark the owner's other live memories about `subject` as superseded by `new_id`."""
        flt = models.Filter(
            must=[
                match("owner", owner),
                match("subject", subject),
                match("superseded", False),
            ],
            must_not=[match("memory_id", new_id)],
        )
        ids = [
            str((r.payload or {})["memory_id"]) for r in await self._scroll(flt, 1000)
        ]
        if ids:
            name = self.collection.name
            change = {
                "superseded_by": new_id,
                "valid_to": now,
                "superseded": True,
                "valid_to_ts": iso_to_ts(now),
                "live_until_ts": 0.0,
            }
            await self._call(
                "set_payload",
                lambda c: c.set_payload(
                    name, payload=change, points=memory_ids_filter(ids), wait=True
                ),
            )
        return ids

    async def recent(self, live: Live, limit: int) -> list[Memory]:
        records = await self._scroll(
            live_filter(live), limit, order_desc="updated_at_ts"
        )
        return [payload_to_memory(r.payload or {}) for r in records]

    async def keyword(
        self, query: str, live: Live, limit: int
    ) -> list[tuple[Memory, float]]:
        """Sparse (BM25-style) matches, best first, with Qdrant's score (higher is better)."""
        sparse = query_vector(query)
        if not len(sparse):
            return []
        name, flt = self.collection.name, live_filter(live)
        response = await self._call(
            "query_sparse",
            lambda c: c.query_points(
                name,
                query=_to_qdrant_sparse(sparse),
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
        self, query: str, live: Live, limit: int, min_similarity: float
    ) -> list[Hit]:
        """Dense and sparse candidates fused by RRF inside Qdrant: ONE query whose two prefetch
        arms share the visibility filter (the dense arm also requires the current embedding
        signature). The hits come back with their vectors, so the relevance floor is applied
        here: a hit stays when it shares a keyword with the query (sparse overlap) or its
        cosine reaches `min_similarity`. `fts_rank`/`vec_rank` rank the fused hits by those
        two signals."""
        sparse = query_vector(query)
        dense = await self._embed_query(query)
        prefetch: list[models.Prefetch] = []
        if dense is not None:
            prefetch.append(
                models.Prefetch(
                    query=dense,
                    using=DENSE,
                    limit=limit,
                    filter=models.Filter(must=[match("vec_sig", self.signature or "")]),
                )
            )
        if len(sparse):
            prefetch.append(
                models.Prefetch(
                    query=_to_qdrant_sparse(sparse), using=SPARSE, limit=limit
                )
            )
        if not prefetch:
            return []
        name, flt = self.collection.name, live_filter(live)
        # The top-level filter is propagated into every prefetch by Qdrant.
        response = await self._call(
            "query_hybrid",
            lambda c: c.query_points(
                name,
                prefetch=prefetch,
                query=models.RrfQuery(rrf=models.Rrf(k=self.rrf_k)),
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
                and (point.payload or {}).get("vec_sig") == self.signature
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

    async def _embed_query(self, query: str) -> list[float] | None:
        """The query's dense vector, or None: no source, or it failed (keyword arm only)."""
        await self.collection.ensure()
        if self.embedder is None or not self.collection.has_dense:
            return None
        try:
            return [float(x) for x in (await self.embedder.embed([query]))[0]]
        except EmbeddingError as exc:
            log.warning(
                "qdrant.query_embed_failed", extra={"fields": {"cause": exc.cause}}
            )
            if self.metrics is not None:
                self.metrics.memory_fallbacks.inc(f"qdrant_{exc.cause}")
            return None

    async def list_page(self, query: ListQuery) -> Page:
        """Admin listing: newest first, with total (offset paging, as the admin API uses)."""
        flt = list_filter(query)
        name = self.collection.name
        total = await self._call(
            "count", lambda c: c.count(name, count_filter=flt, exact=True)
        )
        records = await self._scroll(
            flt, query.offset + query.limit, order_desc="created_at_ts"
        )
        items = tuple(
            payload_to_memory(r.payload or {}) for r in records[query.offset :]
        )
        return Page(items=items, total=int(total.count))

    async def export_owner(self, owner: str) -> AsyncIterator[Memory]:
        name, flt = self.collection.name, owner_filter(owner)
        offset: models.ExtendedPointId | None = None
        while True:

            async def page(
                c: AsyncQdrantClient, start: models.ExtendedPointId | None = offset
            ) -> tuple[list[models.Record], models.ExtendedPointId | None]:
                return await c.scroll(
                    name, scroll_filter=flt, limit=PAGE, offset=start, with_payload=True
                )

            records, offset = await self._call("scroll", page)
            for record in records:
                yield payload_to_memory(record.payload or {})
            if offset is None:
                return

    async def sweep(self, now: str, cutoff: str | None, limit: int = 5000) -> list[str]:
        """Really delete expired and out-of-retention memories; returns their ids."""
        should: list[models.Condition] = [
            models.FieldCondition(
                key="expires_at_ts", range=models.Range(lte=iso_to_ts(now))
            )
        ]
        if cutoff is not None:
            should.append(
                models.FieldCondition(
                    key="updated_at_ts", range=models.Range(lt=iso_to_ts(cutoff))
                )
            )
        ids = [
            str((r.payload or {})["memory_id"])
            for r in await self._scroll(models.Filter(should=should), limit)
        ]
        if ids:
            await self.delete(ids)
        return ids

    async def count(self, flt: models.Filter | None = None) -> int:
        name = self.collection.name
        result = await self._call(
            "count", lambda c: c.count(name, count_filter=flt, exact=True)
        )
        return int(result.count)

    async def counts(self, now: str) -> dict[str, Any]:
        by_type = {
            t: await self.count(
                models.Filter(must=[match("type", t), match("superseded", False)])
            )
            for t in MEMORY_TYPES
        }
        superseded = await self.count(models.Filter(must=[match("superseded", True)]))
        expired = await self.count(
            models.Filter(
                must=[
                    models.FieldCondition(
                        key="expires_at_ts", range=models.Range(lte=iso_to_ts(now))
                    )
                ]
            )
        )
        stale = (
            models.Filter(must_not=[match("vec_sig", self.signature)])
            if self.signature
            else None
        )
        pending = (
            await self.count(stale)
            if stale is not None and self.collection.has_dense
            else 0
        )
        name = self.collection.name
        owners = await self._call(
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

    # -- vector tier (engine.store.protocol.VectorTier) ---------------------------------------
    async def search(
        self, owner: str | None, query: str, session: str | None, limit: int
    ) -> list[tuple[str, float]]:
        """Nearest memories by the dense vector: (memory id, cosine), best first."""
        if self.embedder is None:
            return []
        await self.collection.ensure()
        if not self.collection.has_dense:
            return []
        dense = (await self.embedder.embed([query]))[0].astype(float).tolist()
        must: list[models.Condition] = [match("vec_sig", self.signature or "")]
        if owner is not None:
            must.append(match("owner", owner))
        if session is not None:
            must.append(session_condition(session))
        name, flt = self.collection.name, models.Filter(must=must)
        response = await self.transport.call(
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
            (str((p.payload or {})["memory_id"]), float(p.score))
            for p in response.points
        ]

    async def upsert(self, memories: Sequence[Memory]) -> None:
        """Vector-tier write: SQLite keeps one row per (owner, key) and stable ids, so each
        memory's point is simply its id (no key-change bookkeeping)."""
        await self._write([(id_point(m.id), m, None) for m in memories])

    async def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        name, flt = self.collection.name, memory_ids_filter(list(ids))
        await self._call(
            "delete",
            lambda c: c.delete(
                name, points_selector=models.FilterSelector(filter=flt), wait=True
            ),
        )

    async def erase_owner(self, owner: str) -> int:
        """Delete every point of `owner`; returns how many there were (counted first)."""
        flt = owner_filter(owner)
        removed = await self.count(flt)
        if removed:
            name = self.collection.name
            await self._call(
                "erase_owner",
                lambda c: c.delete(
                    name, points_selector=models.FilterSelector(filter=flt), wait=True
                ),
            )
        log.info(
            "qdrant.owner_erased", extra={"fields": {"owner": owner, "points": removed}}
        )
        return removed

    async def reindex(self, limit: int | None, force: bool) -> dict[str, Any]:
        """Re-embed points whose dense vector is missing or from another embedding source."""
        if self.embedder is None:
            return {
                "started": False,
                "reason": "no embedding source",
                "done": 0,
                "pending": 0,
            }
        await self.collection.ensure()
        signature = self.embedder.signature
        stale = None if force else models.Filter(must_not=[match("vec_sig", signature)])
        done = 0
        budget = limit if limit is not None else 1 << 62
        offset: models.ExtendedPointId | None = None
        name = self.collection.name
        while done < budget:
            # Without `force` the stale set shrinks as we go, so each batch starts from the top.
            batch = min(EMBED_BATCH, budget - done)

            async def page(
                c: AsyncQdrantClient,
                start: models.ExtendedPointId | None = offset,
                size: int = batch,
            ) -> tuple[list[models.Record], models.ExtendedPointId | None]:
                return await c.scroll(
                    name,
                    scroll_filter=stale,
                    limit=size,
                    offset=start,
                    with_payload=True,
                )

            records, next_offset = await self.transport.call("scroll", page)
            if not records:
                break
            pairs = [
                (
                    str(r.id),
                    payload_to_memory(r.payload or {}),
                    (r.payload or {}).get("subject"),
                )
                for r in records
            ]
            if not await self._write(pairs):
                return {
                    "started": True,
                    "done": done,
                    "error": "embedding failed",
                    "pending": len(pairs),
                }
            done += len(pairs)
            if force:
                if next_offset is None:
                    break
                offset = next_offset
        pending = await self.count(
            models.Filter(must_not=[match("vec_sig", signature)])
        )
        return {"started": True, "done": done, "pending": pending}

    async def probe(self) -> Probe:
        """Reachability and round-trip latency (for /readyz, health and engine-status)."""
        self._last_probe = await self.collection.probe()
        return self._last_probe

    async def status(self) -> dict[str, Any]:
        probe = await self.probe()
        out: dict[str, Any] = {
            "tier": "qdrant",
            "mode": self.transport.mode,
            "collection": self.collection.name,
            "healthy": probe.ok,
            "latency_ms": probe.latency_ms,
            "embedding": self.signature,
            "dense": self.collection.has_dense,
        }
        if not probe.ok:
            out["error"] = probe.error
            return out
        try:
            out.update(await self.collection.describe())
        except EngineError as exc:
            out["error"] = str(exc)
        return out

    def health(self) -> str:
        if self.transport.last_error is not None:
            return f"degraded: qdrant {self.transport.last_error}"
        return "qdrant"

    def embedding(self) -> str:
        return self.signature or "none"

    async def close(self) -> None:
        if self._owns_transport:
            await self.transport.close()


async def open_qdrant_store(
    config: Config,
    embedder: EmbeddingSource | None,
    metrics: Metrics | None = None,
    *,
    transport: QdrantTransport | None = None,
) -> QdrantMemoryStore:
    """Build the store from `vector_store.qdrant` and try to prepare the collection.

    A vector-size mismatch raises (`QdrantCollectionMismatch`, a ConfigError naming
    `vector_store.qdrant.collection`); Qdrant being down does not: memtap starts, fails open,
    and creates the collection on the first call that reaches Qdrant. Pass `transport` to
    share one client between engines (they then share the collection)."""
    owns = transport is None
    if transport is None:
        transport = await open_transport(config.vector_store.qdrant)
    store = QdrantMemoryStore(
        transport,
        config.vector_store.qdrant.collection,
        embedder,
        metrics,
        rrf_k=config.memory.rrf_k,
        owns_transport=owns,
    )
    try:
        await store.collection.ensure()
    except QdrantUnavailable as exc:
        log.warning("qdrant.start_unavailable", extra={"fields": {"error": str(exc)}})
    except BaseException:
        if owns:
            await transport.close()
        raise
    return store
