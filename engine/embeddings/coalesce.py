"""Concurrent embedding requests to a local model, coalesced into batches.

Why: an ONNX model runs one batch at a time (two intra-op threads on a 2-core box). With
one run per request, the tenth of ten concurrent proxied requests waited for nine query
embeddings (~5 ms each) and could pass `memory.retrieval_timeout_ms`. Batched, a text costs
less (measured with the packaged MiniLM: 4.6 ms for 1 text, 11.5 ms for 4, 22 ms for 8), so
requests that arrive while a run is in flight go together in the next one.

Order: urgent requests (a query embedding a request waits for) never wait for writes
(extraction, backfill, import): queries and writes are two lanes, each one run at a time
on its own thread, writes in pieces of `WRITE_RUN_TEXTS`: a query never waits for a write
run. Under load the write path therefore falls behind, never the requests
(the backfill catches up what a write gave up on). Otherwise first come, first
served; a run takes whole requests up to `max_texts`. A caller that gives up (timeout,
cancellation) before its run starts is dropped from the queue; once its run started its texts
are computed anyway (a running batch cannot be stopped) but nothing comes back late.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from memtap.engine.embeddings.base import CoalescerStats, Vectors

WRITE_RUN_TEXTS = 8
"""Texts of one write run (~20 ms with MiniLM here): what a query may wait behind."""


@dataclass(slots=True)
class _Request:
    texts: list[str]
    future: asyncio.Future[Vectors]


@dataclass(slots=True)
class Coalescer:
    run_sync: Callable[[list[str]], Vectors]
    """Embeds a list of texts (blocking; runs in a worker thread)."""
    max_texts: int = 64
    stats: CoalescerStats = field(default_factory=CoalescerStats)
    _small: list[_Request] = field(default_factory=list)
    _big: list[_Request] = field(default_factory=list)
    _drain: asyncio.Task[None] | None = None
    """The write lane's runs."""
    _query_drain: asyncio.Task[None] | None = None
    _threads: dict[bool, ThreadPoolExecutor] = field(default_factory=dict)

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        piece = self.max_texts if urgent else min(self.max_texts, WRITE_RUN_TEXTS)
        if len(texts) > piece:
            # In pieces, so that queries can go between them.
            parts = await asyncio.gather(
                *(
                    self._one(texts[at : at + piece], urgent=urgent)
                    for at in range(0, len(texts), piece)
                )
            )
            return np.concatenate(parts)
        return await self._one(texts, urgent=urgent)

    async def _one(self, texts: Sequence[str], *, urgent: bool) -> Vectors:
        request = _Request(list(texts), asyncio.get_running_loop().create_future())
        (self._small if urgent else self._big).append(request)
        loop = asyncio.get_running_loop()
        if urgent:
            self.stats.queued_queries += len(request.texts)
            if self._query_drain is None or self._query_drain.done():
                self._query_drain = loop.create_task(
                    self._run_all(urgent=True), name="memtap-embedding-queries"
                )
        elif self._drain is None or self._drain.done():
            self._drain = loop.create_task(
                self._run_all(urgent=False), name="memtap-embedding-writes"
            )
        return await request.future

    def _next_run(self, urgent: bool) -> list[_Request]:
        """The next run of a lane: whole requests up to its limit."""
        queue = self._small if urgent else self._big
        limit = self.max_texts if urgent else min(self.max_texts, WRITE_RUN_TEXTS)
        taken: list[_Request] = []
        count = 0
        while queue:
            request = queue[0]
            if request.future.done():  # its caller gave up before the run
                self._dequeue(queue)
                continue
            if taken and count + len(request.texts) > limit:
                break
            taken.append(self._dequeue(queue))
            count += len(request.texts)
        return taken

    def _model_thread(self, urgent: bool) -> ThreadPoolExecutor:
        # Runs are one at a time per lane; queries and writes each have their own thread,
        # so a query never waits for a write run. Both at the loop's CPU priority: a lower
        # one for writes was measured and reverted (read-your-own-writes waits for the
        # previous turn's vectors, so a starved write delayed the owner's next request).
        executor = self._threads.get(urgent)
        if executor is None:
            executor = ThreadPoolExecutor(
                max_workers=1,
                thread_name_prefix="memtap-embed-" + ("query" if urgent else "write"),
            )
            self._threads[urgent] = executor
        return executor

    def close(self) -> None:
        for executor in self._threads.values():
            executor.shutdown(wait=False)
        self._threads.clear()

    def _dequeue(self, queue: list[_Request]) -> _Request:
        request = queue.pop(0)
        if queue is self._small:
            self.stats.queued_queries -= len(request.texts)
        return request

    async def _run_all(self, *, urgent: bool) -> None:
        while True:
            if urgent:
                self.stats.running_texts = 0
            run = self._next_run(urgent)
            if not run:
                return
            texts = [text for request in run for text in request.texts]
            self.stats.runs += 1
            self.stats.requests += len(run)
            self.stats.texts += len(texts)
            self.stats.largest_run = max(self.stats.largest_run, len(texts))
            if urgent:
                self.stats.running_texts = len(texts)
            started = time.perf_counter()
            try:
                vectors = await asyncio.get_running_loop().run_in_executor(
                    self._model_thread(urgent), self.run_sync, texts
                )
                if urgent:
                    per_text = (time.perf_counter() - started) / len(texts)
                    previous = self.stats.seconds_per_query
                    self.stats.seconds_per_query = (
                        per_text if previous == 0 else 0.8 * previous + 0.2 * per_text
                    )
                at = 0
                for request in run:
                    part = np.ascontiguousarray(vectors[at : at + len(request.texts)])
                    at += len(request.texts)
                    if not request.future.done():
                        request.future.set_result(part)
            except BaseException as exc:  # each caller of the run gets the failure
                failure = (
                    exc
                    if isinstance(exc, Exception)
                    else RuntimeError(f"embedding run ended: {type(exc).__name__}")
                )
                for request in run:
                    if not request.future.done():
                        request.future.set_exception(failure)
                if not isinstance(exc, Exception):
                    # Cancelled (shutdown): nobody may wait for ever on what is queued.
                    for request in self._small + self._big:
                        if not request.future.done():
                            request.future.set_exception(failure)
                    raise
