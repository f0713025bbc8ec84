"""`memory.enabled` followed at run time, both ways.

On: the engine is opened if this process has none yet (it started with memory off, or the
engine failed to start), then the memory addons (`Addon.uses_memory`) join the request
pipeline. Off: they leave the pipeline (memory-off requests pay nothing for it); the engine stays open, so the
admin API keeps working and switching back on is immediate. Opening is fail-open like at
start: a failure is logged (`memory.unavailable`) and requests go on without memory.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from memtap.proxy.pipeline import Pipeline

if TYPE_CHECKING:
    from memtap.config.schema import Config
    from memtap.proxy.appkeys import Runtime

log = logging.getLogger("memtap.server")


class MemorySwitch:
    def __init__(
        self,
        runtime: Runtime,
        open_engine: Callable[[Runtime], Awaitable[None]],
    ) -> None:
        self.runtime = runtime
        self._open_engine = open_engine
        self.full = runtime.pipeline
        self.without = Pipeline([a for a in self.full.addons if not a.uses_memory])
        self.opening: asyncio.Task[None] | None = None

    def settle(self) -> None:
        """The pipeline that fits the current config and engine."""
        on = self.runtime.config.current.memory.enabled
        self.runtime.pipeline = (
            self.full if on and self.runtime.engine is not None else self.without
        )

    def on_config_change(self, old: Config, new: Config, changed: list[str]) -> None:
        if old.memory.enabled == new.memory.enabled:
            return
        if new.memory.enabled and self.runtime.engine is None:
            if self.opening is None or self.opening.done():
                self.opening = asyncio.get_running_loop().create_task(
                    self._open(), name="memtap-memory-open"
                )
            return
        self.settle()
        log.info(
            "memory.switched",
            extra={"fields": {"enabled": new.memory.enabled}},
        )

    async def _open(self) -> None:
        await self._open_engine(self.runtime)
        self.settle()
        log.info(
            "memory.switched",
            extra={
                "fields": {
                    "enabled": self.runtime.config.current.memory.enabled,
                    "engine": self.runtime.engine is not None,
                }
            },
        )

    async def close(self) -> None:
        """Before the engine closes: an open still under way finishes first (its engine is
        then closed with the rest), so nothing is left half-open."""
        if self.opening is not None and not self.opening.done():
            await asyncio.gather(self.opening, return_exceptions=True)
