"""One ranking over facts and episode snippets, one token budget.

Reciprocal rank fusion of the fact ranking (retrieval's own, already fused keyword/vector)
and the snippet ranking: the k-th fact and the k-th snippet score the same, and the fact
comes first on a tie — so facts lead when they answer, snippets fill the rest. Then one walk
of `max_tokens` in that order: at most `max_items` facts and `episodes.max_snippets`
snippets; a hit that does not fit is skipped (a smaller one further down may). A snippet
that says nothing a fact of the same turn does not already say ("I prefer green tea." beside
"Prefers green tea", both from one request) is dropped: the fact is the shorter line. The
other way round, a fact that fills no slot is replaced by a snippet of its own turn that
shows it whole: taking the snippet takes the fact out (its tokens count for the snippet and
what follows), and such a fact further down is skipped. A fact is only ever taken out by a
snippet that is taken, so no evidence is lost. Each hit keeps the score of its own ranking
(what retrieve-preview shows); the order is the fused one.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet

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
    shown: dict[str, set[str]] = {}  # request id -> the words its taken lines show
    used = facts_taken = snippets_taken = 0
    for name, _score in rrf_fuse([fact_names, episode_names], cfg.rrf_k):
        hit = by_name[name]
        is_episode = hit.kind == "episode"
        if (snippets_taken if is_episode else facts_taken) >= (
            max_snippets if is_episode else max_facts
        ):
            continue
        if is_episode and _restates_a_fact(hit, fact_words):
            continue
        if not is_episode and _shows(shown, hit):
            continue
        repeated = _shown_by(hit, taken) if is_episode else []
        freed = sum(fact.tokens for fact in repeated)
        if used - freed + hit.tokens > budget:
            continue
        for fact in repeated:
            taken.remove(fact)
        used -= freed
        facts_taken -= len(repeated)
        taken.append(hit)
        used += hit.tokens
        if is_episode:
            snippets_taken += 1
            for request_id, words in _line_words(hit).items():
                shown.setdefault(request_id, set()).update(words)
        else:
            facts_taken += 1
    resolution["episodes"]["injected"] = snippets_taken
    return Retrieval(tuple(taken), resolution)


def _line_words(snippet: Hit) -> dict[str, frozenset[str]]:
    """The words a snippet's line shows of what the user said, under the request it was
    said in: its text when the user said it, its partner's when the partner is the user's.
    What the assistant said shows no fact of the user's: its question ("Did you go to the
    concert?") does not say the answer ("Did not go to the concert")."""
    episode = snippet.memory.metadata.get("episode", {})
    partner = episode.get("partner") or {}
    words: dict[str, frozenset[str]] = {}
    for role, request_id, text in (
        (episode.get("role"), episode.get("request_id"), snippet.memory.content),
        (partner.get("role"), partner.get("request_id"), partner.get("text", "")),
    ):
        if role == "user" and isinstance(request_id, str):
            words[request_id] = words.get(request_id, frozenset()) | topical_stems(text)
    return words


def _may_give_way(fact: Hit) -> str | None:
    """The request a fact was read from, when the fact fills no slot (a quoted clause, an
    event): beside the message it was read from it is the same evidence twice. A fact that
    fills a slot (diet, city, editor) never gives way: it is the profile's current value,
    which the message may state beside the older one ("Helix over Vim"). Facts written by
    the admin API or an import name no request."""
    meta = fact.memory.metadata
    request_id = meta.get("request_id")
    if (
        fact.kind == "episode"
        or meta.get("slot", "") is not None
        or meta.get("role", "user") != "user"
        or not topical_stems(fact.memory.content)
    ):
        return None
    return request_id if isinstance(request_id, str) else None


def _shows(words: Mapping[str, AbstractSet[str]], fact: Hit) -> bool:
    """Whether `words` (by request id) show every topical word of a fact that may give way,
    under the request it was read from."""
    request_id = _may_give_way(fact)
    return (
        request_id is not None
        and request_id in words
        and topical_stems(fact.memory.content) <= words[request_id]
    )


def _shown_by(snippet: Hit, taken: list[Hit]) -> list[Hit]:
    """The taken facts that `snippet`'s line shows whole, which it replaces."""
    line = _line_words(snippet)
    return [hit for hit in taken if _shows(line, hit)]


def _restates_a_fact(hit: Hit, fact_words: dict[str, set[str]]) -> bool:
    source = hit.memory.metadata.get("episode", {}).get("request_id")
    covered = fact_words.get(source) if isinstance(source, str) else None
    return covered is not None and topical_stems(hit.memory.content) <= covered
