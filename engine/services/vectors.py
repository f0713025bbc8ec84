"""The vector index beside the record store, kept in step with it and fail-open: each
content write's vectors upserted, deletes followed, an owner's vectors erased, reindex, the
backfill that retries what a failed write left behind, and what status and health say."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memtap.engine.api import EngineError
from memtap.engine.clock import now_iso
from memtap.engine.fallbacks import describe_error
from memtap.engine.maintenance.backfill import VectorBackfill
from memtap.engine.metrics import Metrics
from memtap.engine.ports import RecordStore, VectorIndex
from memtap.engine.types import Memory

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

log = logging.getLogger("memtap.engine")

VECTOR_WRITE_TIMEOUT_S = 5.0


class VectorUpkeep:
    def __init__(
        self,
        index: VectorIndex | None,
        error: str | None,
        store: RecordStore,
        holder: ConfigHolder,
        metrics: Metrics,
    ) -> None:
        self.index = index
        """None: no vector tier (`error` says why)."""
        self.error = error
        """Why there is no vector index (engine-status, health, reindex)."""
        self.store = store
        self.metrics = metrics
        self.backfill = (
            VectorBackfill(index, lambda: holder.current.memory.backfill_interval_s)
            if index is not None
            else None
        )
        """Retries what vector writes left behind (`engine/maintenance/backfill.py`)."""

    async def upsert(self, items: Sequence[Memory]) -> None:
        if self.index is None or not items:
            return
        try:
            async with asyncio.timeout(VECTOR_WRITE_TIMEOUT_S):
                await self.index.upsert(items)
        except Exception as exc:  # noqa: BLE001 - rows keep needs_reindex = 1; the backfill catches up
            self._failed("memory.vector_upsert_failed", exc, len(items))
            if self.backfill is not None:
                self.backfill.wake()

    async def delete(self, ids: Sequence[str]) -> None:
        if self.index is None or not ids:
            return
        try:
            async with asyncio.timeout(VECTOR_WRITE_TIMEOUT_S):
                await self.index.delete(ids)
        except Exception as exc:  # noqa: BLE001 - a dangling vector is filtered out at read time
            self._failed("memory.vector_delete_failed", exc, len(ids))

    def _failed(self, event: str, exc: BaseException, count: int) -> None:
        self.metrics.memory_fallbacks.inc("vector_write")
        log.warning(
            event,
            extra={
                "fields": {
                    "error": describe_error(exc, VECTOR_WRITE_TIMEOUT_S),
                    "count": count,
                }
            },
        )

    async def erase_owner(self, owner: str) -> int:
        """The owner's vectors removed, before anything else of theirs: a failure here
        erases nothing (raised, retry), so no vector outlives its row."""
        if self.index is None:
            return 0
        try:
            async with asyncio.timeout(VECTOR_WRITE_TIMEOUT_S):
                return await self.index.erase_owner(owner)
        except Exception as exc:
            raise EngineError(
                f"the vector index failed ({type(exc).__name__}); nothing erased, retry"
            ) from exc

    async def reindex(self, limit: int | None, force: bool) -> dict[str, Any]:
        if self.index is None:
            counts = await self.store.counts(now_iso())
            return {
                "started": False,
                "pending": counts["needs_reindex"] if counts else 0,
                "reason": self.error or "no vector tier",
            }
        if self.backfill is None:
            return await self.index.reindex(limit, force)
        async with self.backfill.busy:  # the backfill's pass finishes first, then waits
            return await self.index.reindex(limit, force)

    async def status(self) -> dict[str, Any]:
        """engine-status "vector"."""
        index = self.index
        if index is None:
            return {"available": False, "reason": self.error or "no vector tier"}
        backlog = {"backfill": self.backfill.status.to_json()} if self.backfill else {}
        try:
            return {
                "available": True,
                "kind": index.name,
                **await index.status(),
                **backlog,
            }
        except Exception as exc:  # noqa: BLE001
            return {
                "available": False,
                "kind": index.name,
                "reason": describe_error(exc),
                **backlog,
            }

    def health(self) -> tuple[str, str]:
        """/_memtap/health ("vector", "embedding")."""
        vector, embedding = "off", "off"
        if self.index is not None:
            try:
                vector = self.index.health()
                embedding = self.index.embedding()
            except Exception as exc:  # noqa: BLE001
                vector = f"error: {type(exc).__name__}"
        elif self.error:
            vector = "unavailable"
        return vector, embedding

    def embedding(self) -> str:
        """engine-status "embedding"."""
        return self.index.embedding() if self.index is not None else "off"
