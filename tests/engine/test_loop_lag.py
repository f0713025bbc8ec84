"""LoopLag: how late the event loop runs, and retrieval while it lags or while a crowd of
retrievals is in progress: the facts' keyword leg alone (no vector legs, no episodes'
recall, no wait for the owner's turns), said in the resolution and counted."""

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
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.retrieval.admission.loop_lag import SHED_AT_SHARE, LoopLag, lagging
from memtap.engine.types import NewMemory, RetrievalRequest, Turn
from tests.support.held_writes import fact_writes_held

ALICE = "a" * 24


def test_the_lag_needs_two_late_wake_ups_rises_at_once_and_falls_by_halves() -> None:
    lag = LoopLag()
    lag.record(0.2)
    assert (
        lag.lag_s == 0.0
    )  # one late wake-up alone: a long stretch, not a saturated loop
    lag.record(0.0)
    assert lag.lag_s == 0.0
    lag.record(0.1)
    lag.record(0.08)
    assert lag.lag_s == 0.08
    lag.record(0.0)
    assert abs(lag.lag_s - 0.04) < 1e-9
    lag.record(-0.01)  # woke early: counts as on time
    assert abs(lag.lag_s - 0.02) < 1e-9
    assert lagging(0.0075, 250) and not lagging(0.0074, 250)
    assert SHED_AT_SHARE * 250 == 7.5


async def test_a_blocked_loop_is_measured_and_the_lag_fades() -> None:
    lag = LoopLag()
    lag.start()
    try:
        await asyncio.sleep(0.05)
        assert lag.lag_s < 0.03
        time.sleep(0.12)  # noqa: ASYNC251 - the loop blocked on purpose: what is measured
        await asyncio.sleep(0.005)  # the sleeper woke ~100 ms late meanwhile
        assert lag.lag_s < 0.03  # once is not a saturated loop
        time.sleep(0.12)  # noqa: ASYNC251 - and again: it is
        await asyncio.sleep(0.005)
        assert lag.lag_s >= 0.08
        await asyncio.sleep(0.4)
        assert lag.lag_s < 0.03
    finally:
        await lag.stop()
    assert lag.lag_s == 0.0


@pytest.mark.parametrize(
    ("strategy", "coverage"), [("hybrid", 1.0), ("hybrid", 0.0), ("semantic", 1.0)]
)
async def test_a_lagging_loop_retrieves_the_facts_by_keyword_alone(
    tmp_path: Path, strategy: str, coverage: float
) -> None:
    """Whatever the strategy, and whether or not the keyword leg decides the vector legs
    (`memory.vector_skip_coverage`)."""
    config = Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(
            strategy=strategy, retrieval_timeout_ms=250, vector_skip_coverage=coverage
        ),
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
        embedding=EmbeddingConfig(source="onnx"),
    )
    metrics = Metrics()
    engine = await open_engine(ConfigHolder(config), metrics)
    engine.worker.start()
    try:
        await engine.create_memory(NewMemory(owner=ALICE, content="Drinks oolong tea"))
        question = RetrievalRequest(owner=ALICE, query="which oolong brew do I like?")
        calm = await engine.retrieve(question)
        assert "sqlite-vec" in calm.resolution["tiers"]
        await engine.loop_lag.stop()  # the figure below stays as recorded
        engine.loop_lag.record(0.05)
        engine.loop_lag.record(0.05)  # 50 ms late twice: past 7.5 ms of a 250 ms limit
        async with fact_writes_held(engine):
            # Alice has a turn in flight: a calm loop would wait for it (up to 125 ms).
            await engine.enqueue_turn(
                Turn("req-1", ALICE, None, "openai-chat", "I like sencha too.", "Ok.")
            )
            # It does not wait for that turn (nor for anything else): the retrieval ends
            # in the step that began it, a check no loaded machine can stretch (it was a
            # wall clock under 100 ms).
            step = engine.retrieve(question)
            with pytest.raises(StopIteration) as ended:
                step.send(None)
            shed = ended.value.value
        assert [h.memory.content for h in shed.hits] == ["Drinks oolong tea"]
        assert "sqlite-vec" not in shed.resolution["tiers"]
        (vector,) = [
            f for f in shed.resolution["fallbacks"] if f.get("tier") == "vector"
        ]
        assert vector == {"tier": "vector", "reason": "loop_lagging", "lag_ms": 50.0}
        (episodes,) = shed.resolution["episodes"]["fallbacks"]
        assert episodes["reason"] == "loop_lagging"
        assert metrics.memory_fallbacks.value("vector_shed") == 1
        assert metrics.memory_fallbacks.value("episodes_shed") == 1
        assert metrics.memory_fallbacks.value("own_writes_pending") == 1
        assert (await engine.status())["retrievals"]["loop_lag_ms"] == 50.0
        # Nothing of it waits for the loop (which is that late): the keyword leg reads at
        # once on the loop's own connection, so the retrieval ends in the step it began.
        step = engine.retrieve(question, limit_ms=250)
        with pytest.raises(StopIteration) as ended:
            step.send(None)
        at_once = ended.value.value
        assert [h.memory.content for h in at_once.hits] == ["Drinks oolong tea"]
    finally:
        await engine.close()


async def test_a_sleeper_overdue_counts_before_it_wakes_once_it_woke_late() -> None:
    """Requests handled late in one long iteration of a loop that is already late see the
    lateness before the sleeper runs again."""
    lag = LoopLag()
    lag.start()
    try:
        await asyncio.sleep(0.03)
        assert lag.now_s() < 0.03
        time.sleep(0.1)  # noqa: ASYNC251 - one long iteration on a loop on time
        assert lag.now_s() < 0.03  # not a saturated loop yet
        await asyncio.sleep(0.005)  # the sleeper woke late
        time.sleep(0.1)  # noqa: ASYNC251 - and the next iteration is long too
        assert lag.lag_s < 0.03  # the sleeper has not run again yet
        assert lag.now_s() >= 0.07
    finally:
        await lag.stop()
    assert lag.now_s() == 0.0


async def test_a_crowd_of_retrievals_in_progress_sheds_the_next_one(
    tmp_path: Path,
) -> None:
    """A burst arrives in one loop iteration, before the lag shows: with 32 retrievals in
    progress (a 250 ms limit) the next one runs the facts' keyword leg alone."""
    import contextlib

    from memtap.engine.retrieval.admission.slots import CROWDED_PER_S

    config = Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(strategy="hybrid", retrieval_timeout_ms=250),
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
        embedding=EmbeddingConfig(source="onnx"),
    )
    metrics = Metrics()
    engine = await open_engine(ConfigHolder(config), metrics)
    await engine.loop_lag.stop()  # a busy test machine's lag must not shed instead
    try:
        await engine.create_memory(NewMemory(owner=ALICE, content="Drinks oolong tea"))
        question = RetrievalRequest(owner=ALICE, query="which oolong brew do I like?")
        crowd = int(CROWDED_PER_S * 0.25)
        with contextlib.ExitStack() as others:
            for _ in range(crowd - 1):
                others.enter_context(engine.retrieval_slots.retrieving())
            below = await engine.retrieve(question)
            assert "sqlite-vec" in below.resolution["tiers"]
            others.enter_context(engine.retrieval_slots.retrieving())
            shed = await engine.retrieve(question)
        assert [h.memory.content for h in shed.hits] == ["Drinks oolong tea"]
        (vector,) = [
            f for f in shed.resolution["fallbacks"] if f.get("tier") == "vector"
        ]
        assert vector == {
            "tier": "vector",
            "reason": "retrievals_crowded",
            "running": 32,
        }
        (episodes,) = shed.resolution["episodes"]["fallbacks"]
        assert episodes["reason"] == "retrievals_crowded"
        assert engine.retrieval_slots.running == 0
    finally:
        await engine.close()


async def test_a_lagging_loop_without_a_vector_index_says_so_and_sheds_nothing(
    tmp_path: Path,
) -> None:
    """No index: the vector leg never could run, so nothing is counted as shed, and the
    retrieval still ends in the step that began it (no task for a leg that cannot run)."""
    config = Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(strategy="hybrid", retrieval_timeout_ms=250),
        vector_store=VectorStoreConfig(kind="none"),
    )
    metrics = Metrics()
    engine = await open_engine(ConfigHolder(config), metrics)
    try:
        await engine.create_memory(NewMemory(owner=ALICE, content="Drinks oolong tea"))
        await engine.loop_lag.stop()
        engine.loop_lag.record(0.05)
        engine.loop_lag.record(0.05)
        step = engine.retrieve(
            RetrievalRequest(owner=ALICE, query="which oolong brew do I like?"),
            limit_ms=250,
        )
        with pytest.raises(StopIteration) as ended:
            step.send(None)
        found = ended.value.value
        assert [h.memory.content for h in found.hits] == ["Drinks oolong tea"]
        vector = [f for f in found.resolution["fallbacks"] if f.get("tier") == "vector"]
        assert vector == [{"tier": "vector", "reason": "no vector tier"}]
        assert metrics.memory_fallbacks.value("vector_shed") == 0
    finally:
        await engine.close()
