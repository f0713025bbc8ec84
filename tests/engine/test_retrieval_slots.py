"""RetrievalSlots: at most `memory.max_concurrent_retrievals` retrievals at once, the rest
first come first served; and the engine takes a slot only after the own-writes wait."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    VectorStoreConfig,
)
from memtap.config.validate import validate
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.retrieval_slots import RetrievalSlots
from memtap.engine.types import NewMemory, RetrievalRequest, Turn
from tests.support.held_writes import fact_writes_held

ALICE = "a" * 24


async def run_burst(
    slots: RetrievalSlots, limit: int, count: int
) -> tuple[int, list[int]]:
    running = peak = 0
    order: list[int] = []

    async def one(i: int) -> None:
        nonlocal running, peak
        async with slots.slot(limit):
            order.append(i)
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.005)
            running -= 1

    await asyncio.gather(*(one(i) for i in range(count)))
    return peak, order


async def test_a_burst_runs_a_few_at_a_time_in_arrival_order() -> None:
    slots = RetrievalSlots()
    peak, order = await run_burst(slots, 3, 20)
    assert peak == 3
    assert order == list(range(20))
    assert slots.queued == 0


async def test_no_limit_runs_everything_at_once() -> None:
    peak, _ = await run_burst(RetrievalSlots(), 0, 20)
    assert peak == 20


async def test_running_retrievals_are_counted_with_no_limit_too() -> None:
    slots = RetrievalSlots()
    release = asyncio.Event()

    async def hold() -> None:
        async with slots.slot(0):
            await release.wait()

    held = asyncio.ensure_future(hold())
    await asyncio.sleep(0)
    assert slots.to_json(0) == {"max_concurrent": 0, "running": 1, "queued": 0}
    release.set()
    await held
    assert slots.running == 0


async def test_a_request_given_up_while_queued_leaves_no_slot_taken() -> None:
    slots = RetrievalSlots()
    release = asyncio.Event()

    async def holder() -> None:
        async with slots.slot(1):
            await release.wait()

    held = asyncio.ensure_future(holder())
    await asyncio.sleep(0)

    async def queued() -> None:
        async with slots.slot(1):
            pass

    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.02):  # the proxy's retrieval_timeout_ms
            await queued()
    assert slots.queued == 0
    release.set()
    await held
    async with asyncio.timeout(1):
        await queued()  # the slot came back


async def test_a_changed_limit_applies_to_the_next_retrievals() -> None:
    slots = RetrievalSlots()
    assert (await run_burst(slots, 2, 6))[0] == 2
    assert (await run_burst(slots, 5, 10))[0] == 5


def test_a_negative_limit_is_a_config_error_naming_the_key() -> None:
    issues = validate(Config(memory=MemoryConfig(max_concurrent_retrievals=-1)))
    assert [i.path for i in issues] == ["memory.max_concurrent_retrievals"]


async def test_the_engine_queues_retrievals_past_the_limit(tmp_path: Path) -> None:
    config = Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(strategy="keyword", max_concurrent_retrievals=1),
        vector_store=VectorStoreConfig(kind="none"),
        embedding=EmbeddingConfig(source="none"),
    )
    engine = await open_engine(ConfigHolder(config), Metrics())
    try:
        await engine.create_memory(NewMemory(owner=ALICE, content="Drinks oolong tea"))
        release = asyncio.Event()

        async def hold() -> None:
            async with engine.retrieval_slots.slot(1):
                await release.wait()

        held = asyncio.ensure_future(hold())
        await asyncio.sleep(0)
        retrieval = asyncio.ensure_future(
            engine.retrieve(RetrievalRequest(owner=ALICE, query="which tea"))
        )
        await asyncio.sleep(0.05)
        assert not retrieval.done()
        status = await engine.status()
        assert status["retrievals"] == {"max_concurrent": 1, "running": 1, "queued": 1}
        release.set()
        await held
        found = await asyncio.wait_for(retrieval, 5)
        assert [h.memory.content for h in found.hits] == ["Drinks oolong tea"]
        status = await engine.status()
        assert status["retrievals"] == {"max_concurrent": 1, "running": 0, "queued": 0}
    finally:
        await engine.close()


async def test_a_request_waiting_for_its_owners_turns_holds_no_slot(
    tmp_path: Path,
) -> None:
    config = Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(strategy="keyword", max_concurrent_retrievals=1),
        vector_store=VectorStoreConfig(kind="none"),
        embedding=EmbeddingConfig(source="none"),
    )
    engine = await open_engine(ConfigHolder(config), Metrics())
    engine.worker.start()
    async with fact_writes_held(engine):
        await engine.enqueue_turn(
            Turn("req-1", ALICE, None, "openai-chat", "I prefer Kotlin.", "Noted.")
        )
        alice = asyncio.ensure_future(
            engine.retrieve(RetrievalRequest(owner=ALICE, query="Kotlin"))
        )
        await asyncio.sleep(0.01)  # Alice waits for her turn (up to 125 ms)
        loop = asyncio.get_running_loop()
        started = loop.time()
        await engine.retrieve(RetrievalRequest(owner="b" * 24, query="tea"))
        assert loop.time() - started < 0.08  # Bob did not queue behind Alice's wait
        assert not alice.done()
        await alice
        await engine.close()


async def test_a_retrieval_that_queued_long_for_its_slot_runs_keyword_only(
    tmp_path: Path,
) -> None:
    """Past a fifth of its limit spent waiting for a slot, a hybrid retrieval is shed to
    keyword (and recent) only: the vector legs it would start that late mostly miss their
    deadline after spending the query embedding and the KNN."""
    config = Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(
            strategy="hybrid", max_concurrent_retrievals=1, retrieval_timeout_ms=250
        ),
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
        embedding=EmbeddingConfig(source="onnx"),
    )
    metrics = Metrics()
    engine = await open_engine(ConfigHolder(config), metrics)
    try:
        await engine.create_memory(NewMemory(owner=ALICE, content="Drinks oolong tea"))
        ran = await engine.retrieve(
            RetrievalRequest(owner=ALICE, query="which oolong brew do I like?")
        )
        assert "sqlite-vec" in ran.resolution["tiers"]  # not queued: both legs
        release = asyncio.Event()

        async def hold() -> None:
            async with engine.retrieval_slots.slot(1):
                await release.wait()

        held = asyncio.ensure_future(hold())
        await asyncio.sleep(0)
        retrieval = asyncio.ensure_future(
            engine.retrieve(
                RetrievalRequest(owner=ALICE, query="which oolong brew do I like?")
            )
        )
        await asyncio.sleep(0.08)  # past 20 % of 250 ms
        release.set()
        await held
        shed = await asyncio.wait_for(retrieval, 5)
        assert [h.memory.content for h in shed.hits] == ["Drinks oolong tea"]
        assert "sqlite-vec" not in shed.resolution["tiers"]
        (fallback,) = [
            f for f in shed.resolution["fallbacks"] if f.get("tier") == "vector"
        ]
        assert fallback["reason"] == "retrievals_queued"
        assert fallback["slot_wait_ms"] >= 70
        assert metrics.memory_fallbacks.value("vector_shed") == 1
    finally:
        await engine.close()
