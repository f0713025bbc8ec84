"""The episode windows' second vectors, from the multilingual model
(`engine/embeddings/multilingual.py`), for `SqliteEpisodeStore`: which windows need one, an
owner's cached matrix of them, and whether an owner's questions are routed to both models.

Stored beside the first vector (`episode_chunks.vec2`, float16), cached per owner like it
(`WindowCache`). The store reads a message's language when it writes it: the windows of an
English one are marked (`NO_SECOND`) and never looked at again, the others get their second
vector in the background, after the first model's pass (as do the windows of a file written
before the route, whose language is read then).
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from memtap.engine.embeddings.multilingual import (
    MultilingualSource,
    SecondPasses,
    needs_second,
    owner_routed,
)
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.episode_vector_cache import (
    ModelCheck,
    OwnerWindows,
    WindowCache,
)
from memtap.engine.sqlite.sql import episode_vectors as sql_vectors

Conn = Any


class SecondWindows:
    def __init__(self, db: Database, source: MultilingualSource, cache_max_bytes: int):
        self.db = db
        self.source = source
        self.cache = WindowCache(cache_max_bytes)
        self.model_check = ModelCheck(db, self.cache, sql_vectors.forget_other_second)
        self.waiting = True
        """Some window may wait to be looked at: true at start (a file written before the
        route, or with it off) and after a write of a message in another language; false
        once a pass found none. An English-only install reads nothing for the second model
        after its first pass."""
        self.passes = SecondPasses()

    def entry(self, conn: Conn, owner: str) -> OwnerWindows | None:
        """The owner's second vectors, loaded on first use (None while another load of
        theirs runs)."""
        signature = self.source.signature
        return self.cache.loaded(
            owner,
            signature,
            lambda: sql_vectors.owner_vectors(conn, owner, signature, second=True),
        )

    @property
    def has_work(self) -> bool:
        """Whether a pass may find something: windows waiting, or the model's signature not
        checked yet against the stored vectors (a change makes them wait again)."""
        return self.waiting or self.model_check.checked != self.source.signature

    def forget_checked(self) -> None:
        self.model_check.checked = None
        self.waiting = True

    def cached(self, owner: str) -> OwnerWindows | None:
        return self.cache.get(owner, self.source.signature)[0]

    @staticmethod
    def routes(second: OwnerWindows | None) -> bool:
        return second is not None and owner_routed(second.n)

    async def embed_pending(self, max_items: int) -> int:
        """Look at up to `max_items` windows: a second vector for those of a message in a
        routed language, a mark on the others; how many were looked at."""
        return await self.passes.counted(self._embed_pending(max_items))

    async def _embed_pending(self, max_items: int) -> int:
        signature = self.source.signature
        await self.model_check.same_model(signature)
        self.waiting = False  # before the read: a write meanwhile sets it again
        todo = await self.db.read(lambda conn: sql_vectors.unrouted(conn, max_items))
        if len(todo) >= max_items:
            self.waiting = True
        if not todo:
            return 0
        # Windows written since are of foreign messages (`add` marked the others); those of
        # a file written before the route are read here, once a message.
        verdicts = {message: needs_second(message) for message in {r[3] for r in todo}}
        routed = [row for row in todo if verdicts[row[3]]]
        english = [row[0] for row in todo if not verdicts[row[3]]]
        matrix = (
            await self.source.embed([text for _, _, text, _ in routed])
            if routed
            else np.zeros((0, self.source.dim), dtype=np.float32)
        )
        rowids = [row[0] for row in routed]
        await self.db.write(
            lambda conn: sql_vectors.store_second(
                conn, rowids, matrix, signature, english
            )
        )
        if routed:
            await asyncio.to_thread(
                self.cache.append_stored,
                [row[1] for row in routed],
                rowids,
                matrix,
                signature,
            )
        return len(todo)

    async def pending(self) -> int:
        # A changed model's windows wait again: the backfill asks this count first.
        await self.model_check.same_model(self.source.signature)
        self.waiting = False  # before the read: a write meanwhile sets it again
        try:
            count = await self.db.read(sql_vectors.pending_second)
        except BaseException:
            self.waiting = True  # unknown: the windows are looked at again next pass
            raise
        if count:
            self.waiting = True
        return count
