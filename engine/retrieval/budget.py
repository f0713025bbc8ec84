"""The token budget walk: keep ranked candidates while they fit."""

from __future__ import annotations

from collections.abc import Sequence

from memtap.engine.types import Hit

MIN_TOKENS, MAX_TOKENS = 1, 16000


def clamp_budget(max_tokens: int) -> int:
    return max(MIN_TOKENS, min(MAX_TOKENS, int(max_tokens)))


def walk(ranked: Sequence[Hit], max_tokens: int, max_items: int) -> list[Hit]:
    """Take hits in rank order while the running total stays within `max_tokens`; a hit that
    does not fit is skipped (a smaller, lower-ranked one may still fit). The budget is a hard
    cap: nothing is returned when even the best hit is larger than the whole budget."""
    budget = clamp_budget(max_tokens)
    taken: list[Hit] = []
    used = 0
    for hit in ranked:
        if len(taken) >= max_items:
            break
        if used + hit.tokens > budget:
            continue
        taken.append(hit)
        used += hit.tokens
    return taken
