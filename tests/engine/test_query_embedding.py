"""What the vector leg embeds of a request's query (`engine/embeddings/query_text.py`): the
tail of a long message, cut at a word, so a local model's cost per request stays bounded."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    RemoteEmbeddingConfig,
    VectorStoreConfig,
)
from memtap.engine.clock import now_iso
from memtap.engine.embeddings.coalesce import Coalescer
from memtap.engine.embeddings.query_text import QUERY_EMBED_CHARS, query_tail
from memtap.engine.factory import build_vector_index, open_engine
from memtap.engine.fallbacks import SemanticUnavailable
from memtap.engine.memory_rules import Live
from memtap.engine.metrics import Metrics
from memtap.engine.sqlite.vectors import SqliteVecIndex
from memtap.engine.types import NewMemory, RetrievalRequest
from tests.support.semantic import (
    EmbeddingsServer,
    Holder,
    add_memory,
    make_config,
    open_db,
)

LONG = (
    "I have been going through the notes from yesterday's planning meeting and trying to "
    "work out what to do first next week, since the release slipped and the team wants a "
    "clear order of work. There is also the question of the budget review on Thursday. "
    "Anyway, before I forget: which tea do I like best?"
)


def test_short_queries_are_embedded_whole() -> None:
    assert query_tail("  which tea do I like best?  ") == "which tea do I like best?"


def test_a_long_query_keeps_its_end_from_a_word_boundary() -> None:
    tail = query_tail(LONG)
    assert len(tail) <= QUERY_EMBED_CHARS
    assert tail.endswith("which tea do I like best?")
    assert LONG.endswith(tail) and LONG[-len(tail) - 1] == " "  # whole words only
    assert (
        query_tail("x" * 500) == "x" * QUERY_EMBED_CHARS
    )  # one long token: cut anyway


async def test_the_vector_leg_embeds_the_tail_and_the_keyword_leg_reads_all(
    tmp_path: Path,
) -> None:
    async with EmbeddingsServer() as server:
        config = Config(
            data_dir=str(tmp_path),
            memory=MemoryConfig(strategy="hybrid", min_similarity=-1.0),
            embedding=EmbeddingConfig(
                source="remote",
                timeout_ms=2000,
                remote=RemoteEmbeddingConfig(url=server.url, model="m", timeout_s=2.0),
            ),
            vector_store=VectorStoreConfig(kind="sqlite-vec"),
        )
        engine = await open_engine(ConfigHolder(config), Metrics())
        try:
            await engine.create_memory(
                NewMemory(owner="gina", content="The budget review moved to Friday")
            )
            server.requests.clear()
            got = await engine.retrieve(RetrievalRequest(owner="gina", query=LONG))
            embedded = [text for body in server.requests for text in body["input"]]  # type: ignore[union-attr]
            assert embedded == [query_tail(LONG)]
            # "budget review" is only in the head of the message: the keyword leg saw it.
            assert got.hits and got.hits[0].fts_rank == 1
        finally:
            await engine.close()


# -- the query-embedding budget (engine/sqlite/vectors.py, coalesce.py) -------------------


async def test_the_coalescer_tells_how_long_a_new_query_would_wait() -> None:
    import asyncio

    from tests.engine.test_embeddings_coalesce import Model, started

    model = Model()
    batches = Coalescer(model, max_texts=64)
    await batches.embed(["measure one query run"], urgent=True)
    assert batches.stats.seconds_per_query > 0
    idle = batches.stats.expected_wait_s()
    model.hold_next()
    running = asyncio.ensure_future(batches.embed(["held"], urgent=True))
    await started(model)
    queued = [
        asyncio.ensure_future(batches.embed([f"q{i}"], urgent=True)) for i in range(10)
    ]
    await asyncio.sleep(0)
    assert batches.stats.queued_queries == 10 and batches.stats.running_texts == 1
    assert batches.stats.expected_wait_s() == pytest.approx(idle * 12)
    model.gate.set()
    await asyncio.gather(running, *queued)
    assert batches.stats.queued_queries == 0 and batches.stats.running_texts == 0


async def test_a_query_that_would_miss_the_deadline_is_not_queued(
    tmp_path: Path,
) -> None:
    import asyncio

    db = await open_db(tmp_path / "memtap.db")
    await add_memory(db, "hana", "I drink jasmine tea in the morning")
    # Without the projection (which answers a busy model's queries at once instead:
    # tests/engine/test_query_projection.py).
    config = make_config(tmp_path, query_projection="off")
    tier = await build_vector_index(Holder(config), db, Metrics())
    try:
        assert isinstance(tier, SqliteVecIndex)
        live = Live(now=now_iso(), cutoff=None, owner="hana")
        await tier.search(live, "which tea do I drink?", 5)  # measures a query run
        # A burst far beyond what the model can serve in the vector leg's share.
        burst = [
            asyncio.ensure_future(tier.source.embed([f"{LONG} ({i})"], urgent=True))
            for i in range(300)
        ]
        await asyncio.sleep(0)
        started_at = time.monotonic()
        with pytest.raises(SemanticUnavailable) as refused:
            await tier.search(live, "which tea do I drink?", 5)
        assert refused.value.cause == "embedding_busy"
        assert time.monotonic() - started_at < 0.05  # at once, not after the deadline
        for task in burst:
            task.cancel()
        await asyncio.gather(*burst, return_exceptions=True)
    finally:
        await tier.close()
        await db.close()
