"""Hold an engine's fact writes until a test lets them go: the worker looks stuck."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from memtap.engine.engine import Engine


@asynccontextmanager
async def fact_writes_held(engine: Engine) -> AsyncIterator[asyncio.Event]:
    """Inside the block every fact write (the worker's `FactWriter`) waits for the yielded
    event (set on exit)."""
    gate = asyncio.Event()
    facts = engine.worker.facts
    real_write = facts.write

    async def held(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await real_write(*args, **kwargs)

    facts.write = held  # type: ignore[method-assign]
    try:
        yield gate
    finally:
        gate.set()
        facts.write = real_write  # type: ignore[method-assign]
