"""Fail-open at the engine boundary: a read-only, deleted, locked or corrupt store and a
failing vector tier make engine calls raise EngineError (or degrade) quickly; nothing hangs."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config, MemoryConfig, VectorStoreConfig
from memtap.engine.api import EngineError, RetrievalTimeout
from memtap.engine.engine import Engine
from memtap.engine.factory import database_path, open_engine
from memtap.engine.memory_rules import Live
from memtap.engine.metrics import Metrics
from memtap.engine.ports import VectorHits
from memtap.engine.store_errors import StoreBusy
from memtap.engine.types import Memory, NewMemory, RetrievalRequest, Turn

OWNER = "e" * 24
T = TypeVar("T")


def holder(tmp_path: Path, **memory: Any) -> ConfigHolder:
    return ConfigHolder(
        Config(
            data_dir=str(tmp_path),
            memory=MemoryConfig(**{"strategy": "keyword", **memory}),
            vector_store=VectorStoreConfig(kind="none"),
        )
    )


async def quick(
    awaitable: Awaitable[T], limit: float = 3.0
) -> tuple[T | BaseException, float]:
    """Run with a hard deadline; returns (result or the EngineError raised, seconds)."""
    t0 = time.monotonic()
    try:
        result: T | BaseException = await asyncio.wait_for(awaitable, limit)
    except EngineError as exc:
        result = exc
    return result, time.monotonic() - t0


def turn(i: int) -> Turn:
    return Turn(f"r{i}", OWNER, None, "openai-chat", "I prefer green tea.", "ok")


def request() -> RetrievalRequest:
    return RetrievalRequest(owner=OWNER, query="green tea")


async def seeded(tmp_path: Path) -> Engine:
    engine = await open_engine(holder(tmp_path), Metrics())
    await engine.create_memory(NewMemory(owner=OWNER, content="Prefers green tea"))
    return engine


async def test_read_only_store(tmp_path: Path) -> None:
    engine = await seeded(tmp_path)
    try:
        if os.geteuid() != 0:
            os.chmod(database_path(engine.config), 0o444)
        # root ignores file modes: make the writer connection refuse writes the way a
        # read-only file does ("attempt to write a readonly database").
        await engine.local.db.write_outside_transaction(
            lambda c: c.execute("PRAGMA query_only = ON")
        )
        result, took = await quick(engine.enqueue_turn(turn(1)))
        assert isinstance(result, EngineError) and took < 3
        result, took = await quick(
            engine.create_memory(NewMemory(owner=OWNER, content="x"))
        )
        assert isinstance(result, EngineError)
        retrieval, _ = await quick(engine.retrieve(request()))
        assert not isinstance(retrieval, BaseException) and len(retrieval.hits) == 1
    finally:
        await engine.close()


async def test_deleted_database_mid_run(tmp_path: Path) -> None:
    engine = await seeded(tmp_path)
    try:
        path = database_path(engine.config)
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        result, took = await quick(engine.enqueue_turn(turn(1)))
        assert isinstance(result, EngineError) and took < 3, result
        retrieval, took = await quick(engine.retrieve(request()))
        assert (
            took < 3
        )  # stale reads or an EngineError, never a hang or another exception
        assert isinstance(retrieval, BaseException) or len(retrieval.hits) <= 1
        assert isinstance(await engine.health(), dict)
        # the engine reopens a fresh file in the background: memory comes back by itself
        deadline = time.monotonic() + 5
        while True:
            try:
                await engine.enqueue_turn(turn(2))
                break
            except EngineError:
                assert time.monotonic() < deadline, "store was not reopened"
                await asyncio.sleep(0.05)
        assert path.exists()
        assert engine.metrics.memory_fallbacks.value("store_gone") == 1
        await engine.create_memory(NewMemory(owner=OWNER, content="Prefers black tea"))
        result = await engine.retrieve(RetrievalRequest(owner=OWNER, query="tea"))
        # The reopened file holds what was written since, the turn enqueued after the
        # reopen included (read-your-own-writes): nothing of the deleted file came back.
        assert sorted(h.memory.content for h in result.hits) == [
            "Prefers black tea",
            "Prefers green tea",
        ]
        deadline = time.monotonic() + 5
        while await engine.local.db.read(
            lambda c: c.execute("SELECT count(*) FROM outbox").fetchone()[0]
        ):
            assert time.monotonic() < deadline, "worker did not restart"
            await asyncio.sleep(0.05)
    finally:
        await engine.close()


async def test_write_lock_held_by_another_connection(tmp_path: Path) -> None:
    engine = await seeded(tmp_path)
    # The same SQLite library as the engine: two different SQLite copies in one process do
    # not see each other's POSIX locks (that is why everything must go through choose_driver).
    other = engine.local.db.driver.connect(str(database_path(engine.config)))
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute(
            "INSERT INTO settings_overrides(name, value, updated_at) VALUES ('x', '1', 'now')"
        )
        # WAL: reads never wait on a writer. A read that did would give up after the
        # readers' busy timeout and the retrieval would fall back (no hit, a fallback
        # named): that is checked, not the time taken, which a loaded machine stretches
        # (0.82 s once under a full suite beside another job, ~2 ms alone); the bound
        # below only says it did not hang.
        retrieval, took = await quick(engine.retrieve(request()))
        assert not isinstance(retrieval, BaseException) and took < 3
        assert len(retrieval.hits) == 1
        assert not retrieval.resolution.get("fallbacks"), retrieval.resolution
        result, took = await quick(engine.enqueue_turn(turn(1)))
        assert isinstance(result, StoreBusy) and took < 3
        other.execute("ROLLBACK")
        await engine.enqueue_turn(turn(2))  # recovers once the lock is gone
    finally:
        other.close()
        await engine.close()


async def test_corrupt_file_fails_at_open(tmp_path: Path) -> None:
    path = tmp_path / "memtap.db"
    path.write_bytes(b"this is not a database" * 100)
    t0 = time.monotonic()
    with pytest.raises(EngineError):
        await asyncio.wait_for(open_engine(holder(tmp_path), Metrics()), 5)
    assert time.monotonic() - t0 < 5


class BrokenTier:
    """A vector tier whose every call fails or stalls (a plugin, not a memtap component)."""

    name = "sqlite-vec"

    def __init__(self, stall: bool) -> None:
        self.stall = stall

    async def search(
        self,
        live: Live,
        query: str,
        limit: int,
        *,
        backfill: bool = True,
    ) -> VectorHits:
        if self.stall:
            await asyncio.sleep(30)
        raise RuntimeError("vector index corrupt")

    async def upsert(self, memories: Sequence[Memory]) -> None:
        raise RuntimeError("down")

    async def delete(self, ids: Sequence[str]) -> None:
        raise RuntimeError("down")

    async def erase_owner(self, owner: str) -> int:
        raise RuntimeError("down")

    async def reindex(self, limit: int | None, force: bool) -> dict[str, Any]:
        raise RuntimeError("down")

    async def status(self) -> dict[str, Any]:
        raise RuntimeError("down")

    def health(self) -> str:
        return "degraded"

    def embedding(self) -> str:
        return "none"

    def embedding_source(self) -> None:
        return None

    async def close(self) -> None:
        return None


@pytest.mark.parametrize("stall", [False, True])
async def test_failing_vector_tier_falls_back_to_keyword(
    tmp_path: Path, stall: bool
) -> None:
    # vector_skip_coverage 0: "green tea" is answered by keywords alone otherwise, and the
    # failing vector leg is what this tests.
    engine = await open_engine(
        holder(
            tmp_path,
            strategy="hybrid",
            retrieval_timeout_ms=100,
            vector_skip_coverage=0.0,
        ),
        Metrics(),
    )
    try:
        engine.vector_index = BrokenTier(stall)
        await engine.create_memory(
            NewMemory(owner=OWNER, content="Prefers green tea")
        )  # upsert fails: ignored
        retrieval, took = await quick(engine.retrieve(request()))
        assert not isinstance(retrieval, BaseException) and took < 2
        assert [h.memory.content for h in retrieval.hits] == ["Prefers green tea"]
        assert retrieval.resolution["fallbacks"][0]["tier"] == "vector"
        cause = "vector_timeout" if stall else "vector_error"
        assert engine.metrics.memory_fallbacks.value(cause) == 1
        semantic = await engine.retrieve(
            RetrievalRequest(owner=OWNER, query="green tea", strategy="semantic")
        )
        assert [h.tier for h in semantic.hits] == ["keyword"]
        status = await engine.status()
        assert status["vector"]["available"] is False
    finally:
        engine.vector_index = None
        await engine.close()


async def test_the_limit_answers_with_the_keyword_leg_read_before_it(
    tmp_path: Path,
) -> None:
    """A vector leg still running at the caller's limit (its own deadline is later): the
    facts the keyword leg read answer then, instead of nothing."""
    engine = await open_engine(
        holder(
            tmp_path,
            strategy="hybrid",
            retrieval_timeout_ms=2000,
            vector_skip_coverage=0.0,
        ),
        Metrics(),
    )
    try:
        await engine.create_memory(NewMemory(owner=OWNER, content="Prefers green tea"))
        engine.vector_index = BrokenTier(stall=True)
        retrieval, took = await quick(engine.retrieve(request(), limit_ms=60))
        assert not isinstance(retrieval, BaseException), retrieval
        assert 0.05 <= took < 0.5
        assert [h.memory.content for h in retrieval.hits] == ["Prefers green tea"]
        fallbacks = retrieval.resolution["fallbacks"]
        assert {"tier": "vector", "reason": "time_limit"} in fallbacks
        assert fallbacks[-1] == {
            "tier": "retrieval",
            "reason": "time_limit",
            "answered_with": "keyword",
        }
        assert engine.metrics.memory_fallbacks.value("retrieval_partial") == 1
    finally:
        engine.vector_index = None
        await engine.close()


async def test_nothing_read_by_the_limit_is_a_retrieval_timeout(
    tmp_path: Path,
) -> None:
    engine = await seeded(tmp_path)
    real = engine.store.keyword

    async def stalled(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(5)  # a reader that does not come back in time
        return await real(*args, **kwargs)

    engine.store.keyword = stalled  # type: ignore[method-assign]
    try:
        started = time.monotonic()
        with pytest.raises(RetrievalTimeout) as raised:
            await asyncio.wait_for(engine.retrieve(request(), limit_ms=50), 3)
        assert time.monotonic() - started < 0.5
        assert isinstance(raised.value, TimeoutError)  # what the proxy counts
        assert engine.metrics.memory_fallbacks.value("retrieval_partial") == 0
        # Without a limit (retrieve-preview) the same retrieval waits for its reads.
        engine.store.keyword = real  # type: ignore[method-assign]
        found = await engine.retrieve(request(), side_effects=False)
        assert [h.memory.content for h in found.hits] == ["Prefers green tea"]
    finally:
        await engine.close()


async def test_engine_errors_only(tmp_path: Path) -> None:
    engine = await seeded(tmp_path)
    await engine.close()
    for call in (
        engine.retrieve(request()),
        engine.enqueue_turn(turn(1)),
        engine.status(),
    ):
        with pytest.raises(EngineError):
            await asyncio.wait_for(call, 3)
