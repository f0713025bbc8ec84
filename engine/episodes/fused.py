"""One ranking over facts and episode snippets, one token budget.

Reciprocal rank fusion of the fact ranking (retrieval's own, already fused keyword/vector)
and the snippet ranking: the k-th fact and the k-th snippet score the same, and the fact
comes first on a tie — so facts lead when they answer, snippets fill the rest. Then one walk
of `max_tokens` in that order: at most `max_items` facts and `episodes.max_snippets`
snippets; a hit that does not fit is skipped (a smaller one further down may). A snippet
that says nothing a fact of the same turn does not already say ("I prefer green tea." beside
"Prefers green tea", both from one request) is dropped: the fact is the shorter line. The
other way round, a fact that fills no slot and that a taken snippet of its own turn shows
whole (`_said_by_a_snippet`) is left out and the walk runs again, so its tokens go to more
evidence (at most three walks: leaving a fact out can let in a snippet that shows another).
Each hit keeps the score of its own ranking (what retrieve-preview shows); the order is the
fused one.
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
    order = [name for name, _score in rrf_fuse([fact_names, episode_names], cfg.rrf_k)]
    left_out: set[str] = set()
    for _ in range(3):
        taken, snippets_taken = _walk(
            order, by_name, left_out, fact_words, budget, max_facts, max_snippets
        )
        repeated = _said_by_a_snippet(taken) - left_out
        if not repeated:
            break
        left_out |= repeated
    resolution["episodes"]["injected"] = snippets_taken
    return Retrieval(tuple(taken), resolution)


def _walk(
    order: list[str],
    by_name: dict[str, Hit],
    left_out: set[str],
    fact_words: dict[str, set[str]],
    budget: int,
    max_facts: int,
    max_snippets: int,
) -> tuple[list[Hit], int]:
    """The hits of `order` the budget and the counts take, in order (`left_out` skipped),
    and how many of them are snippets."""
    taken: list[Hit] = []
    used = facts_taken = snippets_taken = 0
    for name in order:
        if name in left_out:
            continue
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
    return taken, snippets_taken


def _said_by_a_snippet(taken: list[Hit]) -> set[str]:
    """The taken facts that a taken snippet of their own turn says whole: a fact that fills
    no slot (a quoted clause, an event) beside the message it was read from, or that
    message's partner, is the same evidence twice. A fact that fills a slot (diet, city,
    editor) stays: it is the profile's current value, which the message may state
    beside the older one ("Helix over Vim")."""
    said: dict[str, set[str]] = {}
    for hit in taken:
        if hit.kind != "episode":
            continue
        episode = hit.memory.metadata.get("episode", {})
        partner = episode.get("partner") or {}
        line = topical_stems(hit.memory.content) | topical_stems(
            partner.get("text", "")
        )
        for request_id in (episode.get("request_id"), partner.get("request_id")):
            if isinstance(request_id, str):
                said.setdefault(request_id, set()).update(line)
    names: set[str] = set()
    for hit in taken:
        meta = hit.memory.metadata
        request_id = meta.get("request_id")
        if (
            hit.kind == "episode"
            or not isinstance(request_id, str)
            or request_id not in said
            or meta.get("slot", "") is not None
        ):
            continue
        if topical_stems(hit.memory.content) <= said[request_id]:
            names.add("f:" + hit.memory.id)
    return names


def _restates_a_fact(hit: Hit, fact_words: dict[str, set[str]]) -> bool:
    source = hit.memory.metadata.get("episode", {}).get("request_id")
    covered = fact_words.get(source) if isinstance(source, str) else None
    return covered is not None and topical_stems(hit.memory.content) <= covered
