"""An in-process LRU + TTL cache in front of an embedding source.

Keys are `source:model:dim:sha256(text)`, so two sources (or a model change) never share an
entry. Sizes come from `embedding.cache_max` / `embedding.cache_ttl_ms`, overridden by the
environment variables `MEMORY_EMBEDDING_CACHE_MAX` and `MEMORY_EMBEDDING_CACHE_TTL_MS`.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memtap.engine.embeddings.base import (
    CoalescerStats,
    EmbeddingError,
    EmbeddingSource,
    Vectors,
    empty_vectors,
)

ENV_MAX = "MEMORY_EMBEDDING_CACHE_MAX"
ENV_TTL_MS = "MEMORY_EMBEDDING_CACHE_TTL_MS"


def cache_limits(
    cache_max: int, cache_ttl_ms: int, environ: Mapping[str, str] | None = None
) -> tuple[int, int]:
    """(max entries, ttl ms): the environment wins over the config when it holds an integer."""
    env = os.environ if environ is None else environ
    return _int_env(env, ENV_MAX, cache_max), _int_env(env, ENV_TTL_MS, cache_ttl_ms)


def _int_env(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    try:
        return max(0, int(raw)) if raw else default
    except ValueError:
        return default


class EmbeddingCache:
    def __init__(
        self, max_entries: int, ttl_ms: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_entries = max_entries
        self.ttl_s = ttl_ms / 1000.0
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, npt.NDArray[np.float32]]] = (
            OrderedDict()
        )
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(signature: str, text: str) -> str:
        return f"{signature}:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"

    def get(self, key: str) -> npt.NDArray[np.float32] | None:
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        stored_at, vector = entry
        if self._clock() - stored_at > self.ttl_s:
            del self._entries[key]
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return vector

    def contains(self, key: str) -> bool:
        """Whether `get` would answer, without counting a hit or a miss."""
        entry = self._entries.get(key)
        return entry is not None and self._clock() - entry[0] <= self.ttl_s

    def put(self, key: str, vector: npt.NDArray[np.float32]) -> None:
        if self.max_entries <= 0:
            return
        self._entries[key] = (self._clock(), vector)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(slots=True)
class _SharedEmbedding:
    """One text's embedding on its way, and how many callers wait for it."""

    admitted: CoalescerStats | None
    """The model's stats while its text is counted as admitted but not yet queued."""
    task: asyncio.Task[Vectors] | None = None
    waiters: int = 0

    def queued(self) -> None:
        """Its text reached the model's queue (or never will): no longer only admitted."""
        if self.admitted is not None:
            self.admitted.admitted_queries -= 1
            self.admitted = None


class CachedSource:
    """Wraps a source; only texts missing from the cache reach it. Same signature as the inner.
    One text asked for again while its embedding is on its way (a request's fact and episode
    arms embed the same query side by side; requests of one chat that ask the same thing)
    waits for that embedding instead of a second. The embedding goes on while anyone waits
    for it: a caller that gives up (its request's time limit) no longer cancels it for the
    others, who were put back at the end of the model's queue; the last one to give up
    cancels it."""

    def __init__(self, inner: EmbeddingSource, cache: EmbeddingCache) -> None:
        self.inner = inner
        self.cache = cache
        self._in_flight: dict[tuple[str, bool], _SharedEmbedding] = {}
        """Per (cache key, urgent): a query never joins a write's embedding of the same
        text, which waits in the write lane behind the worker's runs."""

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def signature(self) -> str:
        return self.inner.signature

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        if not texts:
            return empty_vectors(self.dim)
        if (
            len(texts) == 1
            and self.cache.get(EmbeddingCache.key(self.inner.signature, texts[0]))
            is None
        ):
            return await self._embed_one(texts[0], urgent)
        return await self._embed_many(texts, urgent)

    async def _embed_one(self, text: str, urgent: bool) -> Vectors:
        key = (EmbeddingCache.key(self.inner.signature, text), urgent)
        shared = self._in_flight.get(key)
        if shared is None:
            shared = self._lead(key, text, urgent)
        assert shared.task is not None
        task = shared.task
        shared.waiters += 1
        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if task.cancelled() and (current is None or not current.cancelling()):
                # The embedding was cancelled, not this caller (a source closing): a
                # failure to fall back from, not a cancellation to pass on.
                raise EmbeddingError(
                    "query embedding was cancelled", cause="embedding_cancelled"
                ) from None
            raise
        finally:
            shared.waiters -= 1
            if not shared.waiters and not task.done():
                # Nobody waits any more (every caller was cancelled): the model's time
                # goes to live requests. A caller arriving now starts afresh.
                self._forget(key, shared)
                task.cancel()
        return result.copy()

    def holds(self, text: str) -> bool:
        """Whether a query for `text` would be answered without a run of its own: cached,
        or its query embedding already on its way."""
        key = EmbeddingCache.key(self.inner.signature, text)
        return self.cache.contains(key) or (key, True) in self._in_flight

    def _lead(self, key: tuple[str, bool], text: str, urgent: bool) -> _SharedEmbedding:
        stats = self._stats() if urgent else None
        if stats is not None:
            stats.admitted_queries += 1  # the query-embedding budget sees it at once
        shared = _SharedEmbedding(stats)

        async def embed() -> Vectors:
            shared.queued()  # queued by the model in this same step, before any await
            return await self._embed_many([text], urgent)

        shared.task = asyncio.ensure_future(embed())

        def done(_: asyncio.Task[Vectors]) -> None:
            shared.queued()  # cancelled before it ran
            self._forget(key, shared)

        shared.task.add_done_callback(done)
        self._in_flight[key] = shared
        return shared

    def _stats(self) -> CoalescerStats | None:
        # Only the budget reads these: a source without them (or failing to give them)
        # embeds all the same.
        try:
            return self.inner.batch_stats()
        except Exception:  # noqa: BLE001
            return None

    def _forget(self, key: tuple[str, bool], shared: _SharedEmbedding) -> None:
        if self._in_flight.get(key) is shared:
            del self._in_flight[key]

    async def _embed_many(self, texts: Sequence[str], urgent: bool) -> Vectors:
        signature = self.inner.signature
        keys = [EmbeddingCache.key(signature, t) for t in texts]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        for i, key in enumerate(keys):
            cached = self.cache.get(key)
            if cached is None:
                missing.setdefault(texts[i], []).append(i)
            else:
                out[i] = cached
        if missing:
            fresh = await self.inner.embed(list(missing), urgent=urgent)
            for row, (text, positions) in enumerate(missing.items()):
                vector = fresh[row].copy()
                self.cache.put(keys[positions[0]], vector)
                out[positions] = vector
        return out

    def batch_stats(self) -> CoalescerStats | None:
        return self.inner.batch_stats()

    async def close(self) -> None:
        await self.inner.close()
