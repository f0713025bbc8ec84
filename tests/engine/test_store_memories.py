"""Memory CRUD through the Engine on a real SQLite file: atomic upsert, FTS kept in sync,
listing, import/export, erase (nothing left in any file), summarize, sweep, overrides, status."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config, MemoryConfig, VectorStoreConfig
from memtap.engine.api import InvalidInput, NotFound
from memtap.engine.clock import iso
from memtap.engine.engine import Engine
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.sqlite.sql import summaries as summarize
from memtap.engine.types import (
    ListQuery,
    MemoryPatch,
    NewMemory,
    RetrievalRequest,
    Turn,
)

OWNER, OTHER = "1" * 24, "2" * 24


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[Engine]:
    holder = ConfigHolder(
        Config(
            data_dir=str(tmp_path),
            memory=MemoryConfig(strategy="keyword"),
            vector_store=VectorStoreConfig(kind="none"),
        )
    )
    eng = await open_engine(holder, Metrics())
    yield eng
    await eng.close()


async def search(engine: Engine, query: str, owner: str = OWNER) -> list[str]:
    result = await engine.retrieve(
        RetrievalRequest(owner=owner, query=query), side_effects=False
    )
    return [h.memory.content for h in result.hits]


async def test_concurrent_upserts_on_one_key_make_one_row(engine: Engine) -> None:
    results = await asyncio.gather(
        *(
            engine.create_memory(
                NewMemory(owner=OWNER, content=f"Prefers tea no {i}", key="pref:tea")
            )
            for i in range(30)
        )
    )
    assert len({m.id for m in results}) == 1
    page = await engine.list_memories(ListQuery(owner=OWNER))
    assert page.total == 1 and page.items[0].content == results[-1].content
    # keyless memories are plain inserts; another owner's key is another row
    await engine.create_memory(NewMemory(owner=OWNER, content="a"))
    await engine.create_memory(NewMemory(owner=OWNER, content="b"))
    await engine.create_memory(NewMemory(owner=OTHER, content="c", key="pref:tea"))
    assert (await engine.list_memories(ListQuery(owner=OWNER))).total == 3


async def test_upsert_merges_metadata_and_keeps_created_at(engine: Engine) -> None:
    first = await engine.create_memory(
        NewMemory(owner=OWNER, content="x1", key="k", metadata={"a": 1, "b": 1})
    )
    second = await engine.create_memory(
        NewMemory(owner=OWNER, content="x2", key="k", metadata={"b": 2})
    )
    assert second.id == first.id and second.created_at == first.created_at
    assert second.metadata == {"a": 1, "b": 2} and second.updated_at >= first.updated_at


async def test_update_and_delete_keep_fts_in_sync(engine: Engine) -> None:
    m = await engine.create_memory(NewMemory(owner=OWNER, content="Plays the cello"))
    assert await search(engine, "cello") == ["Plays the cello"]
    await engine.update_memory(m.id, MemoryPatch(content="Plays the oboe"))
    assert await search(engine, "cello") == [] and await search(engine, "oboe") == [
        "Plays the oboe"
    ]
    await engine.delete_memory(m.id)
    assert await search(engine, "oboe") == []
    with pytest.raises(NotFound):
        await engine.get_memory(m.id)
    with pytest.raises(NotFound):
        await engine.delete_memory(m.id)
    with pytest.raises(NotFound):
        await engine.update_memory(m.id, MemoryPatch(content="x"))


async def test_validation(engine: Engine) -> None:
    with pytest.raises(InvalidInput):
        await engine.create_memory(NewMemory(owner=OWNER, content="   "))
    with pytest.raises(InvalidInput):
        await engine.create_memory(NewMemory(owner=OWNER, content="x", type="bogus"))  # type: ignore[arg-type]
    with pytest.raises(InvalidInput) as err:
        await engine.create_memory(
            NewMemory(owner=OWNER, content="x", expires_at="next tuesday")
        )
    assert err.value.field == "expires_at"
    a = await engine.create_memory(NewMemory(owner=OWNER, content="a", key="ka"))
    await engine.create_memory(NewMemory(owner=OWNER, content="b", key="kb"))
    with pytest.raises(InvalidInput):
        await engine.update_memory(a.id, MemoryPatch(key="kb"))
    m = await engine.create_memory(
        NewMemory(owner=OWNER, content="t", expires_at="2030-01-01T00:00:00+02:00")
    )
    assert m.expires_at == "2029-12-31T22:00:00.000Z"


async def test_list_filters_pagination_and_q(engine: Engine) -> None:
    for i in range(25):
        await engine.create_memory(
            NewMemory(
                owner=OWNER,
                content=f"Fact {i} about gardening",
                type="episodic" if i % 2 else "factual",
                session="s1" if i < 5 else None,
            )
        )
    await engine.create_memory(NewMemory(owner=OTHER, content="Other gardening fact"))
    first = await engine.list_memories(ListQuery(owner=OWNER, limit=10))
    second = await engine.list_memories(ListQuery(owner=OWNER, limit=10, offset=10))
    last = await engine.list_memories(ListQuery(owner=OWNER, limit=10, offset=20))
    beyond = await engine.list_memories(ListQuery(owner=OWNER, limit=10, offset=100))
    assert (
        first.total == second.total == 25
        and len(last.items) == 5
        and beyond.items == ()
    )
    all_ids = [m.id for m in first.items + second.items + last.items]
    assert len(set(all_ids)) == 25  # stable order, no overlap
    assert (
        await engine.list_memories(ListQuery(type="episodic", owner=OWNER))
    ).total == 12
    assert (await engine.list_memories(ListQuery(session="s1"))).total == 5
    assert (await engine.list_memories(ListQuery(q="gardening"))).total == 26
    assert (
        await engine.list_memories(ListQuery(q="Fact 3 gardening", owner=OWNER))
    ).total == 1
    for nasty in [
        '"',
        "AND",
        "*",
        "NEAR(",
        "'; DROP TABLE memories; --",
        "{content}:x",
        "^",
    ]:
        await engine.list_memories(ListQuery(q=nasty))
    with pytest.raises(InvalidInput):
        await engine.list_memories(ListQuery(limit=0))


@pytest.mark.slow
async def test_export_import_round_trip(engine: Engine) -> None:
    originals = [
        await engine.create_memory(
            NewMemory(
                owner=OWNER, content=f"Knows fact {i}", key=f"k{i}", metadata={"i": i}
            )
        )
        for i in range(1203)
    ]
    exported = [m async for m in engine.export_owner(OWNER)]
    assert [m.id for m in exported] == [m.id for m in originals]
    receipt = await engine.erase_owner(OWNER)
    assert receipt.removed["memories"] == 1203
    items = [
        NewMemory(
            owner=m.owner,
            content=m.content,
            type=m.type,
            key=m.key,
            session=m.session,
            metadata=m.metadata,
            expires_at=m.expires_at,
            id=m.id,
            created_at=m.created_at,
            updated_at=m.updated_at,
        )
        for m in exported
    ]
    items.append(NewMemory(owner=OWNER, content=""))  # invalid line: skipped, reported
    report = await engine.import_memories(items)
    assert (report.created, report.updated, report.skipped) == (
        1203,
        0,
        1,
    ) and report.errors
    again = [m async for m in engine.export_owner(OWNER)]
    assert [m.to_json() for m in again] == [m.to_json() for m in exported]
    report = await engine.import_memories(items[:10])
    assert (report.created, report.updated) == (0, 10)


async def test_erase_leaves_no_trace_in_any_file(tmp_path: Path) -> None:
    holder = ConfigHolder(
        Config(data_dir=str(tmp_path), vector_store=VectorStoreConfig(kind="none"))
    )
    engine = await open_engine(holder, Metrics(), start_worker=False)
    secret = "zanzibarquokka"
    for i in range(300):
        await engine.create_memory(
            NewMemory(owner=OWNER, content=f"Secret {secret} number {i}", key=f"k{i}")
        )
    await engine.create_memory(NewMemory(owner=OTHER, content="Keeps bees"))
    await engine.enqueue_turn(
        Turn("r1", OWNER, None, "gemini", f"I prefer {secret} holidays", "ok")
    )
    receipt = await engine.erase_owner(OWNER)
    assert (
        receipt.removed["memories"] == 300
        and receipt.removed["outbox"] == 1
        and receipt.removed["fts"] == 300
    )
    assert receipt.removed["vectors"] == 0
    for table in ("memories", "outbox"):
        n = await engine.local.db.read(
            lambda c, t=table: c.execute(
                f"SELECT count(*) FROM {t} WHERE owner = ?", (OWNER,)
            ).fetchone()[0]
        )
        assert n == 0
    assert await search(engine, secret) == []
    assert await search(engine, "bees", owner=OTHER) == ["Keeps bees"]
    await engine.close()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


async def test_summarize_keeps_originals_as_history(engine: Engine) -> None:
    old = iso(datetime.now(UTC) - timedelta(days=60))
    long_text = (
        "First sentence about the trip. Second one. Third one. "
        + "Padding words here. " * 40
    )
    original = await engine.create_memory(
        NewMemory(
            owner=OWNER, content=long_text, key="trip", created_at=old, updated_at=old
        )
    )
    await engine.create_memory(
        NewMemory(owner=OWNER, content="short", created_at=old, updated_at=old)
    )
    dry = await engine.summarize(30, OWNER, dry_run=True)
    assert dry["candidates"] == 1 and dry["tokens_saved"] > 0
    assert (await engine.get_memory(original.id)).superseded_by is None
    done = await engine.summarize(30, None, dry_run=False)
    assert done["candidates"] == 1
    kept = await engine.get_memory(original.id)
    summary = await engine.get_memory(done["summaries"][0])
    assert kept.content == long_text and kept.superseded_by == summary.id
    assert summary.content == "First sentence about the trip. Second one. Third one."
    assert await search(engine, "trip") == [summary.content]
    restored = await engine.local.db.write(lambda c: summarize.restore(c, summary.id))
    assert restored == original.id
    assert (await engine.get_memory(original.id)).superseded_by is None
    assert await search(engine, "trip") == [long_text]


async def test_sweep_deletes_expired_and_out_of_retention(tmp_path: Path) -> None:
    holder = ConfigHolder(
        Config(
            data_dir=str(tmp_path),
            memory=MemoryConfig(retention_days=10),
            vector_store=VectorStoreConfig(kind="none"),
        )
    )
    engine = await open_engine(holder, Metrics())
    try:
        past = iso(datetime.now(UTC) - timedelta(seconds=1))
        old = iso(datetime.now(UTC) - timedelta(days=11))
        await engine.create_memory(
            NewMemory(owner=OWNER, content="expired", expires_at=past)
        )
        await engine.create_memory(
            NewMemory(owner=OWNER, content="old", created_at=old, updated_at=old)
        )
        keep = await engine.create_memory(NewMemory(owner=OWNER, content="fresh"))
        assert await engine.sweep() == 2
        page = await engine.list_memories(
            ListQuery(owner=OWNER, include_superseded=True)
        )
        assert [m.id for m in page.items] == [keep.id]
    finally:
        await engine.close()


async def test_overrides_status_health(engine: Engine) -> None:
    await engine.save_override("memory.max_tokens", 900)
    await engine.save_override("memory.extract_from", ["user", "assistant"])
    await engine.save_override("memory.max_tokens", 1000)
    assert await engine.load_overrides() == {
        "memory.extract_from": ["user", "assistant"],
        "memory.max_tokens": 1000,
    }
    assert await engine.delete_override("memory.max_tokens") is True
    assert await engine.delete_override("memory.max_tokens") is False
    await engine.create_memory(NewMemory(owner=OWNER, content="x", type="procedural"))
    status = await engine.status()
    assert (
        status["store"]["driver"] == engine.local.db.driver.name
        and status["fts"]["available"] is True
    )
    assert (
        status["counts"]["by_type"]["procedural"] == 1
        and status["outbox"]["depth"] == 0
    )
    assert status["vector"]["available"] is False
    health = await engine.health()
    assert health == {
        "store": f"sqlite:{engine.local.db.driver.name}",
        "vector": "unavailable",
        "embedding": "off",
    }
