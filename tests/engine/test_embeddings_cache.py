"""The LRU + TTL embedding cache and its environment overrides."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memtap.engine.embeddings.base import Vectors, make_signature
from memtap.engine.embeddings.cache import CachedSource, EmbeddingCache, cache_limits


class CountingSource:
    """A tiny real source: one-hot vectors by text length; counts the texts it embedded."""

    name, model, dim = "count", "len", 8

    def __init__(self) -> None:
        self.embedded: list[str] = []

    @property
    def signature(self) -> str:
        return make_signature(self.name, self.model, self.dim)

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        self.embedded.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, len(t) % self.dim] = 1.0
        return out

    async def close(self) -> None:
        return None


def test_env_overrides_config() -> None:
    assert cache_limits(1000, 300_000, {}) == (1000, 300_000)
    env = {"MEMORY_EMBEDDING_CACHE_MAX": "5", "MEMORY_EMBEDDING_CACHE_TTL_MS": "250"}
    assert cache_limits(1000, 300_000, env) == (5, 250)
    assert cache_limits(1000, 300_000, {"MEMORY_EMBEDDING_CACHE_MAX": "lots"}) == (
        1000,
        300_000,
    )


def test_lru_eviction_and_ttl() -> None:
    now = [0.0]
    cache = EmbeddingCache(2, 1000, clock=lambda: now[0])
    one = np.ones(2, dtype=np.float32)
    cache.put("a", one)
    cache.put("b", one)
    assert cache.get("a") is not None  # a is now most recent
    cache.put("c", one)
    assert cache.get("b") is None and cache.get("a") is not None and len(cache) == 2
    now[0] = 1.5
    assert cache.get("a") is None  # older than the 1000 ms TTL


def test_key_carries_the_signature() -> None:
    a = EmbeddingCache.key("onnx:m:384", "hello")
    assert a.startswith("onnx:m:384:") and a != EmbeddingCache.key(
        "static:m:256", "hello"
    )
    assert "hello" not in a  # the text is hashed, never kept as a key


async def test_cached_source_embeds_only_misses() -> None:
    inner = CountingSource()
    source = CachedSource(inner, EmbeddingCache(100, 60_000))
    first = await source.embed(["ab", "abc", "ab"])
    assert inner.embedded == ["ab", "abc"]  # duplicates within a call embedded once
    second = await source.embed(["abc", "abcd"])
    assert inner.embedded == ["ab", "abc", "abcd"]
    assert np.array_equal(first[1], second[0]) and np.array_equal(first[0], first[2])
    assert source.signature == inner.signature and source.dim == 8


async def test_the_same_text_asked_twice_at_once_is_embedded_once() -> None:
    import asyncio

    from memtap.engine.embeddings.cache import CachedSource, EmbeddingCache
    from tests.support.hash_embedder import HashEmbedder

    inner = HashEmbedder()
    source = CachedSource(inner, EmbeddingCache(100, 60_000))
    first, second = await asyncio.gather(
        source.embed(["what is my cat called"]), source.embed(["what is my cat called"])
    )
    assert inner.calls == 1 and (first == second).all()
    inner.fail = True
    results = await asyncio.gather(
        source.embed(["a new text"]),
        source.embed(["a new text"]),
        return_exceptions=True,
    )
    assert (
        all(isinstance(r, Exception) for r in results) and inner.calls == 3
    )  # the waiter tried itself
