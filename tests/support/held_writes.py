"""Hold an engine's fact writes until a test lets them go: the worker looks stuck."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from memtap.engine.engine import Engine


@asynccontextmanager
async def fact_writes_held(engine: Engine) -> AsyncIterator[asyncio.Event]:
    """Inside the block every `write_facts` waits for the yielded event (set on exit)."""
    gate = asyncio.Event()
    real_write = engine.store.write_facts

    async def held(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await real_write(*args, **kwargs)

    engine.store.write_facts = held  # type: ignore[method-assign]
    try:
        yield gate
    finally:
        gate.set()
        engine.store.write_facts = real_write  # type: ignore[method-assign]
