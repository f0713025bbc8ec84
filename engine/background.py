"""The engine's background tasks (the backfill, the loop-lag sleeper): how one is stopped."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def cancel_and_wait(task: asyncio.Task[Any] | None) -> None:
    """Cancel `task` and return once it has ended, whatever it ended with (a stop must not
    leave it running past the close of what it uses, nor raise what it raised)."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(BaseException):
        await task
