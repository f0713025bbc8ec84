"""`SqliteEpisodeStore`: episodes in the local SQLite file (`sql/episodes.py` has the SQL).

Keyword search is FTS5 over the sentence windows. Vector search is cosine over the owner's
window vectors (float16 blobs in `episode_chunks.vec`), served from a per-owner float32
matrix cached in memory (`episode_vector_cache.WindowCache`: LRU bounded by bytes,
`cache_max_bytes`) and loaded on the owner's first query: one exact mat-vec up to 10k
windows (~1 ms), a binary first pass rescored exactly above (`sign_codes`). Windows this
store embeds join the cached matrix; every other write drops the owners it touched; another
process writing the same file is not seen until the owner is evicted or memtap restarts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import numpy as np

from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.embeddings.multilingual import (
    MultilingualSource,
    best_of,
    map_for,
    maps_onto,
    needs_second,
    second_query,
)
from memtap.engine.embeddings.projected import embed_query
from memtap.engine.episode_types import (
    ChunkHit,
    Episode,
    EpisodeListQuery,
    EpisodePage,
    EpisodeWrite,
    KeywordWindows,
    NewEpisode,
    VectorWindows,
)
from memtap.engine.fallbacks import NoVectors
from memtap.engine.memory_rules import Live
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.episode_second import SecondWindows
from memtap.engine.sqlite.episode_vector_cache import (
    DEFAULT_CACHE_BYTES,
    ModelCheck,
    OwnerWindows,
    WindowCache,
)
from memtap.engine.sqlite.sql import episode_vectors as sql_vectors
from memtap.engine.sqlite.sql import episodes as sql
from memtap.engine.sqlite.sql.fts import OwnerSizes

log = logging.getLogger("memtap.episodes")
Conn = Any
SourceGetter = Callable[[], EmbeddingSource | None]
EXPORT_PAGE = 500
QUERY_TIMEOUT_S = 2.0


class SqliteEpisodeStore:
    name = "sqlite"

    def __init__(
        self,
        db: Database,
        source: SourceGetter | None = None,
        read_timeout_ms: Callable[[], int] | None = None,
        cache_max_bytes: int = DEFAULT_CACHE_BYTES,
        second: MultilingualSource | None = None,
    ) -> None:
        self.db = db
        self._source = source or (lambda: None)
        self._read_timeout_ms = read_timeout_ms
        self.cache = WindowCache(cache_max_bytes)
        self.second = (
            SecondWindows(db, second, cache_max_bytes // 2)
            if second is not None
            else None
        )
        """Windows said in another language, with the multilingual model's vectors."""
        self.owner_sizes = OwnerSizes()
        self.model_check = ModelCheck(
            db, self.cache, sql_vectors.forget_other_signatures
        )

    @property
    def read_timeout_ms(self) -> int | None:
        return self._read_timeout_ms() if self._read_timeout_ms is not None else None

    async def add(
        self, episodes: Sequence[NewEpisode], now: str, max_per_owner: int
    ) -> list[EpisodeWrite]:
        if not episodes:
            return []
        # Which messages the second model reads, decided once here (a word count each):
        # English ones are marked and never looked at again.
        foreign = frozenset(
            e.id for e in episodes if e.role != "assistant" and needs_second(e.content)
        )
        writes, _, _ = await self.db.write(
            lambda conn: sql.add(conn, episodes, now, max_per_owner, foreign)
        )
        if foreign and self.second is not None:
            self.second.waiting = True
        # No cache change: new windows have no vector yet (`embed_pending` adds them), and
        # windows evicted by the cap are dropped by `chunks_by_rowid` when they come up.
        return writes

    async def keyword(self, query: str, live: Live, limit: int) -> list[ChunkHit]:
        return await self.db.read(
            lambda conn: sql.keyword(conn, query, live, limit, self.owner_sizes),
            timeout_ms=self.read_timeout_ms,
        )

    async def vector(
        self, query: str, live: Live, limit: int, depth: int = 0
    ) -> VectorWindows:
        source = self._source()
        if source is None:
            raise NoVectors("no embedding source")
        if live.owner is None:
            raise NoVectors("episode vectors are searched per owner")
        owner, signature = live.owner, source.signature
        routed = await self._routed(owner)
        second_vector: np.ndarray[Any, Any] | None = None
        # The fact leg's query text and lane: one embedding for both legs (cache), ahead of
        # the worker's write embeddings.
        async with asyncio.timeout(QUERY_TIMEOUT_S):  # no task of its own (recall.py)
            if routed is None or self.second is None:
                query_vector = await embed_query(source, query)
            else:
                query_vector, second_vector = await asyncio.gather(
                    embed_query(source, query),
                    second_query(self.second.source, query),
                )
        vector = np.asarray(query_vector.vector, dtype=np.float32)

        def run(conn: Conn) -> VectorWindows:
            entry = self._entry(conn, owner, signature)
            if entry is None:
                raise NoVectors("the owner's window vectors are loading")
            if not entry.n:
                raise NoVectors("no episode window has a vector yet")
            # Session scope and retention are applied on the rows: over-fetch for them.
            k = max(depth, limit * 2)
            ranked = entry.top(vector, k)
            if query_vector.projected:
                ranked = [(ref, query_vector.calibrated(c)) for ref, c in ranked]
            if routed is not None and second_vector is not None:
                ranked = best_of(
                    ranked, routed.top(second_vector, k), k, map_for(query)
                )
            # The best `limit` rows first; the rest only when the filter dropped some
            # (reading a row costs more than ranking it: at 100k windows, 80 rows read
            # were a third of the arm).
            hits = sql.chunks_by_rowid(conn, ranked[:limit], live)
            if len(hits) < limit and len(ranked) > limit:
                hits += sql.chunks_by_rowid(conn, ranked[limit:], live)
            return VectorWindows(hits[:limit], list(ranked))

        return await self.db.read(run, timeout_ms=self.read_timeout_ms)

    def _entry(self, conn: Conn, owner: str, signature: str) -> OwnerWindows | None:
        """The owner's window vectors, loaded on first use (None while another load of
        theirs runs)."""
        return self.cache.loaded(
            owner, signature, lambda: sql_vectors.owner_vectors(conn, owner, signature)
        )

    async def _routed(self, owner: str) -> OwnerWindows | None:
        """The owner's second vectors when their questions go to both models, else None.
        Usually cached: an English-only owner pays a dict lookup (an empty entry)."""
        second = self._second_in_use()
        if second is None:
            return None
        routed = second.cached(owner)
        if routed is None:
            routed = await self.db.read(
                lambda conn: second.entry(conn, owner), timeout_ms=self.read_timeout_ms
            )
        return routed if SecondWindows.routes(routed) else None

    async def term_rows(self, owner: str, query: str) -> tuple[int, dict[str, int]]:
        return await self.db.read(
            lambda conn: sql.term_rows(conn, owner, query, self.owner_sizes),
            timeout_ms=self.read_timeout_ms,
        )

    async def keyword_and_terms(
        self, query: str, live: Live, limit: int
    ) -> KeywordWindows:
        owner = live.owner

        def read(conn: Conn) -> KeywordWindows:
            hits = sql.keyword(conn, query, live, limit, self.owner_sizes)
            if owner is None or not hits:
                return KeywordWindows(hits)
            total, rows = sql.term_rows(conn, owner, query, self.owner_sizes)
            return KeywordWindows(hits, total, rows)

        return await self.db.read(read, timeout_ms=self.read_timeout_ms)

    async def neighbours(
        self, episode_ids: Sequence[str], live: Live
    ) -> dict[str, tuple[Episode | None, Episode | None]]:
        if not episode_ids:
            return {}
        return await self.db.read(
            lambda conn: sql.neighbours(conn, episode_ids, live),
            timeout_ms=self.read_timeout_ms,
        )

    async def embed_pending(self, max_items: int, *, load_second: bool = True) -> int:
        done = await self._embed_first(max_items)
        second = self._second_in_use()
        if second is not None and second.has_work and done < max_items:
            if not load_second and not second.source.loaded:
                return done  # the background pass loads it, then embeds them
            try:
                done += await second.embed_pending(max_items - done)
            except Exception as exc:  # noqa: BLE001 - the first model's vectors stand alone
                second.waiting = True  # what it left is looked at again next pass
                log.warning(
                    "episodes.second_vectors_failed",
                    extra={"fields": {"error": f"{type(exc).__name__}: {exc}"}},
                )
        return done

    async def _embed_first(self, max_items: int) -> int:
        source = self._source()
        if source is None:
            return 0
        signature = source.signature
        await self.model_check.same_model(signature)
        todo = await self.db.read(lambda conn: sql_vectors.unembedded(conn, max_items))
        if not todo:
            return 0
        matrix = await source.embed([text for _, _, text in todo])
        rowids = [rid for rid, _, _ in todo]
        await self.db.write(
            lambda conn: sql_vectors.store_vectors(conn, rowids, matrix, signature)
        )
        await asyncio.to_thread(
            self.cache.append_stored,
            [owner for _, owner, _ in todo],
            rowids,
            matrix,
            signature,
        )
        return len(todo)

    async def pending_vectors(self) -> int:
        source = self._source()
        if source is None:
            return 0  # no model: nothing waits for a vector (as in the Qdrant store)
        await self.model_check.same_model(source.signature)
        first = await self.db.read(sql_vectors.pending)
        second = self._second_in_use()
        if second is None or not (second.has_work or second.passes.running):
            return first
        return first + await second.pending()

    def _second_in_use(self) -> SecondWindows | None:
        """The second vectors, when the first model is the one they are mapped onto."""
        source = self._source()
        if self.second is None or source is None or not maps_onto(source.model):
            return None
        return self.second

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
            self._invalidate({owner})
            self.owner_sizes.forget(owner)
        return owner is not None

    async def erase_owner(self, owner: str) -> int:
        removed = await self.db.write(lambda conn: sql.erase_owner(conn, owner))
        self._invalidate({owner})
        self.owner_sizes.forget(owner)
        return removed

    async def sweep(self, cutoff: str, limit: int = 5000) -> int:
        removed, owners = await self.db.write(
            lambda conn: sql.sweep(conn, cutoff, limit)
        )
        self._invalidate(owners)
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
        if self._source() is None:
            counts["pending_vectors"] = 0  # no model: nothing waits (`pending_vectors`)
        if (
            self._second_in_use() is None
        ):  # as a Qdrant store: said only with the route on
            counts.pop("second_vectors")
            counts.pop("second_pending")
        return {**counts, "vector_cache_bytes": self.cache.stats()["bytes"]}

    async def local_file_replaced(self) -> None:
        # Row ids of the fresh file would otherwise meet cached vectors of the old one.
        self._invalidate(None)
        self.model_check.checked = None
        if self.second is not None:
            self.second.forget_checked()

    def _invalidate(self, owners: set[str] | None) -> None:
        self.cache.invalidate(owners)
        if self.second is not None:
            self.second.cache.invalidate(owners)

    async def close(self) -> None:
        # The local file is closed by its owner (the engine); the second model is ours.
        if self.second is not None:
            await self.second.source.close()
