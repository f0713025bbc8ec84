"""The remote source against a real local `/v1/embeddings` server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import numpy as np
import pytest

from memtap.engine.embeddings.base import EmbeddingError
from memtap.engine.embeddings.remote import embeddings_url, open_remote
from tests.support.semantic import EmbeddingsServer


@pytest.fixture
async def server() -> AsyncIterator[EmbeddingsServer]:
    async with EmbeddingsServer(dim=16) as srv:
        yield srv


def test_url_forms() -> None:
    assert embeddings_url("http://h:1") == "http://h:1/v1/embeddings"
    assert embeddings_url("http://h:1/v1/") == "http://h:1/v1/embeddings"
    assert (
        embeddings_url("http://h:1/openai/v1/embeddings")
        == "http://h:1/openai/v1/embeddings"
    )


async def test_batches_order_auth_and_probed_width(server: EmbeddingsServer) -> None:
    source = await open_remote(
        server.url + "/v1", "text-embedding-3-small", "sk-test", batch_size=2
    )
    try:
        assert source.dim == 16  # learnt from the probe
        assert source.signature == "remote:text-embedding-3-small:16"
        texts = ["alpha beta", "gamma", "delta delta", "epsilon", "zeta"]
        vectors = await source.embed(texts)
        assert [len(r["input"]) for r in server.requests[1:]] == [
            2,
            2,
            1,
        ]  # after the probe
        assert server.auth[-1] == "Bearer sk-test"
        assert server.requests[-1]["model"] == "text-embedding-3-small"
        expected = np.array([server.vector(t) for t in texts], dtype=np.float32)
        expected /= np.linalg.norm(expected, axis=1, keepdims=True)
        assert np.allclose(
            vectors, expected, atol=1e-6
        )  # sorted back by `index`, normalised
    finally:
        await source.close()


async def test_timeout_and_http_errors_are_embedding_errors(
    server: EmbeddingsServer,
) -> None:
    source = await open_remote(server.url, "m", dim=16, timeout_s=0.2, probe=False)
    try:
        assert server.requests == []  # configured width and no probe: nothing sent yet
        server.delay_s = 1.0
        with pytest.raises(EmbeddingError) as info:
            await source.embed(["slow"])
        assert info.value.cause == "embedding_timeout"
        server.delay_s, server.status = 0.0, 500
        with pytest.raises(EmbeddingError) as info:
            await source.embed(["fails"])
        assert info.value.cause == "remote_http"
    finally:
        await source.close()


async def test_width_mismatch_and_unreachable(server: EmbeddingsServer) -> None:
    source = await open_remote(server.url, "m", dim=8, probe=False)
    try:
        with pytest.raises(EmbeddingError) as info:
            await source.embed(["x"])
        assert info.value.cause == "remote_malformed"
    finally:
        await source.close()
    with pytest.raises(EmbeddingError) as info:
        await open_remote("http://127.0.0.1:9", "m", timeout_s=1.0)
    assert info.value.cause == "remote_unreachable"
