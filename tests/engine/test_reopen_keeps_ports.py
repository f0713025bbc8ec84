"""Regression: after the local SQLite file is replaced (`StoreGone`), the engine reopens it and
keeps every port. A Qdrant-configured replica once rebuilt a plain SQLite worker there and
wrote newly extracted memories into the local `memories` table instead of Qdrant."""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from pathlib import Path

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    QdrantConfig,
    VectorStoreConfig,
)
from memtap.engine.api import EngineError
from memtap.engine.factory import database_path, open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.types import ListQuery, Turn


def turn(text: str) -> Turn:
    return Turn(
        request_id=uuid.uuid4().hex,
        owner="alice",
        session=None,
        format="openai-chat",
        user_text=text,
        assistant_text="Noted.",
    )


def replace_file(path: Path) -> None:
    """Swap a fresh, empty SQLite file in at `path` (what a restore or a bad deploy does)."""
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    fresh = path.with_name("fresh.db")
    sqlite3.connect(fresh).close()
    fresh.replace(path)


async def test_replaced_local_file_keeps_memories_going_to_qdrant(
    tmp_path: Path,
) -> None:
    config = Config(
        data_dir=str(tmp_path / "data"),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(
            kind="qdrant", qdrant=QdrantConfig(path=str(tmp_path / "qdrant"))
        ),
    )
    engine = await open_engine(
        ConfigHolder(config, str(tmp_path / "absent.yaml")), Metrics()
    )
    try:
        path = database_path(config)
        replace_file(path)
        deadline = time.monotonic() + 10
        while (
            True
        ):  # the first write sees the swap (StoreGone) and reopens in the background
            try:
                await engine.enqueue_turn(
                    turn("I prefer PostgreSQL for side projects.")
                )
                break
            except EngineError:
                assert time.monotonic() < deadline, "the local file was not reopened"
                await asyncio.sleep(0.05)
        assert engine.metrics.memory_fallbacks.value("store_gone") == 1
        deadline = time.monotonic() + 10
        while (await engine.list_memories(ListQuery(owner="alice"))).total == 0:
            assert time.monotonic() < deadline, (
                "the extracted memory never reached Qdrant"
            )
            await asyncio.sleep(0.05)
        page = await engine.list_memories(ListQuery(owner="alice"))
        assert [m.content for m in page.items] == [
            "Prefers PostgreSQL for side projects"
        ]
        assert engine.store.name == "qdrant"
        local_rows = await engine.local.db.read(
            lambda c: c.execute("SELECT count(*) FROM memories").fetchone()[0]
        )
        assert local_rows == 0, "an extracted memory went to the local SQLite file"
    finally:
        await engine.close()
