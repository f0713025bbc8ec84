"""No vector left behind (engine/maintenance/backfill.py): memories whose vector write failed,
or that a restart left unindexed, get their vector by themselves, with the backlog in
engine-status and the failure logged with its message."""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    RemoteEmbeddingConfig,
    VectorStoreConfig,
)
from memtap.engine.engine import Engine
from memtap.engine.factory import open_engine
from memtap.engine.fallbacks import describe_error
from memtap.engine.metrics import Metrics
from memtap.engine.types import NewMemory, RetrievalRequest, Turn
from tests.support.semantic import EmbeddingsServer

FACTS = [
    "I prefer PostgreSQL for side projects",
    "My cat is named Biscuit",
    "I use tabs for indentation",
    "I live in Lisbon",
    "I drink green tea in the morning",
]


def config(data_dir: Path, server: EmbeddingsServer | None) -> Config:
    embedding = (
        EmbeddingConfig(
            source="remote",
            timeout_ms=2000,
            remote=RemoteEmbeddingConfig(url=server.url, model="m", timeout_s=2.0),
        )
        if server is not None
        else EmbeddingConfig(source="none")
    )
    return Config(
        data_dir=str(data_dir),
        memory=MemoryConfig(strategy="hybrid", backfill_interval_s=0.2),
        embedding=embedding,
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
    )


async def open_at(tmp_path: Path, cfg: Config) -> Engine:
    return await open_engine(
        ConfigHolder(cfg, str(tmp_path / "absent.yaml")), Metrics()
    )


async def vector_status(engine: Engine) -> dict[str, Any]:
    status = await engine.status()
    vector: dict[str, Any] = status["vector"]
    return vector


async def until_indexed(engine: Engine, timeout_s: float = 15.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        vector = await vector_status(engine)
        if (
            vector["needs_reindex"] == 0
            and vector["vectors"] == len(FACTS)
            and vector["backfill"]["done"] >= len(FACTS)  # the backfill did it
        ):
            return vector
        assert time.monotonic() < deadline, f"still waiting: {vector}"
        await asyncio.sleep(0.1)


async def test_failed_vector_writes_are_retried_until_every_memory_has_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with EmbeddingsServer() as server:
        engine = await open_at(tmp_path, config(tmp_path / "data", server))
        try:
            server.status = (
                500  # the provider fails: every vector write after a write fails
            )
            for fact in FACTS:
                await engine.create_memory(NewMemory(owner="alice", content=fact))
            vector = await vector_status(engine)
            assert vector["needs_reindex"] == len(FACTS)
            assert "backfill" in vector  # the backlog is visible
            failed = [
                r
                for r in caplog.records
                if r.getMessage() == "memory.vector_upsert_failed"
            ]
            assert failed
            for record in failed:
                error = record.__dict__["fields"]["error"]
                assert ":" in error and error.split(":", 1)[1].strip(), error

            server.status = 200  # back: nobody calls reindex, the backfill catches up
            await until_indexed(engine)
        finally:
            await engine.close()


async def test_memories_left_unindexed_by_a_restart_get_vectors_after_reopen(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    # Written while no embedding was available (what a kill -9 between the row and its
    # vector leaves too): every row waits with needs_reindex = 1.
    first = await open_at(tmp_path, config(data, None))
    try:
        for fact in FACTS:
            await first.create_memory(NewMemory(owner="bob", content=fact))
        assert (await first.status())["counts"]["needs_reindex"] == len(FACTS)
    finally:
        await first.close()

    async with EmbeddingsServer() as server:
        second = await open_at(tmp_path, config(data, server))
        try:
            await until_indexed(second)
        finally:
            await second.close()


async def test_the_backfill_waits_while_the_embedding_keeps_failing(
    tmp_path: Path,
) -> None:
    async with EmbeddingsServer() as server:
        cfg = config(tmp_path / "data", server)
        engine = await open_at(tmp_path, replace(cfg))
        try:
            server.status = 500
            await engine.create_memory(NewMemory(owner="carol", content=FACTS[0]))
            assert engine.backfill is not None
            await asyncio.sleep(
                0.6
            )  # a few passes: each stops at the first failed batch
            vector = await vector_status(engine)
            assert vector["needs_reindex"] == 1
            assert vector["backfill"]["done"] == 0
        finally:
            await engine.close()


# -- the vector leg's deadline (engine/retrieval/deadline.py) -------------------------------


async def test_a_slow_vector_leg_leaves_the_keyword_results_inside_the_time_limit(
    tmp_path: Path,
) -> None:
    async with EmbeddingsServer() as server:
        cfg = config(tmp_path / "data", server)
        cfg = replace(
            cfg,
            # vector_skip_coverage 0: "tea" and "drink" are in a fact, and the slow
            # vector leg is what this tests.
            memory=replace(
                cfg.memory, retrieval_timeout_ms=400, vector_skip_coverage=0.0
            ),
            embedding=replace(cfg.embedding, timeout_ms=5000),
        )
        engine = await open_at(tmp_path, cfg)
        try:
            for fact in FACTS:
                await engine.create_memory(NewMemory(owner="dave", content=fact))
            server.delay_s = 2.0  # the query embedding misses every deadline
            started = time.monotonic()
            # The proxy's own limit around retrieval (proxy/addons/inject.py).
            async with asyncio.timeout(0.4):
                got = await engine.retrieve(
                    RetrievalRequest(
                        owner="dave", query="which tea do I drink", strategy="hybrid"
                    )
                )
            assert time.monotonic() - started < 0.4
            assert got.hits and "green tea" in got.hits[0].memory.content
            reasons = [f.get("reason") for f in got.resolution["fallbacks"]]
            assert "timeout" in reasons
        finally:
            server.delay_s = 0.0
            await engine.close()


async def hold_write_lock(path: Path) -> asyncio.subprocess.Process:
    """Another process that holds the file's write lock until killed (in this process a
    second SQLite library would not see the engine's POSIX locks)."""
    code = (
        "import sqlite3, sys, time\n"
        f"c = sqlite3.connect({str(path)!r}, timeout=0, isolation_level=None)\n"
        "c.execute('BEGIN IMMEDIATE')\n"
        "print('locked', flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    assert (await proc.stdout.readline()).strip() == b"locked"
    return proc


async def test_waiting_for_own_writes_comes_out_of_the_vector_legs_time(
    tmp_path: Path,
) -> None:
    """The read-your-own-writes wait and a slow vector leg share one limit: the keyword
    results arrive inside `retrieval_timeout_ms`, not after the wait plus the vector share."""
    async with EmbeddingsServer() as server:
        cfg = config(tmp_path / "data", server)
        cfg = replace(
            cfg,
            # vector_skip_coverage 0: "tea" and "drink" are in a fact, and the slow
            # vector leg is what this tests.
            memory=replace(
                cfg.memory, retrieval_timeout_ms=400, vector_skip_coverage=0.0
            ),
            embedding=replace(cfg.embedding, timeout_ms=5000),
        )
        engine = await open_at(tmp_path, cfg)
        other: asyncio.subprocess.Process | None = None
        try:
            for fact in FACTS:
                await engine.create_memory(NewMemory(owner="erin", content=fact))
            # The owner's turn just before cannot be applied in time: another process
            # holds the database's write lock (the worker's write waits busy_timeout), so
            # the wait takes its whole budget; and the query embedding is slow, so the
            # vector leg misses too.
            engine.worker.batch_delay_s = 30.0  # it starts on the retrieval's hurry
            await engine.enqueue_turn(
                Turn(
                    "req-1", "erin", None, "openai-chat", "I prefer oolong tea.", "Ok."
                )
            )
            server.delay_s = 2.0
            other = await hold_write_lock(engine.local.db.path)
            started = time.monotonic()
            async with asyncio.timeout(0.4):  # the proxy's own limit (inject.py)
                got = await engine.retrieve(
                    RetrievalRequest(
                        owner="erin", query="which tea do I drink", strategy="hybrid"
                    )
                )
            assert time.monotonic() - started < 0.4
            assert engine.metrics.memory_fallbacks.value("own_writes_pending") == 1
            assert got.hits and any("tea" in h.memory.content for h in got.hits)
            reasons = [f.get("reason") for f in got.resolution["fallbacks"]]
            assert "timeout" in reasons
        finally:
            if other is not None:
                other.kill()
                await other.wait()
            server.delay_s = 0.0
            await engine.close()


def test_a_timeout_is_logged_with_how_long_it_was_given() -> None:
    # asyncio's TimeoutError has an empty str(): the log line says what timed out instead.
    assert describe_error(TimeoutError(), 5.0) == "TimeoutError: no answer within 5 s"
    assert describe_error(ValueError("bad row")) == "ValueError: bad row"


async def test_a_forced_reindex_counts_every_vector_with_the_backfill_running(
    tmp_path: Path,
) -> None:
    # The backfill (every 0.2 s here) and an operator's reindex used to share the rows the
    # reindex marked pending: its progress then said "25 of 25" for 30 memories.
    async with EmbeddingsServer() as server:
        engine = await open_at(tmp_path, config(tmp_path / "data", server))
        try:
            for fact in FACTS:
                await engine.create_memory(NewMemory(owner="alice", content=fact))
            assert engine.backfill is not None
            for _ in range(5):
                report = await engine.reindex(force=True)
                assert report["done"] == len(FACTS), report
                await asyncio.sleep(0.25)  # a backfill pass may start in between
            async with engine.backfill.busy:  # and a pass waits for the lock
                assert (await vector_status(engine))["needs_reindex"] == 0
        finally:
            await engine.close()
