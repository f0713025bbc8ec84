"""The LRU + TTL embedding cache and its environment overrides."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memtap.engine.embeddings.base import CoalescerStats, Vectors, make_signature
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

    def batch_stats(self) -> None:
        return None

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
    # Both get the failure of the one embedding (a failing source is not asked twice).
    assert all(isinstance(r, Exception) for r in results) and inner.calls == 2


async def test_a_caller_that_gives_up_leaves_the_embedding_to_those_still_waiting() -> (
    None
):
    """Requests of one chat asking the same thing share one query embedding. The first
    one's time limit used to cancel it, and the others went to the back of the model's
    queue; now it goes on while anyone waits, and the last to give up cancels it."""
    import asyncio

    gate = asyncio.Event()
    started: list[str] = []
    cancelled: list[str] = []

    class SlowSource(CountingSource):
        stats = CoalescerStats()

        def batch_stats(self) -> CoalescerStats:  # type: ignore[override]
            return self.stats

        async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
            started.extend(texts)
            try:
                await gate.wait()
            except asyncio.CancelledError:
                cancelled.extend(texts)
                raise
            return await super().embed(texts, urgent=urgent)

    inner = SlowSource()
    source = CachedSource(inner, EmbeddingCache(100, 60_000))
    first = asyncio.ensure_future(source.embed(["which tea"], urgent=True))
    second = asyncio.ensure_future(source.embed(["which tea"], urgent=True))
    await asyncio.sleep(0)
    # Admitted at once, before its task queued it: the budget of the next query sees it.
    assert inner.stats.admitted_queries == 1
    await asyncio.sleep(0.01)
    assert inner.stats.admitted_queries == 0
    first.cancel()  # its request went upstream without memory
    await asyncio.sleep(0.01)
    gate.set()
    vector = await second
    assert first.cancelled() and vector.shape == (1, 8)
    assert (
        started == ["which tea"] and inner.embedded == ["which tea"] and not cancelled
    )
    gate.clear()
    alone = [
        asyncio.ensure_future(source.embed(["a new one"], urgent=True))
        for _ in range(2)
    ]
    await asyncio.sleep(0.01)
    for task in alone:
        task.cancel()
    await asyncio.sleep(0.01)
    assert cancelled == ["a new one"]  # nobody waits: the model's time goes elsewhere
    again = asyncio.ensure_future(source.embed(["a new one"]))
    await asyncio.sleep(0.01)
    gate.set()
    assert (await again).shape == (1, 8) and started.count("a new one") == 2
    gone = asyncio.ensure_future(source.embed(["never run"], urgent=True))
    await asyncio.sleep(0)
    gone.cancel()  # before its task took a step
    await asyncio.sleep(0.01)
    assert inner.stats.admitted_queries == 0


async def test_a_shared_embedding_cancelled_from_elsewhere_is_a_failure_to_fall_back_from() -> (
    None
):
    """Its waiters were not cancelled: a CancelledError would escape their fail-open
    handlers (they catch Exception) and fail the request."""
    import asyncio

    import pytest

    from memtap.engine.embeddings.base import EmbeddingError

    gate = asyncio.Event()

    class Stuck(CountingSource):
        async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
            await gate.wait()
            return await super().embed(texts, urgent=urgent)

    source = CachedSource(Stuck(), EmbeddingCache(100, 60_000))
    waiter = asyncio.ensure_future(source.embed(["closing"], urgent=True))
    await asyncio.sleep(0.01)
    (shared,) = source._in_flight.values()
    assert shared.task is not None
    shared.task.cancel()  # the source closing under it
    with pytest.raises(EmbeddingError) as failed:
        await waiter
    assert failed.value.cause == "embedding_cancelled"


async def test_a_source_whose_stats_fail_still_embeds() -> None:
    class NoStats(CountingSource):
        def batch_stats(self) -> None:
            raise RuntimeError("not a local model")

    source = CachedSource(NoStats(), EmbeddingCache(100, 60_000))
    assert (await source.embed(["q"], urgent=True)).shape == (1, 8)


async def test_a_query_does_not_join_a_write_embedding_of_the_same_text() -> None:
    import asyncio

    lanes: list[bool] = []
    writes = asyncio.Event()

    class Lanes(CountingSource):
        async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
            lanes.append(urgent)
            if not urgent:
                await writes.wait()  # the write lane is behind the worker's runs
            return await super().embed(texts, urgent=urgent)

    source = CachedSource(Lanes(), EmbeddingCache(100, 60_000))
    write = asyncio.ensure_future(source.embed(["I drink oolong"]))
    await asyncio.sleep(0.01)
    query = await asyncio.wait_for(source.embed(["I drink oolong"], urgent=True), 1)
    assert query.shape == (1, 8) and lanes == [False, True]
    writes.set()
    await write
