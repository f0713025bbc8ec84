"""memtap's sparse keyword vector: hashed word tokens with BM25-style term-frequency weights.

Qdrant's sparse vectors score `sum(query_weight * doc_weight)` over shared indices; with the
collection's `modifier=idf` Qdrant multiplies each term by its IDF over the collection, so the
document side only carries the BM25 term-frequency saturation and the query side a 1.0 per
distinct term. Together that is BM25 computed inside Qdrant.

Tokens are normalised words (NFKC, casefolded, a light English suffix strip, the keyword
tier's stopwords dropped so both stores ignore the same words; CJK runs become character
bigrams because they have no spaces) hashed into a fixed 31-bit id space, so no vocabulary has to be shared between replicas: every memtap process
computes the same ids for the same text. Collisions in 2^31 ids are negligible for memories.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from memtap.engine.stopwords import STOPWORDS
from memtap.engine.text.stemming import sparse_stem

ID_SPACE = 1 << 31
"""Qdrant sparse indices are u32; 31 bits keeps them positive in every client."""

K1 = 1.2
B = 0.75
AVG_DOC_TOKENS = 12.0
"""Memories are one sentence; a fixed average keeps weights independent of the collection."""

MAX_INPUT_CHARS = 64 * 1024

_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+"
)


@dataclass(frozen=True, slots=True)
class SparseVector:
    """Sorted, distinct `indices` with one weight each (what Qdrant's SparseVector takes)."""

    indices: tuple[int, ...]
    values: tuple[float, ...]

    def __len__(self) -> int:
        return len(self.indices)


def tokenize(text: str) -> list[str]:
    """Normalised tokens of `text`, in order, stopwords removed."""
    normalised = unicodedata.normalize("NFKC", text[-MAX_INPUT_CHARS:]).casefold()
    tokens: list[str] = []
    for match in _WORD.finditer(normalised):
        word = match.group(0)
        cjk_runs = _CJK.findall(word)
        if cjk_runs:
            for run in cjk_runs:
                tokens.extend(run[i : i + 2] for i in range(max(1, len(run) - 1)))
            word = _CJK.sub(" ", word)
            for rest in word.split():
                if rest not in STOPWORDS:
                    tokens.append(sparse_stem(rest))
            continue
        if (
            word in STOPWORDS
            or word.replace("_", "") == ""
            or (len(word) == 1 and word.isascii() and word.isalpha())
        ):
            continue
        tokens.append(sparse_stem(word))
    return tokens


def token_id(token: str) -> int:
    """Stable id of a token in [0, 2^31): the same in every process and Python version."""
    digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") % ID_SPACE


def _collect(weights: dict[int, float]) -> SparseVector:
    ordered = sorted(weights.items())
    return SparseVector(tuple(i for i, _ in ordered), tuple(w for _, w in ordered))


def document_vector(text: str) -> SparseVector:
    """Sparse vector of a stored memory: BM25 term-frequency saturation per distinct token."""
    tokens = tokenize(text)
    if not tokens:
        return SparseVector((), ())
    length_norm = 1.0 - B + B * (len(tokens) / AVG_DOC_TOKENS)
    weights: dict[int, float] = {}
    for token, tf in Counter(tokens).items():
        idx = token_id(token)
        weights[idx] = weights.get(idx, 0.0) + tf * (K1 + 1.0) / (tf + K1 * length_norm)
    return _collect(weights)


def query_vector(text: str) -> SparseVector:
    """Sparse vector of a query: 1.0 per distinct token (IDF is applied by Qdrant)."""
    return _collect({token_id(token): 1.0 for token in tokenize(text)})
