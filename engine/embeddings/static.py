"""A lookup-table embedding distilled from the ONNX model by memtap itself (model2vec style).

Build (`build_static_sync`, once, ~30 s for the full vocabulary): every WordPiece token is run
through the transformer on its own (`[CLS] token [SEP]`, mean pooled), the table is reduced to
`dims` with PCA, each row is weighted by a Zipf estimate of the token's frequency (the BERT
vocabulary is roughly frequency ordered, so rank stands in for a count: frequent tokens like
"the" weigh little) and stored as int8 with a per-row scale. Use: tokenize, look the rows up,
average, normalise. No transformer at query time: tens of microseconds per text.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memtap.engine.embeddings.base import (
    CoalescerStats,
    EmbeddingError,
    Vectors,
    empty_vectors,
    l2_normalize,
    make_signature,
)
from memtap.engine.embeddings.onnx import OnnxEmbedder
from memtap.engine.embeddings.tokenizer import load_tokenizer

log = logging.getLogger("memtap.embeddings")

STATIC_FILE_NAME = "static.npz"
DEFAULT_DIMS = 256
SIF_COEFFICIENT = 1e-4
FORMAT_VERSION = 2
# Below this many texts the lookup costs less than a thread hop; larger batches go to a thread.
_INLINE_MAX_TEXTS = 8


def default_static_path(data_dir: str | Path) -> Path:
    return Path(data_dir) / "embeddings" / STATIC_FILE_NAME


@dataclass(frozen=True, slots=True)
class StaticBuildReport:
    path: str
    tokens: int
    dims: int
    seconds: float
    bytes: int
    teacher: str


class StaticEmbedder:
    """An `EmbeddingSource` over a distilled table; create it with `open_static`."""

    name = "static"

    def __init__(self, table: dict[str, Any], tokenizer: Any) -> None:
        self._rows: npt.NDArray[np.int8] = table["rows"]
        self._scales: npt.NDArray[np.float32] = table["scales"]
        self._index: npt.NDArray[np.int32] = table["index"]
        self._model = str(table["model"])
        self._tokenizer = tokenizer

    @property
    def model(self) -> str:
        return self._model

    @property
    def dim(self) -> int:
        return int(self._rows.shape[1])

    @property
    def signature(self) -> str:
        return make_signature(self.name, self._model, self.dim)

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        if not texts:
            return empty_vectors(self.dim)
        try:
            if len(texts) <= _INLINE_MAX_TEXTS:
                return self.embed_sync(list(texts))
            return await asyncio.to_thread(self.embed_sync, list(texts))
        except Exception as exc:
            raise EmbeddingError(f"static embedding failed: {exc}") from exc

    def embed_sync(self, texts: list[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(texts, add_special_tokens=False)
        token_ids = [np.asarray(e.ids, dtype=np.int64) for e in encodings]
        rows_per_text = [self._known_rows(ids) for ids in token_ids]
        lengths = np.array([len(r) for r in rows_per_text])
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if lengths.sum() == 0:
            return out
        flat = np.concatenate(rows_per_text)
        values = self._rows[flat].astype(np.float32) * self._scales[flat, None]
        nonempty = lengths > 0
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[nonempty]
        out[nonempty] = np.add.reduceat(values, starts, axis=0)
        return l2_normalize(out)

    def _known_rows(self, ids: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        ids = ids[ids < len(self._index)]
        rows = self._index[ids].astype(np.int64)
        return rows[rows >= 0]

    def batch_stats(self) -> CoalescerStats | None:
        return None

    async def close(self) -> None:
        return None


def _load_table(path: Path) -> dict[str, Any]:
    with np.load(path, allow_pickle=False) as npz:
        table = {key: npz[key] for key in npz.files}
    if int(table.get("version", -1)) != FORMAT_VERSION:
        raise ValueError(f"unsupported static table version in {path}")
    table["model"] = str(table["model"])
    return table


async def open_static(
    path: str | Path, tokenizer_path: str | None = None
) -> StaticEmbedder:
    """Load a built table off the event loop; raises `EmbeddingError` (`static_not_built`)."""
    file = Path(path)
    if not file.is_file():
        raise EmbeddingError(
            f"static table not built: {file}", cause="static_not_built"
        )
    try:
        table, tokenizer = await asyncio.to_thread(
            lambda: (_load_table(file), load_tokenizer(tokenizer_path))
        )
    except Exception as exc:
        raise EmbeddingError(
            f"static table unreadable: {exc}", cause="static_load_failed"
        ) from exc
    return StaticEmbedder(table, tokenizer)


def build_static_sync(
    teacher: OnnxEmbedder,
    out_path: str | Path,
    *,
    dims: int = DEFAULT_DIMS,
    token_ids: Sequence[int] | None = None,
    batch_size: int = 1024,
) -> StaticBuildReport:
    """Distil `teacher` into a table at `out_path` (blocking, CPU bound: run it in a thread).

    `token_ids` restricts the table to part of the vocabulary (tests); None = every token."""
    started = time.perf_counter()
    tokenizer = teacher.tokenizer
    vocab: dict[str, int] = tokenizer.get_vocab()
    vocab_size = max(vocab.values()) + 1
    cls_id, sep_id = vocab["[CLS]"], vocab["[SEP]"]
    wanted = sorted(set(token_ids)) if token_ids is not None else sorted(vocab.values())
    ids = [i for i in wanted if _is_content_token(tokenizer.id_to_token(i))]
    if not ids:
        raise ValueError("no tokens to distil")
    teacher_vectors = np.empty((len(ids), teacher.dim), dtype=np.float32)
    for start in range(0, len(ids), batch_size):
        chunk = ids[start : start + batch_size]
        teacher_vectors[start : start + len(chunk)] = teacher.embed_ids(
            [[cls_id, i, sep_id] for i in chunk], normalize=False
        )

    reduced = _pca(teacher_vectors, min(dims, len(ids), teacher.dim))
    # Zipf: a token's probability ~ 1/rank; SIF weight a/(a+p) damps the frequent ones.
    ranks = np.asarray(ids, dtype=np.float64)
    inverse_rank = 1.0 / (ranks + 2.0)
    probability = inverse_rank / inverse_rank.sum()
    weighted = reduced * (SIF_COEFFICIENT / (SIF_COEFFICIENT + probability))[
        :, None
    ].astype(np.float32)

    scales = np.abs(weighted).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    rows = np.clip(np.rint(weighted / scales[:, None]), -127, 127).astype(np.int8)
    index = np.full(vocab_size, -1, dtype=np.int32)
    index[np.asarray(ids)] = np.arange(len(ids), dtype=np.int32)

    # The table's own hash goes into the model name, so a rebuilt (different) table changes
    # the signature and the vector tier re-embeds instead of mixing two vector spaces.
    digest = hashlib.sha256(rows.tobytes() + index.tobytes()).hexdigest()[:8]
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp.npz")
    np.savez(
        tmp,
        version=np.int32(FORMAT_VERSION),
        rows=rows,
        scales=scales.astype(np.float32),
        index=index,
        model=np.str_(f"{teacher.model}-distilled-{digest}"),
        teacher=np.str_(teacher.signature),
    )
    os.replace(tmp, out)
    report = StaticBuildReport(
        path=str(out),
        tokens=len(ids),
        dims=int(rows.shape[1]),
        seconds=round(time.perf_counter() - started, 2),
        bytes=out.stat().st_size,
        teacher=teacher.signature,
    )
    log.info("embeddings.static_built", extra={"fields": {**_report_fields(report)}})
    return report


def _report_fields(report: StaticBuildReport) -> dict[str, Any]:
    return {
        "path": report.path,
        "tokens": report.tokens,
        "dims": report.dims,
        "seconds": report.seconds,
        "bytes": report.bytes,
        "teacher": report.teacher,
    }


def _is_content_token(token: str | None) -> bool:
    # [PAD], [unused17], [CLS] ... never come out of tokenizing text (or carry no meaning).
    return token is not None and not (token.startswith("[") and token.endswith("]"))


def _pca(matrix: npt.NDArray[np.float32], dims: int) -> npt.NDArray[np.float32]:
    centered = matrix - matrix.mean(axis=0, keepdims=True)
    _, _, vt = np.linalg.svd(centered.astype(np.float64), full_matrices=False)
    projected: npt.NDArray[np.float32] = (
        centered @ vt[:dims].T.astype(np.float32)
    ).astype(np.float32)
    return projected


async def build_static(
    out_path: str | Path,
    *,
    model_path: str | None = None,
    tokenizer_path: str | None = None,
    dims: int = DEFAULT_DIMS,
    token_ids: Sequence[int] | None = None,
) -> StaticBuildReport:
    """Load the ONNX teacher and build the table in a worker thread. The teacher runs the
    model's own graph: the table is a space of its own, and the float graph is the more
    exact one to learn from."""
    from memtap.engine.embeddings.onnx import open_onnx

    teacher = await open_onnx(model_path, tokenizer_path, integer_matmul=False)
    try:
        return await asyncio.to_thread(
            build_static_sync, teacher, out_path, dims=dims, token_ids=token_ids
        )
    finally:
        await teacher.close()
