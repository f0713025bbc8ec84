"""`SqliteEpisodeStore`: episodes in the local SQLite file (`sqlite/episodes.py` has the SQL).

Keyword search is FTS5 over the sentence windows. Vector search is exact cosine over the
owner's window vectors (float16 blobs in `episode_chunks.vec`), served from a per-owner
float32 matrix cached in memory (LRU bounded by bytes, `cache_max_bytes`) and loaded on the
owner's first query: one mat-vec, ~1 ms at 10k windows. Every write this store makes drops
the owners it touched from the cache (a generation counter per owner keeps a load that raced
a write from caching what it read before the write); another process writing the same file
is not seen until the owner is evicted or memtap restarts.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.embeddings.query_text import query_tail
from memtap.engine.episode_types import (
    ChunkHit,
    Episode,
    EpisodeListQuery,
    EpisodePage,
    EpisodeWrite,
    NewEpisode,
)
from memtap.engine.fallbacks import NoVectors
from memtap.engine.memory_rules import Live
from memtap.engine.sqlite import episodes as sql
from memtap.engine.sqlite.database import Database

Conn = Any
SourceGetter = Callable[[], EmbeddingSource | None]
EXPORT_PAGE = 500
DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
QUERY_TIMEOUT_S = 2.0


@dataclass(slots=True)
class _Cached:
    signature: str
    ids: np.ndarray[Any, Any]
    matrix: np.ndarray[Any, Any]

    @property
    def nbytes(self) -> int:
        return int(self.ids.nbytes + self.matrix.nbytes)


class _OwnerMatrices:
    """Per-owner window matrices, LRU by bytes; thread-safe (loads run in reader threads)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, _Cached] = OrderedDict()
        self._generation: dict[str, int] = {}

    def get(self, owner: str, signature: str) -> tuple[_Cached | None, int]:
        with self._lock:
            entry = self._entries.get(owner)
            generation = self._generation.get(owner, 0)
            if entry is not None and entry.signature == signature:
                self._entries.move_to_end(owner)
                return entry, generation
            return None, generation

    def put(self, owner: str, entry: _Cached, generation: int) -> None:
        with self._lock:
            if self._generation.get(owner, 0) != generation:
                return  # a write came in while this was read
            if entry.nbytes > self.max_bytes:
                return
            self._entries[owner] = entry
            self._entries.move_to_end(owner)
            while sum(e.nbytes for e in self._entries.values()) > self.max_bytes:
                self._entries.popitem(last=False)

    def append(
        self,
        owner: str,
        signature: str,
        ids: np.ndarray[Any, Any],
        rows: np.ndarray[Any, Any],
    ) -> None:
        """Windows just embedded join the owner's cached matrix (a chat embeds one turn's
        windows at a time: reloading every window of the owner after each would put that
        reload on the owner's next request). A load already under way is dropped
        (generation), since it may not hold them."""
        with self._lock:
            self._generation[owner] = self._generation.get(owner, 0) + 1
            entry = self._entries.get(owner)
            if entry is None or entry.signature != signature or not len(entry.ids):
                self._entries.pop(owner, None)
                return
            self._entries[owner] = _Cached(
                signature,
                np.concatenate([entry.ids, ids]),
                np.concatenate([entry.matrix, rows]),
            )
            while sum(e.nbytes for e in self._entries.values()) > self.max_bytes:
                self._entries.popitem(last=False)

    def invalidate(self, owners: set[str] | None) -> None:
        with self._lock:
            targets = (
                list(self._entries) + list(self._generation)
                if owners is None
                else owners
            )
            for owner in set(targets):
                self._entries.pop(owner, None)
                self._generation[owner] = self._generation.get(owner, 0) + 1

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {
                "owners": len(self._entries),
                "bytes": sum(e.nbytes for e in self._entries.values()),
                "max_bytes": self.max_bytes,
            }


class SqliteEpisodeStore:
    name = "sqlite"

    def __init__(
        self,
        db: Database,
        source: SourceGetter | None = None,
        read_timeout_ms: Callable[[], int] | None = None,
        cache_max_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        self.db = db
        self._source = source or (lambda: None)
        self._read_timeout_ms = read_timeout_ms
        self.cache = _OwnerMatrices(cache_max_bytes)
        self._signature_checked: str | None = None

    @property
    def read_timeout_ms(self) -> int | None:
        return self._read_timeout_ms() if self._read_timeout_ms is not None else None

    async def add(
        self, episodes: Sequence[NewEpisode], now: str, max_per_owner: int
    ) -> list[EpisodeWrite]:
        if not episodes:
            return []
        writes, _, _ = await self.db.write(
            lambda conn: sql.add(conn, episodes, now, max_per_owner)
        )
        # No cache change: new windows have no vector yet (`embed_pending` adds them), and
        # windows evicted by the cap are dropped by `chunks_by_rowid` when they come up.
        return writes

    async def keyword(self, query: str, live: Live, limit: int) -> list[ChunkHit]:
        return await self.db.read(
            lambda conn: sql.keyword(conn, query, live, limit),
            timeout_ms=self.read_timeout_ms,
        )

    async def vector(self, query: str, live: Live, limit: int) -> list[ChunkHit]:
        source = self._source()
        if source is None:
            raise NoVectors("no embedding source")
        if live.owner is None:
            raise NoVectors("episode vectors are searched per owner")
        owner, signature = live.owner, source.signature
        # The fact leg's query text and lane: one embedding for both legs (cache), ahead of
        # the worker's write embeddings.
        matrix = await asyncio.wait_for(
            source.embed([query_tail(query)], urgent=True), QUERY_TIMEOUT_S
        )
        vector = np.asarray(matrix[0], dtype=np.float32)

        def run(conn: Conn) -> list[ChunkHit]:
            entry, generation = self.cache.get(owner, signature)
            if entry is None:
                ids, mat = sql.owner_vectors(conn, owner, signature)
                entry = _Cached(signature, ids, mat)
                self.cache.put(owner, entry, generation)
            if not len(entry.ids):
                raise NoVectors("no episode window has a vector yet")
            sims = entry.matrix @ vector
            # Session scope and retention are applied on the rows: over-fetch for them.
            k = min(len(sims), limit * 2)
            top = np.argpartition(-sims, k - 1)[:k]
            top = top[np.argsort(-sims[top])]
            ranked = [(int(entry.ids[i]), float(sims[i])) for i in top]
            return sql.chunks_by_rowid(conn, ranked, live)[:limit]

        return await self.db.read(run, timeout_ms=self.read_timeout_ms)

    async def embed_pending(self, max_items: int) -> int:
        source = self._source()
        if source is None:
            return 0
        signature = source.signature
        if self._signature_checked != signature:
            changed = await self.db.write(
                lambda conn: sql.forget_other_signatures(conn, signature)
            )
            if changed:
                self.cache.invalidate(None)
            self._signature_checked = signature
        todo = await self.db.read(lambda conn: sql.unembedded(conn, max_items))
        if not todo:
            return 0
        matrix = await source.embed([text for _, _, text in todo])
        rowids = [rid for rid, _, _ in todo]
        await self.db.write(
            lambda conn: sql.store_vectors(conn, rowids, matrix, signature)
        )
        # What a reload would read: the stored float16 values, as float32.
        stored = matrix.astype(np.float16).astype(np.float32)
        for owner in {owner for _, owner, _ in todo}:
            picked = [i for i, (_, o, _) in enumerate(todo) if o == owner]
            self.cache.append(
                owner,
                signature,
                np.asarray([rowids[i] for i in picked], dtype=np.int64),
                stored[picked],
            )
        return len(todo)

    async def pending_vectors(self) -> int:
        return await self.db.read(sql.pending)

    async def get(self, episode_id: str) -> Episode | None:
        return await self.db.read(lambda conn: sql.get(conn, episode_id))

    async def list_page(self, query: EpisodeListQuery) -> EpisodePage:
        return await self.db.read(lambda conn: sql.list_page(conn, query))

    async def delete(self, episode_id: str) -> bool:
        def run(conn: Conn) -> str | None:
            owner = sql.owner_of(conn, episode_id)
            if owner is not None:
                sql.delete(conn, episode_id)
            return owner

        owner = await self.db.write(run)
        if owner is not None:
            self.cache.invalidate({owner})
        return owner is not None

    async def erase_owner(self, owner: str) -> int:
        removed = await self.db.write(lambda conn: sql.erase_owner(conn, owner))
        self.cache.invalidate({owner})
        return removed

    async def sweep(self, cutoff: str, limit: int = 5000) -> int:
        removed, owners = await self.db.write(
            lambda conn: sql.sweep(conn, cutoff, limit)
        )
        self.cache.invalidate(owners)
        return removed

    async def export_owner(self, owner: str) -> AsyncIterator[Episode]:
        after = 0
        while True:

            def read_page(conn: Conn, start: int = after) -> list[tuple[int, Episode]]:
                return sql.owner_page(conn, owner, start, EXPORT_PAGE)

            page = await self.db.read(read_page)
            for rowid, episode in page:
                after = rowid
                yield episode
            if len(page) < EXPORT_PAGE:
                return

    async def counts(self) -> dict[str, int]:
        counts = await self.db.read(sql.counts)
        return {**counts, "vector_cache_bytes": self.cache.stats()["bytes"]}

    async def local_file_replaced(self) -> None:
        # Row ids of the fresh file would otherwise meet cached vectors of the old one.
        self.cache.invalidate(None)
        self._signature_checked = None

    async def close(self) -> None:
        return None  # the local file is closed by its owner (the engine)
