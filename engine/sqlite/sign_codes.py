"""A binary first pass for cosine top-k over many cached rows, rescored exactly.

Why: at 100k rows of 384 dims an exact mat-vec reads 75-150 MB per query and is bound by
memory bandwidth (7 ms on a quiet core, 18 ms and more on a busy one). Each row also gets
`BITS_PER_DIM` bits a dimension (SimHash: the sign of each coordinate, and of one fixed
random projection per coordinate), 96 bytes a row at 384 dims. A query ranks every row by
the Hamming distance between their bits (XOR and popcount over a few words a row, column by
column: about 1 ms at 100k), keeps the closest `candidate_count(n, k)` rows and rescores
those from the rows themselves, so the scores returned are exact and only the choice of
candidates is approximate. `scripts/bench_episodes.py --recall` measures how often the exact
top k survives that choice on real embeddings (docs/performance.md).

Below `EXACT_ROWS` rows the mat-vec is cheap and exact search is used.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
Rows = npt.NDArray[Any]
"""float16 or float32 rows; rescoring reads them as float32."""
Indices = npt.NDArray[np.int64]

BITS_PER_DIM = 2
EXACT_ROWS = 10_000
"""Below this many rows the exact mat-vec (about 1 ms at 10k) is used."""
CANDIDATE_SHARE = 0.02
"""Rows rescored, as a share of all rows (at least `CANDIDATE_PER_K` per row wanted)."""
CANDIDATE_PER_K = 16
_ENCODE_CHUNK = 4096
"""Rows projected at a time: the projection's temporary stays a few MB."""


@functools.cache
def projection(dim: int) -> F32:
    # Seeded by the width: the same bits in every process (so codes could be kept on disk).
    rng = np.random.default_rng(0x5EED + dim)
    return rng.standard_normal((dim, dim * (BITS_PER_DIM - 1))).astype(np.float32)


def words_for(dim: int) -> int:
    return -(-dim * BITS_PER_DIM // 64)


def encode(rows: Rows) -> npt.NDArray[np.uint64]:
    """The bits of each row, as (len(rows), words) uint64."""
    n, dim = rows.shape
    words = words_for(dim)
    out = np.zeros((n, words * 8), dtype=np.uint8)
    extra = projection(dim)
    for start in range(0, n, _ENCODE_CHUNK):
        part = np.asarray(rows[start : start + _ENCODE_CHUNK], dtype=np.float32)
        bits = np.concatenate([part > 0, (part @ extra) > 0], axis=1)
        packed = np.packbits(bits, axis=1)
        out[start : start + len(part), : packed.shape[1]] = packed
    return out.view(np.uint64).reshape(n, words)


class SignCodes:
    """The codes of rows 0..n-1 of a growable row buffer, stored word by word (column-major)
    so the distance pass reads each word's column contiguously."""

    def __init__(self, dim: int, capacity: int) -> None:
        self.dim = dim
        self.words = words_for(dim)
        self._columns = np.zeros((self.words, max(capacity, 1)), dtype=np.uint64)

    @classmethod
    def of(cls, rows: Rows, capacity: int | None = None) -> SignCodes:
        codes = cls(rows.shape[1], max(capacity or 0, len(rows)))
        codes.set(0, rows)
        return codes

    @property
    def capacity(self) -> int:
        return int(self._columns.shape[1])

    @property
    def nbytes(self) -> int:
        return int(self._columns.nbytes)

    def grow(self, capacity: int) -> None:
        if capacity <= self.capacity:
            return
        grown = np.zeros((self.words, capacity), dtype=np.uint64)
        grown[:, : self.capacity] = self._columns
        self._columns = grown

    def set(self, start: int, rows: Rows) -> None:
        """Codes for rows written at `start`.. (the buffer grows to hold them)."""
        if not len(rows):
            return
        if start + len(rows) > self.capacity:
            self.grow(max(start + len(rows), self.capacity + self.capacity // 4))
        self._columns[:, start : start + len(rows)] = encode(rows).T

    def move(self, src: int, dst: int) -> None:
        self._columns[:, dst] = self._columns[:, src]

    def nearest(self, query: F32, n: int, count: int) -> Indices:
        """At least `count` of rows 0..n-1 closest in Hamming distance to `query` (ties at
        the cut are all kept), in no order."""
        if count >= n:
            return np.arange(n, dtype=np.int64)
        mine = encode(query.reshape(1, -1))[0]
        # One word at a time into reused buffers: a 2-d XOR and sum makes word-sized
        # temporaries and took twice as long.
        word_xor = np.empty(n, dtype=np.uint64)
        ones = np.empty(n, dtype=np.uint8)
        distance = np.zeros(n, dtype=np.uint16)
        for word in range(self.words):
            np.bitwise_xor(self._columns[word, :n], mine[word], out=word_xor)
            np.bitwise_count(word_xor, out=ones)
            np.add(distance, ones, out=distance)
        # A counting cut, not a partition: distances are small integers.
        cumulative = np.cumsum(np.bincount(distance, minlength=self.words * 64 + 1))
        cut = int(np.searchsorted(cumulative, count))
        return np.flatnonzero(distance <= cut).astype(np.int64)


def candidate_count(n: int, k: int) -> int:
    return max(k * CANDIDATE_PER_K, int(n * CANDIDATE_SHARE))


def top_k(
    rows: Rows, n: int, query: F32, k: int, codes: SignCodes | None
) -> tuple[Indices, F32]:
    """The `k` best of rows 0..n-1 by dot product with `query`, best first, with their exact
    scores: a first pass over `codes` when there are many rows, else every row."""
    if n == 0 or k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    if codes is not None and n >= EXACT_ROWS and candidate_count(n, k) < n:
        picked = codes.nearest(query, n, candidate_count(n, k))
        # einsum, not `@`: BLAS gemv is multi-threaded and fights onnxruntime's threads.
        scores = np.einsum("ij,j->i", np.asarray(rows[picked], dtype=np.float32), query)
    else:
        picked = np.arange(n, dtype=np.int64)
        scores = np.einsum("ij,j->i", rows[:n].astype(np.float32, copy=False), query)
    if k < len(scores):
        best = np.argpartition(scores, len(scores) - k)[len(scores) - k :]
    else:
        best = np.arange(len(scores))
    best = best[np.argsort(-scores[best], kind="stable")]
    return picked[best], scores[best].astype(np.float32)
