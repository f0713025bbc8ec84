"""Read-your-own-writes: which owners have completed turns still waiting in the outbox.

A turn's response ends once its outbox row is committed; the worker turns it into memories a
few milliseconds later. An agent that sends its next turn at once would retrieve before that
and miss what it just said. So the engine records each committed row here (`added`), the
worker reports what it finished (`finished`: applied, or dropped for good), and a retrieval for
an owner first waits — bounded — until the rows that owner had pending when the request
arrived are finished (`wait_for`). Owners with nothing pending pay one dict look-up.

A row is applied in two stages: its facts are committed (`committed`: a keyword search finds
them), then its episode and the facts' vectors are written (`finished`: a search by meaning
finds them too, and the episode is a snippet). A retrieval that reads no vectors (`keyword`,
`recent`) waits for the first stage only (`wait_for(..., vectors=False)`): the write
embedding, milliseconds of model time, is no longer in its path.

A wait that cannot end in time is not started: when the worker is behind (a burst of turns,
extraction slower than they arrive), the rows queued up to the owner's last one, at the pace
the worker kept over the last seconds (`expected_wait_s`), would take longer than the wait may
last, and the request would only lose that time before retrieving what is stored anyway.

In memory only, per process: after a restart the engine re-registers the rows resumed from
disk (`added` for each), so the rule holds across restarts too. Replicas sharing Qdrant do not
see each other's outboxes: read-your-own-writes holds per replica.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

THROUGHPUT_WINDOW_S = 2.0
"""The worker's pace is what it finished in the last this many seconds."""
MIN_ROWS_AHEAD = 8
"""With fewer rows to go than this, a wait is always tried (the pace is not worth judging)."""


@dataclass(slots=True)
class _Waiter:
    owner: str
    seqs: set[int]
    vectors: bool
    """Whether the rows' vectors must be written too, or their commit is enough."""
    done: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class PendingTurns:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._owner_of: dict[int, str] = {}
        self._by_owner: dict[str, set[int]] = {}
        self._committed: set[int] = set()
        """Rows whose facts are stored but whose episode and vectors are not yet written."""
        self._waiters: list[_Waiter] = []
        self._committed_pace = _Pace(clock)
        """Rows past the first stage (facts stored, or dropped), the last seconds."""
        self._finished_pace = _Pace(clock)
        """Rows the worker is done with, the last seconds."""

    def added(self, owner: str, seq: int) -> None:
        """A row of `owner` was committed to the outbox."""
        if not owner:
            return
        self._owner_of[seq] = owner
        self._by_owner.setdefault(owner, set()).add(seq)

    def committed(self, seqs: Iterable[int]) -> None:
        """These rows' facts are stored (their episodes and vectors may still be coming)."""
        touched: set[str] = set()
        newly = 0
        for seq in seqs:
            owner = self._owner_of.get(seq)
            if owner is not None:
                newly += seq not in self._committed
                self._committed.add(seq)
                touched.add(owner)
        self._committed_pace.add(newly)
        if touched and self._waiters:
            self._release(touched)

    def finished(self, seqs: Iterable[int]) -> None:
        """The worker is done with these rows (memories and vectors written, or the row
        dropped)."""
        touched: set[str] = set()
        uncommitted = done = 0
        for seq in seqs:
            was_committed = seq in self._committed
            self._committed.discard(seq)
            owner = self._owner_of.pop(seq, None)
            if owner is None:
                continue
            uncommitted += not was_committed
            done += 1
            rows = self._by_owner.get(owner)
            if rows is not None:
                rows.discard(seq)
                if not rows:
                    del self._by_owner[owner]
            touched.add(owner)
        # Rows finished without a commit first (dropped) are past the first stage too.
        self._committed_pace.add(uncommitted)
        self._finished_pace.add(done)
        if touched and self._waiters:
            self._release(touched)

    def forget_owner(self, owner: str) -> None:
        """The owner was erased: their rows are gone with them."""
        for seq in self._by_owner.pop(owner, set()):
            self._owner_of.pop(seq, None)
            self._committed.discard(seq)
        self._release({owner})

    def clear(self) -> None:
        """The outbox is gone (its file was replaced): nothing is pending any more."""
        owners = set(self._by_owner)
        self._owner_of.clear()
        self._by_owner.clear()
        self._committed.clear()
        self._release(owners)

    def pending(self, owner: str) -> int:
        return len(self._by_owner.get(owner, ()))

    def unfinished(self) -> int:
        """Rows of every owner not yet finished (their episode or vectors may be missing)."""
        return len(self._owner_of)

    @property
    def waiting(self) -> bool:
        """A retrieval is waiting: the worker should not hold rows back to batch them."""
        return bool(self._waiters)

    def expected_wait_s(self, owner: str, *, vectors: bool) -> float:
        """How long the rows `owner` has pending now should take at the worker's recent
        pace: the rows queued up to the owner's last one (committed ones too when `vectors`)
        over what it finished in the last THROUGHPUT_WINDOW_S. 0.0 with fewer than
        MIN_ROWS_AHEAD to go, or no pace measured yet (then a wait is worth trying)."""
        rows = self._by_owner.get(owner)
        if not rows:
            return 0.0
        last = max(rows)
        if vectors:
            ahead = sum(1 for seq in self._owner_of if seq <= last)
        else:
            committed = self._committed
            ahead = sum(
                1 for seq in self._owner_of if seq <= last and seq not in committed
            )
        if ahead < MIN_ROWS_AHEAD:
            return 0.0
        pace = self._finished_pace if vectors else self._committed_pace
        rate = pace.per_second()
        return ahead / rate if rate > 0 else 0.0

    async def wait_for(
        self, owner: str, timeout_s: float, *, vectors: bool = True
    ) -> bool:
        """Wait until every row `owner` has pending now is finished (`vectors=False`: is
        committed), at most `timeout_s`. True when they all were (or there were none);
        False on time-out."""
        rows = self._by_owner.get(owner)
        if not rows:
            return True
        waiter = _Waiter(owner, set(rows), vectors)
        if not self._left(waiter):
            return True
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(timeout_s):
                await asyncio.shield(waiter.done)
            return True
        except TimeoutError:
            return False
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def _release(self, owners: set[str]) -> None:
        for waiter in list(self._waiters):
            if waiter.owner not in owners:
                continue
            if not self._left(waiter) and not waiter.done.done():
                waiter.done.set_result(None)
                self._waiters.remove(waiter)

    def _left(self, waiter: _Waiter) -> set[int]:
        """What `waiter` still waits for (narrowed in place)."""
        waiter.seqs &= self._by_owner.get(waiter.owner, set())
        if not waiter.vectors:
            waiter.seqs -= self._committed
        return waiter.seqs


class _Pace:
    """Rows done over the last THROUGHPUT_WINDOW_S (a few hundred entries at most)."""

    __slots__ = ("_clock", "_events", "_total")

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._events: deque[tuple[float, int]] = deque()
        self._total = 0

    def add(self, rows: int) -> None:
        if rows <= 0:
            return
        now = self._clock()
        self._events.append((now, rows))
        self._total += rows
        self._trim(now)

    def per_second(self) -> float:
        self._trim(self._clock())
        return self._total / THROUGHPUT_WINDOW_S

    def _trim(self, now: float) -> None:
        while self._events and self._events[0][0] < now - THROUGHPUT_WINDOW_S:
            self._total -= self._events.popleft()[1]
