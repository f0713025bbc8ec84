"""The Qdrant vector indexes (`ports.VectorIndex`), two layouts:

- `QdrantDenseIndex`: the dense arm of the record collection (`vector_store.kind: qdrant`,
  rows in Qdrant). Each point already carries its memory and both vectors (the record store
  writes them together), so `upsert`/`delete` have nothing to do and a search returns live
  rows. Reindex re-embeds points whose vector is missing or from another embedding source.
- `QdrantVectorIndex`: vectors only, for rows kept in SQLite (`vector_store.kind: auto` with a
  Qdrant url/path). Points are keyed by memory id; hits are ids the engine re-reads through
  the SQLite record store (every `Live` rule applies there), and `memories.needs_reindex`
  (`ports.ReindexFlags`) says which rows still wait for their vector.

Both reindex through `maintenance.reindex.run_reindex`, the one reindex loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from qdrant_client import models

from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.fallbacks import NoVectors
from memtap.engine.maintenance.backfill import VectorsInFlight
from memtap.engine.maintenance.reindex import run_reindex
from memtap.engine.memory_rules import Live
from memtap.engine.metrics import Metrics
from memtap.engine.ports import ReindexFlags, VectorHits
from memtap.engine.qdrant import search
from memtap.engine.qdrant.collection import Collection
from memtap.engine.qdrant.filters import match, memory_ids_filter, owner_filter
from memtap.engine.qdrant.memories import QdrantMemoryStore
from memtap.engine.qdrant.payload import id_point, payload_to_memory
from memtap.engine.qdrant.points import QdrantPoints, collection_status
from memtap.engine.qdrant.transport import QdrantTransport
from memtap.engine.types import Memory

QDRANT = "qdrant"
NO_SOURCE = {"started": False, "reason": "no embedding source", "done": 0, "pending": 0}


def _no_dense() -> NoVectors:
    return NoVectors("no dense vectors (no embedding source)")


class QdrantDenseIndex:
    name = QDRANT

    def __init__(
        self, store: QdrantMemoryStore, embedder: EmbeddingSource | None
    ) -> None:
        self.store = store
        self._embedder = embedder
        """Closed with the index (the record store's points use it too)."""

    @property
    def _points(self) -> QdrantPoints:
        return self.store.points  # read each time: `replace_transport` swaps it

    def _stale(self) -> models.Filter:
        signature = self._points.signature or ""
        return models.Filter(
            should=[
                models.Filter(must_not=[match("vec_sig", signature)]),
                models.FieldCondition(
                    key="reindex", match=models.MatchValue(value=True)
                ),
            ]
        )

    async def search(
        self, live: Live, query: str, limit: int, *, backfill: bool = True
    ) -> VectorHits:
        points = self._points
        await points.collection.ensure()
        if points.embedder is None or not points.collection.has_dense:
            raise _no_dense()
        found = await search.dense_live(points, live, query, limit)
        return VectorHits(
            [(m.id, sim) for m, sim in found], rows={m.id: m for m, _ in found}
        )

    async def upsert(self, memories: Sequence[Memory]) -> None:
        return None  # the record store wrote each point with its vectors

    async def delete(self, ids: Sequence[str]) -> None:
        return None  # the record store deleted the points, vectors included

    async def erase_owner(self, owner: str) -> int:
        # Counted only: the record store's erase removes the points with their vectors.
        return await self.store.count(owner_filter(owner))

    # -- reindex (maintenance.reindex.Backfillable) -----------------------------------------
    async def mark_all_pending(self) -> int:
        points = self._points
        name = points.collection.name
        await points.call(
            "set_payload",
            lambda c: c.set_payload(
                name,
                payload={"reindex": True},
                points=models.Filter(must=[]),
                wait=True,
                ordering=models.WriteOrdering.STRONG,
            ),
        )
        return await self.store.count()

    async def backfill(self, owner: str | None, max_items: int) -> int:
        points = self._points
        flt = self._stale()
        if owner is not None:
            flt = models.Filter(must=[flt, match("owner", owner)])
        records = await points.scroll(flt, max_items)
        items = [
            (
                str(r.id),
                payload_to_memory(r.payload or {}),
                (r.payload or {}).get("subject"),
            )
            for r in records
        ]
        if not items or not await points.write(items):
            return 0  # nothing left, or the embedding failed: stop, it stays pending
        return len(items)

    async def pending_count(self) -> int:
        return await self.store.count(self._stale())

    async def reindex(self, limit: int | None, force: bool) -> dict[str, Any]:
        if self._points.embedder is None:
            return dict(NO_SOURCE)
        await self._points.collection.ensure()
        progress = await run_reindex(self, limit=limit, force=force)
        return progress.to_json()

    async def status(self) -> dict[str, Any]:
        return {
            "available": self._points.collection.has_dense,
            "kind": QDRANT,
            "embedding": self.store.embedding(),
        }

    def health(self) -> str:
        return self.store.health()

    def embedding(self) -> str:
        return self.store.embedding()

    def embedding_source(self) -> EmbeddingSource | None:
        return self._embedder

    async def close(self) -> None:
        if self._embedder is not None:
            await self._embedder.close()


class QdrantVectorIndex:
    name = QDRANT

    def __init__(
        self,
        transport: QdrantTransport,
        collection: str,
        embedder: EmbeddingSource,
        flags: ReindexFlags,
        metrics: Metrics | None = None,
        *,
        owns_transport: bool = True,
    ) -> None:
        self.points = QdrantPoints(
            transport,
            Collection(transport, collection, embedder.dim, embedder.signature),
            embedder,
            metrics,
        )
        self.flags = flags
        self._owns_transport = owns_transport
        self._in_flight = VectorsInFlight()

    async def search(
        self, live: Live, query: str, limit: int, *, backfill: bool = True
    ) -> VectorHits:
        session = live.session if live.match_session else None
        return VectorHits(
            await search.dense_search(self.points, live.owner, query, session, limit)
        )

    async def upsert(self, memories: Sequence[Memory]) -> None:
        """SQLite keeps one row per (owner, key) and stable ids, so each memory's point is
        its id. Rows whose vector is now stored get `needs_reindex = 0`."""
        with self._in_flight.writing(memories):
            if await self.points.write([(id_point(m.id), m, None) for m in memories]):
                await self.flags.clear([m.id for m in memories])

    async def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        await self.points.delete_where("delete", memory_ids_filter(list(ids)))

    async def erase_owner(self, owner: str) -> int:
        flt = owner_filter(owner)
        counted = await self.points.count(flt)
        if counted:
            await self.points.delete_where("erase_owner", flt)
        return counted

    # -- reindex (maintenance.reindex.Backfillable) -----------------------------------------
    async def mark_all_pending(self) -> int:
        return await self.flags.mark_all()

    async def backfill(self, owner: str | None, max_items: int) -> int:
        rows = self._in_flight.not_being_written(
            await self.flags.pending(owner, max_items)
        )
        if not rows or not await self.points.write(
            [(id_point(m.id), m, None) for m in rows]
        ):
            return 0  # nothing left, or the embedding failed: the flags stay set
        await self.flags.clear([m.id for m in rows])
        return len(rows)

    async def pending_count(self) -> int:
        return await self.flags.count()

    async def reindex(self, limit: int | None, force: bool) -> dict[str, Any]:
        progress = await run_reindex(self, limit=limit, force=force)
        return progress.to_json()

    async def status(self) -> dict[str, Any]:
        return await collection_status(self.points)

    def health(self) -> str:
        error = self.points.transport.last_error
        return QDRANT if error is None else f"degraded: qdrant {error}"

    def embedding(self) -> str:
        return self.points.signature or "none"

    def embedding_source(self) -> EmbeddingSource | None:
        return self.points.embedder

    async def close(self) -> None:
        if self._owns_transport:
            await self.points.transport.close()
        if self.points.embedder is not None:
            await self.points.embedder.close()
