"""`QdrantEngine`: the MemoryEngine with Qdrant as the shared system of record.

With `vector_store.kind: qdrant`, every memory lives in one Qdrant collection that all memtap
replicas share; each replica keeps only its local SQLite file for what must stay local and
durable: the extraction outbox and the runtime settings overrides. Everything else (outbox
enqueue, settings, lifecycle, fail-open guard) is `engine.engine.Engine`'s; the memory paths
are overridden to go to `QdrantMemoryStore`.

Build it with `await open_qdrant_engine(holder, metrics)`; `transport=` lets several engines
in one process share one client (tests; Qdrant local mode allows one client per path).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memtap.engine import summarize as summarizer
from memtap.engine.api import EngineError, InvalidInput, NotFound
from memtap.engine.clock import cutoff_for, now_iso
from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.embeddings.resolve import resolve_embedding_source
from memtap.engine.engine import Engine, _guarded, database_path, memory_status
from memtap.engine.events import EngineEvents
from memtap.engine.metrics import Metrics
from memtap.engine.store import migrations, outbox
from memtap.engine.store.database import Database
from memtap.engine.store.driver import Driver, choose_driver
from memtap.engine.store.qdrant_retrieval import retrieve_from_qdrant
from memtap.engine.store.qdrant_store import QdrantMemoryStore, open_qdrant_store
from memtap.engine.store.qdrant_transport import QdrantTransport
from memtap.engine.store.qdrant_worker import QdrantOutboxWorker
from memtap.engine.types import (
    EraseReceipt,
    ImportReport,
    ImportTally,
    ListQuery,
    Memory,
    MemoryPatch,
    NewMemory,
    Page,
    Retrieval,
    RetrievalRequest,
)

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

log = logging.getLogger("memtap.engine")


class QdrantEngine(Engine):
    def __init__(
        self,
        holder: ConfigHolder,
        metrics: Metrics,
        db: Database,
        store: QdrantMemoryStore,
        embedder: EmbeddingSource | None,
        events: EngineEvents | None = None,
    ) -> None:
        super().__init__(holder, metrics, db, events)
        self.store = store
        self.embedder = embedder
        self.worker = QdrantOutboxWorker(db, holder, metrics, store, self.events)

    async def close(self) -> None:
        if self._closed:
            return
        await super().close()
        await self.store.close()
        if self.embedder is not None:
            await self.embedder.close()

    # -- the proxy's path ---------------------------------------------------------------------
    @_guarded
    async def retrieve(
        self, request: RetrievalRequest, *, side_effects: bool = True
    ) -> Retrieval:
        if not request.owner:
            raise InvalidInput("owner is required", "owner")
        result = await retrieve_from_qdrant(self.store, self.config.memory, request)
        if side_effects:
            self.metrics.retrieval_duration.observe(
                result.resolution["timings_ms"]["total"], result.resolution["strategy"]
            )
        return result

    # -- admin: memories ------------------------------------------------------------------------
    @_guarded
    async def list_memories(self, query: ListQuery) -> Page:
        if not (1 <= query.limit <= 1000) or query.offset < 0:
            raise InvalidInput("limit must be 1..1000 and offset >= 0", "limit")
        return await self.store.list_page(query)

    @_guarded
    async def get_memory(self, memory_id: str) -> Memory:
        found = await self.store.get_memory(memory_id)
        if found is None:
            raise NotFound(f"memory {memory_id!r} not found")
        return found

    @_guarded
    async def create_memory(self, new: NewMemory) -> Memory:
        memory, _ = await self.store.upsert_memory(new, now_iso())
        return memory

    @_guarded
    async def update_memory(self, memory_id: str, patch: MemoryPatch) -> Memory:
        updated = await self.store.update_memory(memory_id, patch, now_iso())
        if updated is None:
            raise NotFound(f"memory {memory_id!r} not found")
        return updated

    @_guarded
    async def delete_memory(self, memory_id: str) -> None:
        if not await self.store.delete_memory(memory_id):
            raise NotFound(f"memory {memory_id!r} not found")

    @_guarded
    async def erase_owner(self, owner: str) -> EraseReceipt:
        """Erase the owner's points in Qdrant (their text, dense and sparse vectors go with
        them) and this replica's outbox rows. Other replicas' outboxes are theirs to erase:
        run the erase on each replica, or stop extraction first."""
        if not owner:
            raise InvalidInput("owner is required", "owner")
        points = await self.store.erase_owner(owner)
        queued = await self.db.write(lambda conn: outbox.erase_owner(conn, owner))
        self.metrics.outbox_depth.dec(amount=queued)
        await self.checkpoint()
        removed = {
            "memories": points,
            "outbox": queued,
            "fts": points,
            "vectors": points,
        }
        log.info(
            "memory.owner_erased",
            extra={"fields": {"owner": owner, "removed": removed, "store": "qdrant"}},
        )
        return EraseReceipt(owner=owner, removed=removed)

    async def export_owner(self, owner: str) -> AsyncIterator[Memory]:
        try:
            async for memory in self.store.export_owner(owner):
                yield memory
        except EngineError:
            raise
        except Exception as exc:
            raise EngineError(f"{type(exc).__name__}: {exc}") from exc

    @_guarded
    async def import_memories(self, items: list[NewMemory]) -> ImportReport:
        tally = ImportTally()
        now = now_iso()
        for line, item in enumerate(items, start=1):
            try:
                _, was_created = await self.store.upsert_memory(item, now)
            except InvalidInput as exc:
                tally.refused(f"line {line}: {exc}")
                continue
            tally.stored(was_created)
        return tally.report()

    # -- maintenance ----------------------------------------------------------------------------
    @_guarded
    async def summarize(
        self, older_than_days: int, owner: str | None, dry_run: bool
    ) -> dict[str, Any]:
        """As the SQLite engine does: each summary is written, then its original marked
        superseded by it. Qdrant has no transactions across points: a failure in between
        leaves an original live next to its summary (both found; nothing lost), and a new
        run skips memories that are summaries."""
        if older_than_days < 0:
            raise InvalidInput("older_than_days must be >= 0", "older_than_days")
        found = await self.store.summary_candidates(
            summarizer.cutoff_for_age(older_than_days), owner
        )
        if dry_run:
            return summarizer.dry_run_report(found)
        written: list[Memory] = []
        saved = 0
        for original in found:
            now = now_iso()
            summary, _ = await self.store.upsert_memory(
                summarizer.summary_memory(original), now
            )
            await self.store.mark_superseded([original.id], summary.id, now)
            saved += summarizer.tokens_saved(original, summary)
            written.append(summary)
        return summarizer.done_report(found, written, saved)

    @_guarded
    async def restore_summary(self, summary_id: str) -> Memory:
        """Undo one compaction: the original is live again, the summary is gone."""
        summary = await self.store.get_memory(summary_id)
        original_id = summary.metadata.get("summary_of") if summary else None
        if not isinstance(original_id, str):
            raise NotFound(f"memory {summary_id!r} is not a summary")
        original = await self.store.make_live(original_id)
        if original is None:
            raise NotFound(f"the original of {summary_id!r} is gone")
        await self.store.delete([summary_id])
        return original

    @_guarded
    async def reindex(
        self, limit: int | None = None, force: bool = False
    ) -> dict[str, Any]:
        return await self.store.reindex(limit, force)

    async def sweep(self) -> int:
        cutoff = cutoff_for(self.config.memory.retention_days, datetime.now(UTC))
        total = 0
        while True:
            ids = await self.store.sweep(now_iso(), cutoff)
            total += len(ids)
            if len(ids) < 5000:
                break
        if total:
            log.info(
                "memory.swept", extra={"fields": {"deleted": total, "store": "qdrant"}}
            )
        return total

    # -- status ---------------------------------------------------------------------------------
    @_guarded
    async def status(self) -> dict[str, Any]:
        qdrant = await self.store.status()
        try:
            counts: dict[str, Any] | None = (
                await self.store.counts(now_iso()) if qdrant["healthy"] else None
            )
        except EngineError:
            counts = None
        depth = await self.db.read(outbox.depth)
        cfg = self.config.memory
        return {
            "store": {
                "kind": "qdrant",
                **qdrant,
                "local": {
                    "path": str(self.db.path),
                    "driver": self.db.driver.name,
                    "holds": ["outbox", "settings_overrides"],
                },
            },
            "fts": {
                "available": True,
                "tokenizer": "memtap sparse vectors (hashed words, BM25 tf, Qdrant idf)",
            },
            "vector": {
                "available": self.store.collection.has_dense,
                "kind": "qdrant",
                "embedding": self.store.embedding(),
            },
            "embedding": self.store.embedding(),
            "outbox": self._outbox_status(depth),
            "counts": counts,
            "memory": memory_status(cfg),
        }

    async def health(self) -> dict[str, str]:
        """The contract's three keys, plus `ready` ("true"/"false": Qdrant answered the probe)
        and `store_latency_ms` (that probe's round trip) for a readiness check."""
        probe = await self.store.probe()
        store = f"qdrant:{self.store.transport.mode}"
        if not probe.ok:
            store += " (unavailable)"
        return {
            "store": store,
            "vector": self.store.health(),
            "embedding": self.store.embedding(),
            "ready": "true" if probe.ok else "false",
            "store_latency_ms": f"{probe.latency_ms:.2f}",
        }


async def open_qdrant_engine(
    holder: ConfigHolder,
    metrics: Metrics,
    *,
    start_worker: bool = True,
    driver: Driver | None = None,
    transport: QdrantTransport | None = None,
    events: EngineEvents | None = None,
) -> QdrantEngine:
    """Open the local SQLite file (outbox, settings), the embedding source and the Qdrant
    store, then start. Qdrant being down does not stop memtap from starting (fail-open);
    a vector-size mismatch does (`QdrantCollectionMismatch`, a ConfigError)."""
    config = holder.current
    if driver is None:
        driver = await asyncio.to_thread(
            choose_driver, os.environ.get("MEMTAP_SQLITE_DRIVER") or None
        )
    db = await Database.open(database_path(config), driver)
    embedder: EmbeddingSource | None = None
    try:
        await db.write_outside_transaction(migrations.migrate)
        resolution = await resolve_embedding_source(
            config.embedding, config.data_dir, metrics
        )
        embedder = resolution.source
        store = await open_qdrant_store(config, embedder, metrics, transport=transport)
        engine = QdrantEngine(holder, metrics, db, store, embedder, events)
        await engine.start(worker=start_worker)
    except BaseException:
        if embedder is not None:
            await embedder.close()
        await db.close()
        raise
    log.info(
        "memory.engine_started",
        extra={
            "fields": {
                "store": f"qdrant:{store.transport.mode}",
                "collection": store.collection.name,
                "path": str(db.path),
                "vector": "qdrant" if store.collection.has_dense else "off",
                "embedding": store.embedding(),
            }
        },
    )
    return engine
