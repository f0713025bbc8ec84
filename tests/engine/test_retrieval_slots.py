"""RetrievalSlots: at most `memory.max_concurrent_retrievals` retrievals run their vector legs
at once, the rest first come first served until their shed point; keyword legs never wait
for a slot, nor does a request waiting for its owner's turns."""

from __future__ import annotations

import asyncio
import time
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
from memtap.engine.engine import Engine
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.retrieval.admission.slots import RetrievalSlots
from memtap.engine.types import NewMemory, RetrievalRequest, Turn
from tests.support.held_writes import fact_writes_held

ALICE = "a" * 24


async def assert_idle(engine: Engine) -> None:
    """engine-status says no retrieval runs or waits (whatever the loop's lag)."""
    retrievals = (await engine.status())["retrievals"]
    assert {k: v for k, v in retrievals.items() if k != "loop_lag_ms"} == {
        "max_concurrent": 1,
        "running": 0,
        "queued": 0,
    }
    assert retrievals["loop_lag_ms"] >= 0


def far() -> float:
    return time.monotonic() + 10


async def run_burst(
    slots: RetrievalSlots, limit: int, count: int
) -> tuple[int, list[int]]:
    running = peak = 0
    order: list[int] = []

    async def one(i: int) -> None:
        nonlocal running, peak
        admission = slots.admission(limit, far())
        assert await admission.wait()
        try:
            order.append(i)
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.005)
            running -= 1
        finally:
            admission.release()

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
    with slots.retrieving():
        assert slots.to_json(0) == {"max_concurrent": 0, "running": 1, "queued": 0}
    assert slots.running == 0


async def test_a_claim_that_times_out_leaves_no_slot_taken() -> None:
    slots = RetrievalSlots()
    holder = slots.admission(1, far())
    assert await holder.wait()
    late = slots.admission(1, time.monotonic() + 0.02)
    started = time.monotonic()
    assert not await late.wait()
    assert 0.015 <= time.monotonic() - started < 0.5
    assert late.waited_s >= 0.015
    assert slots.queued == 0
    late.release()  # releasing a claim that holds nothing gives nothing back
    holder.release()
    again = slots.admission(1, time.monotonic())
    assert await again.wait()  # a free slot is taken even with no time left
    assert not await slots.admission(1, time.monotonic()).wait()
    again.release()


async def test_a_changed_limit_applies_to_the_next_retrievals() -> None:
    slots = RetrievalSlots()
    assert (await run_burst(slots, 2, 6))[0] == 2
    assert (await run_burst(slots, 5, 10))[0] == 5


def test_a_negative_limit_is_a_config_error_naming_the_key() -> None:
    issues = validate(Config(memory=MemoryConfig(max_concurrent_retrievals=-1)))
    assert [i.path for i in issues] == ["memory.max_concurrent_retrievals"]


async def test_keyword_retrievals_never_wait_for_a_vector_slot(tmp_path: Path) -> None:
    """A slot was held for a whole retrieval: under a saturated loop eight of them served
    ~80 retrievals a second and the rest timed out queued. Keyword legs take none."""
    config = Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(strategy="keyword", max_concurrent_retrievals=1),
        vector_store=VectorStoreConfig(kind="none"),
        embedding=EmbeddingConfig(source="none"),
    )
    engine = await open_engine(ConfigHolder(config), Metrics())
    try:
        await engine.create_memory(NewMemory(owner=ALICE, content="Drinks oolong tea"))
        held = engine.retrieval_slots.admission(1, far())
        assert await held.wait()
        found = await asyncio.wait_for(
            engine.retrieve(RetrievalRequest(owner=ALICE, query="which tea")), 1
        )
        assert [h.memory.content for h in found.hits] == ["Drinks oolong tea"]
        await assert_idle(engine)
        held.release()
    finally:
        await engine.close()


@pytest.mark.slow
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


def _hybrid(tmp_path: Path) -> Config:
    return Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(
            strategy="hybrid", max_concurrent_retrievals=1, retrieval_timeout_ms=250
        ),
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
        embedding=EmbeddingConfig(source="onnx"),
    )


QUESTION = "which oolong brew do I like?"


async def test_a_retrieval_with_no_vector_slot_in_time_runs_keyword_only(
    tmp_path: Path,
) -> None:
    """No vector slot within a fifth of its limit: a hybrid retrieval goes on keyword (and
    recent) only at once, without waiting for one: vector legs started that late mostly
    miss their deadline after spending the query embedding and the KNN."""
    metrics = Metrics()
    engine = await open_engine(ConfigHolder(_hybrid(tmp_path)), metrics)
    try:
        await engine.create_memory(NewMemory(owner=ALICE, content="Drinks oolong tea"))
        ran = await engine.retrieve(RetrievalRequest(owner=ALICE, query=QUESTION))
        assert "sqlite-vec" in ran.resolution["tiers"]  # a free slot: both legs
        held = engine.retrieval_slots.admission(1, far())
        assert await held.wait()
        retrieval = asyncio.ensure_future(
            engine.retrieve(RetrievalRequest(owner=ALICE, query=QUESTION))
        )
        await asyncio.sleep(0.01)
        assert (await engine.status())["retrievals"]["queued"] == 1
        shed = await asyncio.wait_for(retrieval, 0.2)  # the slot is still held
        held.release()
        assert [h.memory.content for h in shed.hits] == ["Drinks oolong tea"]
        assert "sqlite-vec" not in shed.resolution["tiers"]
        (fallback,) = [
            f for f in shed.resolution["fallbacks"] if f.get("tier") == "vector"
        ]
        assert fallback["reason"] == "retrievals_queued"
        assert fallback["slot_wait_ms"] >= 30
        assert metrics.memory_fallbacks.value("vector_shed") == 1
        await assert_idle(engine)
    finally:
        await engine.close()


async def test_a_slot_freed_in_time_runs_the_vector_legs(tmp_path: Path) -> None:
    engine = await open_engine(ConfigHolder(_hybrid(tmp_path)), Metrics())
    try:
        await engine.create_memory(NewMemory(owner=ALICE, content="Drinks oolong tea"))
        held = engine.retrieval_slots.admission(1, far())
        assert await held.wait()
        retrieval = asyncio.ensure_future(
            engine.retrieve(RetrievalRequest(owner=ALICE, query=QUESTION))
        )
        await asyncio.sleep(0.01)
        held.release()
        found = await asyncio.wait_for(retrieval, 5)
        assert "sqlite-vec" in found.resolution["tiers"]
        # The retrieval gave its slot back.
        assert await engine.retrieval_slots.admission(1, time.monotonic()).wait()
    finally:
        await engine.close()
