"""Each recalled snippet with the message that completes it, and what its line costs.

A snippet alone often answers nothing ("Yes, last week!"): `with_partners` gives a question
the message after it (its answer) and anything else the other side's message before it
(what it answers), read from the store's neighbours in the same owner and session; the
partner is kept to its sentences about the question (`render.partner_text`). Each line's
tokens are counted as the block writes it (`render.episode_line`), so the budget walk
(`fused.py`) and the injected block never disagree.
"""

from __future__ import annotations

import asyncio
from collections.abc import Set as AbstractSet
from dataclasses import replace
from functools import lru_cache
from typing import Any

from memtap.engine.episode_types import Episode
from memtap.engine.episodes.chunks import sentences, topical_stems
from memtap.engine.episodes.render import dated_in_words, episode_line, partner_text
from memtap.engine.fallbacks import describe_error
from memtap.engine.memory_block import MemoryLine, line_tokens
from memtap.engine.memory_rules import Live
from memtap.engine.ports import EpisodeStore
from memtap.engine.types import Hit, Memory

Near = dict[str, tuple[Episode | None, Episode | None]]
"""Episode id -> (the message said just before it, the one just after), as the store reads."""
FOLLOW_UP = "follow_up"
"""The `why` of a snippet moved beside the message the other side followed up on."""
FOLLOW_UP_SHARE = 0.5
"""Of the time the episodes' recall has left, what the follow-ups' lookup may take: slow,
it would cost every snippet (the facts stop waiting for the recall), not just the move."""


def snippet_tokens(memory: Memory) -> int:
    """The tokens of the snippet's line in the block, as `proxy/addons/inject.py` writes it."""
    said = memory.metadata.get("episode", {})
    partner = said.get("partner")
    return _line_tokens(
        str(said.get("role", "user")),
        memory.content,
        memory.created_at[:10],
        tuple(partner.items()) if partner else None,
    )


@lru_cache(maxsize=1 << 12)
def _line_tokens(
    role: str, content: str, day: str, partner: tuple[tuple[str, Any], ...] | None
) -> int:
    """Cached (a function of its arguments alone): ~50 lines counted a retrieval, the
    owner's same snippets query after query."""
    line = episode_line(role, content, dict(partner) if partner else None)
    return line_tokens(MemoryLine(line, day))


async def with_partners(
    store: EpisodeStore,
    hits: list[Hit],
    live: Live,
    most: int | None = None,
    query_stems: AbstractSet[str] | None = None,
    fallbacks: list[dict[str, Any]] | None = None,
    left_s: float | None = None,
) -> list[Hit]:
    """Each snippet with the message that completes it, in the same owner and session: a
    question with the message just after it (its answer), anything else with the message
    of the other side just before it (what it answers: "Yes, last week!").
    An exchange is shown once: a snippet whose message is already shown beside a better
    ranked one is dropped, and one whose partner is already shown comes alone. A snippet
    that answers the other side's follow-up question about a better one comes right after
    it (`_answers_to_follow_ups`); when that read fails, or would take more than
    `FOLLOW_UP_SHARE` of `left_s` (what the recall has left), the order stays as it was
    (said in `fallbacks`)."""
    if not hits:
        return hits
    # The best `most` are looked up (the walk rarely reaches further; past them a snippet
    # comes alone): two indexed reads each.
    near = await store.neighbours([h.memory.id for h in hits[:most]], live)
    try:
        async with asyncio.timeout(
            None if left_s is None else left_s * FOLLOW_UP_SHARE
        ):
            hits, near = await _answers_to_follow_ups(store, hits, live, most, near)
    except Exception as exc:  # noqa: BLE001 - the snippets and partners stand without it
        if fallbacks is not None:
            fallbacks.append(
                {"tier": "episodes.follow_ups", "reason": describe_error(exc)}
            )
    shown: set[str] = set()
    out: list[Hit] = []
    for hit in hits:
        if hit.memory.id in shown:
            continue
        said = dict(hit.memory.metadata.get("episode", {}))
        # Relative dates read as the day they meant ("yesterday (7 May 2023)").
        dated = dated_in_words(hit.memory.content, hit.memory.created_at)
        if dated != hit.memory.content:
            hit = replace(hit, memory=replace(hit.memory, content=dated))
            hit = replace(hit, tokens=snippet_tokens(hit.memory))
        before, after = near.get(hit.memory.id, (None, None))
        partner = after if is_question(hit.memory.content) else before
        shown.add(hit.memory.id)
        if (
            partner is None
            or partner.role == said.get("role")
            or partner.id in shown
            or not _completes(hit.memory.content, partner.content, query_stems)
        ):
            out.append(hit)
            continue
        shown.add(partner.id)
        said["partner"] = {
            "id": partner.id,
            "role": partner.role,
            "request_id": partner.request_id,
            "text": partner_text(partner.content, query_stems),
            "position": "before" if partner is before else "after",
        }
        memory = replace(hit.memory, metadata={**hit.memory.metadata, "episode": said})
        out.append(replace(hit, memory=memory, tokens=snippet_tokens(memory)))
    return out


async def _answers_to_follow_ups(
    store: EpisodeStore, hits: list[Hit], live: Live, most: int | None, near: Near
) -> tuple[list[Hit], Near]:
    """`hits` with each user snippet's answer to the other side's follow-up question moved
    up to just after it, when that answer is a snippet further down; and `near` with the
    follow-up as the answer's message before it (shown beside it as any partner is, when
    worth its tokens: `_completes`; always showing it cost LoCoMo dev a question).

    A chat tells one thing over three messages: "Yeah, last weekend I had a picnic with
    some friends from church." | "Looks fun! What games did you all play?" | "Some fun ones
    like charades and a scavenger hunt." The first holds the question's words, the third
    its answer and none of them. A partner is one message either side, so the third was
    only found by its own rank, usually past the budget. It moves up only when it is a
    snippet already (it passed the floors: relevant by its words or its meaning), so the
    order changes and nothing is added; its `why` says `follow_up`. One more read, of the
    follow-ups' neighbours, and only when a snippet is followed by the other side's
    question."""
    # The follow-up's id -> (the position of the snippet it follows, the follow-up).
    follow_ups: dict[str, tuple[int, Episode]] = {}
    for i, hit in enumerate(hits[:most]):
        after = near.get(hit.memory.id, (None, None))[1]
        if (
            after is not None
            and hit.memory.metadata.get("episode", {}).get("role") == "user"
            and after.role != "user"
            and not is_question(hit.memory.content)
            and is_question(after.content)
        ):
            follow_ups.setdefault(after.id, (i, after))
    if not follow_ups:
        return hits, near
    answers = await store.neighbours(list(follow_ups), live)
    at = {hit.memory.id: i for i, hit in enumerate(hits)}
    moves: dict[int, int] = {}  # snippet -> the answer placed after it
    moved: set[int] = set()
    near = dict(near)
    for follow_up_id, (i, follow_up) in follow_ups.items():
        answer = answers.get(follow_up_id, (None, None))[1]
        j = at.get(answer.id) if answer is not None else None
        if answer is None or j is None or j <= i or answer.role != "user" or j in moved:
            continue
        moves[i] = j
        moved.add(j)
        near[answer.id] = (follow_up, near.get(answer.id, (None, None))[1])
    if not moves:
        return hits, near
    order: list[Hit] = []

    def place(i: int) -> None:
        # An answer may hold a follow-up of its own: its answer comes after it in turn.
        hit = hits[i]
        order.append(replace(hit, why=(*hit.why, FOLLOW_UP)) if i in moved else hit)
        if i in moves:
            place(moves[i])

    for i in range(len(hits)):
        if i not in moved:
            place(i)
    return order, near


def is_question(text: str) -> bool:
    return text.rstrip(" \"')\u201d").endswith("?")


SHORT_REPLY_CHARS = 100
"""A message this short is read with its partner whatever the question: "Yes, last week!"."""


def _completes(text: str, partner: str, query_stems: AbstractSet[str] | None) -> bool:
    """Is `partner` worth its tokens beside `text`? When `text` is a short reply; when
    `text` ends by asking about what the question asks about, since `partner` is then its
    answer ("Any fun plans for the summer?" | "Researching adoption agencies", which shares
    no word with "What are her plans for the summer?"); or when the partner shares a word
    with the question. Otherwise not: a chat's next message often opens a new topic (the
    assistant's last answer before "give me a pre-trip checklist" is noise), and a question
    matched by its lead-in ("we went camping. How's your week?") has an answer about
    something else."""
    if query_stems is None or len(text) <= SHORT_REPLY_CHARS:
        return True
    if is_question(text) and _asks_about(text, query_stems):
        return True
    return bool(topical_stems(partner) & query_stems)


def _asks_about(text: str, query_stems: AbstractSet[str]) -> bool:
    said = sentences(text)
    return bool(said) and bool(topical_stems(said[-1]) & query_stems)


def forget_texts() -> None:
    """Empty the line-token cache (`recall.forget_texts`)."""
    _line_tokens.cache_clear()
