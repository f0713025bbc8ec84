"""The upstream's idle watchdog: a far-off deadline waits in the loop's sweep without a
timer of its own, and must still fire exactly when a timer armed from the start would."""

from __future__ import annotations

import asyncio

import pytest

from memtap.proxy import upstream
from memtap.proxy.upstream import IdleWatchdog

SWEEP_S = 0.2


@pytest.fixture(autouse=True)
def _fast_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upstream, "WATCH_SWEEP_S", SWEEP_S)


async def _fired_at(watchdog_timeout: float, touches: int = 0) -> tuple[float, float]:
    loop = asyncio.get_running_loop()
    fired = loop.create_future()
    watchdog = IdleWatchdog(watchdog_timeout, lambda: fired.set_result(loop.time()))
    assert watchdog._handle is None  # far off: no timer of its own
    for _ in range(touches):
        await asyncio.sleep(watchdog_timeout / 2)
        watchdog.touch()
    expected = watchdog.deadline
    return await asyncio.wait_for(fired, 5), expected


async def test_a_far_deadline_fires_on_time_not_at_a_sweep() -> None:
    at, deadline = await _fired_at(1.0)
    assert deadline - 0.001 <= at < deadline + SWEEP_S / 2


async def test_touches_move_a_far_deadline() -> None:
    at, deadline = await _fired_at(1.0, touches=2)
    assert deadline - 0.001 <= at < deadline + SWEEP_S / 2


async def test_cancelled_before_its_deadline_it_never_fires_and_the_sweep_stops() -> (
    None
):
    fired: list[bool] = []
    watchdogs = [IdleWatchdog(1.0, lambda: fired.append(True)) for _ in range(3)]
    far = upstream._far_deadlines(asyncio.get_running_loop())
    assert len(far) == 3
    for watchdog in watchdogs:
        watchdog.cancel()
        watchdog.cancel()  # twice is harmless
    assert len(far) == 0
    await asyncio.sleep(SWEEP_S * 2)
    assert fired == [] and far._handle is None


async def test_cancelled_after_the_sweep_armed_it() -> None:
    fired: list[bool] = []
    watchdog = IdleWatchdog(SWEEP_S * 2.5, lambda: fired.append(True))
    await asyncio.sleep(SWEEP_S * 1.2)  # within two sweeps of its deadline: armed now
    assert watchdog._handle is not None
    watchdog.cancel()
    await asyncio.sleep(SWEEP_S * 2)
    assert fired == [] and not watchdog.fired


async def test_a_near_deadline_gets_its_timer_at_once() -> None:
    loop = asyncio.get_running_loop()
    fired = loop.create_future()
    watchdog = IdleWatchdog(SWEEP_S, lambda: fired.set_result(loop.time()))
    assert watchdog._handle is not None
    at = await asyncio.wait_for(fired, 5)
    assert watchdog.fired and at >= watchdog.deadline
