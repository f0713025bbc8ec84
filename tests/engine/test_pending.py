"""PendingTurns: the read-your-own-writes bookkeeping, driven directly (no engine)."""

from __future__ import annotations

import asyncio

from memtap.engine.retrieval.admission.pending import PendingTurns


async def test_an_owner_with_nothing_pending_does_not_wait() -> None:
    pending = PendingTurns()
    pending.added("other", 1)
    assert await pending.wait_for("alice", timeout_s=0.0)


async def test_wait_returns_once_the_rows_pending_at_arrival_are_finished() -> None:
    pending = PendingTurns()
    pending.added("alice", 1)
    pending.added("alice", 2)
    waiting = asyncio.ensure_future(pending.wait_for("alice", timeout_s=5))
    await asyncio.sleep(0)
    assert pending.waiting
    pending.finished([1])
    await asyncio.sleep(0)
    assert not waiting.done()
    pending.added("alice", 3)  # arrived after the request: not waited for
    pending.finished([2])
    assert await waiting
    assert pending.pending("alice") == 1
    assert not pending.waiting


async def test_wait_is_bounded() -> None:
    pending = PendingTurns()
    pending.added("alice", 7)
    assert not await pending.wait_for("alice", timeout_s=0.01)
    assert not pending.waiting
    assert pending.pending("alice") == 1


async def test_other_owners_rows_do_not_release_a_waiter() -> None:
    pending = PendingTurns()
    pending.added("alice", 1)
    pending.added("bob", 2)
    waiting = asyncio.ensure_future(pending.wait_for("alice", timeout_s=0.05))
    await asyncio.sleep(0)
    pending.finished([2])
    assert not await waiting


async def test_erasing_an_owner_releases_its_waiters() -> None:
    pending = PendingTurns()
    pending.added("alice", 1)
    waiting = asyncio.ensure_future(pending.wait_for("alice", timeout_s=5))
    await asyncio.sleep(0)
    pending.forget_owner("alice")
    assert await waiting
    assert pending.pending("alice") == 0


async def test_unknown_or_repeated_finishes_are_harmless() -> None:
    pending = PendingTurns()
    pending.added("", 1)  # no owner: never tracked
    pending.finished([1, 99])
    pending.added("alice", 2)
    pending.finished([2])
    pending.finished([2])
    assert pending.pending("alice") == 0


async def test_a_commit_releases_waiters_that_read_no_vectors_only() -> None:
    pending = PendingTurns()
    pending.added("alice", 1)
    keywords = asyncio.ensure_future(
        pending.wait_for("alice", timeout_s=5, vectors=False)
    )
    meaning = asyncio.ensure_future(pending.wait_for("alice", timeout_s=5))
    await asyncio.sleep(0)
    pending.committed([1])
    assert await keywords
    await asyncio.sleep(0)
    assert not meaning.done()
    assert pending.pending("alice") == 1
    # Committed before the request arrived: no wait at all for keywords.
    assert await pending.wait_for("alice", timeout_s=0.0, vectors=False)
    pending.finished([1])
    assert await meaning
    assert pending.pending("alice") == 0


async def test_a_committed_row_that_is_finished_or_erased_leaves_no_trace() -> None:
    pending = PendingTurns()
    pending.added("alice", 1)
    pending.added("alice", 2)
    pending.committed([1, 2, 99])
    pending.finished([1])
    pending.forget_owner("alice")
    pending.added("alice", 2)  # the same seq again (a fresh outbox file): not committed
    waiting = asyncio.ensure_future(
        pending.wait_for("alice", timeout_s=0.05, vectors=False)
    )
    assert not await waiting


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def backlog(pending: PendingTurns, rows: int, *, owner_last: str = "alice") -> None:
    for seq in range(1, rows):
        pending.added(f"owner-{seq % 7}", seq)
    pending.added(owner_last, rows)


def test_no_pace_measured_yet_means_a_wait_is_worth_trying() -> None:
    pending = PendingTurns(Clock())
    backlog(pending, 50)
    assert pending.expected_wait_s("alice", vectors=True) == 0.0


def test_the_expected_wait_is_the_rows_ahead_at_the_workers_recent_pace() -> None:
    clock = Clock()
    pending = PendingTurns(clock)
    pending.added("done", 900)
    pending.finished([900])  # one row finished...
    clock.now += 0.5
    for seq in range(901, 910):
        pending.added("done", seq)
    pending.finished(range(901, 910))  # ...and nine more: 10 in the window, 5 a second
    backlog(pending, 40)
    assert pending.expected_wait_s("alice", vectors=True) == 40 / 5
    assert pending.expected_wait_s("nobody", vectors=True) == 0.0
    # Rows queued after the owner's last one are not ahead of it.
    for seq in range(41, 80):
        pending.added("later", seq)
    assert pending.expected_wait_s("alice", vectors=True) == 40 / 5


def test_a_short_queue_is_always_waited_for() -> None:
    clock = Clock()
    pending = PendingTurns(clock)
    pending.added("done", 900)
    pending.finished([900])  # a slow pace: 0.5 rows a second
    backlog(pending, 7)
    assert pending.expected_wait_s("alice", vectors=True) == 0.0


def test_the_pace_is_forgotten_after_the_window() -> None:
    clock = Clock()
    pending = PendingTurns(clock)
    for seq in range(900, 920):
        pending.added("done", seq)
    pending.finished(range(900, 920))
    backlog(pending, 30)
    assert pending.expected_wait_s("alice", vectors=True) == 30 / 10
    clock.now += 5.0  # the worker has finished nothing since: no pace to judge by
    assert pending.expected_wait_s("alice", vectors=True) == 0.0


def test_without_vectors_only_uncommitted_rows_count_at_the_commit_pace() -> None:
    clock = Clock()
    pending = PendingTurns(clock)
    for seq in range(900, 940):
        pending.added("done", seq)
    pending.committed(range(900, 940))
    backlog(pending, 30)
    pending.committed(range(1, 11))  # ten of the queued rows have their facts stored
    # 50 commits in the window (25 a second), 20 rows still to commit.
    assert pending.expected_wait_s("alice", vectors=False) == 20 / 25
    # Their vectors are still to come: a wait for them counts every queued row, at the
    # pace rows were finished (none yet: no judgement).
    assert pending.expected_wait_s("alice", vectors=True) == 0.0
