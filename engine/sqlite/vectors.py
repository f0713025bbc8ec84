"""`SqliteVecIndex`: the vector index over sqlite-vec, inside the local SQLite file.

Embed the query, KNN in the owner's partition, re-read the hits through `Live` in the same
reader hop. `engine.factory.build_vector_index` builds it. Why each piece is there:

- The query embedding is bounded by `embedding.timeout_ms`; an error or timeout raises
  `SemanticUnavailable` and retrieval answers that request from the keyword ranking.
- Lazy backfill: before a search, up to `BACKFILL_BUDGET` of the owner's memories that have
  no vector yet are embedded (bounded by `BACKFILL_BUDGET_S`; skipped while another backfill
  runs), so a model change heals with real traffic without holding requests up. At most once
  per owner every `INLINE_BACKFILL_EVERY_S`: the look-up is a reader hop before the query
  embedding, paid by every request under load, while the engine's background backfill
  (`engine/maintenance/backfill.py`) does the rest.
- Each fallback cause is logged once (first time) and counted every time in
  `memtap_memory_fallbacks_total{cause}`.
- KNN is served from `engine.sqlite.vector_cache` (per-owner float32 matrices, exact cosine,
  one mat-vec): the PyPI sqlite-vec has no SIMD and took ~10 ms per query at 10k rows. `vec0`
  stays the durable store; every write below patches the cache after it commits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from memtap.config.schema import Config
from memtap.engine.api import EngineError
from memtap.engine.embeddings.base import EmbeddingError, EmbeddingSource
from memtap.engine.embeddings.projected import (
    ProjectedQueries,
    QueryVector,
    embed_query,
)
from memtap.engine.embeddings.resolve import (
    EmbeddingResolution,
    resolve_embedding_source,
)
from memtap.engine.fallbacks import (
    ConfigSource,
    FallbackLog,
    SemanticUnavailable,
    describe_error,
)
from memtap.engine.maintenance.backfill import VectorsInFlight
from memtap.engine.maintenance.reindex import run_reindex
from memtap.engine.memory_rules import Live
from memtap.engine.metrics import Metrics
from memtap.engine.ports import VectorHits
from memtap.engine.retrieval.deadline import vector_deadline_s
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.sql import vectors
from memtap.engine.sqlite.vector_cache import DEFAULT_MAX_BYTES, VectorCache
from memtap.engine.types import Memory

log = logging.getLogger("memtap.vector")

BACKFILL_BUDGET = 16
"""Memories embedded inline before one search (static: ~1 ms, onnx: ~20 ms)."""
BACKFILL_BUDGET_S = 0.1
"""Well inside `memory.retrieval_timeout_ms` (250 ms), which bounds the whole vector search."""
INLINE_BACKFILL_EVERY_S = 5.0
"""How often a search looks for its owner's memories without a vector (see above)."""
SQLITE_VEC = "sqlite-vec"


class SqliteVecIndex:
    name = SQLITE_VEC

    def __init__(
        self,
        db: Database,
        resolution: EmbeddingResolution,
        config: ConfigSource,
        metrics: Metrics | None,
        cache_max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        assert resolution.source is not None
        self._db = db
        self.cache = VectorCache(cache_max_bytes)
        self._warming: dict[str, asyncio.Task[None]] = {}
        self._source: EmbeddingSource = resolution.source
        self.resolution = resolution
        self._config = config
        self._fallbacks = FallbackLog(metrics)
        self._metrics = metrics
        self._backfill_lock = asyncio.Lock()
        self._in_flight = VectorsInFlight()
        self._inline_backfill_at: dict[str, float] = {}
        """Owner -> when a search last looked for its unindexed memories (monotonic)."""
        self.backfill_timeout_s = BACKFILL_BUDGET_S
        self.last_reset_marked = 0
        self._disabled: str | None = None
        """Why searches are refused after a runtime switch to no source (None = working)."""
        self._unsubscribe: Callable[[], None] | None = None
        self.switching: asyncio.Task[None] | None = None
        self._stop_collecting = (
            metrics.add_collector(self._collect_metrics)
            if metrics is not None
            else None
        )

    @property
    def source(self) -> EmbeddingSource:
        return self._source

    async def start(self) -> None:
        """Create the table for the active signature; rebuild it when the signature changed."""
        signature, dim = self._source.signature, self._source.dim

        def prepare(conn: Any) -> tuple[int, int | None]:
            vectors.ensure_meta(conn)
            meta = vectors.read_meta(conn)
            if meta.signature == signature and meta.dim == dim:
                return 0, None
            marked = vectors.reset_for_signature(conn, signature, dim)
            return marked, vectors.read_version(conn)

        async with self._cache_write():
            self.last_reset_marked, version = await self._db.write(prepare)
            if version is not None:
                self.cache.clear(version)

    # -- runtime switch of embedding.* (admin settings API, config reload) ---------------------
    def watch(self, holder: ConfigSource) -> None:
        """Follow `embedding.*` changes of the configuration."""
        self._unsubscribe = holder.subscribe(self._on_config_change)

    def _on_config_change(self, old: Config, new: Config, changed: list[str]) -> None:
        # Called on the event loop by the holder after each swap.
        if any(key == "embedding" or key.startswith("embedding.") for key in changed):
            self.switching = asyncio.get_running_loop().create_task(
                self.switch_source(), name="memtap-embedding-switch"
            )

    async def switch_source(self) -> None:
        """Resolve `embedding.*` again; a new signature rebuilds the table (then backfill and
        reindex refill it). With no source left, searches fall back to keywords."""
        config = self._config.current
        resolution = await resolve_embedding_source(
            config.embedding, config.data_dir, self._metrics
        )
        if resolution.source is None:
            self._disabled = (
                "; ".join(f"{f.source}: {f.message}" for f in resolution.fallbacks)
                or "embedding.source is none"
            )
            self.resolution = resolution
            log.warning(
                "vector.embedding_off", extra={"fields": {"reason": self._disabled}}
            )
            return
        previous, self._source = self._source, resolution.source
        self.resolution, self._disabled = resolution, None
        await self.start()
        log.info(
            "vector.embedding_switched",
            extra={
                "fields": {
                    "from": previous.signature,
                    "to": self._source.signature,
                    "needs_reindex": self.last_reset_marked,
                }
            },
        )
        if previous is not self._source:
            await previous.close()

    # -- retrieval ------------------------------------------------------------------------
    async def search(
        self,
        live: Live,
        query: str,
        limit: int,
        *,
        backfill: bool = True,
    ) -> VectorHits:
        """The nearest memories that pass `live`, best first, with their rows: the KNN and
        the re-read of its hits in one reader hop. Raises `SemanticUnavailable`.

        `backfill=False` (retrieve-preview) makes no writes."""
        if self._disabled is not None:
            self._fallbacks.record("no_embedding_source", self._disabled)
            raise SemanticUnavailable(self._disabled, "no_embedding_source")
        owner = live.owner
        if backfill and owner is not None:
            await self._backfill_owner(owner)
        query_vector = await self._embed_query(query)
        vector = query_vector.vector
        if not vector.any():
            return VectorHits([], rows={})
        cache = self.cache
        found: list[tuple[Memory, float]] = await self._db.read(
            lambda conn: vectors.knn_live(conn, cache, vector, live, limit)
        )
        if query_vector.projected:
            found = [(m, query_vector.calibrated(sim)) for m, sim in found]
        if owner is not None and not cache.holds(owner):
            # Not cached (first query, or dropped after another process wrote): this query
            # was answered by sqlite-vec's own KNN. Loading reads the owner's whole partition
            # (~0.1 s at 10k rows, ~1.3 s at 100k), so it happens in the background.
            self._warm(owner, int(vector.shape[0]))
        return VectorHits(
            [(m.id, sim) for m, sim in found], rows={m.id: m for m, _ in found}
        )

    def _warm(self, owner: str, dim: int) -> None:
        if owner in self._warming:
            return
        cache = self.cache

        async def load() -> None:
            try:
                await self._db.read(
                    lambda conn: vectors.warm_owner(conn, cache, owner, dim)
                )
            except Exception as exc:  # noqa: BLE001 - the next query tries again
                log.warning(
                    "vector.cache_load_failed",
                    extra={"fields": {"error": f"{type(exc).__name__}: {exc}"[:200]}},
                )
            finally:
                self._warming.pop(owner, None)

        self._warming[owner] = asyncio.get_running_loop().create_task(
            load(), name="memtap-vector-cache-load"
        )

    async def settle(self) -> None:
        """Wait for background cache loads (tests, benchmarks)."""
        while self._warming:
            await asyncio.gather(*self._warming.values(), return_exceptions=True)

    async def _embed_query(self, query: str) -> QueryVector:
        timeout_s = self._config.current.embedding.timeout_ms / 1000
        self._refuse_when_busy()
        try:
            async with asyncio.timeout(timeout_s):  # no task of its own (recall.py)
                return await embed_query(self._source, query)
        except TimeoutError as exc:
            self._fallbacks.record(
                "embedding_timeout", f"query embedding took over {timeout_s:.3f}s"
            )
            raise SemanticUnavailable(
                "query embedding timed out", "embedding_timeout"
            ) from exc
        except EmbeddingError as exc:
            self._fallbacks.record(exc.cause, str(exc))
            raise SemanticUnavailable(str(exc), exc.cause) from exc

    def _refuse_when_busy(self) -> None:
        """The query-embedding budget: when a local model's queue is so long that a query
        queued now would come back after the vector leg's deadline, the leg gives up at
        once. The request gets its keyword results without waiting for nothing, and the
        model's time goes to queries that can still make it (under overload, every query
        embedding computed past its deadline was CPU taken from those)."""
        if isinstance(self._source, ProjectedQueries) and self._source.ready:
            return  # a busy model's queries are projected at once: no wait to refuse
        stats = self._source.batch_stats()
        if stats is None:
            return
        budget_s = vector_deadline_s(self._config.current.memory)
        wait_s = stats.expected_wait_s()
        if wait_s > budget_s:
            self._fallbacks.record(
                "embedding_busy",
                f"query embedding would wait ~{wait_s * 1000:.0f} ms "
                f"(budget {budget_s * 1000:.0f} ms)",
            )
            raise SemanticUnavailable("query embedding queue is full", "embedding_busy")

    async def _backfill_owner(self, owner: str) -> None:
        # Best effort: a failing backfill must not cost the request its semantic results.
        if self._backfill_lock.locked():
            return
        now = time.monotonic()
        last = self._inline_backfill_at.get(owner)
        if last is not None and now - last < INLINE_BACKFILL_EVERY_S:
            return
        if len(self._inline_backfill_at) > 100_000:  # bounded whatever the owner count
            self._inline_backfill_at.clear()
        self._inline_backfill_at[owner] = now
        try:
            # A timeout scope, not wait_for: Python 3.11's wait_for can swallow a cancel
            # that arrives as its inner task ends (a retrieval cut by its limit would run on).
            async with asyncio.timeout(self.backfill_timeout_s):
                await self.backfill(owner, BACKFILL_BUDGET)
        except (TimeoutError, EmbeddingError, EngineError) as exc:
            cause = (
                exc.cause
                if isinstance(exc, EmbeddingError | SemanticUnavailable)
                else "backfill_failed"
            )
            self._fallbacks.record(
                f"backfill_{cause}" if not cause.startswith("backfill") else cause,
                describe_error(exc, self.backfill_timeout_s),
            )

    # -- writes ---------------------------------------------------------------------------
    async def upsert(self, memories: Sequence[Memory]) -> None:
        items = [vectors.PendingMemory(m.id, m.owner, m.content) for m in memories]
        if items:
            await self._embed_and_store(items)

    async def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        gone = list(ids)

        def write(conn: Any) -> tuple[int, int]:
            return vectors.delete_vectors(conn, gone), vectors.read_version(conn)

        async with self._cache_write():
            removed, version = await self._db.write(write)
            if removed:
                self.cache.apply(version, deletes=gone)

    async def erase_owner(self, owner: str) -> int:
        def write(conn: Any) -> tuple[int, int]:
            return vectors.erase_owner_vectors(conn, owner), vectors.read_version(conn)

        async with self._cache_write():
            count, version = await self._db.write(write)
            self.cache.drop_owner(version, owner)
        return count

    async def _embed_and_store(self, items: list[vectors.PendingMemory]) -> int:
        if self._disabled is not None:
            return 0  # rows keep needs_reindex = 1 until a source is back
        source = self._source
        with self._in_flight.writing(items):
            matrix = await source.embed([i.content for i in items])
            signature = source.signature
            async with self._cache_write():
                done = await self._db.write(
                    lambda conn: vectors.store_vectors_tracked(
                        conn, items, matrix, signature
                    )
                )
                if done.stored:
                    self.cache.apply(done.version, done.upserts, done.deletes)
        return done.stored

    @contextlib.asynccontextmanager
    async def _cache_write(self) -> AsyncIterator[None]:
        """Bracket one vector write so a query that sees its commit before its patch is
        applied does not throw the whole cache away (see `VectorCache.observe`)."""
        self.cache.begin_write()
        ok = False
        try:
            yield
            ok = True
        finally:
            self.cache.end_write(ok)

    # -- backfill / reindex ---------------------------------------------------------------
    async def backfill(self, owner: str | None, max_items: int) -> int:
        """Embed up to `max_items` memories without a vector; returns how many were read."""
        if self._disabled is not None:
            return 0
        async with self._backfill_lock:
            items = self._in_flight.not_being_written(
                await self._db.read(
                    lambda conn: vectors.pending_memories(conn, owner, max_items)
                )
            )
            if items:
                await self._embed_and_store(items)
            return len(items)

    async def mark_all_pending(self) -> int:
        return await self._db.write(vectors.mark_all_pending)

    async def pending_count(self) -> int:
        return await self._db.read(vectors.count_pending)

    async def reindex(self, limit: int | None, force: bool) -> dict[str, Any]:
        progress = await run_reindex(self, limit=limit, force=force)
        return {**progress.to_json(), "signature": self._source.signature}

    async def local_file_replaced(self) -> None:
        """A fresh file has no vector table: make it (every row waits for its vector)."""
        await self.start()

    # -- reporting ------------------------------------------------------------------------
    async def status(self) -> dict[str, Any]:
        def read(conn: Any) -> dict[str, Any]:
            meta = vectors.read_meta(conn)
            return {
                "vectors": vectors.count_vectors(conn),
                "needs_reindex": vectors.count_pending(conn),
                "dim": meta.dim,
                "signature": meta.signature,
                "reset_at": meta.reset_at,
            }

        details = await self._db.read(read)
        return {
            "kind": SQLITE_VEC,
            "chunk_size": vectors.CHUNK_SIZE,
            **details,
            "cache": self.cache.stats().to_json(),
            "embedding": self.resolution.to_json(),
            "disabled": self._disabled,
        }

    def health(self) -> str:
        return SQLITE_VEC

    def embedding_source(self) -> EmbeddingSource | None:
        return self._source

    def embedding(self) -> str:
        return "none" if self._disabled is not None else self._source.signature

    def _collect_metrics(self) -> None:
        """Copy the KNN cache's and the local model's own counts into the metrics."""
        metrics = self._metrics
        assert metrics is not None
        stats = self.cache.stats()
        metrics.vector_cache_bytes.set(stats.bytes)
        metrics.vector_cache_owners.set(stats.owners)
        for event, total in (
            ("hit", stats.hits),
            ("load", stats.loads),
            ("eviction", stats.evictions),
            ("invalidation", stats.invalidations),
            ("too_big", stats.too_big),
        ):
            metrics.vector_cache_events.set_total(total, event)
        source = self._source
        batches = source.batch_stats()
        if batches is not None:
            metrics.embedding_runs.set_total(batches.runs, source.name)
            metrics.embedding_texts.set_total(batches.texts, source.name)

    async def close(self) -> None:
        if self._stop_collecting is not None:
            self._stop_collecting()
            self._stop_collecting = None
        if self._unsubscribe is not None:
            self._unsubscribe()
        for task in list(self._warming.values()):
            task.cancel()
        await asyncio.gather(*self._warming.values(), return_exceptions=True)
        if self.switching is not None and not self.switching.done():
            self.switching.cancel()
            with contextlib.suppress(BaseException):
                await self.switching
        await self._source.close()
