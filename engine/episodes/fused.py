"""One ranking over facts and episode snippets, one token budget.

Reciprocal rank fusion of the fact ranking (retrieval's own, already fused keyword/vector)
and the snippet ranking: the k-th fact and the k-th snippet score the same, and the fact
comes first on a tie — so facts lead when they answer, snippets fill the rest. Then one walk
of `max_tokens` in that order: at most `max_items` facts and `episodes.max_snippets`
snippets; a hit that does not fit is skipped (a smaller one further down may). A snippet
that says nothing a fact of the same turn does not already say ("I prefer green tea." beside
"Prefers green tea", both from one request) is dropped: the fact is the shorter line. Each hit
keeps the score of its own ranking (what retrieve-preview shows); the order is the fused one.
"""

from __future__ import annotations

from memtap.config.schema import MemoryConfig
from memtap.engine.episodes.chunks import topical_stems
from memtap.engine.episodes.recall import EpisodeRecall
from memtap.engine.retrieval.budget import clamp_budget
from memtap.engine.retrieval.rrf import rrf_fuse
from memtap.engine.types import Hit, Retrieval, RetrievalRequest


def fuse_with_episodes(
    facts: Retrieval, episodes: EpisodeRecall, req: RetrievalRequest, cfg: MemoryConfig
) -> Retrieval:
    resolution = dict(facts.resolution)
    resolution["episodes"] = {
        **episodes.resolution,
        "candidates": len(episodes.hits),
    }
    if not episodes.hits:
        return Retrieval(facts.hits, resolution)
    by_name: dict[str, Hit] = {}
    fact_names, episode_names = [], []
    for hit in facts.hits:
        by_name["f:" + hit.memory.id] = hit
        fact_names.append("f:" + hit.memory.id)
    for hit in episodes.hits:
        by_name["e:" + hit.memory.id] = hit
        episode_names.append("e:" + hit.memory.id)
    fact_words: dict[str, set[str]] = {}
    for hit in facts.hits:
        source = hit.memory.metadata.get("request_id")
        if isinstance(source, str):
            fact_words.setdefault(source, set()).update(
                topical_stems(hit.memory.content)
            )
    budget = clamp_budget(
        req.max_tokens if req.max_tokens is not None else cfg.max_tokens
    )
    max_facts = req.limit if req.limit is not None else cfg.max_items
    max_snippets = cfg.episodes.max_snippets
    taken: list[Hit] = []
    used = facts_taken = snippets_taken = 0
    for name, _score in rrf_fuse([fact_names, episode_names], cfg.rrf_k):
        hit = by_name[name]
        is_episode = hit.kind == "episode"
        if (snippets_taken if is_episode else facts_taken) >= (
            max_snippets if is_episode else max_facts
        ):
            continue
        if used + hit.tokens > budget:
            continue
        if is_episode and _restates_a_fact(hit, fact_words):
            continue
        taken.append(hit)
        used += hit.tokens
        if is_episode:
            snippets_taken += 1
        else:
            facts_taken += 1
    resolution["episodes"]["injected"] = snippets_taken
    return Retrieval(tuple(taken), resolution)


def _restates_a_fact(hit: Hit, fact_words: dict[str, set[str]]) -> bool:
    source = hit.memory.metadata.get("episode", {}).get("request_id")
    covered = fact_words.get(source) if isinstance(source, str) else None
    return covered is not None and topical_stems(hit.memory.content) <= covered
