"""The engine's background tasks (the backfill, the loop-lag sleeper, the extraction worker):
how one is stopped."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

CANCEL_AGAIN_S = 1.0
"""A task still running this long after a cancel is cancelled again."""


async def cancel_and_wait(task: asyncio.Task[Any] | None) -> None:
    """Cancel `task` and return once it has ended, whatever it ended with (a stop must not
    leave it running past the close of what it uses, nor raise what it raised).

    Cancelled again until it has ended: Python 3.11's `asyncio.wait_for` returns its inner
    result when a cancel lands as that result comes in, so a loop built on it can swallow
    one cancel and run on (a stop then waited for ever). The caller's own cancellation is
    not swallowed."""
    if task is None:
        return
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=CANCEL_AGAIN_S)
    with contextlib.suppress(BaseException):
        task.result()  # retrieved: no "exception was never retrieved" at exit
