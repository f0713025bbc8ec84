"""Retrieval through a real Engine on a SQLite file: scopes, expiry, retention, floor, budget,
supersession, ties, strategies, FTS metacharacters, and RRF."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from config.holder import ConfigHolder
from config.schema import Config, MemoryConfig, VectorStoreConfig
from engine.engine import Engine, open_engine
from engine.metrics import Metrics
from engine.retrieval.budget import walk
from engine.retrieval.rrf import rrf_fuse
from engine.store import outbox
from engine.store.memories import iso
from engine.types import Hit, ListQuery, Memory, NewMemory, RetrievalRequest, Turn

OWNER, OTHER = "a" * 24, "b" * 24


def config(tmp_path: Path, **memory: Any) -> Config:
    return Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(**{"strategy": "keyword", **memory}),
        vector_store=VectorStoreConfig(kind="none"),
    )


@pytest.fixture
async def make_engine(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    engines: list[Engine] = []

    async def make(**memory: Any) -> Engine:
        engine = await open_engine(ConfigHolder(config(tmp_path, **memory)), Metrics())
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        await engine.close()


def ago(**delta: float) -> str:
    return iso(datetime.now(UTC) - timedelta(**delta))


async def add(engine: Engine, content: str, owner: str = OWNER, **kw: Any) -> Memory:
    return await engine.create_memory(NewMemory(owner=owner, content=content, **kw))


async def ids(engine: Engine, query: str, owner: str = OWNER, **kw: Any) -> list[str]:
    result = await engine.retrieve(RetrievalRequest(owner=owner, query=query, **kw), side_effects=False)
    return [h.memory.content for h in result.hits]


async def test_keyword_ranks_matches_and_isolates_owners(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(engine, "Prefers Python for data pipelines")
    await add(engine, "Uses vim keybindings everywhere")
    await add(engine, "Prefers Python and Rust", owner=OTHER)
    assert await ids(engine, "which python version?") == ["Prefers Python for data pipelines"]
    assert await ids(engine, "python", owner=OTHER) == ["Prefers Python and Rust"]
    assert await ids(engine, "python", owner="c" * 24) == []


async def test_scopes_session_owner_global(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(engine, "Deploys on kubernetes in session one", session="s1")
    await add(engine, "Deploys on kubernetes without session")
    await add(engine, "Deploys on kubernetes for another owner", owner=OTHER)
    q = "kubernetes"
    assert await ids(engine, q, session="s1", scope="session") == ["Deploys on kubernetes in session one"]
    assert await ids(engine, q, session=None, scope="session") == ["Deploys on kubernetes without session"]
    assert await ids(engine, q, session="s2", scope="session") == []
    assert len(await ids(engine, q, session="s2", scope="owner")) == 2
    assert len(await ids(engine, q, scope="global")) == 3
    # the same rules on the recent path
    assert await ids(engine, "", session="s1", scope="session", strategy="recent") == [
        "Deploys on kubernetes in session one"
    ]
    assert len(await ids(engine, "", scope="owner", strategy="recent")) == 2


async def test_session_with_fts_metacharacters(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    odd = 'se"ss ion AND OR NEAR(*)'
    await add(engine, "Likes kubernetes", session=odd)
    await add(engine, "Likes kubernetes too", session="ion")
    assert await ids(engine, "kubernetes", session=odd, scope="session") == ["Likes kubernetes"]


async def test_expiry_and_retention_on_every_path(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine(retention_days=30)
    await add(engine, "Owns a golden retriever", expires_at=ago(seconds=1))
    await add(engine, "Owns a golden hamster", created_at=ago(days=40), updated_at=ago(days=40))
    await add(engine, "Owns a golden fish", expires_at=iso(datetime.now(UTC) + timedelta(days=1)))
    for strategy in ("keyword", "recent", "hybrid", "semantic"):
        assert await ids(engine, "golden", strategy=strategy) == ["Owns a golden fish"], strategy


async def test_relevance_floor(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(engine, "Prefers dark mode in every editor")
    for strategy in ("keyword", "hybrid", "semantic"):
        assert await ids(engine, "what is the capital of France?", strategy=strategy) == [], strategy
        assert await ids(engine, "", strategy=strategy) == [], strategy
        # only stopwords / extraction verbs: still nothing
        assert await ids(engine, "I really like it, do you?", strategy=strategy) == [], strategy
    # recent has no floor, only the budget
    assert await ids(engine, "what is the capital of France?", strategy="recent") == ["Prefers dark mode in every editor"]


async def test_hybrid_without_vector_is_keyword_union_recent(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine(strategy="hybrid")
    await add(engine, "Drinks green tea")
    await add(engine, "Plays chess on weekends")
    result = await engine.retrieve(RetrievalRequest(owner=OWNER, query="chess openings"), side_effects=False)
    contents = [h.memory.content for h in result.hits]
    assert contents[0] == "Plays chess on weekends"
    assert set(contents) == {"Plays chess on weekends", "Drinks green tea"}
    assert result.hits[0].fts_rank == 1 and result.hits[1].fts_rank is None
    assert "recent" in result.resolution["tiers"]
    assert any(f["tier"] == "vector" for f in result.resolution["fallbacks"])


async def test_budget_walk_is_a_hard_cap(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(engine, "Climbing " + "x" * 400)  # ~103 tokens
    await add(engine, "Climbing gym on Tuesdays")  # 7 tokens
    result = await engine.retrieve(RetrievalRequest(owner=OWNER, query="climbing", max_tokens=50), side_effects=False)
    assert [h.memory.content for h in result.hits] == ["Climbing gym on Tuesdays"]
    assert result.tokens <= 50
    result = await engine.retrieve(RetrievalRequest(owner=OWNER, query="climbing", max_tokens=1), side_effects=False)
    assert result.hits == ()
    result = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="climbing", max_tokens=10**9), side_effects=False
    )
    assert result.resolution["max_tokens"] == 16000 and len(result.hits) == 2
    result = await engine.retrieve(RetrievalRequest(owner=OWNER, query="climbing", limit=1), side_effects=False)
    assert len(result.hits) == 1


def test_walk_skips_what_does_not_fit() -> None:
    def hit(i: int, tokens: int) -> Hit:
        m = Memory(str(i), OWNER, None, "factual", None, "x", {}, "t", "t")
        return Hit(memory=m, score=1.0, tier="keyword", tokens=tokens)

    taken = walk([hit(1, 5), hit(2, 8), hit(3, 4), hit(4, 1)], max_tokens=10, max_items=10)
    assert [h.memory.id for h in taken] == ["1", "3", "4"]
    assert [h.memory.id for h in walk([hit(1, 1)] * 5, 100, 2)] == ["1", "1"]


async def test_supersession_hides_older_fact_but_keeps_history(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    for i, text in enumerate(["I prefer tabs for indentation.", "I now prefer spaces for indentation."]):
        await engine.enqueue_turn(Turn(f"r{i}", OWNER, None, "openai-chat", text, "ok"))
        await drain(engine)
    assert await ids(engine, "tabs or spaces for indentation?") == ["Prefers spaces for indentation"]
    page = await engine.list_memories(dataclasses.replace(_lq(), include_superseded=True))
    old = next(m for m in page.items if m.content == "Prefers tabs for indentation")
    new = next(m for m in page.items if m.content == "Prefers spaces for indentation")
    assert old.superseded_by == new.id and old.valid_to is not None and new.superseded_by is None
    # restating the old preference revives it and supersedes the other
    await engine.enqueue_turn(Turn("r9", OWNER, None, "openai-chat", "I prefer tabs for indentation.", "ok"))
    await drain(engine)
    assert await ids(engine, "tabs or spaces for indentation?") == ["Prefers tabs for indentation"]


def _lq() -> ListQuery:
    return ListQuery(owner=OWNER)


async def drain(engine: Engine) -> None:
    """Process the outbox now (the worker may also get there first: both are idempotent)."""
    rows = await engine.db.read(lambda conn: outbox.page(conn, 0, 100))
    if rows:
        await engine.worker.process(rows)


async def test_newer_beats_older_on_ties(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(engine, "Likes sushi", key="k1", updated_at=ago(days=2), created_at=ago(days=2))
    await add(engine, "Likes sushi", key="k2", updated_at=ago(days=1), created_at=ago(days=1))
    result = await engine.retrieve(RetrievalRequest(owner=OWNER, query="sushi"), side_effects=False)
    assert [h.memory.key for h in result.hits] == ["k2", "k1"]
    assert result.hits[0].score == result.hits[1].score


async def test_no_query_can_break_match(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(engine, 'Uses "quotes" AND stars * and NEAR(a b) col:umn ^caret')
    nasty = [
        '"', '""', "*", "AND", "OR NOT", "NEAR(", "col:umn", "^", "a' OR 1=1 --", "\x00", "{content key}:x",
        "quotes\"", "(((", "-", "+", "stars*", "日本語", "🙂", "x" * 5000, " ".join(["word"] * 500),
    ]
    for query in nasty:
        for strategy in ("keyword", "hybrid"):
            await engine.retrieve(RetrievalRequest(owner=OWNER, query=query, strategy=strategy), side_effects=False)
    assert await ids(engine, 'quotes" AND stars') == ['Uses "quotes" AND stars * and NEAR(a b) col:umn ^caret']


async def test_side_effects_flag_controls_metrics(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(engine, "Likes jazz")
    await engine.retrieve(RetrievalRequest(owner=OWNER, query="jazz"), side_effects=False)
    assert engine.metrics.retrieval_duration.count("keyword") == 0
    await engine.retrieve(RetrievalRequest(owner=OWNER, query="jazz"))
    assert engine.metrics.retrieval_duration.count("keyword") == 1


def test_rrf_fuse() -> None:
    fused = rrf_fuse([["a", "b", "c"], ["c", "a"]], k=60)
    assert [i for i, _ in fused] == ["a", "c", "b"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert rrf_fuse([], 60) == []
    assert [i for i, _ in rrf_fuse([["x", "y"], ["y", "x"]], 60)] == ["x", "y"]  # tie: first appearance
    assert rrf_fuse([["a", "a"]], 1) == [("a", 0.5)]
