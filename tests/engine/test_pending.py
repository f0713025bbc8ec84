"""PendingTurns: the read-your-own-writes bookkeeping, driven directly (no engine)."""

from __future__ import annotations

import asyncio

from memtap.engine.pending import PendingTurns


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
    keywords = asyncio.ensure_future(pending.wait_for("alice", timeout_s=5, vectors=False))
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
    waiting = asyncio.ensure_future(pending.wait_for("alice", timeout_s=0.05, vectors=False))
    assert not await waiting
