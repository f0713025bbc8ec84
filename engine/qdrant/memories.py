"""`QdrantMemoryStore`: the record store when Qdrant is memtap's shared memory.

One collection, one point per memory (layout in `payload.py`), shared by every memtap replica
pointed at it. Every `RecordStore` operation has the SQLite store's semantics (upsert on
`(owner, key)`, `Live` visibility, supersession, listing, sweep, erase, export); each point
carries its sparse keyword vector and its dense vector, so `keyword` runs inside Qdrant and
`qdrant.vectors.QdrantDenseIndex` searches the dense arm of the same points.

Every call goes through `QdrantTransport` (timeouts, retries, `EngineError`s), so a Qdrant
outage surfaces as `QdrantUnavailable` and callers fail open.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from qdrant_client import models

from memtap.config.schema import Config
from memtap.engine.api import EngineError, InvalidInput, NotFound
from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.memory_rules import Live
from memtap.engine.metrics import Metrics
from memtap.engine.ports import InvalidItem
from memtap.engine.qdrant import listing, memory_writes, search, supersession
from memtap.engine.qdrant.collection import Collection, Probe
from memtap.engine.qdrant.counts import collection_counts
from memtap.engine.qdrant.filters import (
    live_conditions,
    memory_ids_filter,
    owner_filter,
)
from memtap.engine.qdrant.payload import iso_to_ts, payload_to_memory
from memtap.engine.qdrant.points import QdrantPoints, collection_status
from memtap.engine.qdrant.transport import (
    QdrantTransport,
    QdrantUnavailable,
    open_transport,
)
from memtap.engine.types import ListQuery, Memory, MemoryPatch, NewMemory, Page

log = logging.getLogger("memtap.store.qdrant")


class QdrantMemoryStore:
    """One collection; safe to share between Engine instances (and replicas) in one process."""

    name = "qdrant"
    in_local_file = False

    def __init__(
        self,
        transport: QdrantTransport,
        collection: str,
        embedder: EmbeddingSource | None,
        metrics: Metrics | None = None,
        *,
        owns_transport: bool = True,
    ) -> None:
        self.metrics = metrics
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
        """Talk to Qdrant through another client from now on; the collection is re-checked
        on next use. Nothing reconnects by itself on a settings change (docs/qdrant.md: a
        restart applies new `vector_store.qdrant` settings); tests use it to end an outage."""
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

    # -- system of record ---------------------------------------------------------------
    async def upsert_memory(
        self, new: NewMemory, now: str, subject: str | None = None
    ) -> tuple[Memory, bool]:
        """Insert, or update the memory with the same id or the same (owner, key); a re-stated
        superseded memory becomes live again. Returns (memory, created)."""
        return await memory_writes.upsert(self.points, new, now, subject)

    async def get_memory(self, memory_id: str) -> Memory | None:
        record = await self.points.find(memory_id)
        return payload_to_memory(record.payload or {}) if record else None

    async def update_memory(
        self, memory_id: str, patch: MemoryPatch, now: str, subject: str | None = None
    ) -> Memory | None:
        return await memory_writes.update(self.points, memory_id, patch, now, subject)

    async def delete_memory(self, memory_id: str) -> bool:
        if await self.points.find(memory_id) is None:
            return False
        await self.delete([memory_id])
        return True

    async def supersede(
        self, owner: str, subject: str, new_id: str, now: str
    ) -> list[str]:
        """Mark the owner's other live memories about `subject` as superseded by `new_id`,
        unless one was said later (as in SQLite: then `new_id` is late history)."""
        return await supersession.supersede(self.points, owner, subject, new_id, now)

    async def mark_superseded(self, ids: Sequence[str], by: str, now: str) -> None:
        """`ids` are history from now on, replaced by memory `by`."""
        await supersession.mark_superseded(self.points, list(ids), by, now)

    async def live_about(self, owner: str, subject: str) -> list[Memory]:
        return await supersession.live_about(self.points, owner, subject)

    async def summary_candidates(
        self, cutoff: str, owner: str | None, limit: int = 1000
    ) -> list[Memory]:
        return await supersession.summary_candidates(self.points, cutoff, owner, limit)

    async def make_live(self, memory_id: str) -> Memory | None:
        """Clear a memory's supersession (undoing a compaction); None when it is gone."""
        return await supersession.make_live(self.points, memory_id)

    async def recent(self, live: Live, limit: int) -> list[Memory]:
        return await search.recent(self.points, live, limit)

    async def keyword(
        self, query: str, live: Live, limit: int
    ) -> list[tuple[Memory, float]]:
        """Sparse (BM25-style) matches, best first, with Qdrant's score (higher is better)."""
        return await search.keyword(self.points, query, live, limit)

    async def keyword_and_recent(
        self, query: str, live: Live, limit: int
    ) -> tuple[list[tuple[Memory, float]], list[Memory]]:
        found = await self.keyword(query, live, limit)
        return found, (await self.recent(live, limit) if found else [])

    async def live_many(self, ids: Sequence[str], live: Live) -> dict[str, Memory]:
        if not ids:
            return {}
        flt = models.Filter(
            must=[
                *live_conditions(live),
                models.FieldCondition(
                    key="memory_id", match=models.MatchAny(any=list(ids))
                ),
            ]
        )
        return {
            m.id: m
            for m in (
                payload_to_memory(r.payload or {})
                for r in await self.points.scroll(flt, len(ids))
            )
        }

    async def import_memories(
        self,
        items: Sequence[NewMemory],
        now: str,
        subjects: Sequence[str | None] | None = None,
    ) -> list[tuple[Memory | InvalidItem, bool]]:
        out: list[tuple[Memory | InvalidItem, bool]] = []
        for i, item in enumerate(items):
            subject = subjects[i] if subjects is not None else None
            try:
                out.append(await self.upsert_memory(item, now, subject))
            except InvalidInput as exc:
                out.append((InvalidItem(str(exc)), False))
        return out

    async def compact(
        self, pairs: Sequence[tuple[Memory, NewMemory]], now: str
    ) -> list[Memory]:
        """Each summary is written, then its original marked superseded by it. Qdrant has no
        transactions across points: a failure in between leaves an original live next to its
        summary (both found; nothing lost), and a new run skips memories that are summaries."""
        written: list[Memory] = []
        for original, new in pairs:
            summary, _ = await self.upsert_memory(new, now)
            await self.mark_superseded([original.id], summary.id, now)
            written.append(summary)
        return written

    async def restore_summary(self, summary_id: str) -> Memory | None:
        summary = await self.get_memory(summary_id)
        original_id = summary.metadata.get("summary_of") if summary else None
        if not isinstance(original_id, str):
            return None
        original = await self.make_live(original_id)
        if original is None:
            raise NotFound(f"the original of {summary_id!r} is gone")
        await self.delete([summary_id])
        return original

    async def list_page(self, query: ListQuery) -> Page:
        """Admin listing: newest first, with total (offset paging, as the admin API uses)."""
        return await listing.list_page(self.points, query)

    async def export_owner(self, owner: str) -> AsyncIterator[Memory]:
        async for memory in listing.export_owner(self.points, owner):
            yield memory

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
        return await self.points.count(flt)

    async def counts(self, now: str) -> dict[str, Any] | None:
        """None while Qdrant does not answer (engine-status still reports the rest)."""
        if not (await self.probe()).ok:
            return None
        try:
            return await collection_counts(self.points, now)
        except EngineError:
            return None

    async def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        await self.points.delete_where("delete", memory_ids_filter(list(ids)))

    async def erase_owner(self, owner: str) -> int:
        """Delete every point of `owner`; returns how many there were (counted first)."""
        flt = owner_filter(owner)
        removed = await self.count(flt)
        if removed:
            await self.points.delete_where("erase_owner", flt)
        log.info(
            "qdrant.owner_erased", extra={"fields": {"owner": owner, "points": removed}}
        )
        return removed

    async def probe(self) -> Probe:
        """Reachability and round-trip latency (for /readyz, health and engine-status)."""
        return await self.collection.probe()

    async def status(self) -> dict[str, Any]:
        return {"kind": "qdrant", **await collection_status(self.points)}

    def text_index(self) -> dict[str, Any]:
        return {
            "available": True,
            "tokenizer": "memtap sparse vectors (hashed words, BM25 tf, Qdrant idf)",
        }

    async def readiness(self) -> dict[str, str]:
        """The contract's "store", plus `ready` ("true"/"false": Qdrant answered the probe)
        and `store_latency_ms` (that probe's round trip) for a readiness check."""
        probe = await self.probe()
        store = f"qdrant:{self.transport.mode}"
        if not probe.ok:
            store += " (unavailable)"
        return {
            "store": store,
            "ready": "true" if probe.ok else "false",
            "store_latency_ms": f"{probe.latency_ms:.2f}",
        }

    def health(self) -> str:
        """The collection's state for /_memtap/health "vector"."""
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
