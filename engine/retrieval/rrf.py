"""Reciprocal Rank Fusion (Cormack et al.): score(d) = sum over rankings of 1 / (k + rank)."""

from __future__ import annotations

from collections.abc import Sequence


def rrf_fuse(rankings: Sequence[Sequence[str]], k: int = 60) -> list[tuple[str, float]]:
    """Fuse rankings of ids (best first, rank 1 = first) into one list, best first. Ties keep
    the order of first appearance across the rankings (earlier ranking, earlier position)."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        seen: set[str] = set()
        for position, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + position)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
