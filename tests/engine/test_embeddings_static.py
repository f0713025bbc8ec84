"""The static (distilled lookup-table) source, built from the real ONNX model."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
import pytest_asyncio

from memtap.engine.embeddings.base import EmbeddingError
from memtap.engine.embeddings.onnx import open_onnx
from memtap.engine.embeddings.static import (
    StaticEmbedder,
    build_static_sync,
    open_static,
)
from memtap.proxy.cli.main import main as memtap_main
from tests.support.semantic import static_table

PAIRS = [
    ("I prefer Postgres for side projects", "my favourite database is PostgreSQL"),
    ("My cat is named Biscuit", "my kitten is called Biscuit"),
    ("I commute to the office by bike", "I cycle to work"),
    ("I drink my coffee black", "I take espresso without milk"),
]
TEXTS = [t for pair in PAIRS for t in pair]

module_loop = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def static() -> StaticEmbedder:
    return await open_static(await static_table(TEXTS))


@module_loop
@pytest.mark.slow
async def test_table_shape_and_signature(static: StaticEmbedder) -> None:
    assert static.dim == 256
    assert static.signature.startswith("static:all-MiniLM-L6-v2-int8-distilled-")
    assert static.signature.endswith(":256")
    vectors = await static.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@module_loop
async def test_paraphrases_score_above_unrelated(static: StaticEmbedder) -> None:
    v = await static.embed(TEXTS)
    paraphrase = [float(v[2 * i] @ v[2 * i + 1]) for i in range(len(PAIRS))]
    unrelated = [
        float(v[2 * i] @ v[2 * j + 1])
        for i in range(len(PAIRS))
        for j in range(len(PAIRS))
        if i != j
    ]
    assert min(paraphrase) > np.mean(unrelated)
    assert np.mean(paraphrase) > np.mean(unrelated) + 0.15


@module_loop
async def test_batch_and_single_agree_and_empty_texts(static: StaticEmbedder) -> None:
    batch = await static.embed(TEXTS * 3)  # > 8 texts: goes through a worker thread
    single = await static.embed([TEXTS[1]])
    assert np.allclose(batch[1], single[0], atol=1e-6)
    assert (await static.embed([])).shape == (0, 256)
    nothing = await static.embed(["", "[PAD] [CLS]"])
    assert not nothing.any()  # no known token: a zero vector, not NaN


@module_loop
async def test_rebuild_from_other_tokens_changes_the_signature(
    tmp_path: Path, static: StaticEmbedder
) -> None:
    teacher = await open_onnx(integer_matmul=False)  # as build_static teaches
    report = await asyncio.to_thread(
        build_static_sync,
        teacher,
        tmp_path / "t.npz",
        dims=64,
        token_ids=range(2000, 2400),
    )
    assert (report.tokens, report.dims) == (400, 64)
    small = await open_static(report.path)
    assert small.dim == 64 and small.signature != static.signature
    assert report.bytes < 200_000  # 400 x 64 int8 rows + the 30522-entry index


@module_loop
async def test_missing_table_is_static_not_built(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError) as info:
        await open_static(tmp_path / "none.npz")
    assert info.value.cause == "static_not_built"


def test_cli_build_static(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "data" / "embeddings" / "static.npz"
    (tmp_path / "memtap.yaml").write_text("memory:\n  strategy: hybrid\n")
    code = memtap_main(
        [
            "embeddings",
            "build-static",
            "--data-dir",
            str(tmp_path / "data"),
            "--tokens",
            "300",
            "--dims",
            "32",
            "-c",
            str(tmp_path / "memtap.yaml"),
            "--json",
        ]
    )
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert out.is_file() and '"tokens": 300' in printed.out
    again = memtap_main(
        [
            "embeddings",
            "build-static",
            "--data-dir",
            str(tmp_path / "data"),
            "-c",
            str(tmp_path / "memtap.yaml"),
        ]
    )
    assert again == 0 and "exists" in capsys.readouterr().err
