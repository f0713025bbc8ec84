"""Building the engine: which adapter behind each port, from `vector_store.kind`.

| vector_store.kind          | RecordStore        | VectorIndex                          |
|----------------------------|--------------------|--------------------------------------|
| auto / sqlite-vec          | SQLite             | sqlite-vec (if loadable + a source)  |
| auto with a Qdrant url/path| SQLite             | Qdrant, vectors only                 |
| qdrant                     | Qdrant (shared)    | Qdrant, the record points' dense arm |
| none                       | SQLite             | none                                 |

Episodes (`EpisodeStore`) live beside the record store: in the local SQLite file, or in a
`<collection>_episodes` Qdrant collection with `vector_store.kind: qdrant`.

The outbox and the settings overrides always live in this replica's SQLite file
(`LocalFile`: `SqliteLocalFile`). The worker's unit of work (`FactWriter`) is built here over
both stores: one SQLite transaction when the rows are in that file, write-then-ack with Qdrant.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.embeddings.multilingual import open_multilingual
from memtap.engine.embeddings.resolve import (
    EmbeddingResolution,
    resolve_embedding_source,
)
from memtap.engine.engine import Engine
from memtap.engine.events import EngineEvents
from memtap.engine.fallbacks import ConfigSource, FallbackLog, SemanticUnavailable
from memtap.engine.metrics import Metrics
from memtap.engine.ports import (
    EpisodeStore,
    FactWriter,
    Outbox,
    RecordStore,
    VectorIndex,
)
from memtap.engine.sqlite import local
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import Driver
from memtap.engine.sqlite.episodes import SqliteEpisodeStore
from memtap.engine.sqlite.fact_writer import SqliteFactWriter
from memtap.engine.sqlite.local import SqliteLocalFile
from memtap.engine.sqlite.memories import SqliteRecordStore
from memtap.engine.sqlite.outbox import SqliteOutbox
from memtap.engine.sqlite.reindex_flags import SqliteReindexFlags
from memtap.engine.sqlite.request_log import SqliteRequestLog
from memtap.engine.sqlite.settings import SqliteSettings
from memtap.engine.sqlite.vectors import SQLITE_VEC, SqliteVecIndex

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder
    from memtap.config.schema import Config
    from memtap.engine.qdrant.transport import QdrantTransport
    from memtap.engine.qdrant.vectors import QdrantVectorIndex

# The Qdrant adapters are imported where a Qdrant kind is built: qdrant-client's import is
# ~1 s of CPU, which every `memtap serve` on SQLite would otherwise pay at start.

log = logging.getLogger("memtap.engine")


def database_path(config: Config) -> Path:
    return local.database_path(config.data_dir)


@dataclass(slots=True)
class _Ports:
    """What one `vector_store.kind` puts behind the engine's storage ports, and how to close
    what it opened if the engine does not start."""

    store: RecordStore
    facts: FactWriter
    """Stores the worker's facts and acks their outbox rows, as one unit of work."""
    index: VectorIndex | None
    vector_error: str | None
    episodes: EpisodeStore
    started: dict[str, Any]
    """Fields of the `memory.engine_started` line."""
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)


async def open_engine(
    holder: ConfigHolder,
    metrics: Metrics,
    *,
    start_worker: bool = True,
    driver: Driver | None = None,
    qdrant_transport: QdrantTransport | None = None,
    events: EngineEvents | None = None,
) -> Engine:
    """Open the local file, pick the record store and vector index, start the worker.

    With `vector_store.kind: qdrant` Qdrant is the system of record (several replicas share
    it); the local SQLite file then keeps only this replica's outbox and settings. Qdrant
    being down does not stop memtap from starting (fail-open); a vector-size mismatch does
    (`QdrantCollectionMismatch`, a ConfigError). `qdrant_transport=` lets several engines in
    one process share one client (tests; Qdrant local mode allows one client per path)."""
    return await _open(
        holder,
        metrics,
        on_qdrant=holder.current.vector_store.kind == "qdrant",
        start_worker=start_worker,
        driver=driver,
        transport=qdrant_transport,
        events=events,
    )


async def open_qdrant_engine(
    holder: ConfigHolder,
    metrics: Metrics,
    *,
    start_worker: bool = True,
    driver: Driver | None = None,
    transport: QdrantTransport | None = None,
    events: EngineEvents | None = None,
) -> Engine:
    """`open_engine` with Qdrant as the record store whatever `vector_store.kind` says (a
    replica switched to Qdrant at run time; tests of outages)."""
    return await _open(
        holder,
        metrics,
        on_qdrant=True,
        start_worker=start_worker,
        driver=driver,
        transport=transport,
        events=events,
    )


async def _open(
    holder: ConfigHolder,
    metrics: Metrics,
    *,
    on_qdrant: bool,
    start_worker: bool,
    driver: Driver | None,
    transport: QdrantTransport | None,
    events: EngineEvents | None,
) -> Engine:
    config = holder.current
    db = await local.open_local(
        config.data_dir,
        driver=driver,
        sqlite_vec=not on_qdrant and config.vector_store.kind in ("auto", "sqlite-vec"),
    )
    local_file = SqliteLocalFile(db)
    outbox = SqliteOutbox(db)
    ports: _Ports | None = None
    try:
        if on_qdrant:
            ports = await _qdrant_ports(holder, metrics, transport, outbox)
        else:
            ports = await _sqlite_ports(holder, local_file, metrics)
        engine = Engine(
            holder,
            metrics,
            local_file,
            ports.store,
            outbox,
            SqliteSettings(db),
            ports.facts,
            ports.index,
            ports.vector_error,
            events=events,
            request_log=SqliteRequestLog(db),
            episodes=ports.episodes,
        )
        await engine.start(worker=start_worker)
    except BaseException:
        # Everything opened for an engine that did not start is closed again: the
        # embedding model, the Qdrant client (a local-mode directory lock), the file.
        for close in reversed(ports.closers if ports is not None else []):
            with contextlib.suppress(Exception):
                await close()
        await db.close()
        raise
    log.info(
        "memory.engine_started",
        extra={"fields": {**ports.started, "path": str(db.path)}},
    )
    return engine


async def _sqlite_ports(
    holder: ConfigHolder, local_file: SqliteLocalFile, metrics: Metrics
) -> _Ports:
    db = local_file.db
    store = SqliteRecordStore(
        db, read_timeout_ms=lambda: holder.current.memory.retrieval_timeout_ms
    )
    index, error = await _vector_index(holder, db, metrics)
    second = open_multilingual(holder.current.embedding.multilingual)
    episodes = SqliteEpisodeStore(
        db,
        source=_source_of(index),
        read_timeout_ms=lambda: holder.current.memory.retrieval_timeout_ms,
        second=second,
    )
    # A replaced local file: the sqlite-vec table is made again, the episodes' cached
    # vectors of the old file are forgotten (a Qdrant index keeps nothing of the file).
    if isinstance(index, SqliteVecIndex):
        local_file.on_replaced(index.local_file_replaced)
    local_file.on_replaced(episodes.local_file_replaced)
    return _Ports(
        store,
        SqliteFactWriter(db),
        index,
        error,
        episodes,
        {
            "store": f"sqlite:{db.driver.name}",
            "vector": index.name if index else "off",
            "multilingual": second.model if second is not None else "off",
        },
        [
            *([index.close] if index is not None else []),
            *([second.close] if second is not None else []),
        ],
    )


async def _qdrant_ports(
    holder: ConfigHolder,
    metrics: Metrics,
    transport: QdrantTransport | None,
    outbox: Outbox,
) -> _Ports:
    from memtap.engine.qdrant.episodes import QdrantEpisodeStore
    from memtap.engine.qdrant.fact_writer import QdrantFactWriter
    from memtap.engine.qdrant.memories import open_qdrant_store
    from memtap.engine.qdrant.vectors import QdrantDenseIndex

    config = holder.current
    resolution = await resolve_embedding_source(
        config.embedding, config.data_dir, metrics
    )
    closers: list[Callable[[], Awaitable[None]]] = []
    if resolution.source is not None:
        closers.append(resolution.source.close)
    try:
        store = await open_qdrant_store(
            config, resolution.source, metrics, transport=transport
        )
    except BaseException:
        for close in closers:
            with contextlib.suppress(Exception):
                await close()
        raise
    closers.append(store.close)
    second = open_multilingual(config.embedding.multilingual)
    if second is not None:
        closers.append(second.close)
    episodes = QdrantEpisodeStore(
        store.transport,
        f"{config.vector_store.qdrant.collection}_episodes",
        resolution.source,
        second=second,
    )
    return _Ports(
        store,
        QdrantFactWriter(store, outbox),
        QdrantDenseIndex(store, resolution.source),
        None,
        episodes,
        {
            "store": f"qdrant:{store.transport.mode}",
            "collection": store.collection.name,
            "vector": "qdrant" if store.collection.has_dense else "off",
            "embedding": store.embedding(),
            "multilingual": episodes.second.model,
        },
        closers,
    )


def _source_of(index: VectorIndex | None) -> Callable[[], EmbeddingSource | None]:
    """The embedding source the vector index uses now (it can switch at runtime), for the
    episode windows: one model, one cache, one coalescer for facts and episodes."""

    def current() -> EmbeddingSource | None:
        return index.embedding_source() if index is not None else None

    return current


async def _vector_index(
    holder: ConfigHolder, db: Database, metrics: Metrics
) -> tuple[VectorIndex | None, str | None]:
    """The vector index beside SQLite rows, or None with the reason engine-status shows."""
    if holder.current.vector_store.kind == "none":
        return None, "disabled (vector_store.kind: none)"
    try:
        index = await build_vector_index(holder, db, metrics)
    except Exception as exc:  # noqa: BLE001 - memory works without vectors
        error = f"{type(exc).__name__}: {exc}"[:200]
        metrics.memory_fallbacks.inc("vector_init")
        log.warning("memory.vector_unavailable", extra={"fields": {"error": error}})
        return None, error
    if index is None:
        return None, "no embedding source or vector store available"
    return index, None


async def build_vector_index(
    holder: ConfigSource, database: Database, metrics: Metrics | None
) -> VectorIndex | None:
    """The vector index for rows in SQLite: sqlite-vec, or Qdrant (vectors only) with
    `vector_store.kind: auto` and a Qdrant url/path.

    None when vectors are switched off (`vector_store.kind: none`, `embedding.source: none`).
    When they are wanted but cannot work (no sqlite-vec, no embedding source could be
    opened, Qdrant failing), raises `SemanticUnavailable` whose message says why for every
    source tried: the engine keeps that text for engine-status and stays on keywords."""
    config = holder.current
    kind = config.vector_store.kind
    if kind == "none":
        return None
    qdrant = config.vector_store.qdrant
    wants_qdrant = kind == "qdrant" or (
        kind == "auto" and bool(qdrant.url or qdrant.path)
    )
    fallbacks = FallbackLog(metrics)
    resolution = await resolve_embedding_source(
        config.embedding, config.data_dir, metrics
    )
    source = resolution.source
    if source is None:
        reasons = (
            "; ".join(f"{f.source}: {f.message}" for f in resolution.fallbacks)
            or "embedding.source is none"
        )
        if config.embedding.source == "none":
            return None
        fallbacks.record("no_embedding_source", reasons)
        raise SemanticUnavailable(
            f"no embedding source: {reasons}", "no_embedding_source"
        )
    if wants_qdrant:
        try:
            return await _open_qdrant_vectors(config, resolution, database, metrics)
        except Exception as exc:
            await source.close()
            reason = f"qdrant: {type(exc).__name__}: {exc}"
            fallbacks.record("qdrant_unavailable", reason)
            raise SemanticUnavailable(reason, "qdrant_unavailable") from exc
    if database.extensions.get(SQLITE_VEC) != "loaded":
        await source.close()
        reason = (
            f"sqlite-vec not loaded: {database.extensions.get(SQLITE_VEC, 'not tried')}"
        )
        fallbacks.record("no_extension", reason)
        raise SemanticUnavailable(reason, "no_extension")
    index = SqliteVecIndex(database, resolution, holder, metrics)
    started = time.perf_counter()
    await index.start()
    index.watch(holder)
    log.info(
        "vector.ready",
        extra={
            "fields": {
                "kind": SQLITE_VEC,
                "signature": index.embedding(),
                "needs_reindex": index.last_reset_marked,
                "ms": round((time.perf_counter() - started) * 1000, 1),
            }
        },
    )
    return index


async def _open_qdrant_vectors(
    config: Config,
    resolution: EmbeddingResolution,
    database: Database,
    metrics: Metrics | None,
) -> QdrantVectorIndex:
    from memtap.engine.qdrant.collection import Collection
    from memtap.engine.qdrant.transport import QdrantUnavailable, open_transport
    from memtap.engine.qdrant.vectors import QdrantVectorIndex

    # Qdrant keeps its own vectors; it only needs the resolved embedding source.
    assert resolution.source is not None
    transport = await open_transport(config.vector_store.qdrant)
    index = QdrantVectorIndex(
        transport,
        config.vector_store.qdrant.collection,
        resolution.source,
        SqliteReindexFlags(database),
        metrics,
    )
    collection: Collection = index.points.collection
    try:
        await collection.ensure()
    except QdrantUnavailable as exc:
        log.warning("qdrant.start_unavailable", extra={"fields": {"error": str(exc)}})
    except BaseException:
        await transport.close()
        raise
    return index
