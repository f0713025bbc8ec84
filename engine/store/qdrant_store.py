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

import functools
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from qdrant_client import AsyncQdrantClient, models

from memtap.config.schema import Config
from memtap.engine import summarize as summarizer
from memtap.engine.api import EngineError, InvalidInput
from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.limits import MAX_CONTENT_CHARS
from memtap.engine.metrics import Metrics
from memtap.engine.store import qdrant_search, qdrant_tier
from memtap.engine.store.database import Database
from memtap.engine.store.memories import Live, normalise_ts, validate_new
from memtap.engine.store.qdrant_collection import Collection, Probe
from memtap.engine.store.qdrant_filters import (
    list_filter,
    match,
    memory_ids_filter,
    owner_filter,
)
from memtap.engine.store.qdrant_payload import (
    id_point,
    iso_to_ts,
    memory_to_payload,
    payload_to_memory,
    point_id,
)
from memtap.engine.store.qdrant_points import QdrantPoints
from memtap.engine.store.qdrant_transport import (
    QdrantTransport,
    QdrantUnavailable,
    open_transport,
)
from memtap.engine.types import (
    MEMORY_TYPES,
    Hit,
    ListQuery,
    Memory,
    MemoryPatch,
    NewMemory,
    Page,
)

log = logging.getLogger("memtap.store.qdrant")

PAGE = 256
OWNERS_FACET_MAX = 100_000
REINDEX_BATCH = 64


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
        database: Database | None = None,
    ) -> None:
        self.metrics = metrics
        self.database = database
        """Set in vector-tier mode (rows in SQLite): reindex bookkeeping lives there."""
        self.rrf_k = rrf_k
        self.points = QdrantPoints(
            transport,
            Collection(
                transport,
                collection,
                embedder.dim if embedder else None,
                embedder.signature if embedder else None,
            ),
            embedder,
            metrics,
        )
        self._owns_transport = owns_transport

    def replace_transport(
        self, transport: QdrantTransport, *, owns_transport: bool = False
    ) -> None:
        """Talk to Qdrant through another client from now on (a reconnect after the
        `vector_store.qdrant` settings changed); the collection is re-checked on next use."""
        old = self.points.collection
        collection = Collection(transport, old.name, old.dim, old.signature)
        self.points = QdrantPoints(transport, collection, self.embedder, self.metrics)
        self._owns_transport = owns_transport

    @property
    def transport(self) -> QdrantTransport:
        return self.points.transport

    @property
    def collection(self) -> Collection:
        return self.points.collection

    @property
    def embedder(self) -> EmbeddingSource | None:
        return self.points.embedder

    @property
    def signature(self) -> str | None:
        return self.points.signature

    async def _key_free(self, owner: str, key: str | None, memory_id: str) -> None:
        if key is None:
            return
        holder = await self.points.at_key(owner, key)
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
        existing = await self.points.find(new.id) if new.id else None
        if existing is None and new.key is not None:
            existing = await self.points.at_key(new.owner, new.key)
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
                await self.points.write([(pid, memory, subject)])
                return memory, True
            # Insert-only on the key's point: when another replica inserted the same key
            # between our read and this write, theirs stays and we merge into it below, so
            # both replicas end up with one memory and one id.
            await self.points.write([(pid, memory, subject)], insert_only=True)
            existing = await self.points.at_key(new.owner, new.key)
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
        await self.points.write(
            [(pid, memory, subject or payload.get("subject"))],
            moved=pid != str(existing.id),
        )
        return memory, False

    async def get_memory(self, memory_id: str) -> Memory | None:
        record = await self.points.find(memory_id)
        return payload_to_memory(record.payload or {}) if record else None

    async def update_memory(
        self, memory_id: str, patch: MemoryPatch, now: str
    ) -> Memory | None:
        record = await self.points.find(memory_id)
        if record is None:
            return None
        payload = record.payload or {}
        old = payload_to_memory(payload)
        memory = old
        if patch.content is not None:
            if not patch.content.strip() or len(patch.content) > MAX_CONTENT_CHARS:
                raise InvalidInput(
                    f"content must be 1..{MAX_CONTENT_CHARS} characters", "content"
                )
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
            await self.points.write(
                [(pid, memory, payload.get("subject"))], moved=pid != str(record.id)
            )
        return memory

    async def _overwrite_payload(
        self, pid: models.ExtendedPointId, memory: Memory, old: dict[str, Any]
    ) -> None:
        payload = memory_to_payload(memory, old.get("vec_sig"))
        payload["subject"] = old.get("subject")
        name = self.collection.name
        await self.points.call(
            "overwrite_payload",
            lambda c: c.overwrite_payload(
                name, payload=payload, points=[pid], wait=True
            ),
        )

    async def delete_memory(self, memory_id: str) -> bool:
        if await self.points.find(memory_id) is None:
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
            str((r.payload or {})["memory_id"])
            for r in await self.points.scroll(flt, 1000)
        ]
        await self.mark_superseded(ids, new_id, now)
        return ids

    async def mark_superseded(self, ids: list[str], by: str, now: str) -> None:
        """`ids` are history from now on, replaced by memory `by`."""
        if not ids:
            return
        name = self.collection.name
        change = {
            "superseded_by": by,
            "valid_to": now,
            "superseded": True,
            "valid_to_ts": iso_to_ts(now),
            "live_until_ts": 0.0,
        }
        await self.points.call(
            "set_payload",
            lambda c: c.set_payload(
                name, payload=change, points=memory_ids_filter(ids), wait=True
            ),
        )

    async def summary_candidates(
        self, cutoff: str, owner: str | None, limit: int = 1000
    ) -> list[Memory]:
        """Live memories last written before `cutoff` that `summarize` would compact."""
        must: list[models.Condition] = [
            match("superseded", False),
            models.FieldCondition(
                key="updated_at_ts", range=models.Range(lt=iso_to_ts(cutoff))
            ),
        ]
        if owner is not None:
            must.append(match("owner", owner))
        records = await self.points.scroll(models.Filter(must=must), limit)
        found = [payload_to_memory(r.payload or {}) for r in records]
        return sorted(
            (m for m in found if summarizer.is_candidate(m)), key=lambda m: m.updated_at
        )

    async def make_live(self, memory_id: str) -> Memory | None:
        """Clear a memory's supersession (undoing a compaction); None when it is gone."""
        record = await self.points.find(memory_id)
        if record is None:
            return None
        payload = record.payload or {}
        memory = replace(payload_to_memory(payload), superseded_by=None, valid_to=None)
        await self._overwrite_payload(record.id, memory, payload)
        return memory

    async def recent(self, live: Live, limit: int) -> list[Memory]:
        return await qdrant_search.recent(self.points, live, limit)

    async def keyword(
        self, query: str, live: Live, limit: int
    ) -> list[tuple[Memory, float]]:
        """Sparse (BM25-style) matches, best first, with Qdrant's score (higher is better)."""
        return await qdrant_search.keyword(self.points, query, live, limit)

    async def hybrid(
        self, query: str, live: Live, limit: int, min_similarity: float
    ) -> list[Hit]:
        """Dense + sparse fused by RRF inside Qdrant, with the relevance floor applied."""
        return await qdrant_search.hybrid(
            self.points, query, live, limit, min_similarity, self.rrf_k
        )

    async def list_page(self, query: ListQuery) -> Page:
        """Admin listing: newest first, with total (offset paging, as the admin API uses)."""
        flt = list_filter(query)
        name = self.collection.name
        total = await self.points.call(
            "count", lambda c: c.count(name, count_filter=flt, exact=True)
        )
        records = await self.points.scroll(
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

            records, offset = await self.points.call("scroll", page)
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
            for r in await self.points.scroll(models.Filter(should=should), limit)
        ]
        if ids:
            await self.delete(ids)
        return ids

    async def count(self, flt: models.Filter | None = None) -> int:
        name = self.collection.name
        result = await self.points.call(
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
        owners = await self.points.call(
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
        self,
        owner: str | None,
        query: str,
        session: str | None,
        limit: int,
        *,
        backfill: bool = True,
    ) -> list[tuple[str, float]]:
        """Nearest memories by the dense vector: (memory id, cosine), best first.

        `backfill` is part of the VectorTier seam; Qdrant points are written with their
        vectors, so there is nothing to backfill lazily here."""
        return await qdrant_search.dense_search(
            self.points, owner, query, session, limit
        )

    async def upsert(self, memories: Sequence[Memory]) -> None:
        """Vector-tier write: SQLite keeps one row per (owner, key) and stable ids, so each
        memory's point is simply its id (no key-change bookkeeping). With the database
        attached, rows whose vector is now stored get `needs_reindex = 0`."""
        if not await self.points.write([(id_point(m.id), m, None) for m in memories]):
            return
        if self.database is not None:
            ids = [m.id for m in memories]
            await self.database.write(lambda conn: qdrant_tier.clear_flags(conn, ids))

    async def _reindex_from_sqlite(
        self, database: Database, limit: int | None, force: bool
    ) -> dict[str, Any]:
        # Tier mode: SQLite is the record and knows which rows still need their vector.
        if force:
            await database.write(qdrant_tier.mark_all)
        done = 0
        while limit is None or done < limit:
            want = REINDEX_BATCH if limit is None else min(REINDEX_BATCH, limit - done)
            rows = await database.read(
                functools.partial(qdrant_tier.pending_rows, limit=want)
            )
            if not rows:
                break
            before = await database.read(qdrant_tier.count_pending)
            await self.upsert(rows)
            if await database.read(qdrant_tier.count_pending) == before:
                return {
                    "started": True,
                    "done": done,
                    "error": "embedding failed",
                    "pending": before,
                }
            done += len(rows)
        pending = await database.read(qdrant_tier.count_pending)
        return {
            "started": True,
            "done": done,
            "pending": pending,
            "finished": pending == 0,
        }

    async def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        name, flt = self.collection.name, memory_ids_filter(list(ids))
        await self.points.call(
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
            await self.points.call(
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
        """Re-embed memories whose dense vector is missing or from another embedding source:
        rows flagged in SQLite (tier mode), else points found in Qdrant (record mode)."""
        if self.embedder is None:
            return {
                "started": False,
                "reason": "no embedding source",
                "done": 0,
                "pending": 0,
            }
        if self.database is not None:
            return await self._reindex_from_sqlite(self.database, limit, force)
        await self.collection.ensure()
        signature = self.embedder.signature
        stale = None if force else models.Filter(must_not=[match("vec_sig", signature)])
        done = 0
        budget = limit if limit is not None else 1 << 62
        offset: models.ExtendedPointId | None = None
        name = self.collection.name
        while done < budget:
            # Without `force` the stale set shrinks as we go, so each batch starts from the top.
            batch = min(REINDEX_BATCH, budget - done)

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
            if not await self.points.write(pairs):
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
        return await self.collection.probe()

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
    database: Database | None = None,
) -> QdrantMemoryStore:
    """Build the store from `vector_store.qdrant` and try to prepare the collection.

    A vector-size mismatch raises (`QdrantCollectionMismatch`, a ConfigError naming
    `vector_store.qdrant.collection`); Qdrant being down does not: memtap starts, fails open,
    and creates the collection on the first call that reaches Qdrant. Pass `transport` to
    share one client between engines (they then share the collection); pass `database`
    when the store serves as the vector tier of a SQLite engine (reindex bookkeeping)."""
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
        database=database,
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
