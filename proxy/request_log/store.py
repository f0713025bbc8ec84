"""`admin.request_log_store: database`: the request log written through to the engine's local
SQLite file, so the Studio's Requests tab survives a restart.

Writes leave the request path at once: `RequestLog.on_change` puts the entry on a bounded
queue and one task hands the queue to the engine. Fail-open: a full queue or a failing store
drops the write (counted in `memtap_memory_fallbacks_total{cause="request_log_write"}`); the
in-memory ring stays complete either way. The setting
is read at every write, so switching it at run time takes effect for the next entries.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Protocol

from memtap.engine.background import cancel_and_wait
from memtap.engine.metrics import Metrics
from memtap.proxy.request_log.ring import RequestLog, RequestRecord

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder
    from memtap.engine.api import MemoryEngine

log = logging.getLogger("memtap.request_log")

QUEUE_LIMIT = 1000


class Host(Protocol):
    """What the store reads of the proxy's `Runtime` (which the request log's package does not
    import: the runtime holds the ring, so that import would be a cycle)."""

    config: ConfigHolder
    metrics: Metrics
    engine: MemoryEngine | None
    request_log: RequestLog


class RequestLogStore:
    def __init__(self, runtime: Host) -> None:
        self.runtime = runtime
        self._queue: asyncio.Queue[RequestRecord] = asyncio.Queue(QUEUE_LIMIT)
        self._task: asyncio.Task[None] | None = None

    def _wanted(self) -> bool:
        return self.runtime.config.current.admin.request_log_store == "database"

    async def start(self) -> None:
        """Refill the ring from the database (when that is the store), then write through."""
        engine = self.runtime.engine
        admin = self.runtime.config.current.admin
        if engine is not None and self._wanted():
            try:
                stored = await engine.load_request_records(admin.request_log_size)
                self.runtime.request_log.restore(
                    [RequestRecord.from_stored(item) for item in stored],
                    admin.request_log_size,
                )
            except Exception as exc:  # noqa: BLE001 - the ring starts empty instead
                log.warning(
                    "request_log.load_failed",
                    extra={"fields": {"error": f"{type(exc).__name__}: {exc}"[:200]}},
                )
        self.runtime.request_log.on_change = self._changed
        self._task = asyncio.create_task(self._write_loop(), name="memtap-request-log")

    async def stop(self) -> None:
        self.runtime.request_log.on_change = None
        if self._task is None:
            return
        # What is queued is written first (bounded by the queue and the engine's own limits).
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2.0):
                await self._queue.join()
        await cancel_and_wait(self._task)
        self._task = None

    def _changed(self, record: RequestRecord) -> None:
        if not self._wanted() or self.runtime.engine is None:
            return
        try:
            self._queue.put_nowait(record)
        except asyncio.QueueFull:
            self.runtime.metrics.memory_fallbacks.inc("request_log_write")

    async def _write_loop(self) -> None:
        while True:
            record = await self._queue.get()
            try:
                engine = self.runtime.engine
                if engine is not None:
                    await engine.save_request_record(
                        record.request_id,
                        record.owner,
                        record.to_stored(),
                        self.runtime.config.current.admin.request_log_size,
                    )
            except Exception as exc:  # noqa: BLE001 - the in-memory ring still has it
                self.runtime.metrics.memory_fallbacks.inc("request_log_write")
                log.warning(
                    "request_log.write_failed",
                    extra={"fields": {"error": f"{type(exc).__name__}: {exc}"[:200]}},
                )
            finally:
                self._queue.task_done()
