"""When the keyword leg answers a question on its own, so that hybrid retrieval may skip the
query embedding and the vector search (`memory.vector_skip_coverage`).

A query embedding is the most expensive step of a retrieval (a model run: ~5 ms of CPU and
more per token with the packaged MiniLM), and what it adds is recall for questions worded
differently from what was stored. When the best keyword hits already contain every word of
the question that can carry a topic (stop words and generic verbs aside: `coincidence.py`)
the question is worded like the memory, and meaning has little left to find. Coverage is
that share, for the best of the top `TOP_HITS` keyword hits (one hit has to contain the
words, not several hits one each: "my favourite drink in the morning" is not answered by
"Drinks coffee at night" beside "Runs in the morning"). Questions with fewer than
`MIN_TOPIC_WORDS` such words are too thin to judge and always get the vector leg.

Measured with `scripts/eval_recall.py` and `scripts/eval_conversations.py` (docs/memory.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from memtap.engine.retrieval.coincidence import topic_stems, word_stems

TOP_HITS = 3
"""Keyword hits (best first) looked at: a question's answer is among the first few."""
MIN_TOPIC_WORDS = 2
"""Topic words a question needs before keywords alone may answer it."""


def keyword_coverage(query: str, contents: Sequence[str]) -> float:
    """The largest share of `query`'s topic words that one of the first `TOP_HITS` of
    `contents` (keyword hits, best first) contains; 0.0 for a question too thin to judge."""
    asked = topic_stems(query)
    if len(asked) < MIN_TOPIC_WORDS:
        return 0.0
    best = 0
    for content in contents[:TOP_HITS]:
        best = max(best, len(asked & word_stems(content)))
        if best == len(asked):
            break
    return best / len(asked)
