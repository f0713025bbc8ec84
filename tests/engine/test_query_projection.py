"""The query projection (`engine/embeddings/query_projection.py`) and the source that uses
it while the model is busy (`engine/embeddings/projected.py`), on the packaged model."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from memtap.config.schema import EmbeddingConfig
from memtap.engine.clock import now_iso
from memtap.engine.embeddings import query_projection
from memtap.engine.embeddings.cache import CachedSource, EmbeddingCache
from memtap.engine.embeddings.integer_graph import CACHE_ENV
from memtap.engine.embeddings.onnx import OnnxEmbedder, open_onnx
from memtap.engine.embeddings.projected import (
    PROJECT_AFTER_WAIT_S,
    PROJECTED_COSINE_SCALE,
    ProjectedQueries,
    embed_query,
)
from memtap.engine.embeddings.query_projection import (
    QueryProjection,
    build_sync,
    load_projection,
    projection_file,
    tidy_projections,
)
from memtap.engine.embeddings.resolve import resolve_embedding_source
from memtap.engine.factory import build_vector_index
from memtap.engine.memory_rules import Live
from memtap.engine.metrics import Metrics
from memtap.engine.sqlite.vectors import SqliteVecIndex
from tests.support.semantic import Holder, add_memory, make_config, open_db

REPO = Path(__file__).resolve().parents[2]

MEMORIES = [
    "I prefer Postgres for side projects",
    "I'm allergic to peanuts",
    "My dog is called Pixel",
    "My laptop is a ThinkPad running Fedora",
    "I usually drink green tea in the morning",
    "I commute by bike every day",
]
QUESTIONS = {  # paraphrases: no content word shared with the memory
    "which database do I like?": 0,
    "what food can't I eat?": 1,
    "what's my pet's name?": 2,
    "what beverage do I start my day with?": 4,
    "how do I travel to work?": 5,
}


@pytest.fixture
async def model() -> AsyncIterator[OnnxEmbedder]:
    embedder = await open_onnx()  # the integer graph from the run's shared folder
    yield embedder
    await embedder.close()


def shared_projection(model: OnnxEmbedder) -> QueryProjection:
    """The full projection tests/conftest.py built for the run, as serve would."""
    import os

    projection = load_projection(
        projection_file(Path(os.environ[CACHE_ENV]), model.signature), model.signature
    )
    assert projection is not None
    return projection


async def test_a_projected_question_finds_its_memory_among_the_models_vectors(
    model: OnnxEmbedder,
) -> None:
    projection = shared_projection(model)
    assert projection.target == model.signature and projection.dim == model.dim
    assert projection.alignment > 0.7  # measured on held-out training sequences
    memories = model.embed_sync(MEMORIES)
    questions = list(QUESTIONS)
    projected = projection.project(questions, model.tokenizer)
    by_model = model.embed_sync(questions)
    assert np.allclose(np.linalg.norm(projected, axis=1), 1.0, atol=1e-5)
    for row, question in enumerate(questions):
        ranking = np.argsort(-(memories @ projected[row]))
        assert ranking[0] == QUESTIONS[question], question
    # Close to the model's own vector of the same question (a static table of another
    # space would be near 0).
    agreement = (projected * by_model).sum(axis=1)
    assert float(np.median(agreement)) > 0.5


async def test_a_build_is_kept_for_its_model_signature_only(
    model: OnnxEmbedder, tmp_path: Path
) -> None:
    vocab = model.tokenizer.get_vocab()
    words = [vocab[w] for w in ("tea", "coffee", "dog", "cat", "bike", "car", "the")]
    out = projection_file(tmp_path, model.signature)
    built = build_sync(model, out, texts=60, token_ids=range(1996, 2600), seed=1)
    assert out.is_file() and not list(tmp_path.glob("*.tmp.npz"))
    kept = load_projection(out, model.signature)
    assert kept is not None
    assert np.array_equal(kept.weights, built.weights)
    assert kept.alignment == pytest.approx(built.alignment, abs=1e-6)
    assert all(kept.index[w] >= 0 for w in words if w < 2600)
    assert load_projection(out, "onnx:another-model:384") is None
    assert projection_file(tmp_path, "onnx:another-model:384") != out
    assert load_projection(tmp_path / "missing.npz", model.signature) is None


async def projected_source(
    model: OnnxEmbedder, mode: str = "auto"
) -> tuple[ProjectedQueries, CachedSource]:
    cached = CachedSource(model, EmbeddingCache(100, 60_000))
    projection = shared_projection(model)

    async def never() -> QueryProjection:
        raise AssertionError("already given")

    source = ProjectedQueries(cached, mode, model.tokenizer, never, projection)  # type: ignore[arg-type]
    return source, cached


async def test_an_idle_model_embeds_the_query_and_a_busy_one_is_not_waited_for(
    model: OnnxEmbedder,
) -> None:
    source, _ = await projected_source(model)
    # A serving model has answered before: its measured query time is a settled average,
    # not the session's first runs, which allocate and are the slowest (by far, on a busy
    # machine: one first run of 20 ms made an idle model look busy).
    for _ in range(8):
        await model.embed(["is it sunny where I live?"], urgent=True)
    alone = await embed_query(source, "which database do I like?")
    assert not alone.projected and alone.cosine_scale == 1.0
    assert np.allclose(alone.vector, model.embed_sync(["which database do I like?"])[0])
    # One other query ahead: worth its wait for the model's recall.
    ahead = asyncio.ensure_future(source.embed(["is it raining today?"], urgent=True))
    await asyncio.sleep(0)
    stats = model.batch_stats()
    assert stats is not None
    # Two runs of ~5 ms on a quiet core; a loaded machine can make one run take 11 ms,
    # and then the same rule projects: the decision follows the measured wait.
    worth_its_wait = stats.expected_wait_s() < PROJECT_AFTER_WAIT_S
    waited = not (await embed_query(source, "where do I live?")).projected
    assert waited is worth_its_wait
    await ahead
    # Other requests' queries hold the model's query lane: a queue, not a wait.
    holding = [
        asyncio.ensure_future(source.embed([f"a long question {i} " * 20], urgent=True))
        for i in range(10)
    ]
    await asyncio.sleep(0)
    assert stats.expected_wait_s() > PROJECT_AFTER_WAIT_S
    busy = await embed_query(source, "what food can't I eat?")
    assert not all(h.done() for h in holding)  # answered while the model still ran
    assert busy.projected and busy.cosine_scale == PROJECTED_COSINE_SCALE
    assert busy.calibrated(0.27) == pytest.approx(0.30)
    assert busy.calibrated(0.99) == 1.0
    await asyncio.gather(*holding)
    projected_ahead = 0 if worth_its_wait else 1
    assert source.counts.projected == 1 + projected_ahead
    assert source.counts.modelled == 13 - projected_ahead
    assert source.status()["state"] == "ready"


async def test_writes_and_plain_embeds_are_always_the_models(
    model: OnnxEmbedder,
) -> None:
    source, _ = await projected_source(model, "always")
    text = "My dog is called Pixel"
    written = await source.embed([text])
    asked = await source.embed([text], urgent=True)
    assert np.allclose(written[0], model.embed_sync([text])[0])
    assert np.allclose(asked[0], written[0])
    assert source.counts.projected == 0
    projected = await embed_query(source, text)  # `always`: even with the model idle
    assert projected.projected and source.counts.projected == 1


async def test_a_query_already_on_its_way_is_joined_not_projected(
    model: OnnxEmbedder,
) -> None:
    source, _ = await projected_source(model)
    text = "what's my pet's name?"
    first = asyncio.ensure_future(embed_query(source, text))
    await asyncio.sleep(0)
    second = await embed_query(source, text)  # the model is busy with this very text
    assert not second.projected
    assert np.allclose((await first).vector, second.vector)


async def test_a_failed_build_leaves_queries_to_the_model(
    model: OnnxEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    cached = CachedSource(model, EmbeddingCache(100, 60_000))

    async def fails() -> QueryProjection:
        raise OSError("No space left on device")

    with caplog.at_level(logging.WARNING, logger="memtap.embeddings"):
        source = ProjectedQueries(cached, "always", model.tokenizer, fails)
        assert source.state == "building"
        await source.settle()
    assert source.state == "failed" and "No space left" in source.error
    assert any(
        r.getMessage() == "embeddings.query_projection_unavailable"
        for r in caplog.records
    )
    got = await embed_query(source, "which database do I like?")
    assert not got.projected


def test_projections_of_other_models_and_killed_builds_are_tidied(
    tmp_path: Path,
) -> None:
    """An upgrade leaves the old model's projection (~12 MB): removed once unused for a
    week, like killed builds' work folders; the graph's own work folders are not its own."""
    import os
    import time

    folder = tmp_path / "cache"
    folder.mkdir()
    keep = folder / "query-projection.kept.npz"
    stale = folder / "query-projection.0123456789abcdef.npz"
    recent = folder / "query-projection.fedcba9876543210.npz"
    abandoned, running = folder / "projecting-abc", folder / "projecting-def"
    graphs_work = folder / "building-xyz"
    for work in (abandoned, running, graphs_work):
        work.mkdir()
    ages = {keep: 30 * 86400, stale: 8 * 86400, recent: 86400, abandoned: 3600}
    ages[graphs_work] = 3600
    for path, age_s in ages.items():
        if not path.exists():
            path.write_bytes(b"a projection")
        os.utime(path, (time.time() - age_s, time.time() - age_s))
    tidy_projections(folder, keep)
    assert keep.exists() and time.time() - keep.stat().st_mtime < 60  # marked as used
    assert not stale.exists() and recent.exists()
    assert not abandoned.exists() and running.exists() and graphs_work.exists()
    tidy_projections(tmp_path / "not-yet", keep)  # no folder yet: nothing to do


async def test_resolve_reads_the_projection_beside_the_graph(tmp_path: Path) -> None:
    import os
    import time

    stale = Path(os.environ[CACHE_ENV]) / "query-projection.0000000000000000.npz"
    stale.write_bytes(b"an older model's projection")
    os.utime(stale, (time.time() - 8 * 86400, time.time() - 8 * 86400))
    resolved = await resolve_embedding_source(EmbeddingConfig(source="onnx"), tmp_path)
    try:
        assert not stale.exists()
        source = resolved.source
        assert isinstance(source, ProjectedQueries)
        assert source.ready and source.mode == "auto"
        status = resolved.to_json()["query_projection"]
        assert status["state"] == "ready" and status["alignment"] > 0.7
    finally:
        assert resolved.source is not None
        await resolved.source.close()
    off = await resolve_embedding_source(
        EmbeddingConfig(source="onnx", query_projection="off"), tmp_path
    )
    try:
        assert not isinstance(off.source, ProjectedQueries)
        assert off.to_json()["query_projection"] is None
    finally:
        assert off.source is not None
        await off.source.close()


@pytest.mark.slow
async def test_serve_builds_a_missing_projection_in_a_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import shutil

    # A folder with the graph but no projection: resolve builds it (the child at nice 19).
    folder = tmp_path / "cache"
    folder.mkdir()
    for graph in Path(os.environ[CACHE_ENV]).glob("*.onnx"):
        shutil.copy(graph, folder / graph.name)
    monkeypatch.setenv(CACHE_ENV, str(folder))
    # The product's child over part of the vocabulary (tests/support/projection_child.py).
    monkeypatch.setattr(query_projection, "_MODULE", "tests.support.projection_child")
    monkeypatch.setenv(
        "PYTHONPATH",
        os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    resolved = await resolve_embedding_source(EmbeddingConfig(source="onnx"), tmp_path)
    source = resolved.source
    assert isinstance(source, ProjectedQueries)
    try:
        assert source.state == "building" and not source.ready
        assert not (await embed_query(source, "which tea?")).projected
        await asyncio.wait_for(source.settle(), 300)
        assert source.state == "ready", source.error
        assert list(folder.glob("query-projection.*.npz"))
        assert not [p for p in folder.iterdir() if p.name.startswith("projecting-")]
    finally:
        await source.close()


async def test_a_busy_model_no_longer_costs_the_vector_leg(tmp_path: Path) -> None:
    """The query-embedding budget refuses a query that would miss the vector leg's deadline
    (`embedding_busy`, keyword results only); with the projection ready it is answered at
    once, by meaning."""
    import time

    db = await open_db(tmp_path / "memtap.db")
    await add_memory(db, "hana", "I drink jasmine tea in the morning")
    await add_memory(db, "hana", "My sister lives in Porto")
    tier = await build_vector_index(Holder(make_config(tmp_path)), db, Metrics())
    burst: list[asyncio.Future[object]] = []
    try:
        assert isinstance(tier, SqliteVecIndex)
        assert isinstance(tier.source, ProjectedQueries) and tier.source.ready
        live = Live(now=now_iso(), cutoff=None, owner="hana")
        await tier.search(live, "which hot beverage do I have?", 5)
        burst += [
            asyncio.ensure_future(
                tier.source.embed([f"question {i} " * 30], urgent=True)
            )
            for i in range(300)
        ]
        await asyncio.sleep(0)
        started_at = time.monotonic()
        found = await tier.search(live, "what hot drink do I have at breakfast?", 5)
        # The 300 long texts ahead keep the model busy for over a second (1.3 s measured): a
        # search that waited for it would take that long. 0.05 s was once exceeded (0.42 s)
        # on a loaded machine.
        assert time.monotonic() - started_at < 0.5
        assert found.ranked and found.rows is not None
        assert found.rows[found.ranked[0][0]].content.startswith("I drink jasmine tea")
        assert tier.source.counts.projected >= 1
    finally:
        for task in burst:
            task.cancel()
        await asyncio.gather(*burst, return_exceptions=True)
        await tier.close()
        await db.close()


async def test_a_burst_right_after_start_is_projected_too(model: OnnxEmbedder) -> None:
    # No query run measured yet: the queue's length still tells a wait from a queue.
    source, _ = await projected_source(model)
    stats = model.batch_stats()
    assert stats is not None and stats.seconds_per_query == 0
    burst = [
        asyncio.ensure_future(source.embed([f"question number {i}"], urgent=True))
        for i in range(6)
    ]
    await asyncio.sleep(0)
    assert (await embed_query(source, "what's my pet's name?")).projected
    await asyncio.gather(*burst)
