"""Reciprocal rank fusion as a pure function, with hand-computed scores."""

from __future__ import annotations

import pytest

from memtap.engine.retrieval.hybrid import fuse
from memtap.engine.retrieval.rrf import rrf_fuse


def test_two_rankings_k60() -> None:
    # keyword: a, b, c   vector: c, a, d
    fused = dict(rrf_fuse([["a", "b", "c"], ["c", "a", "d"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)  # 0.032522...
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)  # 0.032266...
    assert fused["b"] == pytest.approx(1 / 62)
    assert fused["d"] == pytest.approx(1 / 63)
    assert [i for i, _ in rrf_fuse([["a", "b", "c"], ["c", "a", "d"]], k=60)] == [
        "a",
        "c",
        "b",
        "d",
    ]


def test_small_k_rewards_the_top_of_each_list() -> None:
    # k=1: y, second in both lists (1/3 + 1/3), beats x and z, each first in one list (1/2).
    ranked = rrf_fuse([["x", "y"], ["z", "y"]], k=1)
    assert ranked[0] == ("y", pytest.approx(2 / 3))
    assert [i for i, _ in ranked[1:]] == [
        "x",
        "z",
    ]  # tie 1/2 each: first appearance wins


def test_single_ranking_keeps_its_order_and_duplicates_count_once() -> None:
    assert [i for i, _ in rrf_fuse([["p", "q", "p", "r"]], k=60)] == ["p", "q", "r"]
    assert dict(rrf_fuse([["p", "q", "p"]], k=60))["q"] == pytest.approx(1 / 62)


def test_empty_rankings_are_ignored() -> None:
    assert fuse([[], ["a"]], 60) == [("a", pytest.approx(1 / 61))]
    assert fuse([[], []], 60) == []
