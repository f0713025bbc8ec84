"""Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint.

Requests go out in batches of `batch_size` inputs, each bounded by `timeout_s`. The vector
width comes from the config (`embedding.remote.dim`) or from the first answer (`open_remote`
probes once), because the vector table needs it before the first memory is written.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import aiohttp
import numpy as np

from memtap.engine.embeddings.base import (
    CoalescerStats,
    EmbeddingError,
    Vectors,
    empty_vectors,
    l2_normalize,
    make_signature,
)

log = logging.getLogger("memtap.embeddings")


def embeddings_url(base: str) -> str:
    """`http://h/v1` or `http://h` or the full `.../v1/embeddings` -> the embeddings endpoint."""
    url = base.rstrip("/")
    if url.endswith("/embeddings"):
        return url
    if url.endswith("/v1"):
        return url + "/embeddings"
    return url + "/v1/embeddings"


class RemoteEmbedder:
    name = "remote"

    def __init__(
        self,
        url: str,
        model: str,
        api_key: str | None,
        dim: int | None,
        timeout_s: float,
        batch_size: int,
    ) -> None:
        self._url = embeddings_url(url)
        self._model = model
        self._api_key = api_key
        self._dim = dim
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._batch_size = max(1, batch_size)
        self._session: aiohttp.ClientSession | None = None

    @property
    def model(self) -> str:
        return self._model

    @property
    def dim(self) -> int:
        if self._dim is None:
            raise EmbeddingError(
                "remote embedding width unknown before the first call",
                cause="remote_unprobed",
            )
        return self._dim

    @property
    def signature(self) -> str:
        return make_signature(self.name, self._model, self.dim)

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        if not texts:
            return empty_vectors(self.dim)
        parts = [
            await self._embed_batch(texts[i : i + self._batch_size])
            for i in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(parts, axis=0)

    async def _embed_batch(self, texts: Sequence[str]) -> Vectors:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        body: dict[str, Any] = {
            "model": self._model,
            "input": list(texts),
            "encoding_format": "float",
        }
        try:
            async with self._session.post(
                self._url, json=body, headers=headers
            ) as resp:
                if resp.status != 200:
                    detail = (await resp.text())[:200]
                    raise EmbeddingError(
                        f"remote embeddings HTTP {resp.status}: {detail}",
                        cause="remote_http",
                    )
                payload = await resp.json(content_type=None)
        except TimeoutError as exc:
            raise EmbeddingError(
                "remote embeddings timed out", cause="embedding_timeout"
            ) from exc
        except aiohttp.ClientError as exc:
            raise EmbeddingError(
                f"remote embeddings unreachable: {exc}", cause="remote_unreachable"
            ) from exc
        return self._parse(payload, len(texts))

    def _parse(self, payload: Any, expected: int) -> Vectors:
        try:
            items = sorted(payload["data"], key=lambda item: item.get("index", 0))
            matrix = np.asarray([item["embedding"] for item in items], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(
                f"remote embeddings: malformed answer ({exc})", cause="remote_malformed"
            ) from exc
        if matrix.ndim != 2 or matrix.shape[0] != expected:
            raise EmbeddingError(
                f"remote embeddings: expected {expected} vectors",
                cause="remote_malformed",
            )
        if self._dim is None:
            self._dim = int(matrix.shape[1])
        elif matrix.shape[1] != self._dim:
            raise EmbeddingError(
                f"remote embeddings: width {matrix.shape[1]} != configured {self._dim}",
                cause="remote_malformed",
            )
        return l2_normalize(matrix)

    def batch_stats(self) -> CoalescerStats | None:
        return None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


async def open_remote(
    url: str,
    model: str,
    api_key: str | None = None,
    *,
    dim: int | None = None,
    timeout_s: float = 5.0,
    batch_size: int = 64,
    probe: bool = True,
) -> RemoteEmbedder:
    """A remote source; with `probe` (or an unknown `dim`) one tiny request checks it answers."""
    source = RemoteEmbedder(url, model, api_key, dim, timeout_s, batch_size)
    if probe or dim is None:
        try:
            await source.embed(["memtap"])
        except BaseException:
            await source.close()
            raise
    return source
