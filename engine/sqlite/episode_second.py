"""The episode windows' second vectors, from the multilingual model
(`engine/embeddings/multilingual.py`), for `SqliteEpisodeStore`: which windows need one, an
owner's cached matrix of them, and whether an owner's questions are routed to both models.

Stored beside the first vector (`episode_chunks.vec2`, float16), cached per owner like it
(`WindowCache`), looked at in the background after the first model's pass: a window whose
message is in a routed language gets one, the others are marked (`NO_SECOND`) and never
looked at again.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.embeddings.multilingual import (
    needs_second,
    owner_routed,
    to_primary,
)
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.episode_vector_cache import OwnerWindows, WindowCache
from memtap.engine.sqlite.sql import episode_vectors as sql_vectors

Conn = Any


class SecondWindows:
    def __init__(self, db: Database, source: EmbeddingSource, cache_max_bytes: int):
        self.db = db
        self.source = source
        self.cache = WindowCache(cache_max_bytes)
        self._signature_checked: str | None = None
        self.waiting = True
        """Some window may wait to be looked at: true at start (a file written before the
        route, or with it off) and after a write of a message in another language; false
        once a pass found none. An English-only install reads nothing for the second model
        after its first pass."""

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
        return self.waiting or self._signature_checked != self.source.signature

    def forget_checked(self) -> None:
        self._signature_checked = None
        self.waiting = True

    def cached(self, owner: str) -> OwnerWindows | None:
        return self.cache.get(owner, self.source.signature)[0]

    @staticmethod
    def routes(second: OwnerWindows | None) -> bool:
        return second is not None and owner_routed(second.n)

    @staticmethod
    def merged(
        first: list[tuple[int, float]],
        second: OwnerWindows,
        query: np.ndarray[Any, Any],
        k: int,
    ) -> list[tuple[int, float]]:
        """Both models' rankings as one, best first, a window at the better of its two
        scores (the second on the first's scale). Ranking a routed window by the second
        model alone put evidence in the top 5 more often offline (0.74 against 0.69 on our
        multilingual set's windows) but lost through memtap (0.740 / 0.930 against 0.760 /
        0.950 live / imported): the first model's cosine with the names a question shares
        with a window keeps it above the snippets' floor."""
        best = dict(first)
        for ref, cosine in second.top(query, k):
            score = to_primary(cosine)
            if score > best.get(ref, -1.0):
                best[ref] = score
        return sorted(best.items(), key=lambda item: -item[1])[:k]

    async def embed_pending(self, max_items: int) -> int:
        """Look at up to `max_items` windows: a second vector for those of a message in a
        routed language, a mark on the others; how many were looked at."""
        signature = self.source.signature
        if self._signature_checked != signature:
            changed = await self.db.write(
                lambda conn: sql_vectors.forget_other_second(conn, signature)
            )
            if changed:
                self.cache.invalidate(None)
            self._signature_checked = signature
        self.waiting = False  # before the read: a write meanwhile sets it again
        todo = await self.db.read(lambda conn: sql_vectors.unrouted(conn, max_items))
        if len(todo) >= max_items:
            self.waiting = True
        if not todo:
            return 0
        verdicts: dict[str, bool] = {}
        routed = [
            row for row in todo if verdicts.setdefault(row[3], needs_second(row[3]))
        ]
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
        self.waiting = False  # before the read: a write meanwhile sets it again
        count = await self.db.read(sql_vectors.pending_second)
        if count:
            self.waiting = True
        return count
