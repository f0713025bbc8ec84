"""Read-your-own-writes: a turn whose outbox row committed before a retrieval arrived is
visible to that retrieval, without slowing other owners — for both record stores."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    QdrantConfig,
    VectorStoreConfig,
)
from memtap.engine.engine import Engine
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.types import RetrievalRequest, Turn
from tests.engine.test_retrieval import ScriptedTier
from tests.support.calm import calm_loop
from tests.support.held_writes import fact_writes_held

ALICE = "a" * 24
BOB = "b" * 24


def turn(i: int, owner: str, text: str) -> Turn:
    return Turn(f"req-{i}", owner, None, "openai-chat", text, "Noted.")


@pytest.fixture(params=["sqlite", "qdrant"])
async def engine(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Engine]:
    vector_store = (
        VectorStoreConfig(kind="none")
        if request.param == "sqlite"
        else VectorStoreConfig(
            kind="qdrant", qdrant=QdrantConfig(path=str(tmp_path / "q"))
        )
    )
    config = Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(strategy="keyword"),
        vector_store=vector_store,
        embedding=EmbeddingConfig(source="none"),
    )
    opened = await calm_loop(await open_engine(ConfigHolder(config), Metrics()))
    # A worker that would otherwise hold rows back for a long batch: only the wait for
    # a retrieval can make it apply them in time.
    opened.worker.batch_delay_s = 30.0
    try:
        yield opened
    finally:
        await opened.close()


async def test_a_retrieval_sees_the_turn_that_completed_just_before(
    engine: Engine,
) -> None:
    await engine.enqueue_turn(turn(1, ALICE, "I prefer Postgres for side projects."))
    started = time.perf_counter()
    found = await engine.retrieve(
        RetrievalRequest(owner=ALICE, query="which database for side projects?")
    )
    waited = time.perf_counter() - started
    assert [hit.memory.content for hit in found.hits] == [
        "Prefers Postgres for side projects"
    ]
    assert waited < 1.0
    # The row finishes a moment later, once its episode (and any vectors) are written.
    for _ in range(300):
        if engine.pending.pending(ALICE) == 0:
            break
        await asyncio.sleep(0.01)
    assert engine.pending.pending(ALICE) == 0


async def test_back_to_back_turns_each_see_the_previous_one(engine: Engine) -> None:
    facts = [
        "I prefer tabs for Go code.",
        "I always cycle to work.",
        "I prefer tea in the morning.",
    ]
    queries = ["tabs Go code", "cycle work", "tea morning"]
    for i, (fact, query) in enumerate(zip(facts, queries, strict=True)):
        await engine.enqueue_turn(turn(i, ALICE, fact))
        found = await engine.retrieve(RetrievalRequest(owner=ALICE, query=query))
        assert found.hits, f"turn {i} not visible to the next request"


async def test_other_owners_do_not_wait_for_alices_turns(engine: Engine) -> None:
    engine.worker.start()
    # Warm: a store's first search (Qdrant's local mode on a loaded box: 0.8 s) is not
    # the wait this test is about.
    await engine.retrieve(RetrievalRequest(owner=BOB, query="Go services"))
    waited_for: list[str] = []
    wait_for = engine.pending.wait_for

    async def recorded(owner: str, *args: Any, **kwargs: Any) -> bool:
        waited_for.append(owner)
        return bool(await wait_for(owner, *args, **kwargs))

    engine.pending.wait_for = recorded  # type: ignore[method-assign]
    async with fact_writes_held(engine):  # the worker runs, Alice's row stays pending
        await engine.enqueue_turn(turn(1, ALICE, "I prefer Rust for tools."))
        found = await engine.retrieve(RetrievalRequest(owner=BOB, query="Rust tools"))
        assert found.hits == ()
        # Bob did not wait for Alice's row: no wait at all (not a wall-clock bound, which
        # failed on a loaded box where Qdrant's local mode took 0.6 s to answer).
        assert waited_for == []
        assert engine.metrics.memory_fallbacks.value("own_writes_pending") == 0
        assert engine.pending.pending(ALICE) == 1
        # Alice's own request is the one that waits for it (and runs out: held).
        await engine.retrieve(RetrievalRequest(owner=ALICE, query="Rust tools"))
        assert ALICE in waited_for


async def test_the_wait_is_bounded_when_the_worker_cannot_keep_up(
    engine: Engine,
) -> None:
    engine.worker.start()
    async with fact_writes_held(engine):
        await engine.enqueue_turn(turn(1, ALICE, "I prefer Kotlin for Android."))
        started = time.perf_counter()
        found = await engine.retrieve(
            RetrievalRequest(owner=ALICE, query="Kotlin Android")
        )
        waited = time.perf_counter() - started
        assert (
            found.hits == ()
        )  # not applied yet: retrieval went on with what was stored
        assert 0.1 <= waited < 1.0
        assert engine.metrics.memory_fallbacks.value("own_writes_pending") == 1


async def test_a_worker_too_far_behind_is_not_waited_for(engine: Engine) -> None:
    # The worker keeps a pace (turns it finished in the last seconds); when the rows queued
    # before the owner's turn would take longer than the wait may last, the request goes
    # on at once with what is stored instead of losing the wait's time too.
    engine.worker.batch_delay_s = 0.0
    engine.worker.start()
    for i in range(10):
        await engine.enqueue_turn(turn(100 + i, BOB, f"I keep {i} cacti on the sill."))
    for _ in range(500):
        if engine.pending.pending(BOB) == 0:
            break
        await asyncio.sleep(0.01)
    assert engine.pending.pending(BOB) == 0
    async with fact_writes_held(engine):
        for i in range(12):
            await engine.enqueue_turn(turn(200 + i, BOB, f"I water {i} ferns weekly."))
        await engine.enqueue_turn(turn(1, ALICE, "I prefer Kotlin for Android."))
        assert engine.pending.expected_wait_s(ALICE, vectors=False) > 0.125
        waits = record_waits(engine)
        found = await engine.retrieve(
            RetrievalRequest(owner=ALICE, query="Kotlin Android")
        )
        assert waits == []  # no 125 ms wait first
        assert found.hits == ()
        assert engine.metrics.memory_fallbacks.value("own_writes_pending") == 1


async def test_rows_resumed_at_start_are_waited_for(tmp_path: Path) -> None:
    config = Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(strategy="keyword"),
        vector_store=VectorStoreConfig(kind="none"),
    )
    first = await open_engine(ConfigHolder(config), Metrics(), start_worker=False)
    await first.enqueue_turn(turn(1, ALICE, "I prefer Vim for editing."))
    await first.close()
    second = await calm_loop(await open_engine(ConfigHolder(config), Metrics()))
    second.worker.batch_delay_s = 30.0
    try:
        assert second.pending.pending(ALICE) in (
            0,
            1,
        )  # the worker may already be on it
        found = await second.retrieve(
            RetrievalRequest(owner=ALICE, query="Vim editing")
        )
        assert [hit.memory.content for hit in found.hits] == ["Prefers Vim for editing"]
    finally:
        await second.close()


async def test_erasing_an_owner_releases_the_wait(engine: Engine) -> None:
    await engine.worker.stop(0.0)
    await engine.enqueue_turn(turn(1, ALICE, "I prefer Emacs."))
    await engine.erase_owner(ALICE)
    assert engine.pending.pending(ALICE) == 0


async def test_a_turn_committed_while_the_worker_reads_an_empty_page_is_not_slept_through(
    tmp_path: Path,
) -> None:
    # The worker's read of an empty page races the commit of a new turn: the wake-up the
    # commit (and the waiting retrieval) gives must survive that read.
    config = Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(strategy="keyword"),
        vector_store=VectorStoreConfig(kind="none"),
        embedding=EmbeddingConfig(source="none"),
    )
    engine = await calm_loop(
        await open_engine(ConfigHolder(config), Metrics(), start_worker=False)
    )
    engine.worker.batch_delay_s = 30.0
    real_page = engine.worker.outbox.page
    read_empty = asyncio.Event()

    async def slow_empty_page(after: int, limit: int):  # type: ignore[no-untyped-def]
        rows = await real_page(after, limit)
        if not rows and not read_empty.is_set():
            read_empty.set()
            await asyncio.sleep(
                0.04
            )  # the turn commits and the retrieval waits meanwhile
        return rows

    engine.worker.outbox.page = slow_empty_page  # type: ignore[method-assign]
    try:
        engine.worker.start()
        await asyncio.wait_for(read_empty.wait(), 5)
        await engine.enqueue_turn(turn(1, ALICE, "I prefer Zig for small tools."))
        found = await engine.retrieve(
            RetrievalRequest(owner=ALICE, query="Zig small tools")
        )
        assert [hit.memory.content for hit in found.hits] == [
            "Prefers Zig for small tools"
        ]
    finally:
        await engine.close()


def record_waits(engine: Engine) -> list[bool]:
    """What each wait for the owner's writes asked for (True: their vectors too), in
    order. A structural check, not a time one: a retrieval on a loaded CI box can take
    100 ms without waiting at all."""
    waits: list[bool] = []
    real_wait = engine.pending.wait_for

    async def recorded_wait(
        owner: str, timeout_s: float, *, vectors: bool = True
    ) -> bool:
        waits.append(vectors)
        return await real_wait(owner, timeout_s, vectors=vectors)

    engine.pending.wait_for = recorded_wait  # type: ignore[method-assign]
    return waits


def hold_vectors(engine: Engine) -> asyncio.Event:
    """The worker commits rows as usual, but their vector writes wait for the event."""
    gate = asyncio.Event()
    real = engine.worker.on_written

    async def stuck_vectors(memories):  # type: ignore[no-untyped-def]
        await gate.wait()
        if real is not None:
            await real(memories)

    engine.worker.on_written = stuck_vectors
    return gate


async def test_keyword_retrieval_does_not_wait_for_the_vectors_of_own_writes(
    engine: Engine,
) -> None:
    # The rows are committed but their vector write hangs: a keyword retrieval finds the
    # fact at once, one that reads vectors (hybrid, with a vector index) still waits for
    # them (bounded).
    gate = hold_vectors(engine)
    waits = record_waits(engine)
    try:
        await engine.enqueue_turn(turn(1, ALICE, "I prefer Elixir for chat servers."))
        found = await engine.retrieve(
            RetrievalRequest(owner=ALICE, query="Elixir chat servers")
        )
        assert [h.memory.content for h in found.hits] == [
            "Prefers Elixir for chat servers"
        ]
        assert True not in waits  # the rows' commit at most, never their vectors
        assert engine.pending.pending(ALICE) == 1  # its vectors are still coming
        assert engine.metrics.memory_fallbacks.value("own_writes_pending") == 0
        index, engine.vector_index = engine.vector_index, ScriptedTier([])
        started = time.perf_counter()
        await engine.retrieve(
            # (a word the fact lacks: the keywords alone do not answer, vectors are read)
            RetrievalRequest(
                owner=ALICE,
                query="Elixir chat servers in production",
                strategy="hybrid",
            )
        )
        assert time.perf_counter() - started >= 0.1
        assert engine.metrics.memory_fallbacks.value("own_writes_pending") == 1
        assert waits[-1] is True
        engine.vector_index = index
    finally:
        gate.set()


async def test_a_wait_for_own_writes_cut_short_is_still_counted(engine: Engine) -> None:
    # A busy loop can fire the vector leg's deadline before the own-writes wait's own
    # timeout (seen on a loaded CI box): the retrieval went on without the writes, and
    # `own_writes_pending` says so whichever timer cut the wait.
    gate = hold_vectors(engine)
    index, engine.vector_index = engine.vector_index, ScriptedTier([])
    try:
        await engine.enqueue_turn(turn(1, ALICE, "I prefer Elixir for chat servers."))
        retrieval = asyncio.ensure_future(
            engine.retrieve(
                RetrievalRequest(
                    owner=ALICE,
                    query="Elixir chat servers in production",
                    strategy="hybrid",
                )
            )
        )
        # Inside the wait for the fact's vectors (it was a sleep of 30 ms, which a loaded
        # machine could spend before the retrieval got there: nothing was cut, nor counted).
        deadline = time.monotonic() + 10
        while not engine.pending.waiting and not retrieval.done():
            assert time.monotonic() < deadline, "the retrieval never waited"
            await asyncio.sleep(0.001)
        assert not retrieval.done()
        retrieval.cancel()
        with pytest.raises(asyncio.CancelledError):
            await retrieval
        assert engine.metrics.memory_fallbacks.value("own_writes_pending") == 1
    finally:
        engine.vector_index = index
        gate.set()
