"""`Engine`: the MemoryEngine over one SQLite file (+ an optional vector tier).

Build it with `await open_engine(holder, metrics)`: choose the driver, open the database,
migrate, attach the vector tier if one can be built, resume the outbox worker. The config is
read from `holder.current` at every call, never cached, so reloads and overrides apply at once.

Fail-open: every public method raises only `EngineError` subclasses (driver errors are
translated), and none blocks without bound: reads carry SQLite time limits, writes wait at
most `busy_timeout`, `enqueue_turn` at most `ENQUEUE_TIMEOUT_S`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from memtap.engine import summarize as summarizer
from memtap.engine.api import EngineError, InvalidInput, NotFound
from memtap.engine.clock import cutoff_for, now_iso
from memtap.engine.events import EngineEvents
from memtap.engine.extraction.worker import OutboxWorker
from memtap.engine.metrics import Metrics
from memtap.engine.retrieval.retrieve import RetrievalContext, retrieve
from memtap.engine.store import fts, memories, migrations, outbox, settings_store
from memtap.engine.store.database import Database, StoreGone, StoreTimeout
from memtap.engine.store.driver import Driver, choose_driver, load_sqlite_vec
from memtap.engine.store.protocol import VectorTier
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
    Turn,
)

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder
    from memtap.config.schema import Config, MemoryConfig

log = logging.getLogger("memtap.engine")

DB_FILENAME = "memtap.db"
ENQUEUE_TIMEOUT_S = 2.0
DRAIN_S = 5.0
VECTOR_WRITE_TIMEOUT_S = 5.0
IMPORT_CHUNK = 500
EXPORT_PAGE = 500

P = ParamSpec("P")
R = TypeVar("R")


def _guarded(
    fn: Callable[P, Coroutine[Any, Any, R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """Anything but an EngineError leaving a public method becomes one (fail-open contract)."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except StoreGone:
            engine = args[0]
            if isinstance(engine, Engine):
                engine.store_gone()
            raise
        except EngineError:
            raise
        except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
            raise
        except TimeoutError as exc:
            raise StoreTimeout("memory store timed out") from exc
        except Exception as exc:
            raise EngineError(f"{type(exc).__name__}: {exc}") from exc

    return wrapper


class Engine:
    def __init__(
        self,
        holder: ConfigHolder,
        metrics: Metrics,
        db: Database,
        events: EngineEvents | None = None,
    ) -> None:
        self.events = events if events is not None else EngineEvents()
        self.holder = holder
        self.metrics = metrics
        self.db = db
        self.vector_tier: VectorTier | None = None
        """Optional semantic tier (sqlite-vec or Qdrant); see engine/store/protocol.py."""
        self.vector_error: str | None = None
        self.worker = OutboxWorker(
            db, holder, metrics, on_written=self._vector_upsert, events=self.events
        )
        self._sweeper: asyncio.Task[None] | None = None
        self._closed = False
        self._reopening: asyncio.Task[None] | None = None
        self.extension_loaders: list[tuple[str, Callable[[Any], None]]] = []

    @property
    def config(self) -> Config:
        return self.holder.current

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self, *, worker: bool = True) -> None:
        depth = await self.db.read(outbox.depth)
        self.metrics.outbox_depth.set(depth)
        if depth:
            log.info("memory.outbox_resumed", extra={"fields": {"pending": depth}})
        if worker:
            self.worker.start()
        self._sweeper = asyncio.create_task(
            self._sweep_loop(), name="memtap-retention-sweep"
        )

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._reopening is not None:
            with contextlib.suppress(BaseException):
                await self._reopening
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(BaseException):
                await self._sweeper
        await self.worker.stop(min(DRAIN_S, self.config.server.shutdown_grace_s))
        if self.vector_tier is not None:
            with contextlib.suppress(Exception):
                await self.vector_tier.close()
        await self.db.close()

    def store_gone(self) -> None:
        """The database file vanished under us (deleted or replaced): reopen it in the
        background — a fresh, migrated file — so memory comes back without a restart.
        Until then every call fails fast with an EngineError (the proxy runs without memory)."""
        if self._closed or self._reopening is not None:
            return
        self.metrics.memory_fallbacks.inc("store_gone")
        log.error("memory.store_gone", extra={"fields": {"path": str(self.db.path)}})
        self._reopening = asyncio.create_task(
            self._reopen(), name="memtap-store-reopen"
        )

    async def _reopen(self) -> None:
        old = self.db
        try:
            new = await Database.open(
                old.path, old.driver, extension_loaders=self.extension_loaders
            )
            try:
                await new.write_outside_transaction(migrations.migrate)
            except BaseException:
                await new.close()
                raise
        except Exception as exc:  # noqa: BLE001 - retried at the next failing call
            log.error(
                "memory.store_reopen_failed",
                extra={"fields": {"error": f"{type(exc).__name__}: {exc}"[:200]}},
            )
            self._reopening = None
            return
        was_running = self.worker.running
        await self.worker.stop(0.0)
        self.db = new
        self.worker = OutboxWorker(
            new,
            self.holder,
            self.metrics,
            on_written=self._vector_upsert,
            events=self.events,
        )
        if was_running:
            self.worker.start()
        if self.vector_tier is not None:
            tier, self.vector_tier = self.vector_tier, None
            with contextlib.suppress(Exception):
                await tier.close()
            await _attach_vector_tier(self, self.holder, self.metrics)
        self.metrics.outbox_depth.set(0)
        await old.close()
        log.warning("memory.store_reopened", extra={"fields": {"path": str(new.path)}})
        self._reopening = None

    # -- the proxy's path ---------------------------------------------------------------------
    def _context(self) -> RetrievalContext:
        return RetrievalContext(
            self.db, self.config.memory, self.vector_tier, self.metrics
        )

    @_guarded
    async def retrieve(
        self, request: RetrievalRequest, *, side_effects: bool = True
    ) -> Retrieval:
        if not request.owner:
            raise InvalidInput("owner is required", "owner")
        return await retrieve(self._context(), request, side_effects=side_effects)

    @_guarded
    async def enqueue_turn(self, turn: Turn) -> None:
        if not turn.owner:
            raise InvalidInput("owner is required", "owner")
        now = now_iso()
        # asyncio.timeout, not wait_for: no extra task on the response's tail.
        async with asyncio.timeout(ENQUEUE_TIMEOUT_S):
            await self.db.write(lambda conn: outbox.insert(conn, turn, now))
        self.metrics.outbox_depth.inc()
        self.worker.wake()

    # -- admin: memories --------------------------------------------------------------------
    @_guarded
    async def list_memories(self, query: ListQuery) -> Page:
        if not (1 <= query.limit <= 1000) or query.offset < 0:
            raise InvalidInput("limit must be 1..1000 and offset >= 0", "limit")
        match = fts.list_match(query.q) if query.q else None
        if query.q and match is None:
            return Page(items=(), total=0)
        return await self.db.read(lambda conn: memories.list_page(conn, query, match))

    @_guarded
    async def get_memory(self, memory_id: str) -> Memory:
        found = await self.db.read(lambda conn: memories.get(conn, memory_id))
        if found is None:
            raise NotFound(f"memory {memory_id!r} not found")
        return found

    @_guarded
    async def create_memory(self, new: NewMemory) -> Memory:
        now = now_iso()
        memory, _ = await self.db.write(lambda conn: memories.upsert(conn, new, now))
        await self._vector_upsert([memory])
        return memory

    @_guarded
    async def update_memory(self, memory_id: str, patch: MemoryPatch) -> Memory:
        now = now_iso()
        updated = await self.db.write(
            lambda conn: memories.update(conn, memory_id, patch, now)
        )
        if updated is None:
            raise NotFound(f"memory {memory_id!r} not found")
        await self._vector_upsert([updated])
        return updated

    @_guarded
    async def restore_summary(self, summary_id: str) -> Memory:
        """Undo one compaction by `summarize`: the original is live again, the summary is
        gone. NotFound when `summary_id` is not a summary."""
        original_id = await self.db.write(
            lambda conn: summarizer.restore(conn, summary_id)
        )
        if original_id is None:
            raise NotFound(f"memory {summary_id!r} is not a summary")
        await self._vector_delete([summary_id])
        original = await self.get_memory(original_id)
        await self._vector_upsert([original])
        return original

    async def delete_memory(self, memory_id: str) -> None:
        if not await self.db.write(lambda conn: memories.delete(conn, memory_id)):
            raise NotFound(f"memory {memory_id!r} not found")
        await self._vector_delete([memory_id])

    @_guarded
    async def erase_owner(self, owner: str) -> EraseReceipt:
        """GDPR erase: rows, outbox, FTS (merged so no segment keeps the text), vectors, then
        a WAL checkpoint so no old page survives in `-wal`."""
        if not owner:
            raise InvalidInput("owner is required", "owner")

        def erase(conn: Any) -> dict[str, int]:
            fts_rows = fts.owner_rows(conn, owner)
            removed = {
                "memories": memories.erase_owner(conn, owner),
                "outbox": outbox.erase_owner(conn, owner),
                "fts": fts_rows,
            }
            fts.optimize(conn)
            return removed

        removed = await self.db.write(erase)
        self.metrics.outbox_depth.dec(amount=removed["outbox"])
        removed["vectors"] = 0
        if self.vector_tier is not None:
            try:
                removed["vectors"] = await asyncio.wait_for(
                    self.vector_tier.erase_owner(owner), VECTOR_WRITE_TIMEOUT_S
                )
            except Exception as exc:
                raise EngineError(
                    f"memories erased but the vector tier failed ({type(exc).__name__}); retry"
                ) from exc
        await self.checkpoint()
        log.info(
            "memory.owner_erased",
            extra={"fields": {"owner": owner, "removed": removed}},
        )
        return EraseReceipt(owner=owner, removed=removed)

    async def checkpoint(self) -> None:
        """Fold the WAL into the main file and truncate it (erased text leaves `-wal`)."""
        for _ in range(20):
            busy = await self.db.write_outside_transaction(
                lambda conn: conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[
                    0
                ]
            )
            if not busy:
                return
            await asyncio.sleep(0.05)

    async def export_owner(self, owner: str) -> AsyncIterator[Memory]:
        after = 0
        while True:
            try:
                page = await self.db.read(
                    functools.partial(
                        memories.owner_page,
                        owner=owner,
                        after_rowid=after,
                        limit=EXPORT_PAGE,
                    )
                )
            except EngineError:
                raise
            except Exception as exc:
                raise EngineError(f"{type(exc).__name__}: {exc}") from exc
            for _, memory in page:
                yield memory
            if len(page) < EXPORT_PAGE:
                return
            after = page[-1][0]

    @_guarded
    async def import_memories(self, items: list[NewMemory]) -> ImportReport:
        tally = ImportTally()
        for start in range(0, len(items), IMPORT_CHUNK):
            chunk = items[start : start + IMPORT_CHUNK]

            def run(
                conn: Any, chunk: list[NewMemory] = chunk, base: int = start
            ) -> list[tuple[int, Memory | str, bool]]:
                now = now_iso()
                out: list[tuple[int, Memory | str, bool]] = []
                for i, item in enumerate(chunk):
                    try:
                        conn.execute("SAVEPOINT item")
                        memory, was_created = memories.upsert(conn, item, now)
                        conn.execute("RELEASE item")
                        out.append((base + i, memory, was_created))
                    except InvalidInput as exc:
                        conn.execute("ROLLBACK TO item")
                        conn.execute("RELEASE item")
                        out.append((base + i, f"line {base + i + 1}: {exc}", False))
                return out

            written: list[Memory] = []
            for _, result, was_created in await self.db.write(run):
                if isinstance(result, str):
                    tally.refused(result)
                else:
                    written.append(result)
                    tally.stored(was_created)
            await self._vector_upsert(written)
        return tally.report()

    # -- maintenance ------------------------------------------------------------------------
    @_guarded
    async def summarize(
        self, older_than_days: int, owner: str | None, dry_run: bool
    ) -> dict[str, Any]:
        if older_than_days < 0:
            raise InvalidInput("older_than_days must be >= 0", "older_than_days")
        found = await self.db.read(
            lambda conn: summarizer.candidates(conn, older_than_days, owner)
        )
        if dry_run:
            return summarizer.dry_run_report(found)
        written, saved = await self.db.write(
            lambda conn: summarizer.compact(conn, found)
        )
        await self._vector_upsert(written)
        return summarizer.done_report(found, written, saved)

    @_guarded
    async def reindex(
        self, limit: int | None = None, force: bool = False
    ) -> dict[str, Any]:
        if self.vector_tier is None:
            counts = await self.db.read(lambda conn: memories.counts(conn, now_iso()))
            return {
                "started": False,
                "pending": counts["needs_reindex"],
                "reason": self.vector_error or "no vector tier",
            }
        return await self.vector_tier.reindex(limit, force)

    async def sweep(self) -> int:
        """Really delete expired and out-of-retention memories (also their vectors)."""
        now = now_iso()
        from datetime import UTC, datetime

        cutoff = cutoff_for(self.config.memory.retention_days, datetime.now(UTC))
        total = 0
        while True:
            ids = await self.db.write(lambda conn: memories.sweep(conn, now, cutoff))
            total += len(ids)
            await self._vector_delete(ids)
            if len(ids) < 5000:
                break
        if total:
            log.info("memory.swept", extra={"fields": {"deleted": total}})
        return total

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, self.config.memory.sweep_interval_s))
            try:
                await self.sweep()
            except Exception as exc:  # noqa: BLE001 - retried at the next interval
                log.warning(
                    "memory.sweep_failed",
                    extra={"fields": {"error": type(exc).__name__}},
                )

    # -- settings overrides -----------------------------------------------------------------
    @_guarded
    async def load_overrides(self) -> dict[str, Any]:
        return await self.db.read(settings_store.load_all)

    @_guarded
    async def save_override(self, name: str, value: Any) -> None:
        now = now_iso()
        await self.db.write(lambda conn: settings_store.save(conn, name, value, now))

    @_guarded
    async def delete_override(self, name: str) -> bool:
        return await self.db.write(lambda conn: settings_store.delete(conn, name))

    # -- status ------------------------------------------------------------------------------
    @_guarded
    async def status(self) -> dict[str, Any]:
        driver: Driver = self.db.driver
        counts = await self.db.read(lambda conn: memories.counts(conn, now_iso()))
        depth = await self.db.read(outbox.depth)
        vector: dict[str, Any] = {
            "available": False,
            "reason": self.vector_error or "no vector tier",
        }
        if self.vector_tier is not None:
            try:
                vector = {
                    "available": True,
                    "kind": self.vector_tier.name,
                    **await self.vector_tier.status(),
                }
            except Exception as exc:  # noqa: BLE001
                vector = {
                    "available": False,
                    "kind": self.vector_tier.name,
                    "reason": type(exc).__name__,
                }
        size = sum(
            p.stat().st_size
            for p in self.db.path.parent.glob(self.db.path.name + "*")
            if p.is_file()
        )
        cfg = self.config.memory
        return {
            "store": {
                "kind": "sqlite",
                "driver": driver.name,
                "sqlite_version": driver.sqlite_version,
                "path": str(self.db.path),
                "bytes": size,
                "wal": True,
                "extensions": {
                    "loadable": driver.can_load_extensions,
                    **self.db.extensions,
                },
            },
            "fts": {
                "available": driver.has_fts5,
                "tokenizer": "porter unicode61 remove_diacritics 2",
            },
            "vector": vector,
            "embedding": self.vector_tier.embedding()
            if self.vector_tier is not None
            else "off",
            "outbox": self._outbox_status(depth),
            "counts": counts,
            "memory": memory_status(cfg),
        }

    def _outbox_status(self, depth: int) -> dict[str, Any]:
        return {
            "depth": depth,
            "worker": "running" if self.worker.running else "stopped",
            "processed": self.worker.processed,
            "last_error": self.worker.last_error,
        }

    async def health(self) -> dict[str, str]:
        vector, embedding = "off", "off"
        if self.vector_tier is not None:
            try:
                vector, embedding = (
                    self.vector_tier.health(),
                    self.vector_tier.embedding(),
                )
            except Exception as exc:  # noqa: BLE001
                vector = f"error: {type(exc).__name__}"
        elif self.vector_error:
            vector = "unavailable"
        return {
            "store": f"sqlite:{self.db.driver.name}",
            "vector": vector,
            "embedding": embedding,
        }

    # -- vector write path (fail-open) -------------------------------------------------------
    async def _vector_upsert(self, items: Sequence[Memory]) -> None:
        if self.vector_tier is None or not items:
            return
        try:
            await asyncio.wait_for(
                self.vector_tier.upsert(items), VECTOR_WRITE_TIMEOUT_S
            )
        except Exception as exc:  # noqa: BLE001 - rows keep needs_reindex = 1; reindex catches up
            self.metrics.memory_fallbacks.inc("vector_write")
            log.warning(
                "memory.vector_upsert_failed",
                extra={"fields": {"error": type(exc).__name__, "count": len(items)}},
            )

    async def _vector_delete(self, ids: Sequence[str]) -> None:
        if self.vector_tier is None or not ids:
            return
        try:
            await asyncio.wait_for(self.vector_tier.delete(ids), VECTOR_WRITE_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - a dangling vector is filtered out at read time
            self.metrics.memory_fallbacks.inc("vector_write")
            log.warning(
                "memory.vector_delete_failed",
                extra={"fields": {"error": type(exc).__name__, "count": len(ids)}},
            )


def memory_status(cfg: MemoryConfig) -> dict[str, Any]:
    """The memory settings engine-status reports, for every store."""
    return {
        "enabled": cfg.enabled,
        "strategy": cfg.strategy,
        "scope": cfg.scope,
        "max_tokens": cfg.max_tokens,
        "retention_days": cfg.retention_days,
    }


def database_path(config: Config) -> Path:
    return Path(config.data_dir).expanduser() / DB_FILENAME


async def open_engine(
    holder: ConfigHolder,
    metrics: Metrics,
    *,
    start_worker: bool = True,
    driver: Driver | None = None,
    events: EngineEvents | None = None,
) -> Engine:
    """Choose the driver, open + migrate the database, attach the vector tier, start.

    With `vector_store.kind: qdrant` Qdrant is the system of record (several replicas share
    it); the local SQLite file then keeps only this replica's outbox and settings.
    """
    config = holder.current
    if config.vector_store.kind == "qdrant":
        from memtap.engine.store.qdrant_engine import open_qdrant_engine

        return await open_qdrant_engine(
            holder, metrics, start_worker=start_worker, driver=driver, events=events
        )
    if driver is None:
        driver = await asyncio.to_thread(
            choose_driver, os.environ.get("MEMTAP_SQLITE_DRIVER") or None
        )
    loaders: list[tuple[str, Callable[[Any], None]]] = []
    if driver.can_load_extensions and config.vector_store.kind in (
        "auto",
        "sqlite-vec",
    ):
        loaders.append(("sqlite-vec", load_sqlite_vec))
    db = await Database.open(database_path(config), driver, extension_loaders=loaders)
    try:
        await db.write_outside_transaction(migrations.migrate)
        engine = Engine(holder, metrics, db, events)
        engine.extension_loaders = loaders
        await _attach_vector_tier(engine, holder, metrics)
        await engine.start(worker=start_worker)
    except BaseException:
        await db.close()
        raise
    log.info(
        "memory.engine_started",
        extra={
            "fields": {
                "store": f"sqlite:{driver.name}",
                "path": str(db.path),
                "vector": engine.vector_tier.name if engine.vector_tier else "off",
            }
        },
    )
    return engine


async def _attach_vector_tier(
    engine: Engine, holder: ConfigHolder, metrics: Metrics
) -> None:
    if holder.current.vector_store.kind == "none":
        engine.vector_error = "disabled (vector_store.kind: none)"
        return
    try:
        from memtap.engine.retrieval import semantic
    except ImportError:
        engine.vector_error = "semantic tier not installed"
        return
    build = getattr(semantic, "build_vector_tier", None)
    if build is None:
        engine.vector_error = "semantic tier not installed"
        return
    try:
        engine.vector_tier = await build(holder, engine.db, metrics)
        if engine.vector_tier is None:
            engine.vector_error = "no embedding source or vector store available"
    except Exception as exc:  # noqa: BLE001 - memory works without vectors
        engine.vector_error = f"{type(exc).__name__}: {exc}"[:200]
        metrics.memory_fallbacks.inc("vector_init")
        log.warning(
            "memory.vector_unavailable",
            extra={"fields": {"error": engine.vector_error}},
        )
