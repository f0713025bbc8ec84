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

import numpy as np
import numpy.typing as npt

from memtap.engine.embeddings.base import (
    CoalescerStats,
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

    def put(self, key: str, vector: npt.NDArray[np.float32]) -> None:
        if self.max_entries <= 0:
            return
        self._entries[key] = (self._clock(), vector)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


class CachedSource:
    """Wraps a source; only texts missing from the cache reach it. Same signature as the inner.
    One text asked for again while its embedding is on its way (a request's fact and episode
    arms embed the same query side by side) waits for that embedding instead of a second."""

    def __init__(self, inner: EmbeddingSource, cache: EmbeddingCache) -> None:
        self.inner = inner
        self.cache = cache
        self._in_flight: dict[str, asyncio.Future[Vectors]] = {}

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
        key = EmbeddingCache.key(self.inner.signature, text)
        running = self._in_flight.get(key)
        if running is not None:
            await asyncio.wait(
                [running]
            )  # never raises: a failed leader is retried below
            if not running.cancelled():
                return running.result().copy()
            return await self._embed_many([text], urgent)
        future: asyncio.Future[Vectors] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            result = await self._embed_many([text], urgent)
        except BaseException:
            future.cancel()  # the waiters embed for themselves
            raise
        finally:
            self._in_flight.pop(key, None)
        future.set_result(result)
        return result

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
