"""An engine whose loop-lag watch is stopped, for tests of a memtap with time to spare."""

from __future__ import annotations

from memtap.engine.engine import Engine


async def calm_loop(engine: Engine) -> Engine:
    """`engine` with its loop-lag watch stopped (the lag stays 0). A saturated memtap (the
    loop late by 3 % of the retrieval limit, 7.5 ms of 250) deliberately runs the facts'
    keyword leg alone: no vector legs, no snippets, no wait for the owner's turns
    (`test_loop_lag.py` tests that). A loaded CI box once measured the loop 10.6 ms late,
    so a test of what a calm memtap does must not depend on the box being calm."""
    await engine.loop_lag.stop()
    return engine
