"""Episode snippets for one retrieval: the keyword and vector arms over sentence windows,
the relevance floor, one snippet per episode trimmed to the sentences that matched, each
with the message that completes it.

Ranking (chosen on the LoCoMo dev split, `scripts/eval_locomo.py`, and checked on the
conversation sets): the keyword arm's matches are scored again by BM25 with the owner's own
word statistics (`lexical.py`: a name in every greeting weighs little); a window's score is
its keyword score plus `VECTOR_WEIGHT` times its cosine above the floor, each scaled to the
best of its arm; the assistant's side counts `ASSISTANT_WEIGHT`. The budget walk
(`fused.py`) then fills `memory.max_tokens` in that order, and `with_partners` gives each
snippet the neighbouring message that completes it (a question its answer, an answer its
question), counted in its tokens.

The floor is the snippets' own (`memory.episodes`), measured on the conversation set
(`scripts/eval_conversations.py`): a window is a few sentences of free speech, not a
one-line fact, and windows that hold an answer had a median cosine of 0.42 to the question
(a quarter below 0.29, a tenth below 0.19) while nine in ten of the others stayed below
0.28 (all-MiniLM-L6-v2). So
- a match by meaning alone needs cosine >= `episodes.min_similarity` (0.20: it keeps
  about four in five answer windows; 0.25 kept three in four but left half the budget
  unused where the words were said in another language than the question, or the
  question paraphrases them: the blind personas used 369 of 600 tokens and found 0.653,
  at 0.20 they use 477 and find 0.705; the walk still fills by rank, so the windows
  nearer the floor only take room the better ones left);
- a keyword match needs a bm25 relevance of at least `KEYWORD_SHARE` of the best window's
  (a window sharing only a common word with the question is noise beside one sharing its
  rare words) and, when the vector arm answered, to be at least loosely about the same
  thing: cosine >= half of `min_similarity` ("ok back to work" shares "work" with "what do
  I work on?" and nothing else);
- one snippet per episode and per distinct text (the same "thanks!" in ten sessions is one);
- never the request's own turn: a window of an episode whose text is the query (a retried
  request, the current message already stored) is skipped, and neither is an earlier
  asking of the same question (a snippet made only of questions that adds at most one
  topical word to the query): what the user asked is not what they told; nor a snippet
  whose every sentence is in the request already (text sent with every message).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, TypeVar

from memtap.config.schema import MemoryConfig
from memtap.engine.clock import cutoff_for, iso
from memtap.engine.episode_types import ChunkHit, VectorWindows
from memtap.engine.episode_types import normalise_text as _normalise_text
from memtap.engine.episodes import chunks, lexical, partners, render
from memtap.engine.episodes.chunks import focus, sentences, topical_stems
from memtap.engine.episodes.lexical import owner_scores
from memtap.engine.episodes.partners import is_question, snippet_tokens, with_partners
from memtap.engine.fallbacks import NoVectors, describe_error
from memtap.engine.memory_rules import Live
from memtap.engine.ports import EpisodeStore
from memtap.engine.retrieval.deadline import (
    RetrievalClock,
    episodes_deadline_s,
    vector_deadline_s,
)
from memtap.engine.retrieval.gate import VectorGate
from memtap.engine.text.tokens import chars_within
from memtap.engine.types import Hit, Memory, RetrievalRequest, Tier, reads_vectors

KEYWORD_SHARE = 0.35
"""A keyword window's bm25 relevance, as a share of the best one's, below which it is noise."""
POOL_FACTOR = 2
"""Windows fetched by keyword, per snippet wanted (several windows can be of one episode)."""
VECTOR_DEPTH = 4
"""The vector arm ranks this many times deeper than it reads, so keyword windows get their
cosine and rank by meaning too (`VectorWindows.ranked`)."""
CANDIDATES_PER_SNIPPET = 2
"""Snippets made per `max_snippets` slot, best fused first: the budget walk skips some (too
long, restating a fact) but never needed more, and making one (trimming, the checks) is the
arms' main cost on the event loop (~70 us each: 180 windows took 12 ms)."""
VECTOR_WEIGHT = 1.0
"""What meaning adds to a window's score, beside its keyword score (both scaled to the best
of their arm, the cosine from the floor up): equal weight. Swept on the LoCoMo dev split
(`scripts/eval_locomo.py`, one data dir) once snippets were read in their whole message:
0.5 / 0.8 / 1.0 / 1.2 / 1.6 / 2.5 gave 0.670 / 0.675 / 0.670 / 0.683 / 0.673 / 0.652 live and
0.868 / 0.873 / 0.875 / 0.878 / 0.873 / 0.855 imported (open-domain 0.286 at 0.5, 0.333 from
0.8 to 1.2, as plain BM25); the multilingual set (`tests/datasets/locomo_multilingual`) 0.710
from 0.5 to 1.6, 0.680 at 2.5; the conversation sets the same from 0.5 to 1.0. A flat top:
the middle of it, not its noisiest point."""
ASSISTANT_WEIGHT = 0.3
"""The assistant's side ranks lower: the user's own words say who they are; what the
assistant said comes up when it clearly answers (a recipe asked back for) and, above all,
beside the user's message it completes. On the dev split 0.15 / 0.3 / 0.5 / 0.7 gave 0.665 /
0.665 / 0.649 / 0.652 live (0.862 / 0.862 / 0.855 imported), on the blind personas 0.653 /
0.653 / 0.642 live; the assistant questions there were found alike (9 of 15)."""
RESCORE_DEPTH = 3
"""Keyword matches read per window kept: the text index ranks by every owner's statistics,
the owner's own may reorder them (`lexical.py`). 2 instead (64 windows read for 16 snippets,
not 96) cost LoCoMo dev a point (0.660 / 0.865 against 0.670 / 0.878 on one data dir) for
a fraction of a millisecond; `max_snippets: 10` the same."""

Found = TypeVar("Found")

normalise_text = lru_cache(maxsize=1 << 13)(_normalise_text)
"""Cached: ~300 texts a retrieval (each window read, its episode, its snippet), mostly
the owner's same ones query after query."""


@dataclass(slots=True)
class EpisodeRecall:
    hits: list[Hit] = field(default_factory=list)
    """Best first, one per episode, trimmed, with their tokens (date prefix included)."""
    resolution: dict[str, Any] = field(default_factory=dict)


def episode_live(req: RetrievalRequest, cfg: MemoryConfig) -> Live:
    scope = req.scope or cfg.scope
    now = datetime.now(UTC)
    days = cfg.episodes.retention_days or cfg.retention_days
    return Live(
        now=iso(now),
        cutoff=cutoff_for(days, now),
        owner=None if scope == "global" else req.owner,
        session=req.session,
        match_session=scope == "session",
    )


async def recall_episodes(
    store: EpisodeStore,
    cfg: MemoryConfig,
    req: RetrievalRequest,
    clock: RetrievalClock | None = None,
    gate: VectorGate | None = None,
) -> EpisodeRecall:
    """Never raises for an arm that fails: the failure is in `resolution["fallbacks"]`.
    The vector arm runs when `gate` says so (None: always)."""
    out = EpisodeRecall(resolution={"tiers": [], "fallbacks": [], "timings_ms": {}})
    episodes = cfg.episodes
    strategy = req.strategy or cfg.strategy
    if not episodes.enabled or episodes.max_snippets == 0 or strategy == "recent":
        return out
    live = episode_live(req, cfg)
    pool = pool_size(cfg)
    started = time.perf_counter()
    keyword_task = (
        asyncio.ensure_future(_keyword_arm(store, req.query, live, pool))
        if strategy in ("keyword", "hybrid", "semantic")
        else None
    )
    vector_task = (
        asyncio.ensure_future(_vector_arm(store, cfg, req, live, pool, clock, gate))
        if reads_vectors(strategy)
        else None
    )
    try:
        read = await _arm(keyword_task, "keyword", out.resolution) or []
        found = await _arm(vector_task, "vector", out.resolution)
    except BaseException:
        # Cancelled (the retrieval's time limit) while the keyword arm ran: the vector arm
        # was not awaited yet, so it went on embedding the query of a request that had
        # gone upstream already (under overload, model time taken from live requests), and
        # its timeout was logged as "Task exception was never retrieved".
        abandon(keyword_task, vector_task)
        raise
    if vector_task is not None and found is None and gate is not None and gate.skipped:
        out.resolution["vector_skipped"] = gate.skipped
    out.resolution["timings_ms"]["episodes"] = round(
        (time.perf_counter() - started) * 1000, 3
    )
    asked, query_stems = normalise_text(req.query), topical_stems(req.query)

    def says_something(hit: ChunkHit) -> bool:
        # What the user asked is not what they told; what the assistant asked them is
        # the question their next message answers (it comes with it: `with_partners`).
        if hit.episode.role == "assistant":
            return normalise_text(hit.episode.content) != asked
        return normalise_text(hit.episode.content) != asked and not _adds_nothing(
            hit.text, asked, query_stems
        )

    # Before the floor, which is relative to the best window: a window that adds nothing
    # to the request (its own turn, boilerplate sent every time, the same question asked
    # before) matches by every word and would floor out the windows that say something new.
    kw = _keyword_floor([h for h in read if says_something(h)])
    if strategy == "semantic" and found is not None and found.hits:
        kw = []  # semantic ranks by meaning; keywords only stand in when vectors fail
    ranking, cosine = _by_meaning(found, read)
    if found is not None:
        # A window the vector ranking did not reach keeps its keyword rank: unknown is
        # not far (the ranking reads a few hundred windows deep, an owner has thousands).
        kw = [h for h in kw if cosine.get(_key(h), 1.0) >= episodes.min_similarity / 2]
    vec = [h for h, score in ranking if score >= episodes.min_similarity]
    vec = [h for h in vec if h is None or says_something(h)]
    out.hits = _snippets(kw, vec, cosine, cfg, req.query, store.name)
    try:
        out.hits = await with_partners(
            store,
            out.hits,
            live,
            episodes.max_snippets,
            query_stems,
            out.resolution["fallbacks"],
            None if clock is None else episodes_deadline_s(cfg, clock),
        )
    except Exception as exc:  # noqa: BLE001 - the snippets still answer without their partners
        out.resolution["fallbacks"].append(
            {"tier": "episodes.partners", "reason": describe_error(exc)}
        )
    out.resolution["floor"] = {
        "min_similarity": episodes.min_similarity,
        "keyword_share": KEYWORD_SHARE,
    }
    return out


def forget_texts() -> None:
    """Empty the snippets' text caches (sentences, topical stems, dates in words, the
    owner BM25's word bags, the normal form, the line tokens): they are keyed by text alone,
    so one owner's entries can only be found by a caller holding the same text, but an
    erased, deleted or expired episode's words should not stay in memory until they age
    out. Called on erase, delete and a sweep that removed episodes (rare: every owner's
    entries go, rebuilt by the next retrievals); not on the per-owner cap's evictions,
    which come a turn at a time (those entries age out of the bounded caches)."""
    chunks.forget_texts()
    lexical.forget_texts()
    render.forget_texts()
    normalise_text.cache_clear()
    partners.forget_texts()


def abandon(*tasks: asyncio.Future[Any] | None) -> None:
    """Cancel tasks nobody will await (a recall's arms, a recall); whatever each ends with
    is retrieved, so an error racing the cancel is not logged as never retrieved."""
    for task in tasks:
        if task is None:
            continue
        if not task.done():
            task.cancel()
        # Whatever it ends with, its outcome is retrieved (an error raced the cancel).
        task.add_done_callback(_retrieved)


def _retrieved(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


def pool_size(cfg: MemoryConfig) -> int:
    """Windows each arm reads (the vector arm ranks `VECTOR_DEPTH` times deeper)."""
    return max(cfg.top_k, cfg.episodes.max_snippets * POOL_FACTOR)


async def _keyword_arm(
    store: EpisodeStore, query: str, live: Live, limit: int
) -> list[ChunkHit]:
    """The store's keyword matches, `RESCORE_DEPTH` times deeper, scored again with the
    owner's own word statistics (`lexical.py`); the store's order when there is no single
    owner (global scope) or the statistics cannot be read."""
    found = await store.keyword_and_terms(query, live, limit * RESCORE_DEPTH)
    if live.owner is None or not found.hits:
        return found.hits[:limit]
    return owner_scores(found.hits, found.term_rows, found.total, limit)


async def _vector_arm(
    store: EpisodeStore,
    cfg: MemoryConfig,
    req: RetrievalRequest,
    live: Live,
    limit: int,
    clock: RetrievalClock | None,
    gate: VectorGate | None,
) -> VectorWindows | None:
    """None: skipped, the facts' keywords answer the question (`gate`)."""
    if gate is not None and not await gate.run_vectors():
        return None
    deadline_s = vector_deadline_s(cfg, clock)  # what the own-writes wait left
    if deadline_s <= 0:
        raise TimeoutError  # no time left: start nothing (a timeout scope of 0 would)
    # A timeout scope, not wait_for: wait_for (3.11) runs its awaitable as a task, and
    # one that ended with an error as the caller was cancelled was never retrieved
    # ("Task exception was never retrieved", logged at error under load).
    async with asyncio.timeout(deadline_s):
        return await store.vector(req.query, live, limit, limit * VECTOR_DEPTH)


async def _arm(
    task: Awaitable[Found | None] | None,
    name: str,
    resolution: dict[str, Any],
) -> Found | None:
    if task is None:
        return None
    try:
        found = await task
        if found is None:
            return None  # skipped: neither a tier nor a fallback
    except NoVectors as exc:
        resolution["fallbacks"].append({"tier": f"episodes.{name}", "reason": str(exc)})
        return None
    except Exception as exc:  # noqa: BLE001 - episodes are optional: the facts still answer
        reason = "timeout" if isinstance(exc, TimeoutError) else describe_error(exc)
        resolution["fallbacks"].append({"tier": f"episodes.{name}", "reason": reason})
        return None
    resolution["tiers"].append(f"episodes.{name}")
    return found


def _by_meaning(
    found: VectorWindows | None, keyword_read: list[ChunkHit]
) -> tuple[list[tuple[ChunkHit | None, float]], dict[tuple[str, int], float]]:
    """The vector ranking as (window, cosine), best first, the window None where neither
    arm read it; and the cosine of every window read."""
    if found is None:
        return [], {}
    read = {h.ref: h for h in keyword_read}
    read.update((h.ref, h) for h in found.hits)
    ranking = [(read.get(ref), score) for ref, score in found.ranked]
    return ranking, {_key(h): score for h, score in ranking if h is not None}


def _keyword_floor(hits: list[ChunkHit]) -> list[ChunkHit]:
    good = [h for h in hits if h.score > 0]
    if not good:
        return []
    best = max(h.score for h in good)
    return [h for h in good if h.score >= best * KEYWORD_SHARE]


def _adds_nothing(text: str, asked: str, query_stems: AbstractSet[str]) -> bool:
    """What `text` says beyond the request (`asked`, normalised) is nothing, or only
    questions that add at most one topical word: its sentences are all in the request
    (its own turn, boilerplate sent with every message, which matches its earlier sendings
    by every word), or it is an earlier asking of the same question ("Anyway (turn 3): which
    tea do I like best?"). What the user asked is not what they told."""
    parts = sentences(text) or [text]
    new = [p for p in parts if f" {normalise_text(p)} " not in f" {asked} "]
    if not new:
        return True
    if not all(is_question(p) for p in new):
        return False
    return len(topical_stems(" ".join(new)) - query_stems) <= 1


def _weighted(
    kw: list[ChunkHit],
    cosine: dict[tuple[str, int], float],
    by_key: dict[tuple[str, int], ChunkHit],
    floor: float,
) -> list[tuple[tuple[str, int], float]]:
    """Every window read, best first: its keyword score plus `VECTOR_WEIGHT` times its
    cosine above the floor (each scaled to the best of its arm), the assistant's side at
    `ASSISTANT_WEIGHT`; windows that score nothing left out."""
    best_kw = max((h.score for h in kw), default=0.0)
    lexical = {_key(h): h.score / best_kw for h in kw} if best_kw > 0 else {}
    best_cos = max(cosine.values(), default=0.0)
    span = best_cos - floor
    scored = []
    for key, chunk in by_key.items():
        meaning = max(0.0, cosine.get(key, floor) - floor) / span if span > 0 else 0.0
        score = lexical.get(key, 0.0) + VECTOR_WEIGHT * meaning
        if chunk.episode.role == "assistant":
            score *= ASSISTANT_WEIGHT
        scored.append((key, score))
    scored.sort(key=lambda p: -p[1])
    return [(key, score) for key, score in scored if score > 0]


def _key(hit: ChunkHit) -> tuple[str, int]:
    return (hit.episode.id, hit.chunk)


def _snippets(
    kw: list[ChunkHit],
    vec: list[ChunkHit | None],
    cosine: dict[tuple[str, int], float],
    cfg: MemoryConfig,
    query: str,
    store: str,
) -> list[Hit]:
    by_key: dict[tuple[str, int], ChunkHit] = {}
    kw_rank: dict[tuple[str, int], int] = {}
    vec_rank: dict[tuple[str, int], tuple[int, float]] = {}
    for rank, h in enumerate(kw, start=1):
        by_key.setdefault(_key(h), h)
        kw_rank.setdefault(_key(h), rank)
    for rank, read in enumerate(vec, start=1):
        if read is not None:
            by_key.setdefault(_key(read), read)
            vec_rank.setdefault(_key(read), (rank, cosine[_key(read)]))
    fused = _weighted(kw, cosine, by_key, cfg.episodes.min_similarity)
    stems = topical_stems(query)
    asked = normalise_text(query)
    wanted = cfg.episodes.max_snippets * CANDIDATES_PER_SNIPPET
    seen: set[str] = set()
    texts: set[str] = set()
    hits: list[Hit] = []
    for key, score in fused:
        if len(hits) >= wanted:
            break
        chunk = by_key[key]
        episode = chunk.episode
        if episode.id in seen:
            continue  # one snippet per episode: its best window
        seen.add(episode.id)
        # At the matched window's density: a message can mix scripts.
        max_chars = chars_within(chunk.text, cfg.episodes.snippet_tokens)
        snippet = focus(episode.content, chunk.text, stems, max_chars)
        if episode.role == "user" and _adds_nothing(snippet.text, asked, stems):
            continue
        said = normalise_text(snippet.text)
        if said in texts:
            continue
        texts.add(said)
        why: list[str] = []
        if key in kw_rank:
            why.append("keyword")
        if key in vec_rank:
            why.append("meaning")
        if snippet.text != chunk.text:
            why.append("trimmed")
        tier: Tier = (
            "qdrant"
            if store == "qdrant"
            else (
                "hybrid"
                if len(why) > 1 and "meaning" in why and "keyword" in why
                else ("keyword" if key in kw_rank else "vector")
            )
        )
        rank_sim = vec_rank.get(key)
        memory = Memory(
            id=episode.id,
            owner=episode.owner,
            session=episode.session,
            type="episodic",
            key=None,
            content=snippet.text,
            metadata={
                "kind": "episode",
                "episode": {
                    "role": episode.role,
                    "request_id": episode.request_id,
                    "format": episode.format,
                    "window": chunk.chunk,
                    "matched_sentences": snippet.matched,
                },
            },
            created_at=episode.said_at,
            updated_at=episode.said_at,
        )
        hits.append(
            Hit(
                memory=memory,
                score=round(score, 6),
                tier=tier,
                tokens=snippet_tokens(memory),
                fts_rank=kw_rank.get(key),
                vec_rank=rank_sim[0] if rank_sim else None,
                similarity=round(cosine[key], 4) if key in cosine else None,
                kind="episode",
                why=tuple(why),
            )
        )
    return hits
