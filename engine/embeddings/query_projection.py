"""A query embedding for a few microseconds, in the local model's own vector space.

Why: a query embedding by the transformer costs ~4-11 ms of CPU (docs/performance.md), and
under load every request wants one at once; memories stay embedded by the model. A static
table alone (`static.py`) is a space of its own: its vectors cannot be compared with the
model's. This one can, approximately:

- each WordPiece token's row is the model's output for `[CLS] token [SEP]`, in the model's
  384 dimensions (no PCA), weighted down by a Zipf estimate of its frequency (SIF);
- a text is the sum of its tokens' rows, normalised, then mapped by one affine map fitted
  (ridge least squares) to the model's own vectors of the same token sequences.

The fit needs no corpus: its training texts are random sequences of whole-word tokens drawn
by frequency rank, run through the model at build time; it is measured on real sentences
(`scripts/eval_recall.py --query-projection always`). A projected query ranks a owner's
memories close to how the model's query does (top-5 the same on the recall set), but its
cosines are lower (~0.8x for relevant pairs), so the relevance floor lets fewer hits through:
used where the model would make a request wait, it beats keyword-only.

The build runs in a child process at nice 19 (its ~20 s of CPU never become the proxy's
latency, its peak never the proxy's RSS) and is kept beside the integer graph.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memtap.engine.embeddings.base import Vectors, l2_normalize
from memtap.engine.embeddings.kept_builds import tidy

log = logging.getLogger("memtap.embeddings")

FORMAT_VERSION = 1
"""Bump when the build below produces another table or map: older files are rebuilt."""
TRAINING_TEXTS = 8000
"""Random token sequences the map is fitted on (~10-20 s of model time on one core)."""
HELD_OUT_SHARE = 0.1
"""Of those, the share kept out of the fit to measure `alignment`."""
RIDGE = 0.1
"""Ridge penalty of the fit; 0.03-0.3 gave the same recall, 1.0+ lost some."""
SIF_COEFFICIENT = 1e-4
BUILD_TIMEOUT_S = 600.0
"""~20 s on a quiet core; at nice 19 under load it may take much longer, not forever."""
_FILE_PREFIX = "query-projection."
_WORK_PREFIX = "projecting-"
"""Not `building-`: that is the integer graph's, whose tidying would remove a projection's
work folder while it builds (up to BUILD_TIMEOUT_S, past the graph's 180 s)."""
_MODULE = "memtap.engine.embeddings.query_projection"
_SHORTEST, _LONGEST = 3, 24
"""Token counts of the training sequences (queries are cut to 160 characters)."""
_RUN_TEXTS = 32


@dataclass(frozen=True, slots=True, eq=False)
class QueryProjection:
    rows: npt.NDArray[np.int8]
    scales: npt.NDArray[np.float32]
    index: npt.NDArray[np.int32]
    """Token id -> row (-1: no row)."""
    weights: npt.NDArray[np.float32]
    """(dim + 1, dim): the affine map, bias last."""
    target: str
    """Signature of the model whose space this approximates."""
    alignment: float
    """Median cosine between a projected and the model's vector on held-out sequences."""

    @property
    def dim(self) -> int:
        return int(self.weights.shape[1])

    def project_ids(self, sequences: Sequence[Sequence[int]]) -> Vectors:
        """Texts already tokenized, without special tokens."""
        summed = np.zeros((len(sequences), self.rows.shape[1]), dtype=np.float32)
        for i, ids in enumerate(sequences):
            known = np.asarray(ids, dtype=np.int64)
            known = known[known < len(self.index)]
            rows = self.index[known]
            rows = rows[rows >= 0]
            if len(rows):
                summed[i] = (
                    self.rows[rows].astype(np.float32) * self.scales[rows, None]
                ).sum(axis=0)
        with_bias = np.hstack(
            [l2_normalize(summed), np.ones((len(sequences), 1), dtype=np.float32)]
        )
        return l2_normalize(with_bias @ self.weights)

    def project(self, texts: Sequence[str], tokenizer: Any) -> Vectors:
        encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return self.project_ids([e.ids for e in encodings])


def projection_file(folder: Path, signature: str) -> Path:
    """One file per model signature (the integer graph and the float graph differ)."""
    digest = hashlib.sha256(f"{signature}|{FORMAT_VERSION}".encode()).hexdigest()[:16]
    return folder / f"{_FILE_PREFIX}{digest}.npz"


def tidy_projections(folder: Path, keep: Path) -> None:
    """Projections of other models or builds (an upgrade's old one, ~12 MB) unused for a
    week, and work folders of killed builds, are removed (`kept_builds.tidy`)."""
    tidy(
        folder,
        keep,
        files=_FILE_PREFIX,
        work=_WORK_PREFIX,
        work_timeout_s=BUILD_TIMEOUT_S,
    )


def load_projection(path: Path, signature: str) -> QueryProjection | None:
    """The projection kept at `path` for `signature`; None when absent or not for it."""
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as npz:
        table = {key: npz[key] for key in npz.files}
    if int(table["version"]) != FORMAT_VERSION or str(table["target"]) != signature:
        return None
    return QueryProjection(
        rows=table["rows"],
        scales=table["scales"],
        index=table["index"],
        weights=table["weights"],
        target=str(table["target"]),
        alignment=float(table["alignment"]),
    )


def build_sync(
    embedder: Any,
    out: Path,
    *,
    texts: int = TRAINING_TEXTS,
    token_ids: Sequence[int] | None = None,
    seed: int = 0,
) -> QueryProjection:
    """Fit a projection for `embedder` (an `OnnxEmbedder`) and write it to `out`. Blocking,
    CPU bound. `token_ids` restricts the table to part of the vocabulary (tests)."""
    tokenizer = embedder.tokenizer
    vocab: dict[str, int] = tokenizer.get_vocab()
    cls_id, sep_id = vocab["[CLS]"], vocab["[SEP]"]
    wanted = sorted(set(token_ids)) if token_ids is not None else sorted(vocab.values())
    ids = np.asarray(
        [i for i in wanted if _is_content(tokenizer.id_to_token(i))], dtype=np.int64
    )
    if len(ids) < 2:
        raise ValueError("no tokens to build a query projection from")
    token_vectors = np.empty((len(ids), embedder.dim), dtype=np.float32)
    for start in range(0, len(ids), 512):
        chunk = ids[start : start + 512]
        token_vectors[start : start + len(chunk)] = embedder.embed_ids(
            [[cls_id, int(i), sep_id] for i in chunk], normalize=False
        )
    # Zipf: the BERT vocabulary is roughly frequency ordered, so rank stands in for a count;
    # the SIF weight a/(a+p) damps the frequent tokens ("the", "is").
    probability = 1.0 / (ids.astype(np.float64) + 2.0)
    probability /= probability.sum()
    weighted = token_vectors * (SIF_COEFFICIENT / (SIF_COEFFICIENT + probability))[
        :, None
    ].astype(np.float32)
    scales = np.abs(weighted).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    rows = np.clip(np.rint(weighted / scales[:, None]), -127, 127).astype(np.int8)
    index = np.full(max(vocab.values()) + 1, -1, dtype=np.int32)
    index[ids] = np.arange(len(ids), dtype=np.int32)

    sequences = _training_sequences(tokenizer, ids, texts, seed)
    model_vectors = _model_vectors(embedder, sequences, cls_id, sep_id)
    table = QueryProjection(
        rows=rows,
        scales=scales.astype(np.float32),
        index=index,
        weights=np.eye(embedder.dim + 1, embedder.dim, dtype=np.float32),
        target=embedder.signature,
        alignment=0.0,
    )
    static = table.project_ids(sequences)  # identity map: the normalised sums
    held_out = max(1, int(len(sequences) * HELD_OUT_SHARE))
    fit, test = slice(held_out, None), slice(0, held_out)
    weights = _ridge(static[fit], model_vectors[fit])
    projected = l2_normalize(
        np.hstack([static[test], np.ones((held_out, 1), dtype=np.float32)]) @ weights
    )
    alignment = float(np.median((projected * model_vectors[test]).sum(axis=1)))
    # The final map learns from every sequence; the alignment is the held-out one's.
    weights = _ridge(static, model_vectors)
    _save(out, table, weights, alignment)
    return QueryProjection(
        rows=rows,
        scales=table.scales,
        index=index,
        weights=weights,
        target=embedder.signature,
        alignment=alignment,
    )


def _is_content(token: str | None) -> bool:
    # [PAD], [unused17], [CLS] ... never come out of tokenizing text.
    return token is not None and not (token.startswith("[") and token.endswith("]"))


def _training_sequences(
    tokenizer: Any, ids: npt.NDArray[np.int64], count: int, seed: int
) -> list[list[int]]:
    """Random sequences of whole English-looking words, drawn by frequency rank."""
    words = np.asarray(
        [
            i
            for i in ids
            if (token := tokenizer.id_to_token(int(i))).isascii() and token.isalpha()
        ],
        dtype=np.int64,
    )
    if len(words) == 0:
        words = ids
    weight = 1.0 / (words - words.min() + 50.0)
    weight /= weight.sum()
    rng = np.random.default_rng(seed)
    lengths = rng.integers(_SHORTEST, _LONGEST + 1, size=count)
    return [[int(w) for w in rng.choice(words, int(n), p=weight)] for n in lengths]


def _model_vectors(
    embedder: Any, sequences: list[list[int]], cls_id: int, sep_id: int
) -> Vectors:
    out = np.empty((len(sequences), embedder.dim), dtype=np.float32)
    # Runs of equal length: no padding (the integer graph quantises per run, so a text's
    # vector moves slightly with its run-mates; the fit does not mind).
    order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))
    for start in range(0, len(order), _RUN_TEXTS):
        chunk = order[start : start + _RUN_TEXTS]
        out[chunk] = embedder.embed_ids(
            [[cls_id, *sequences[i], sep_id] for i in chunk]
        )
    return out


def _ridge(inputs: Vectors, targets: Vectors) -> npt.NDArray[np.float32]:
    design = np.hstack([inputs, np.ones((len(inputs), 1), dtype=np.float32)]).astype(
        np.float64
    )
    gram = design.T @ design + RIDGE * np.eye(design.shape[1])
    solved = np.linalg.solve(gram, design.T @ targets.astype(np.float64))
    return solved.astype(np.float32)


def _save(
    out: Path,
    table: QueryProjection,
    weights: npt.NDArray[np.float32],
    alignment: float,
) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    work = out.with_name(out.name + f".{os.getpid()}.tmp.npz")
    np.savez(
        work,
        version=np.int32(FORMAT_VERSION),
        rows=table.rows,
        scales=table.scales,
        index=table.index,
        weights=weights,
        target=np.str_(table.target),
        alignment=np.float32(alignment),
    )
    with work.open("rb") as f:
        os.fsync(f.fileno())
    os.replace(work, out)


# -- the child process -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BuildRequest:
    """What the child needs to open the same model as the proxy."""

    model_path: str | None
    tokenizer_path: str | None
    integer_matmul: bool
    graph_cache: Path | None
    signature: str
    """The proxy's model signature: a child that opened another one builds nothing."""


async def build_in_child(request: BuildRequest, out: Path) -> None:
    """Build `out` in a child process at the lowest priority; raises when it fails."""
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=_WORK_PREFIX, dir=out.parent))
    started = time.monotonic()
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        _MODULE,
        request.model_path or "",
        request.tokenizer_path or "",
        "1" if request.integer_matmul else "0",
        str(request.graph_cache or ""),
        request.signature,
        str(work / out.name),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(BUILD_TIMEOUT_S):
            _, stderr = await child.communicate()
        built = work / out.name
        if child.returncode != 0 or not built.is_file():
            lines = stderr.decode(errors="replace").strip().splitlines()
            raise RuntimeError(
                f"query projection build exited {child.returncode}: "
                + (" | ".join(lines[-3:]) or "no output")
            )
        os.replace(built, out)
    except TimeoutError:
        raise TimeoutError(
            f"query projection build took longer than {BUILD_TIMEOUT_S:g} s"
        ) from None
    finally:
        # Timed out, or memtap stopping while it builds: the child goes with the wait.
        if child.returncode is None:
            child.kill()
            await child.wait()
        shutil.rmtree(work, ignore_errors=True)
    log.info(
        "embeddings.query_projection_built",
        extra={
            "fields": {
                "path": str(out),
                "bytes": out.stat().st_size,
                "seconds": round(time.monotonic() - started, 1),
            }
        },
    )


def _child_main(argv: list[str]) -> int:
    from memtap.engine.embeddings.onnx import open_onnx

    model, tokenizer, integer, graph_cache, signature, out = argv
    os.nice(19)  # the proxy's requests first
    embedder = asyncio.run(
        open_onnx(
            model or None,
            tokenizer or None,
            threads=1,
            integer_matmul=integer == "1",
            graph_cache=Path(graph_cache) if graph_cache else None,
        )
    )
    if embedder.signature != signature:
        print(
            f"the child opened {embedder.signature}, not {signature}", file=sys.stderr
        )
        return 3
    build_sync(embedder, Path(out))
    return 0


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))
