"""The ONNX source with the real packaged all-MiniLM-L6-v2 (int8) and the shipped tokenizer."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import pytest_asyncio

from memtap.engine.embeddings.base import EmbeddingError, EmbeddingSource
from memtap.engine.embeddings.onnx import OnnxEmbedder, open_onnx
from memtap.engine.embeddings.tokenizer import (
    PACKAGED_TOKENIZER,
    PACKAGED_TOKENIZER_SHA256,
    load_tokenizer,
)

PARAPHRASES = [
    ("I prefer Postgres for side projects", "which database do I like?"),
    ("I always use tabs for indentation", "what is my indentation style?"),
    ("My cat is named Biscuit", "what's my pet called?"),
    ("I commute to the office by bike", "how do I get to work?"),
]

module_loop = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def onnx() -> OnnxEmbedder:
    return await open_onnx()


def test_shipped_tokenizer_is_the_recorded_file() -> None:
    assert (
        hashlib.sha256(PACKAGED_TOKENIZER.read_bytes()).hexdigest()
        == PACKAGED_TOKENIZER_SHA256
    )
    readme = (PACKAGED_TOKENIZER.parent / "README.md").read_text()
    assert PACKAGED_TOKENIZER_SHA256 in readme
    assert "Apache License" in (PACKAGED_TOKENIZER.parent / "LICENSE").read_text()


def test_token_ids_are_berts_and_padding_is_off() -> None:
    tok = load_tokenizer()
    enc = tok.encode("Hello, world!")
    assert enc.ids == [101, 7592, 1010, 2088, 999, 102]
    long = tok.encode("word " * 400)
    assert len(long.ids) == 256  # truncation at 256, not the file's 128
    assert tok.padding is None


def test_vocab_txt_builds_the_same_tokenizer(tmp_path: Path) -> None:
    vocab = json.loads(PACKAGED_TOKENIZER.read_text())["model"]["vocab"]
    vocab_file = tmp_path / "vocab.txt"
    vocab_file.write_text(
        "\n".join(t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])) + "\n"
    )
    text = "Unaffable déjà-vu: I'd rather use PostgreSQL 16 in 2026!"
    assert (
        load_tokenizer(vocab_file).encode(text).ids == load_tokenizer().encode(text).ids
    )


@module_loop
async def test_model_outputs_unit_vectors(onnx: OnnxEmbedder) -> None:
    assert isinstance(onnx, EmbeddingSource)
    assert onnx.dim == 384
    assert onnx.signature == "onnx:all-MiniLM-L6-v2-int8:384"
    vectors = await onnx.embed(
        ["one", "two words", "a much longer sentence about nothing"]
    )
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (await onnx.embed([])).shape == (0, 384)


@module_loop
async def test_paraphrases_score_above_unrelated(onnx: OnnxEmbedder) -> None:
    texts = [t for pair in PARAPHRASES for t in pair]
    v = await onnx.embed(texts)
    for i in range(len(PARAPHRASES)):
        paraphrase = float(v[2 * i] @ v[2 * i + 1])
        for j in range(len(PARAPHRASES)):
            if j != i:
                unrelated = float(v[2 * i] @ v[2 * j + 1])
                assert paraphrase > unrelated + 0.1, (
                    PARAPHRASES[i],
                    PARAPHRASES[j],
                    paraphrase,
                    unrelated,
                )


@module_loop
async def test_batch_padding_does_not_change_a_vector(onnx: OnnxEmbedder) -> None:
    alone = await onnx.embed(["short text"])
    mixed = await onnx.embed(
        [
            "a considerably longer text that forces padding of the short one " * 3,
            "short text",
        ]
    )
    assert np.allclose(alone[0], mixed[1], atol=1e-4)


@module_loop
async def test_inference_runs_off_the_event_loop(
    onnx: OnnxEmbedder, blocking_guard
) -> None:  # type: ignore[no-untyped-def]
    with blocking_guard():
        vectors = await onnx.embed(["checked for blocking calls on the loop"] * 40)
    assert vectors.shape == (40, 384)


@module_loop
async def test_missing_model_is_an_embedding_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError) as info:
        await open_onnx(str(tmp_path / "nope.onnx"))
    assert info.value.cause == "onnx_not_found"
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(EmbeddingError) as info:
        await open_onnx(str(broken))
    assert info.value.cause == "onnx_load_failed"


@module_loop
async def test_long_texts_are_batched_under_the_token_cap(onnx: OnnxEmbedder) -> None:
    texts = [
        "short one",
        "word " * 400,
        "another short text",
        "medium length text " * 20,
    ]
    together = await onnx.embed(texts)
    for i, text in enumerate(texts):
        alone = await onnx.embed([text])
        assert np.allclose(together[i], alone[0], atol=1e-4), text[:20]
