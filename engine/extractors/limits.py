"""What bounds the model extractor: call rates (all owners, each owner) and a daily token
budget. Pure bookkeeping with injected clocks, so the edges are tested without sleeping.

A batch that finds a limit reached is not delayed: it goes to the rules at once (the turn is
never held back waiting for the model)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], float]
"""Seconds, monotonic (`time.monotonic`)."""
Today = Callable[[], str]
"""The current UTC day as text; the budget starts again when it changes."""

MAX_OWNER_BUCKETS = 10_000
"""Owners whose rate is remembered; the least recently seen beyond it are forgotten (a
forgotten owner starts again with a full bucket: at most one minute's calls more)."""


def utc_today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


class RateLimit:
    """A token bucket of `per_minute` calls: a burst of `per_minute` calls, then one every
    `60 / per_minute` seconds. The rate is given at each check, so a reload takes effect at
    once."""

    __slots__ = ("_clock", "_level", "_stamp")

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._level: float | None = None
        """Calls left; None = full (never used)."""
        self._stamp = 0.0

    def _refilled(self, per_minute: int) -> float:
        now = self._clock()
        if self._level is None:
            self._stamp = now
            return float(per_minute)
        level = min(
            float(per_minute), self._level + (now - self._stamp) * per_minute / 60.0
        )
        self._stamp = now
        return level

    def available(self, per_minute: int) -> bool:
        level = self._refilled(per_minute)
        self._level = level
        return level >= 1.0

    def take(self, per_minute: int) -> None:
        self._level = self._refilled(per_minute) - 1.0


class OwnerRates:
    """One `RateLimit` per owner, bounded in how many owners it remembers."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._buckets: OrderedDict[str, RateLimit] = OrderedDict()

    def limit_of(self, owner: str) -> RateLimit:
        bucket = self._buckets.get(owner)
        if bucket is None:
            bucket = self._buckets[owner] = RateLimit(self._clock)
            while len(self._buckets) > MAX_OWNER_BUCKETS:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(owner)
        return bucket

    def __len__(self) -> int:
        return len(self._buckets)


class DailyBudget:
    """Tokens (in + out) spent today. A call is allowed while what was spent plus its input
    estimate stays within the budget; its real cost is charged after, so a day overshoots
    by at most one call's output (`max_output_tokens`). Kept in memory: a restart starts
    the day's count again."""

    def __init__(self, today: Today = utc_today) -> None:
        self._today = today
        self._day = ""
        self._spent = 0

    @property
    def spent(self) -> int:
        self._roll()
        return self._spent

    def _roll(self) -> None:
        day = self._today()
        if day != self._day:
            self._day, self._spent = day, 0

    def allows(self, estimate: int, limit: int) -> bool:
        self._roll()
        return self._spent + max(0, estimate) <= limit

    def charge(self, tokens: int) -> None:
        self._roll()
        self._spent += max(0, tokens)


class Limits:
    """The three bounds a call passes, checked together and taken together."""

    def __init__(self, clock: Clock = time.monotonic, today: Today = utc_today) -> None:
        self.calls = RateLimit(clock)
        self.owners = OwnerRates(clock)
        self.budget = DailyBudget(today)

    def admit(
        self,
        owner: str,
        estimate: int,
        *,
        per_minute: int,
        owner_per_minute: int,
        daily_tokens: int,
    ) -> str | None:
        """None and the call is counted against both rates; else the reason it may not go
        (budget | rate_global | rate_owner), nothing taken."""
        if not self.budget.allows(estimate, daily_tokens):
            return "budget"
        if not self.calls.available(per_minute):
            return "rate_global"
        mine = self.owners.limit_of(owner)
        if not mine.available(owner_per_minute):
            return "rate_owner"
        self.calls.take(per_minute)
        mine.take(owner_per_minute)
        return None
