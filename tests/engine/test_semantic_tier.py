"""The sqlite-vec tier end to end: real ONNX embeddings, real SQLite file, the engine's
retrieval code on top; lazy backfill, signature change → reindex, isolation, fallbacks."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import EmbeddingConfig, MemoryConfig, RemoteEmbeddingConfig
from memtap.engine.factory import build_vector_index
from memtap.engine.fallbacks import SemanticUnavailable
from memtap.engine.metrics import Metrics
from memtap.engine.retrieval.retrieve import RetrievalContext, retrieve
from memtap.engine.sqlite.memories import SqliteRecordStore
from memtap.engine.sqlite.sql import memories
from memtap.engine.sqlite.vectors import SqliteVecIndex
from memtap.engine.types import RetrievalRequest
from tests.support.semantic import (
    EmbeddingsServer,
    Holder,
    add_memory,
    make_config,
    open_db,
    search_ids,
    static_table,
)

FACTS = {
    "alice": [
        "I prefer Postgres for side projects",
        "My dog is called Pixel",
        "I use tabs for indentation",
    ],
    "bob": ["My favourite database is MongoDB", "My cat is named Biscuit"],
}


async def seeded(tmp_path: Path):  # type: ignore[no-untyped-def]
    db = await open_db(tmp_path / "memtap.db")
    ids = {}
    for owner, facts in FACTS.items():
        for fact in facts:
            ids[fact] = (await add_memory(db, owner, fact)).id
    return db, ids


async def test_lazy_backfill_then_paraphrase_search(tmp_path: Path) -> None:
    db, ids = await seeded(tmp_path)
    holder = Holder(make_config(tmp_path))
    tier = await build_vector_index(holder, db, Metrics())
    try:
        assert isinstance(tier, SqliteVecIndex)
        tier.backfill_timeout_s = (
            10.0  # two shared CPUs: not the latency budget under test here
        )
        assert (await tier.status())["needs_reindex"] == 5  # nothing embedded yet
        preview = await search_ids(
            tier, "alice", "which database do I like?", None, 5, backfill=False
        )
        assert preview == []  # no vectors and no writes without backfill
        found = await search_ids(tier, "alice", "which database do I like?", None, 5)
        assert found[0][0] == ids["I prefer Postgres for side projects"]
        status = await tier.status()
        assert (
            status["needs_reindex"] == 2 and status["vectors"] == 3
        )  # only alice's were backfilled
        # isolation: bob's database fact is never an answer for alice, and vice versa
        assert ids["My favourite database is MongoDB"] not in {m for m, _ in found}
        bob = await search_ids(tier, "bob", "what's my pet called?", None, 5)
        assert bob[0][0] == ids["My cat is named Biscuit"]
        assert {m for m, _ in bob} <= {ids[f] for f in FACTS["bob"]}
    finally:
        await tier.close()
        await db.close()


async def test_hybrid_retrieval_through_the_engine_path(tmp_path: Path) -> None:
    db, ids = await seeded(tmp_path)
    config = make_config(tmp_path)
    config = replace(config, memory=MemoryConfig(strategy="hybrid", min_similarity=0.3))
    tier = await build_vector_index(Holder(config), db, None)
    try:
        await tier.reindex(None, False)
        ctx = RetrievalContext(SqliteRecordStore(db), config.memory, tier)
        got = await retrieve(
            ctx, RetrievalRequest(owner="alice", query="what's my pet's name?", limit=3)
        )
        assert got.hits[0].memory.id == ids["My dog is called Pixel"]
        assert got.hits[0].vec_rank == 1 and "sqlite-vec" in got.resolution["tiers"]
        nothing = await retrieve(
            ctx,
            RetrievalRequest(owner="alice", query="Explain how photosynthesis works"),
        )
        assert nothing.hits == ()  # the relevance floor holds on the fused list
        semantic = await retrieve(
            ctx,
            RetrievalRequest(
                owner="bob",
                query="which database do I like?",
                strategy="semantic",
                limit=1,
            ),
        )
        assert semantic.hits[0].memory.id == ids["My favourite database is MongoDB"]
    finally:
        await tier.close()
        await db.close()


@pytest.mark.slow
async def test_signature_change_marks_all_and_reindex_resumes(tmp_path: Path) -> None:
    db, ids = await seeded(tmp_path)
    onnx_tier = await build_vector_index(Holder(make_config(tmp_path)), db, None)
    await onnx_tier.reindex(None, False)
    assert (await onnx_tier.status())["vectors"] == 5
    await onnx_tier.close()
    table = await static_table([fact for facts in FACTS.values() for fact in facts])
    static_config = make_config(tmp_path, source="static", static_path=str(table))
    tier = await build_vector_index(Holder(static_config), db, None)
    try:
        assert tier.last_reset_marked == 5
        status = await tier.status()
        assert status["signature"].startswith("static:") and status["dim"] == 256
        assert (status["vectors"], status["needs_reindex"]) == (0, 5)
        first = await tier.reindex(2, False)  # interrupted after 2...
        assert (first["done"], first["pending"], first["finished"]) == (2, 3, False)
        rest = await tier.reindex(None, False)  # ...resumes with the other 3
        assert (rest["done"], rest["pending"], rest["finished"]) == (3, 0, True)
        forced = await tier.reindex(None, True)
        assert forced["done"] == 5
        found = await search_ids(tier, "bob", "my cat is named Biscuit", None, 1)
        assert found[0][0] == ids["My cat is named Biscuit"]
    finally:
        await tier.close()
        await db.close()


async def test_upsert_delete_and_erase(tmp_path: Path) -> None:
    db, _ = await seeded(tmp_path)
    tier = await build_vector_index(Holder(make_config(tmp_path)), db, None)
    try:
        new = await add_memory(db, "alice", "I am allergic to peanuts")
        await tier.upsert([new])
        found = await search_ids(
            tier, "alice", "what food can't I eat?", None, 1, backfill=False
        )
        assert found[0][0] == new.id
        await db.write(lambda conn: memories.delete(conn, new.id))
        await tier.delete([new.id])
        assert (await tier.status())["vectors"] == 0
        await tier.reindex(None, False)
        assert await tier.erase_owner("bob") == 2
        assert await search_ids(tier, "bob", "my cat", None, 5, backfill=False) == []
    finally:
        await tier.close()
        await db.close()


async def test_no_extension_means_no_tier_and_a_counted_fallback(
    tmp_path: Path,
) -> None:
    db = await open_db(tmp_path / "plain.db", with_vec=False)
    metrics = Metrics()
    try:
        with pytest.raises(SemanticUnavailable) as info:
            await build_vector_index(Holder(make_config(tmp_path)), db, metrics)
        assert info.value.cause == "no_extension" and "sqlite-vec not loaded" in str(
            info.value
        )
        assert metrics.memory_fallbacks.value("no_extension") == 1
        none_config = make_config(tmp_path, source="none")
        assert (
            await build_vector_index(Holder(none_config), db, metrics) is None
        )  # off by choice
        missing = make_config(
            tmp_path, source="onnx", onnx_model_path=str(tmp_path / "x.onnx")
        )
        with pytest.raises(SemanticUnavailable) as info:
            await build_vector_index(Holder(missing), db, metrics)
        assert info.value.cause == "no_embedding_source" and "onnx" in str(info.value)
    finally:
        await db.close()


async def test_embedding_timeout_falls_back_for_that_request(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db, ids = await seeded(tmp_path)
    metrics = Metrics()
    async with EmbeddingsServer() as server:
        embedding = EmbeddingConfig(
            source="remote",
            timeout_ms=100,
            remote=RemoteEmbeddingConfig(url=server.url, model="m", timeout_s=5.0),
        )
        config = replace(make_config(tmp_path), embedding=embedding)
        tier = await build_vector_index(Holder(config), db, metrics)
        try:
            await tier.reindex(None, False)
            server.delay_s = 0.5
            for _ in range(2):
                with pytest.raises(SemanticUnavailable) as info:
                    await search_ids(
                        tier, "alice", "never answered in time", None, 5, backfill=False
                    )
                assert info.value.cause == "embedding_timeout"
            assert (
                metrics.memory_fallbacks.value("embedding_timeout") == 2
            )  # counted every time
            logged = [r for r in caplog.records if r.getMessage() == "vector.fallback"]
            assert len(logged) == 1  # logged once per cause
            # the engine's retrieval answers from the keyword tier meanwhile (the vector
            # leg is tried: vector_skip_coverage 0)
            ctx = RetrievalContext(
                SqliteRecordStore(db),
                replace(
                    config.memory, retrieval_timeout_ms=2000, vector_skip_coverage=0.0
                ),
                tier,
                metrics,
            )
            got = await retrieve(
                ctx,
                RetrievalRequest(
                    owner="alice", query="indentation tabs", strategy="hybrid"
                ),
            )
            assert got.hits[0].memory.id == ids["I use tabs for indentation"]
            assert got.resolution["fallbacks"][0]["tier"] == "vector"
            server.delay_s = 0.0
            assert await search_ids(
                tier, "alice", "Postgres", None, 1, backfill=False
            )  # recovers
        finally:
            await tier.close()
    await db.close()


async def test_runtime_switch_of_embedding_source(tmp_path: Path) -> None:
    # embedding.source is a runtime setting: the tier follows the live config holder.
    db, ids = await seeded(tmp_path)
    table = await static_table([fact for facts in FACTS.values() for fact in facts])
    (tmp_path / "embeddings").mkdir()
    shutil.copy(table, tmp_path / "embeddings" / "static.npz")
    holder = ConfigHolder(make_config(tmp_path), str(tmp_path / "absent.yaml"))
    tier = await build_vector_index(holder, db, Metrics())
    try:
        await tier.reindex(None, False)
        assert tier.embedding().startswith("onnx:")
        holder.apply_runtime_overrides({"embedding.source": "static"})
        assert tier.switching is not None
        await tier.switching
        assert tier.embedding().startswith("static:")
        status = await tier.status()
        assert (status["vectors"], status["needs_reindex"], status["dim"]) == (
            0,
            5,
            256,
        )
        found = await search_ids(
            tier, "bob", "my cat is named Biscuit", None, 1
        )  # lazy backfill
        assert found[0][0] == ids["My cat is named Biscuit"]

        holder.apply_runtime_overrides({"embedding.source": "none"})
        await tier.switching
        assert tier.embedding() == "none"
        with pytest.raises(SemanticUnavailable) as info:
            await search_ids(tier, "bob", "my cat", None, 1)
        assert info.value.cause == "no_embedding_source"
        assert (await tier.reindex(None, False))["done"] == 0  # nothing to embed with
    finally:
        await tier.close()
        await db.close()


async def test_cache_and_model_figures_reach_the_metrics(tmp_path: Path) -> None:
    db, _ = await seeded(tmp_path)
    metrics = Metrics()
    tier = await build_vector_index(Holder(make_config(tmp_path)), db, metrics)
    try:
        assert isinstance(tier, SqliteVecIndex)
        await tier.reindex(None, False)
        for _ in range(3):
            await search_ids(tier, "alice", "which database do I like?", None, 5)
            await tier.settle()
        text = metrics.render()
        assert 'memtap_vector_cache_events_total{event="hit"}' in text
        assert metrics.vector_cache_events.value("hit") >= 1
        assert metrics.vector_cache_events.value("load") >= 1
        assert metrics.vector_cache_bytes.value() > 0
        assert metrics.vector_cache_owners.value() == 1
        assert metrics.embedding_runs.value("onnx") >= 1
        assert metrics.embedding_texts.value("onnx") >= 5  # the reindex and the queries
    finally:
        await tier.close()
        await db.close()
    before = metrics.vector_cache_events.value("hit")
    metrics.render()  # a closed tier no longer reports
    assert metrics.vector_cache_events.value("hit") == before


async def test_turning_the_integer_graph_off_in_the_file_re_embeds(
    tmp_path: Path,
) -> None:
    # The two graphs' vectors are not one space: a change of embedding.onnx_integer_matmul
    # in the watched file switches the signature and every memory is embedded again.
    db, ids = await seeded(tmp_path)
    config_file = tmp_path / "memtap.yaml"
    text = (
        f"data_dir: {tmp_path}\nmemory:\n  strategy: hybrid\n"
        "vector_store:\n  kind: sqlite-vec\nembedding:\n  source: onnx\n"
    )
    config_file.write_text(text)
    holder = ConfigHolder.load(str(config_file))
    tier = await build_vector_index(holder, db, Metrics())
    try:
        await tier.reindex(None, False)
        assert tier.embedding() == "onnx:all-MiniLM-L6-v2-int8+int8-matmul-v2:384"
        config_file.write_text(text + "  onnx_integer_matmul: false\n")
        assert await holder.check_file()
        assert tier.switching is not None
        await tier.switching
        assert tier.embedding() == "onnx:all-MiniLM-L6-v2-int8:384"
        status = await tier.status()
        assert (status["vectors"], status["needs_reindex"]) == (0, 5)
        found = await search_ids(tier, "bob", "what's my pet called?", None, 1)
        assert found[0][0] == ids["My cat is named Biscuit"]
    finally:
        await tier.close()
        await db.close()
