"""The relevance floor of vector hits, without starving short facts.

A hit is relevant when its cosine reaches `memory.min_similarity`. A short fact ("Prefers
2-space YAML", "Uses Terraform") has little text to be similar with, so its cosine to a
question clearly about it stays lower than a sentence's would ("How should I indent the Helm
chart?" → 0.34; "How should I provision the new cloud servers?" → "Uses Terraform" 0.28).
So when no hit reaches the floor, the best one is still relevant if it is short, not far
below the floor, and clearly ahead of every other memory: a question about nothing stored
leaves every memory about equally far (on the recall sets the best unrelated hit leads the
next by at most 0.05 with onnx), a question about one fact singles it out.

Calibrated on `tests/datasets/recall_set.json` and `recall_short_present.json`
(`scripts/eval_recall.py`); docs/memory.md says how.
"""

from __future__ import annotations

from collections.abc import Sequence

from memtap.engine.types import Memory

SHORT_FACT_WORDS = 6
"""A fact of at most this many words is short."""
SHORT_FLOOR = 0.8
"""A short clear winner needs at least this share of `min_similarity` (0.24 at 0.30)."""
LEAD = 0.08
"""…and this much more cosine than the next-best memory."""


def vector_floor(
    found: Sequence[tuple[Memory, float]], min_similarity: float
) -> list[tuple[Memory, float]]:
    """The hits of `found` (best first) that pass the relevance floor."""
    good = [(m, sim) for m, sim in found if sim >= min_similarity]
    if good or not found:
        return good
    best, sim = found[0]
    runner_up = found[1][1] if len(found) > 1 else 0.0
    if (
        is_short(best.content)
        and sim >= SHORT_FLOOR * min_similarity
        and sim - runner_up >= LEAD
    ):
        return [(best, sim)]
    return []


def is_short(content: str) -> bool:
    return len(content.split()) <= SHORT_FACT_WORDS
