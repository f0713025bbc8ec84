"""Stopping the engine's background tasks (`engine/background.py`)."""

from __future__ import annotations

import asyncio

import pytest

from memtap.engine.background import CANCEL_AGAIN_S, cancel_and_wait


async def test_a_task_that_swallowed_a_cancel_is_cancelled_again() -> None:
    """Python 3.11's wait_for can return its result when a cancel lands as it comes in: the
    loop around it runs on. A stop cancels again instead of waiting for ever."""
    swallowed: list[int] = []

    async def loop_that_swallows_once() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed.append(1)  # what wait_for did: the cancel is lost

    task = asyncio.create_task(loop_that_swallows_once())
    await asyncio.sleep(0)
    async with asyncio.timeout(CANCEL_AGAIN_S * 5):
        await cancel_and_wait(task)
    assert task.cancelled() and swallowed == [1]


async def test_a_stop_returns_whatever_the_task_ended_with() -> None:
    async def fails() -> None:
        raise RuntimeError("boom")

    task = asyncio.create_task(fails())
    await asyncio.sleep(0)
    await cancel_and_wait(task)  # does not raise what the task raised
    await cancel_and_wait(None)


async def test_the_callers_own_cancel_is_not_swallowed() -> None:
    """A stop that is itself cancelled ends with CancelledError (before: suppressed)."""
    released = False

    async def stubborn() -> None:
        while not released:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                continue  # ignores cancels until released

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    stopping = asyncio.create_task(cancel_and_wait(task))
    await asyncio.sleep(0.05)
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    released = True
    await cancel_and_wait(task)
    assert task.done()
