"""memtap's sparse keyword vector (engine/qdrant/sparse.py): what replicas must agree on."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtap.engine.qdrant.sparse import (
    ID_SPACE,
    document_vector,
    query_vector,
    token_id,
    tokenize,
)


def test_tokens_are_normalised_and_stopwords_dropped() -> None:
    assert tokenize("I really prefer PostgreSQL databases for side-projects!") == [
        "postgresql",
        "database",
        "side",
        "project",
    ]
    assert tokenize("Running tests, stopped builds") == ["run", "test", "stop", "build"]
    assert tokenize("the and of") == []
    assert tokenize("Ｃａｆé CAFÉ") == ["café", "café"], "NFKC + casefold"


def test_cjk_runs_become_bigrams() -> None:
    assert tokenize("我喜欢猫") == ["我喜", "喜欢", "欢猫"]
    assert tokenize("猫") == ["猫"]


def test_token_ids_are_stable_across_processes_and_versions() -> None:
    # Fixed values: a change here would silently break every stored sparse vector.
    assert token_id("postgres") == 338530073
    assert token_id("café") == 1034057559


def test_document_weights_saturate_and_query_weights_are_one() -> None:
    once = document_vector("kubernetes cluster")
    twice = document_vector("kubernetes kubernetes cluster")
    k8s = token_id(tokenize("kubernetes")[0])
    weight = dict(zip(once.indices, once.values, strict=True))[k8s]
    weight2 = dict(zip(twice.indices, twice.values, strict=True))[k8s]
    assert weight < weight2 < 2 * weight, (
        "term frequency helps, with diminishing returns"
    )
    assert list(once.indices) == sorted(once.indices)
    query = query_vector("kubernetes kubernetes?")
    assert query.indices == (k8s,) and query.values == (1.0,)
    assert len(query_vector("the of and")) == 0 and len(document_vector("")) == 0


@given(st.text(max_size=300))
@pytest.mark.slow
def test_vectors_are_valid_for_any_text(text: str) -> None:
    for vector in (document_vector(text), query_vector(text)):
        assert len(vector.indices) == len(set(vector.indices)) == len(vector.values)
        assert all(0 <= i < ID_SPACE for i in vector.indices)
        assert all(v > 0 for v in vector.values)
