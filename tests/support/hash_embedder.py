"""A deterministic embedding source for store and index tests (no model to load)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence

import numpy as np

from memtap.engine.embeddings.base import EmbeddingError, Vectors, l2_normalize
from memtap.engine.qdrant.sparse import tokenize


class HashEmbedder:
    """A deterministic bag-of-words embedding (a stand-in for a model): texts sharing words are
    close, texts sharing none are orthogonal. `fail = True` makes it raise like a real source."""

    name = "hash"
    model = "bow"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.signature = f"hash:bow:{dim}"
        self.fail = False
        self.calls = 0
        self.texts: list[str] = []
        """Every text asked for, in order (a text embedded twice is here twice)."""
        self.hold: asyncio.Event | None = None
        """While set to an unset event, every call waits for it (a write in flight)."""

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        self.calls += 1
        self.texts += texts
        if self.hold is not None:
            await self.hold.wait()
        if self.fail:
            raise EmbeddingError("model offline", cause="remote_error")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in tokenize(text):
                out[
                    row, int(hashlib.sha1(token.encode()).hexdigest(), 16) % self.dim
                ] += 1.0
        return l2_normalize(out)

    def batch_stats(self) -> None:
        return None

    async def close(self) -> None:
        return None
