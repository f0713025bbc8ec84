"""The outbox worker against what can happen while it holds a page: an erase of the page's
owner, and a store that fails part-way through the page."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config, MemoryConfig, VectorStoreConfig
from memtap.engine.api import StoreError
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.types import ListQuery, Turn

OWNER = "e" * 24


def holder(tmp_path: Path) -> ConfigHolder:
    return ConfigHolder(
        Config(
            data_dir=str(tmp_path),
            memory=MemoryConfig(),
            vector_store=VectorStoreConfig(kind="none"),
        )
    )


def turn(i: int) -> Turn:
    return Turn(
        f"req-{i}",
        OWNER,
        None,
        "openai-chat",
        f"I live in Town{i}ville and I prefer topic{i}.",
        "Sure.",
    )


async def live_count(engine: Any) -> int:
    return (
        await engine.list_memories(
            ListQuery(owner=OWNER, include_superseded=True, limit=100)
        )
    ).total


async def test_an_erase_during_a_page_leaves_nothing_of_the_owner(
    tmp_path: Path,
) -> None:
    engine = await open_engine(holder(tmp_path), Metrics(), start_worker=False)
    facts = engine.worker.facts
    real = facts.write
    entered, release = asyncio.Event(), asyncio.Event()

    async def slow_write(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        await release.wait()  # the page was read; the erase arrives now
        return await real(*args, **kwargs)

    facts.write = slow_write  # type: ignore[method-assign]
    try:
        await engine.enqueue_turn(turn(1))
        engine.worker.start()
        await asyncio.wait_for(entered.wait(), 5)
        erase = asyncio.create_task(engine.erase_owner(OWNER))
        await asyncio.sleep(0.05)
        release.set()
        receipt = await asyncio.wait_for(erase, 10)
        await asyncio.sleep(0.1)
        assert await live_count(engine) == 0, receipt
        assert engine.pending.pending(OWNER) == 0
    finally:
        await engine.close()


async def test_a_store_failing_part_way_releases_the_rows_it_applied(
    tmp_path: Path,
) -> None:
    engine = await open_engine(holder(tmp_path), Metrics(), start_worker=False)
    facts = engine.worker.facts
    real = facts.write

    async def first_then_fail(turns: Any, now: str) -> Any:
        await real(list(turns)[:1], now)  # applied and acked, like Qdrant does
        raise StoreError("the store went away after the first turn")

    try:
        for i in (1, 2):
            await engine.enqueue_turn(turn(i))
        rows = await engine.outbox.page(0, 10)
        assert engine.pending.pending(OWNER) == 2
        facts.write = first_then_fail  # type: ignore[method-assign]
        try:
            await engine.worker.process(rows)
        except StoreError:
            pass
        # The applied row is gone from the outbox for good: nobody may wait for it.
        assert engine.pending.pending(OWNER) == 1
    finally:
        facts.write = real  # type: ignore[method-assign]
        await engine.close()


async def test_a_restatement_in_fewer_words_keeps_the_richer_fact_current(
    tmp_path: Path,
) -> None:
    engine = await open_engine(holder(tmp_path), Metrics(), start_worker=False)
    try:
        for i, text in enumerate(
            ["I live in Berlin, in Kreuzberg near the canal.", "Yes, I live in Berlin."]
        ):
            await engine.enqueue_turn(
                Turn(f"r{i}", OWNER, None, "openai-chat", text, "ok")
            )
            await engine.worker.process(await engine.outbox.page(0, 10))
        live = (await engine.list_memories(ListQuery(owner=OWNER))).items
        assert [m.content for m in live] == [
            "Lives in Berlin, in Kreuzberg near the canal"
        ]
        # a new value of the slot still replaces it
        await engine.enqueue_turn(
            Turn("r4", OWNER, None, "openai-chat", "I live in Hamburg now.", "ok")
        )
        await engine.worker.process(await engine.outbox.page(0, 10))
        live = (await engine.list_memories(ListQuery(owner=OWNER))).items
        assert [m.content for m in live] == ["Lives in Hamburg"]
    finally:
        await engine.close()
