"""How late the event loop runs what is due: the measure of a saturated memtap.

Why: a retrieval is a few hops through the loop (reader threads, the query embedding, the
episodes' arms), and each hop waits for the loop to come round. With the core saturated
(`bench_load.py` at 400 streams and ~500 requests a second on one core) one iteration took
~100 ms: a hybrid retrieval's keyword leg was back at p50 121 ms, its vector leg and the
episodes' recall past the 250 ms limit, so 86 % of requests went upstream with nothing,
while a keyword-only retrieval of the facts (one hop) made it for 98.9 %. No per-leg
deadline helps there: the timer that ends a leg fires one late iteration after it is due.
So while the loop lags, retrieval sheds the legs that need several hops (`Engine.retrieve`).

A sleeper task wakes every `INTERVAL_S` and records how late it woke. The lag is the lesser
of the last two wake-ups' lateness: one late wake-up alone (a long synchronous stretch, a
collection) is not a saturated loop, and must not shed the next retrievals. It rises at
once and falls by halves. Between wake-ups, a sleeper overdue counts too, as long as its
last wake-up was late as well (`now_s`); a burst arriving on an idle loop is seen by the
retrievals in progress instead (`slots.CROWDED_PER_S`).
"""

from __future__ import annotations

import asyncio
import time

from memtap.engine.background import cancel_and_wait

INTERVAL_S = 0.02
SHED_AT_SHARE = 0.03
"""Loop lag, as a share of `memory.retrieval_timeout_ms` (7.5 ms of 250), from which
retrievals run the facts' keyword leg alone. A full retrieval takes ~10 loop iterations one
after another (reader and embedding hops, each a wake-up and a task step; the legs' timers)
inside the vector leg's 150 ms, so iterations past ~15 ms cannot carry it, and the sleeper is
late by about half an iteration. Measured saturated (`bench_load.py` defaults, memtap pinned to
one core): with the threshold at 15 ms, 311 of 10,338 retrievals missed the limit, every one a
full retrieval, started at a lag of p10 7.0 / p50 11 / p90 13.6 ms; keyword-only ones never
missed. At 40 % of a core (clients spread) the lag stayed under 14 ms (p99 8 ms)."""
REASON = "loop_lagging"


def lagging(lag_s: float, retrieval_timeout_ms: int) -> bool:
    return lag_s >= SHED_AT_SHARE * retrieval_timeout_ms / 1000


class LoopLag:
    def __init__(self) -> None:
        self.lag_s = 0.0
        """How late the loop ran the sleeper's last wake-ups (0 before `start`)."""
        self._due = 0.0
        """When the sleeper is due to wake next (0: not sleeping)."""
        self._last_late_s = 0.0
        self._task: asyncio.Task[None] | None = None

    def now_s(self) -> float:
        """The lag as of now: past the sleeper's due time, a loop that was late at its last
        wake-up is at least that late already (the requests handled late in one long
        iteration see it before the sleeper runs again)."""
        overdue = time.monotonic() - self._due if self._due else 0.0
        return max(self.lag_s, min(overdue, self._last_late_s))

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._watch(), name="memtap-loop-lag")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task)
        self.lag_s = self._last_late_s = 0.0

    def record(self, late_s: float) -> None:
        late_s = max(0.0, late_s)
        sustained, self._last_late_s = min(late_s, self._last_late_s), late_s
        if sustained >= self.lag_s:
            self.lag_s = sustained
        else:
            self.lag_s = (self.lag_s + sustained) / 2

    async def _watch(self) -> None:
        try:
            while True:
                self._due = time.monotonic() + INTERVAL_S
                await asyncio.sleep(INTERVAL_S)
                self.record(time.monotonic() - self._due)
        finally:
            self._due = 0.0
