"""The engine's background work and its lifecycle: the outbox worker, the retention
sweeper, the vector backfill, the episodes' embedder and the loop-lag probe, started
together and stopped in order through `engine/background.py` (the episodes' embedder
stops with its store, at the engine's close)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from memtap.engine.background import cancel_and_wait
from memtap.engine.episodes.service import EpisodeService
from memtap.engine.fallbacks import describe_error
from memtap.engine.maintenance.sweep import run_sweep
from memtap.engine.ports import Outbox, RecordStore
from memtap.engine.retrieval.admission.loop_lag import LoopLag
from memtap.engine.retrieval.admission.pending import PendingTurns
from memtap.engine.services.outbox_depth import OutboxDepth
from memtap.engine.services.vectors import VectorUpkeep
from memtap.engine.worker.outbox_worker import OutboxWorker

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

log = logging.getLogger("memtap.engine")


class BackgroundTasks:
    def __init__(
        self,
        *,
        holder: ConfigHolder,
        store: RecordStore,
        outbox: Outbox,
        worker: OutboxWorker,
        vectors: VectorUpkeep,
        episodes: EpisodeService,
        lag: LoopLag,
        pending: PendingTurns,
        depth: OutboxDepth,
        guarded_sweep: Callable[[], Awaitable[object]],
    ) -> None:
        self.holder = holder
        self.store = store
        self.outbox = outbox
        self.worker = worker
        self.vectors = vectors
        self.episodes = episodes
        self.lag = lag
        self.pending = pending
        self.depth = depth
        self.guarded_sweep = guarded_sweep
        """What the sweeper runs: the engine's `sweep`, so a failure is what any call's is
        (translated; the local file reopened when it is gone)."""
        self._sweeper: asyncio.Task[None] | None = None

    async def start(self, *, worker: bool = True) -> None:
        """Resume what the outbox holds (read-your-own-writes and its depth count too),
        then start every task (the worker unless `worker` is False)."""
        rows = await self.outbox.pending_rows()
        for seq, owner in rows:
            self.pending.added(owner, seq)
        depth = len(rows)
        self.depth.set(depth)
        if depth:
            log.info("memory.outbox_resumed", extra={"fields": {"pending": depth}})
        if worker:
            self.worker.start()
        self.lag.start()
        self._sweeper = asyncio.create_task(
            self._sweep_loop(), name="memtap-retention-sweep"
        )
        if self.vectors.backfill is not None:
            self.vectors.backfill.start()
        self.episodes.start()

    async def stop(self, drain_s: float) -> None:
        """Stop every task; the worker drains for at most `drain_s` (what is left stays on
        disk). The episodes' embedder stops with its store (`EpisodeService.stop`)."""
        await cancel_and_wait(self._sweeper)
        if self.vectors.backfill is not None:
            await self.vectors.backfill.stop()
        await self.lag.stop()
        await self.worker.stop(drain_s)

    def file_replaced(self) -> None:
        """The local file is a fresh one: its outbox is empty (the old rows went with the
        old file), and every memory row waits for its vector."""
        self.depth.set(0)
        self.pending.clear()
        self.worker.wake()
        if self.vectors.backfill is not None:
            self.vectors.backfill.wake()

    async def sweep(self) -> int:
        """Really delete expired and out-of-retention memories (also their vectors), and
        episodes said before their retention."""
        swept = await run_sweep(
            self.store, self.holder.current.memory.retention_days, self.vectors.delete
        )
        await self.episodes.sweep()
        return swept

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, self.holder.current.memory.sweep_interval_s))
            try:
                await self.guarded_sweep()
            except Exception as exc:  # noqa: BLE001 - retried at the next interval
                log.warning(
                    "memory.sweep_failed",
                    extra={"fields": {"error": describe_error(exc)}},
                )
