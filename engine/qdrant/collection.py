"""The memtap collection: created on first use, validated against the embedding source, indexed.

Layout: named dense vector `dense` (size = the embedding source's dim, Cosine) and named
sparse vector `sparse` (memtap's keyword vector, `modifier=idf` so Qdrant applies IDF).
A collection that exists with another dense size is a configuration error naming
`vector_store.qdrant.collection` and both sizes: memtap never drops or rewrites it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qdrant_client import AsyncQdrantClient, models
from qdrant_client.http.exceptions import UnexpectedResponse

from memtap.config.errors import ConfigError, ConfigIssue
from memtap.engine.api import EngineError
from memtap.engine.qdrant.payload import INDEXED_FIELDS
from memtap.engine.qdrant.transport import (
    QdrantConfigError,
    QdrantRequestError,
    QdrantTransport,
)

log = logging.getLogger("memtap.store.qdrant")

DENSE = "dense"
SPARSE = "sparse"
COLLECTION_PATH = "vector_store.qdrant.collection"


class QdrantCollectionMismatch(QdrantConfigError, ConfigError):
    """The existing collection cannot hold this configuration's vectors.

    Both an EngineError (the engine and the admin API handle it) and a ConfigError (start-up
    reports it like any config problem, with its YAML path)."""

    def __init__(self, message: str) -> None:
        ConfigError.__init__(self, [ConfigIssue(COLLECTION_PATH, message)])


@dataclass(frozen=True, slots=True)
class Probe:
    ok: bool
    latency_ms: float
    error: str | None = None


def _index_schema(
    kind: str,
) -> models.PayloadSchemaType | models.KeywordIndexParams | models.TextIndexParams:
    if kind == "tenant":
        # Tenant index: Qdrant co-locates each owner's points, so owner-filtered search stays fast.
        return models.KeywordIndexParams(
            type=models.KeywordIndexType.KEYWORD, is_tenant=True
        )
    if kind == "text":
        return models.TextIndexParams(
            type=models.TextIndexType.TEXT,
            tokenizer=models.TokenizerType.WORD,
            lowercase=True,
        )
    return models.PayloadSchemaType(kind)


class Collection:
    """Creates and checks one collection; safe to call `ensure()` from many tasks and replicas."""

    def __init__(
        self,
        transport: QdrantTransport,
        name: str,
        dim: int | None,
        signature: str | None,
        indexed: Sequence[tuple[str, str]] = (*INDEXED_FIELDS, ("content", "text")),
    ) -> None:
        self.transport = transport
        self.name = name
        self.indexed = tuple(indexed)
        """Payload fields to index (name, kind): the memory points' by default."""
        self.dim = dim
        """Dense size of the embedding source; None = no embedding source (sparse-only search)."""
        self.signature = signature
        self.has_dense = False
        self.indexes: str = "pending"
        self._ready = False
        self._lock = asyncio.Lock()

    async def ensure(self) -> None:
        """Create the collection if missing, validate it, create payload indexes. Idempotent."""
        if self._ready:
            return
        async with self._lock:
            if self._ready:
                return
            created = await self.transport.call(
                "create_collection", self._create_if_missing
            )
            info = await self.transport.call(
                "get_collection", lambda c: c.get_collection(self.name)
            )
            self._validate(info)
            await self._create_indexes()
            self._ready = True
            log.info(
                "qdrant.collection_ready",
                extra={
                    "fields": {
                        "collection": self.name,
                        "created": created,
                        "dim": self.dim,
                        "mode": self.transport.mode,
                        "dense": self.has_dense,
                        "indexes": self.indexes,
                    }
                },
            )

    async def drop(self) -> None:
        """Delete the collection; the next `ensure()` creates it again."""
        async with self._lock:
            await self.transport.call(
                "delete_collection", lambda c: c.delete_collection(self.name)
            )
            self._ready = False

    async def embedding(self) -> str | None:
        """The embedding signature in the collection's metadata, read now (another replica
        may have changed it): None when it has none (made by an older memtap, or a server
        that keeps no collection metadata)."""
        await self.ensure()
        info = await self.transport.call(
            "get_collection", lambda c: c.get_collection(self.name)
        )
        metadata = getattr(info.config, "metadata", None) or {}
        stored = metadata.get("embedding")
        return stored if isinstance(stored, str) else None

    async def stamp(self, signature: str) -> None:
        """Record `signature` as the collection's embedding (its metadata). A server or
        client without collection metadata keeps none (nothing is compared then); an
        unreachable one raises, so the caller tries again."""
        try:
            await self.transport.call(
                "update_collection",
                lambda c: c.update_collection(
                    self.name, metadata={"created_by": "memtap", "embedding": signature}
                ),
            )
        except (TypeError, QdrantRequestError) as exc:
            log.info(
                "qdrant.metadata_unsupported",
                extra={"fields": {"collection": self.name, "error": str(exc)}},
            )

    async def _create_if_missing(self, client: AsyncQdrantClient) -> bool:
        if await client.collection_exists(self.name):
            return False
        dense = (
            {DENSE: models.VectorParams(size=self.dim, distance=models.Distance.COSINE)}
            if self.dim
            else {}
        )
        try:
            await client.create_collection(
                self.name,
                vectors_config=dense,
                sparse_vectors_config={
                    SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)
                },
                metadata={"created_by": "memtap", "embedding": self.signature},
            )
        except UnexpectedResponse as exc:
            if exc.status_code == 409:  # another replica created it first
                return False
            raise
        except ValueError as exc:  # local mode's "already exists"
            if "already exists" in str(exc):
                return False
            raise
        return True

    def _validate(self, info: models.CollectionInfo) -> None:
        vectors = info.config.params.vectors
        sparse = info.config.params.sparse_vectors or {}
        dense_params = vectors.get(DENSE) if isinstance(vectors, dict) else None
        if SPARSE not in sparse:
            raise QdrantCollectionMismatch(
                f"collection {self.name!r} exists without memtap's sparse vector {SPARSE!r}; "
                "point vector_store.qdrant.collection at a new name"
            )
        if self.dim is None:
            self.has_dense = dense_params is not None
            return
        if dense_params is None:
            raise QdrantCollectionMismatch(
                f"collection {self.name!r} has no dense vector {DENSE!r} but the embedding source produces "
                f"size {self.dim}; use another collection name or embedding.source: none"
            )
        if dense_params.size != self.dim:
            raise QdrantCollectionMismatch(
                f"collection {self.name!r} has dense vectors of size {dense_params.size}, the embedding source "
                f"({self.signature}) produces size {self.dim}; use another collection name or the matching source"
            )
        if dense_params.distance != models.Distance.COSINE:
            raise QdrantCollectionMismatch(
                f"collection {self.name!r} uses distance {dense_params.distance.value}; memtap needs Cosine"
            )
        self.has_dense = True

    async def _create_indexes(self) -> None:
        if self.transport.local:
            # Local mode ignores payload indexes (and warns); it scans every point anyway.
            self.indexes = "n/a (local mode)"
            return
        for field_name, kind in self.indexed:
            schema = _index_schema("tenant" if field_name == "owner" else kind)

            async def create(
                c: AsyncQdrantClient, f: str = field_name, s: Any = schema
            ) -> models.UpdateResult:
                return await c.create_payload_index(
                    self.name, f, field_schema=s, wait=True
                )

            await self.transport.call("create_payload_index", create)
        self.indexes = "ready"

    async def probe(self) -> Probe:
        """One cheap round trip (collection exists?), timed: /readyz and health use it."""
        started = time.perf_counter()
        try:
            await self.transport.call("probe", lambda c: c.collection_exists(self.name))
        except EngineError as exc:
            return Probe(
                False, round((time.perf_counter() - started) * 1000, 2), str(exc)
            )
        return Probe(True, round((time.perf_counter() - started) * 1000, 2))

    async def describe(self) -> dict[str, Any]:
        info = await self.transport.call(
            "get_collection", lambda c: c.get_collection(self.name)
        )
        return {
            "collection": self.name,
            "status": info.status.value if info.status is not None else None,
            "points": info.points_count,
            "segments": info.segments_count,
            "indexed_vectors": info.indexed_vectors_count,
            "payload_indexes": self.indexes
            if self.transport.local
            else sorted(info.payload_schema),
        }
