"""Query embeddings that never wait for the model: projected when the model is busy.

`embedding.query_projection`:
- `auto` (default): a query goes to the model when the model would answer it within
  `PROJECT_AFTER_WAIT_S` (or the same text's embedding is already cached or on its way);
  past that, it is projected (`query_projection.py`) at once instead of queueing. Under load a request
  then gets vector results for ~0.1 ms of CPU where it got keyword-only results (the
  query-embedding budget) or waited.
- `always`: every query is projected; the model embeds only memories.
- `off`: every query goes to the model.

The projection is read from beside the integer graph, or built at start in a child process
at nice 19 (~20 s of one core, once per model); until it is ready queries go to the model.
Writes (`urgent=False`) always go to the model: stored vectors stay the model's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from memtap.engine.embeddings.base import (
    CoalescerStats,
    EmbeddingError,
    EmbeddingSource,
    Vectors,
    empty_vectors,
)
from memtap.engine.embeddings.cache import CachedSource
from memtap.engine.embeddings.query_projection import QueryProjection
from memtap.engine.embeddings.query_text import query_tail

log = logging.getLogger("memtap.embeddings")

PROJECTED_COSINE_SCALE = 0.9
"""A projected query's cosines are divided by this before the relevance floors: they run
~0.8x the model's for relevant memories. On the recall set (`eval_recall.py
--query-projection always`) 0.8 found 0.892 but let one unrelated question through, 0.9
found 0.800 and none (the model's own query: 0.923, keyword only 0.415)."""

PROJECT_AFTER_WAIT_S = 0.02
"""`auto` projects a query that would wait longer than this for the model (the queries
ahead of it and its own run, `CoalescerStats.expected_wait_s`): a few queued queries are
worth their wait for the model's recall (0.923 against 0.800 projected on the recall set),
a queue is not. 20 ms is 3-5 short queries of the integer graph on one core."""

UNMEASURED_QUERY_S = 0.006
"""A short query's run on one core of the integer graph (16 tokens: 6.1 ms), until the
model has measured its own."""

ProjectionMode = Literal["auto", "always"]
ProjectionState = Literal["not_built", "building", "ready", "failed"]


@dataclass(frozen=True, slots=True, eq=False)
class QueryVector:
    """A query's vector, and how its cosines compare with the model's own."""

    vector: npt.NDArray[np.float32]
    cosine_scale: float = 1.0
    """What its cosines are divided by before a relevance floor (1.0: the model's)."""

    @property
    def projected(self) -> bool:
        return self.cosine_scale != 1.0

    def calibrated(self, cosine: float) -> float:
        if self.cosine_scale == 1.0:
            return cosine
        return min(1.0, cosine / self.cosine_scale)


async def embed_query(source: EmbeddingSource, query: str) -> QueryVector:
    """The vector every store searches a request's query by (its last characters, urgent)."""
    text = query_tail(query)
    if isinstance(source, ProjectedQueries):
        return await source.embed_query(text)
    return QueryVector((await source.embed([text], urgent=True))[0])


@dataclass(slots=True)
class ProjectionCounts:
    projected: int = 0
    """Query texts answered by the projection."""
    modelled: int = 0
    """Query texts sent to the model."""


class ProjectedQueries:
    """Wraps the model's (cached) source; same signature, since the projection approximates
    the model's own space."""

    def __init__(
        self,
        inner: EmbeddingSource,
        mode: ProjectionMode,
        tokenizer: Any,
        obtain: Callable[[], Awaitable[QueryProjection]],
        projection: QueryProjection | None = None,
    ) -> None:
        self.inner = inner
        self.mode = mode
        self.counts = ProjectionCounts()
        self.error = ""
        self._tokenizer = tokenizer
        self._obtain = obtain
        self._projection = projection
        self._task: asyncio.Task[None] | None = None
        self._last: tuple[str, npt.NDArray[np.float32]] | None = None
        if projection is None:
            self._start()

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

    @property
    def ready(self) -> bool:
        """A query is answered at once, whatever the model's queue."""
        return self._projection is not None

    @property
    def state(self) -> ProjectionState:
        if self._projection is not None:
            return "ready"
        if self.error:
            return "failed"
        return "building" if self._task is not None else "not_built"

    @property
    def alignment(self) -> float | None:
        return self._projection.alignment if self._projection is not None else None

    async def embed_query(self, text: str) -> QueryVector:
        if self._projects([text]):
            last = self._last
            if last is None or last[0] != text:
                # A request's fact and episode arms ask for the same text side by side.
                last = self._last = (text, self._project([text])[0])
            return QueryVector(last[1], PROJECTED_COSINE_SCALE)
        self.counts.modelled += 1
        return QueryVector((await self.inner.embed([text], urgent=True))[0])

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        """The model's vectors, always: a caller of `embed` compares them as the model's
        (`embed_query` is the way to a projected one)."""
        if not texts:
            return empty_vectors(self.dim)
        if urgent:
            self.counts.modelled += len(texts)
        return await self.inner.embed(texts, urgent=urgent)

    def _project(self, texts: Sequence[str]) -> Vectors:
        assert self._projection is not None
        try:
            vectors = self._projection.project(texts, self._tokenizer)
        except Exception as exc:
            raise EmbeddingError(
                f"query projection failed: {exc}", cause="embedding_error"
            ) from exc
        self.counts.projected += len(texts)
        return vectors

    def _projects(self, texts: Sequence[str]) -> bool:
        if self.mode == "always":
            return self._projection is not None
        return self._projection is not None and self._model_busy(texts)

    def _model_busy(self, texts: Sequence[str]) -> bool:
        inner = self.inner
        if isinstance(inner, CachedSource) and all(inner.holds(t) for t in texts):
            return False  # cached, or on its way for another caller: no wait of its own
        try:
            stats = inner.batch_stats()
        except Exception:  # noqa: BLE001 - without stats the model is asked, as before
            return False
        if stats is None:
            return False
        if stats.seconds_per_query > 0:
            return stats.expected_wait_s() > PROJECT_AFTER_WAIT_S
        # No query run measured yet (a burst right after start): a typical one's time.
        ahead = stats.running_texts + stats.queued_queries + stats.admitted_queries
        return (ahead + 1) * UNMEASURED_QUERY_S > PROJECT_AFTER_WAIT_S

    def _start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(
            self._get(), name="memtap-query-projection"
        )

    async def _get(self) -> None:
        try:
            self._projection = await self._obtain()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - queries go to the model, as before
            self.error = f"{type(exc).__name__}: {exc}"[:300]
            log.warning(
                "embeddings.query_projection_unavailable",
                extra={"fields": {"error": self.error}},
            )
            return
        log.info(
            "embeddings.query_projection_ready",
            extra={
                "fields": {
                    "mode": self.mode,
                    "alignment": round(self._projection.alignment, 3),
                }
            },
        )

    async def settle(self) -> None:
        """Wait for a build under way (tests, benchmarks)."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    def batch_stats(self) -> CoalescerStats | None:
        return self.inner.batch_stats()

    def status(self) -> dict[str, object]:
        """For engine-status."""
        return {
            "mode": self.mode,
            "state": self.state,
            "alignment": None if self.alignment is None else round(self.alignment, 3),
            "projected": self.counts.projected,
            "modelled": self.counts.modelled,
            "error": self.error or None,
        }

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.inner.close()
