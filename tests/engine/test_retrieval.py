"""Retrieval through a real Engine on a SQLite file: scopes, expiry, retention, floor, budget,
supersession, ties, strategies, FTS metacharacters, and RRF."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config, EpisodesConfig, MemoryConfig, VectorStoreConfig
from memtap.engine.clock import iso
from memtap.engine.engine import Engine
from memtap.engine.factory import open_engine
from memtap.engine.memory_rules import Live
from memtap.engine.metrics import Metrics
from memtap.engine.ports import VectorHits
from memtap.engine.retrieval.budget import walk
from memtap.engine.retrieval.rrf import rrf_fuse
from memtap.engine.sqlite import migrations, outbox
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.sqlite.sql import fts, memories
from memtap.engine.types import (
    Hit,
    ListQuery,
    Memory,
    NewMemory,
    RetrievalRequest,
    Turn,
)
from tests.support.calm import calm_loop

OWNER, OTHER = "a" * 24, "b" * 24


def config(tmp_path: Path, **memory: Any) -> Config:
    return Config(
        data_dir=str(tmp_path),
        # Fact ranking is this file's subject: episode snippets are tested in
        # test_episode_retrieval.py.
        memory=MemoryConfig(
            **{
                "strategy": "keyword",
                "episodes": EpisodesConfig(enabled=False),
                **memory,
            }
        ),
        vector_store=VectorStoreConfig(kind="none"),
    )


@pytest.fixture
async def make_engine(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    engines: list[Engine] = []

    async def make(**memory: Any) -> Engine:
        engine = await calm_loop(
            await open_engine(ConfigHolder(config(tmp_path, **memory)), Metrics())
        )
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
    result = await engine.retrieve(
        RetrievalRequest(owner=owner, query=query, **kw), side_effects=False
    )
    return [h.memory.content for h in result.hits]


async def test_keyword_ranks_matches_and_isolates_owners(
    make_engine: Callable[..., Any],
) -> None:
    engine = await make_engine()
    await add(engine, "Prefers Python for data pipelines")
    await add(engine, "Uses vim keybindings everywhere")
    await add(engine, "Prefers Python and Rust", owner=OTHER)
    assert await ids(engine, "which python version?") == [
        "Prefers Python for data pipelines"
    ]
    assert await ids(engine, "python", owner=OTHER) == ["Prefers Python and Rust"]
    assert await ids(engine, "python", owner="c" * 24) == []


async def test_scopes_session_owner_global(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(engine, "Deploys on kubernetes in session one", session="s1")
    await add(engine, "Deploys on kubernetes without session")
    await add(engine, "Deploys on kubernetes for another owner", owner=OTHER)
    q = "kubernetes"
    assert await ids(engine, q, session="s1", scope="session") == [
        "Deploys on kubernetes in session one"
    ]
    assert await ids(engine, q, session=None, scope="session") == [
        "Deploys on kubernetes without session"
    ]
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
    assert await ids(engine, "kubernetes", session=odd, scope="session") == [
        "Likes kubernetes"
    ]


async def test_expiry_and_retention_on_every_path(
    make_engine: Callable[..., Any],
) -> None:
    engine = await make_engine(retention_days=30)
    await add(engine, "Owns a golden retriever", expires_at=ago(seconds=1))
    await add(
        engine,
        "Owns a golden hamster",
        created_at=ago(days=40),
        updated_at=ago(days=40),
    )
    await add(
        engine,
        "Owns a golden fish",
        expires_at=iso(datetime.now(UTC) + timedelta(days=1)),
    )
    for strategy in ("keyword", "recent", "hybrid", "semantic"):
        assert await ids(engine, "golden", strategy=strategy) == [
            "Owns a golden fish"
        ], strategy


async def test_relevance_floor(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(engine, "Prefers dark mode in every editor")
    for strategy in ("keyword", "hybrid", "semantic"):
        assert (
            await ids(engine, "what is the capital of France?", strategy=strategy) == []
        ), strategy
        assert await ids(engine, "", strategy=strategy) == [], strategy
        # only stopwords / extraction verbs: still nothing
        assert (
            await ids(engine, "I really like it, do you?", strategy=strategy) == []
        ), strategy
    # recent has no floor, only the budget
    assert await ids(engine, "what is the capital of France?", strategy="recent") == [
        "Prefers dark mode in every editor"
    ]


async def test_hybrid_without_vector_is_keyword_union_recent(
    make_engine: Callable[..., Any],
) -> None:
    engine = await make_engine(strategy="hybrid")
    await add(engine, "Drinks green tea")
    await add(engine, "Plays chess on weekends")
    result = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="chess openings"), side_effects=False
    )
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
    result = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="climbing", max_tokens=50),
        side_effects=False,
    )
    assert [h.memory.content for h in result.hits] == ["Climbing gym on Tuesdays"]
    assert result.tokens <= 50
    result = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="climbing", max_tokens=1),
        side_effects=False,
    )
    assert result.hits == ()
    result = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="climbing", max_tokens=10**9),
        side_effects=False,
    )
    assert result.resolution["max_tokens"] == 16000 and len(result.hits) == 2
    result = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="climbing", limit=1), side_effects=False
    )
    assert len(result.hits) == 1


def test_walk_skips_what_does_not_fit() -> None:
    def hit(i: int, tokens: int) -> Hit:
        m = Memory(str(i), OWNER, None, "factual", None, "x", {}, "t", "t")
        return Hit(memory=m, score=1.0, tier="keyword", tokens=tokens)

    taken = walk(
        [hit(1, 5), hit(2, 8), hit(3, 4), hit(4, 1)], max_tokens=10, max_items=10
    )
    assert [h.memory.id for h in taken] == ["1", "3", "4"]
    assert [h.memory.id for h in walk([hit(1, 1)] * 5, 100, 2)] == ["1", "1"]


async def test_supersession_hides_older_fact_but_keeps_history(
    make_engine: Callable[..., Any],
) -> None:
    engine = await make_engine()
    for i, text in enumerate(
        ["I prefer tabs for indentation.", "I now prefer spaces for indentation."]
    ):
        await engine.enqueue_turn(Turn(f"r{i}", OWNER, None, "openai-chat", text, "ok"))
        await drain(engine)
    assert await ids(engine, "tabs or spaces for indentation?") == [
        "Prefers spaces for indentation"
    ]
    page = await engine.list_memories(
        dataclasses.replace(_lq(), include_superseded=True)
    )
    old = next(m for m in page.items if m.content == "Prefers tabs for indentation")
    new = next(m for m in page.items if m.content == "Prefers spaces for indentation")
    assert (
        old.superseded_by == new.id
        and old.valid_to is not None
        and new.superseded_by is None
    )
    # restating the old preference revives it and supersedes the other
    await engine.enqueue_turn(
        Turn("r9", OWNER, None, "openai-chat", "I prefer tabs for indentation.", "ok")
    )
    await drain(engine)
    assert await ids(engine, "tabs or spaces for indentation?") == [
        "Prefers tabs for indentation"
    ]


def _lq() -> ListQuery:
    return ListQuery(owner=OWNER)


async def drain(engine: Engine) -> None:
    """Process the outbox now (the worker may also get there first: both are idempotent)."""
    rows = await engine.local.db.read(lambda conn: outbox.page(conn, 0, 100))
    if rows:
        await engine.worker.process(rows)


async def test_newer_beats_older_on_ties(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(
        engine, "Likes sushi", key="k1", updated_at=ago(days=2), created_at=ago(days=2)
    )
    await add(
        engine, "Likes sushi", key="k2", updated_at=ago(days=1), created_at=ago(days=1)
    )
    result = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="sushi"), side_effects=False
    )
    assert [h.memory.key for h in result.hits] == ["k2", "k1"]
    assert result.hits[0].score == result.hits[1].score


async def test_no_query_can_break_match(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine()
    await add(engine, 'Uses "quotes" AND stars * and NEAR(a b) col:umn ^caret')
    nasty = [
        '"',
        '""',
        "*",
        "AND",
        "OR NOT",
        "NEAR(",
        "col:umn",
        "^",
        "a' OR 1=1 --",
        "\x00",
        "{content key}:x",
        'quotes"',
        "(((",
        "-",
        "+",
        "stars*",
        "日本語",
        "🙂",
        "x" * 5000,
        " ".join(["word"] * 500),
    ]
    for query in nasty:
        for strategy in ("keyword", "hybrid"):
            await engine.retrieve(
                RetrievalRequest(owner=OWNER, query=query, strategy=strategy),
                side_effects=False,
            )
    assert await ids(engine, 'quotes" AND stars') == [
        'Uses "quotes" AND stars * and NEAR(a b) col:umn ^caret'
    ]


async def test_side_effects_flag_controls_metrics(
    make_engine: Callable[..., Any],
) -> None:
    engine = await make_engine()
    await add(engine, "Likes jazz")
    await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="jazz"), side_effects=False
    )
    assert engine.metrics.retrieval_duration.count("keyword") == 0
    await engine.retrieve(RetrievalRequest(owner=OWNER, query="jazz"))
    assert engine.metrics.retrieval_duration.count("keyword") == 1


def test_rrf_fuse() -> None:
    fused = rrf_fuse([["a", "b", "c"], ["c", "a"]], k=60)
    assert [i for i, _ in fused] == ["a", "c", "b"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert rrf_fuse([], 60) == []
    assert [i for i, _ in rrf_fuse([["x", "y"], ["y", "x"]], 60)] == [
        "x",
        "y",
    ]  # tie: first appearance
    assert rrf_fuse([["a", "a"]], 1) == [("a", 0.5)]


class ScriptedTier:
    """A vector tier that answers from a fixed table (stands in for sqlite-vec/Qdrant at the
    VectorIndex port; the real indexes have their own tests)."""

    name = "sqlite-vec"

    def __init__(self, answers: list[tuple[str, float]]) -> None:
        self.answers = answers
        self.calls: list[tuple[str | None, str, str | None, int]] = []
        self.backfills: list[bool] = []

    async def search(
        self,
        live: Live,
        query: str,
        limit: int,
        *,
        backfill: bool = True,
    ) -> VectorHits:
        session = live.session if live.match_session else None
        self.calls.append((live.owner, query, session, limit))
        self.backfills.append(backfill)
        return VectorHits(self.answers[:limit])  # ids: the engine re-reads them live

    async def upsert(self, memories: Any) -> None:
        return None

    async def delete(self, ids: Any) -> None:
        return None

    async def erase_owner(self, owner: str) -> int:
        return 0

    async def reindex(self, limit: int | None, force: bool) -> dict[str, Any]:
        return {"started": True}

    async def status(self) -> dict[str, Any]:
        return {}

    def health(self) -> str:
        return "sqlite-vec"

    def embedding(self) -> str:
        return "scripted"

    def embedding_source(self) -> None:
        return None

    async def close(self) -> None:
        return None


async def test_vector_seam_rrf_and_filters(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine(strategy="hybrid", min_similarity=0.5)
    kw_only = await add(engine, "Plays chess on weekends")
    both = await add(engine, "Chess clubs and board games")
    vec_only = await add(engine, "Enjoys strategy games")
    weak = await add(engine, "Knits scarves")
    expired = await add(engine, "Old hobby", expires_at=ago(seconds=1))
    other = await add(engine, "Other owner's games", owner=OTHER)
    tier = ScriptedTier(
        [
            (both.id, 0.9),
            (vec_only.id, 0.8),
            (expired.id, 0.95),
            (other.id, 0.99),
            (weak.id, 0.2),
            ("no-such-id", 0.9),
        ]
    )
    engine.vector_index = tier
    try:
        result = await engine.retrieve(
            RetrievalRequest(owner=OWNER, query="chess"), side_effects=False
        )
        by_content = {h.memory.content: h for h in result.hits}
        assert set(by_content) == {kw_only.content, both.content, vec_only.content}
        assert result.hits[0].memory.id == both.id and result.hits[0].tier == "hybrid"
        assert (
            by_content[vec_only.content].tier == "vector"
            and by_content[vec_only.content].fts_rank is None
        )
        assert by_content[kw_only.content].vec_rank is None
        assert (
            "recent" not in result.resolution["tiers"]
            and "sqlite-vec" in result.resolution["tiers"]
        )
        assert tier.calls[-1][0] == OWNER
        # a vector match alone passes the floor; a weak one does not
        result = await engine.retrieve(
            RetrievalRequest(owner=OWNER, query="pastimes"), side_effects=False
        )
        assert [h.memory.id for h in result.hits] == [both.id, vec_only.id]
        tier.answers = [(weak.id, 0.2)]
        assert (
            await engine.retrieve(
                RetrievalRequest(owner=OWNER, query="pastimes"), side_effects=False
            )
        ).hits == ()
        # semantic uses the vector ranking only; global scope passes owner=None
        tier.answers = [(vec_only.id, 0.8), (other.id, 0.7)]
        result = await engine.retrieve(
            RetrievalRequest(
                owner=OWNER, query="chess", strategy="semantic", scope="global"
            ),
            side_effects=False,
        )
        assert [h.memory.id for h in result.hits] == [
            vec_only.id,
            other.id,
        ] and tier.calls[-1][0] is None
        session = await engine.retrieve(
            RetrievalRequest(
                owner=OWNER,
                query="x",
                session="s9",
                scope="session",
                strategy="semantic",
            ),
            side_effects=False,
        )
        assert tier.calls[-1][2] == "s9" and session.hits == ()
        # preview (side_effects=False) asks the tier not to write (no lazy backfill)
        assert set(tier.backfills) == {False}
        await engine.retrieve(RetrievalRequest(owner=OWNER, query="chess"))
        assert tier.backfills[-1] is True
    finally:
        engine.vector_index = None


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    query=st.text(max_size=200),
    owner=st.text(min_size=1, max_size=40),
    session=st.none() | st.text(max_size=20),
)
def test_any_text_is_a_valid_match_expression(
    tmp_path: Path, query: str, owner: str, session: str | None
) -> None:
    conn = _fuzz_connection(tmp_path)
    live = Live(
        now=iso(datetime.now(UTC)),
        cutoff=None,
        owner=owner,
        session=session,
        match_session=True,
    )
    match = fts.build_match(fts.query_terms(query), live)
    if match is not None:
        fts.search(conn, match, live, 5)
    # a memory of that owner/session is found by its own words, whatever the ids look like
    conn.execute("BEGIN")
    memories.upsert(
        conn,
        NewMemory(
            owner=owner, session=session, content="Collects zeppelins", key="fuzz"
        ),
        iso(datetime.now(UTC)),
    )
    conn.execute("COMMIT")
    found = fts.search(conn, fts.build_match(["zeppelins"], live) or "", live, 5)
    assert [(m.owner, m.session) for m, _ in found] == [(owner, session)]
    listing = fts.list_match(query)
    if listing is not None:
        conn.execute(
            "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (listing,)
        ).fetchone()


_FUZZ: dict[str, Any] = {}


def _fuzz_connection(tmp_path: Path) -> Any:
    if "conn" not in _FUZZ:
        driver = choose_driver()
        conn = driver.connect(":memory:")
        migrations.migrate(conn)
        conn.execute("BEGIN")
        memories.upsert(
            conn,
            NewMemory(owner="o", content='Likes "quoted" AND text * NEAR(x)'),
            iso(datetime.now(UTC)),
        )
        conn.execute("COMMIT")
        _FUZZ["conn"] = conn
    return _FUZZ["conn"]


def test_keyword_coverage_counts_topic_words_of_one_hit() -> None:
    from memtap.engine.retrieval.confidence import keyword_coverage

    hits = [
        "Drinks coffee at night",
        "Runs in the morning",
        "Prefers Postgres for side projects",
    ]
    assert keyword_coverage("Which Postgres for my side projects?", hits) == 1.0
    # every word is in some hit, but no hit holds them together
    assert keyword_coverage("my drink in the morning", hits) == 0.5
    # one topic word (stop words and generic verbs aside) is too thin to judge
    assert keyword_coverage("tell me about Postgres", hits) == 0.0
    assert keyword_coverage("Postgres?", hits) == 0.0
    # only the first hits count
    assert keyword_coverage("side projects", ["a", "b", "c", "side projects"]) == 0.0


async def test_hybrid_skips_the_vector_legs_when_the_keywords_answer(
    make_engine: Callable[..., Any],
) -> None:
    engine = await make_engine(strategy="hybrid", episodes=EpisodesConfig())
    postgres = await add(engine, "Prefers Postgres for side projects")
    tea = await add(engine, "Drinks green tea in the morning")
    await engine.enqueue_turn(
        Turn(
            "r1",
            OWNER,
            None,
            "openai-chat",
            "Postgres for side projects, always.",
            "Ok.",
        )
    )
    await drain(engine)
    tier = ScriptedTier([(tea.id, 0.9)])
    assert engine.episodes is not None
    store = engine.episodes.store
    real_vector, episode_searches = store.vector, []

    async def counted(*args: Any, **kwargs: Any) -> Any:
        episode_searches.append(args)
        return await real_vector(*args, **kwargs)

    store.vector = counted  # type: ignore[method-assign]
    engine.vector_index = tier
    try:
        # Every topic word of the question is in the best keyword hit: no query embedding
        # for the facts or for the episodes, and no recent memories beside the keywords.
        result = await engine.retrieve(
            RetrievalRequest(owner=OWNER, query="Postgres for my side projects?"),
            side_effects=False,
        )
        assert tier.calls == [] and episode_searches == []
        assert [h.memory.id for h in result.hits if h.kind == "fact"] == [postgres.id]
        assert [h.kind for h in result.hits] == ["fact", "episode"]
        skipped = {"reason": "keyword_answers", "coverage": 1.0, "min_coverage": 1.0}
        assert result.resolution["vector_skipped"] == skipped
        assert result.resolution["episodes"]["vector_skipped"] == skipped
        assert (
            "recent" not in result.resolution["tiers"]
            and result.resolution["fallbacks"] == []
        )
        # A word no keyword hit holds: meaning is searched too, facts and episodes.
        result = await engine.retrieve(
            RetrievalRequest(owner=OWNER, query="which database for side projects?"),
            side_effects=False,
        )
        assert len(tier.calls) == 1 and len(episode_searches) == 1
        assert "vector_skipped" not in result.resolution
        assert tea.id in [h.memory.id for h in result.hits]
        # 0 = never skip
        engine.holder.apply_runtime_overrides({"memory.vector_skip_coverage": 0.0})
        result = await engine.retrieve(
            RetrievalRequest(owner=OWNER, query="Postgres for my side projects?"),
            side_effects=False,
        )
        assert len(tier.calls) == 2 and "vector_skipped" not in result.resolution
        # Other strategies never wait for the keyword answer.
        engine.holder.apply_runtime_overrides({"memory.vector_skip_coverage": 1.0})
        await engine.retrieve(
            RetrievalRequest(
                owner=OWNER, query="Postgres for my side projects?", strategy="semantic"
            ),
            side_effects=False,
        )
        assert len(tier.calls) == 3
    finally:
        engine.vector_index = None


async def test_without_a_vector_index_hybrid_stays_keyword_and_recent_when_keywords_answer(
    make_engine: Callable[..., Any],
) -> None:
    engine = await make_engine(strategy="hybrid")
    postgres = await add(engine, "Prefers Postgres for side projects")
    tea = await add(engine, "Drinks green tea in the morning")
    result = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="Postgres for my side projects?"),
        side_effects=False,
    )
    assert {h.memory.id for h in result.hits} == {
        postgres.id,
        tea.id,
    }  # recent fused in
    assert (
        "vector_skipped" not in result.resolution
        and "recent" in result.resolution["tiers"]
    )
