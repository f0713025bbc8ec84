"""`embedding.source` resolution: auto order, explicit sources, reported fallbacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtap.config.schema import EmbeddingConfig, RemoteEmbeddingConfig
from memtap.engine.embeddings.cache import CachedSource
from memtap.engine.embeddings.integer_graph import CACHE_ENV
from memtap.engine.embeddings.resolve import resolve_embedding_source
from memtap.engine.metrics import Metrics
from tests.support.semantic import EmbeddingsServer, static_table


async def test_auto_prefers_a_configured_remote(tmp_path: Path) -> None:
    async with EmbeddingsServer() as server:
        config = EmbeddingConfig(
            source="auto", remote=RemoteEmbeddingConfig(url=server.url, model="m")
        )
        resolution = await resolve_embedding_source(config, tmp_path)
        try:
            assert (
                resolution.chosen == "remote" and resolution.signature == "remote:m:16"
            )
            assert isinstance(resolution.source, CachedSource)  # cache on by default
            assert resolution.fallbacks == ()
        finally:
            assert resolution.source is not None
            await resolution.source.close()


async def test_auto_falls_back_to_onnx_and_reports_why(tmp_path: Path) -> None:
    metrics = Metrics()
    config = EmbeddingConfig(
        source="auto",
        remote=RemoteEmbeddingConfig(url="http://127.0.0.1:9", timeout_s=1.0),
    )
    resolution = await resolve_embedding_source(config, tmp_path, metrics)
    assert resolution.chosen == "onnx"
    assert resolution.signature == "onnx:all-MiniLM-L6-v2-int8+int8-matmul-v2:384"
    assert [(f.source, f.cause) for f in resolution.fallbacks] == [
        ("remote", "remote_unreachable")
    ]
    assert metrics.memory_fallbacks.value("remote_unreachable") == 1
    report = resolution.to_json()
    assert report["source"] == "onnx" and report["fallbacks"][0]["source"] == "remote"


@pytest.mark.slow
async def test_auto_uses_a_built_static_table_when_onnx_is_missing(
    tmp_path: Path,
) -> None:
    table = await static_table(["database preferences"])
    config = EmbeddingConfig(
        source="auto",
        onnx_model_path=str(tmp_path / "missing.onnx"),
        static_path=str(table),
    )
    resolution = await resolve_embedding_source(config, tmp_path, cache=False)
    assert resolution.chosen == "static"
    assert [(f.source, f.cause) for f in resolution.fallbacks] == [
        ("remote", "remote_not_configured"),
        ("onnx", "onnx_not_found"),
    ]


async def test_nothing_available_resolves_to_none(tmp_path: Path) -> None:
    config = EmbeddingConfig(
        source="auto", onnx_model_path=str(tmp_path / "missing.onnx")
    )
    resolution = await resolve_embedding_source(config, tmp_path)
    assert resolution.chosen == "none" and resolution.source is None
    assert [f.cause for f in resolution.fallbacks] == [
        "remote_not_configured",
        "onnx_not_found",
        "static_not_built",
    ]
    explicit = await resolve_embedding_source(EmbeddingConfig(source="none"), tmp_path)
    assert explicit.chosen == "none" and explicit.fallbacks == ()


async def test_explicit_static_is_built_on_first_use(tmp_path: Path) -> None:
    # Built from a missing model: the build fails and is reported, nothing half-written stays.
    config = EmbeddingConfig(
        source="static", onnx_model_path=str(tmp_path / "missing.onnx")
    )
    resolution = await resolve_embedding_source(config, tmp_path)
    assert resolution.chosen == "none"
    assert [(f.source, f.cause) for f in resolution.fallbacks] == [
        ("static", "onnx_not_found")
    ]
    assert not (tmp_path / "embeddings" / "static.npz").exists()


@pytest.mark.slow
async def test_the_integer_graph_is_kept_in_the_data_dirs_embeddings_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CACHE_ENV)
    resolution = await resolve_embedding_source(
        EmbeddingConfig(source="onnx"), tmp_path
    )
    try:
        assert resolution.signature == "onnx:all-MiniLM-L6-v2-int8+int8-matmul-v2:384"
        kept = list((tmp_path / "embeddings").glob("model.int8-matmul.*.onnx"))
        assert len(kept) == 1 and kept[0].stat().st_size > 10_000_000
    finally:
        assert resolution.source is not None
        await resolution.source.close()


async def test_onnx_integer_matmul_false_runs_the_models_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CACHE_ENV)  # so that a graph built would land in tmp_path
    config = EmbeddingConfig(source="onnx", onnx_integer_matmul=False)
    resolution = await resolve_embedding_source(config, tmp_path)
    try:
        assert resolution.signature == "onnx:all-MiniLM-L6-v2-int8:384"
        assert not (tmp_path / "embeddings").exists()  # nothing built
    finally:
        assert resolution.source is not None
        await resolution.source.close()
