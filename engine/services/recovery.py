"""The local file deleted or replaced under a running memtap: reopened in the background
(a fresh, migrated file), so memory comes back without a restart. Until then every call
fails fast with an `EngineError` (the proxy runs without memory)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from memtap.engine.local_file import LocalFile
from memtap.engine.metrics import Metrics
from memtap.engine.store_errors import StoreGone

log = logging.getLogger("memtap.engine")


class LocalFileRecovery:
    def __init__(
        self, local: LocalFile, metrics: Metrics, reopened: Callable[[], None]
    ) -> None:
        self.local = local
        self.metrics = metrics
        self.reopened = reopened
        """What the rest of the engine does about a fresh file (`BackgroundTasks`)."""
        self._reopening: asyncio.Task[None] | None = None
        self._closed = False

    def noticed(self, exc: BaseException) -> None:
        """An error left a public method: reopen when it says the file is gone."""
        if isinstance(exc, StoreGone):
            self.store_gone()

    def store_gone(self) -> None:
        if self._closed or self._reopening is not None:
            return
        self.metrics.memory_fallbacks.inc("store_gone")
        log.error("memory.store_gone", extra={"fields": {"path": self.local.path}})
        self._reopening = asyncio.create_task(
            self._reopen(), name="memtap-store-reopen"
        )

    async def _reopen(self) -> None:
        # The same file object reconnects to the new file, so every adapter over it
        # (outbox, settings, SQLite rows, sqlite-vec) carries on; the worker keeps its
        # ports, and with Qdrant as the record store memories keep going to Qdrant.
        try:
            await self.local.reopen()
        except Exception as exc:  # noqa: BLE001 - retried at the next failing call
            log.error(
                "memory.store_reopen_failed",
                extra={"fields": {"error": f"{type(exc).__name__}: {exc}"[:200]}},
            )
            self._reopening = None
            return
        self.reopened()
        log.warning(
            "memory.store_reopened", extra={"fields": {"path": self.local.path}}
        )
        self._reopening = None

    async def close(self) -> None:
        """No reopen starts from now on; one in progress finishes first."""
        self._closed = True
        if self._reopening is not None:
            with contextlib.suppress(BaseException):
                await self._reopening
