"""Sentence windows (what an episode is indexed as) and snippet trimming (what is injected).

Pure functions. A window is a run of consecutive sentences of at most `WINDOW_CHARS`
characters and `WINDOW_SENTENCES` sentences, so one chat message is usually one window and
a long message several; a keyword or vector match then points at a few sentences, not at a
whole pasted document. A snippet is the window cut down to the sentences that share a word
with the query (all of it when none does: a match by meaning), within a token cap.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from memtap.engine.stopwords import STOPWORDS
from memtap.engine.text.sentences import sentences as split_sentences
from memtap.engine.text.stemming import stem

WINDOW_CHARS = 320
WINDOW_SENTENCES = 3
MAX_WINDOWS = 48
"""Windows indexed per episode (the start of a very long message)."""

_WORD = re.compile(r"\w+", re.UNICODE)


def sentences(text: str) -> list[str]:
    """`text` cut into sentences (`engine/text/sentences.py`)."""
    return list(_sentences(text))


@lru_cache(maxsize=1 << 13)
def _sentences(text: str) -> tuple[str, ...]:
    """Cached: one retrieval splits ~110 texts (every window read is checked, then its
    snippet trimmed), the owner's same windows query after query; splitting was the largest
    share of the snippets' time on the event loop after the date reading."""
    return tuple(split_sentences(text))


def _split_long(sentence: str, limit: int) -> list[str]:
    pieces: list[str] = []
    rest = sentence
    while len(rest) > limit:
        cut = rest.rfind(" ", 0, limit)
        if cut <= limit // 2:
            cut = limit
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        pieces.append(rest)
    return pieces


def windows(text: str) -> list[str]:
    """The sentence windows of `text`, in order, at most `MAX_WINDOWS`."""
    out: list[str] = []
    current: list[str] = []
    size = 0
    for sentence in sentences(text):
        for piece in _split_long(sentence, WINDOW_CHARS):
            if current and (
                size + 1 + len(piece) > WINDOW_CHARS or len(current) >= WINDOW_SENTENCES
            ):
                out.append(" ".join(current))
                current, size = [], 0
            current.append(piece)
            size += len(piece) + (1 if size else 0)
            if len(out) >= MAX_WINDOWS:
                return out
    if current and len(out) < MAX_WINDOWS:
        out.append(" ".join(current))
    return out


ASSISTANT_WINDOWS = 1
"""Windows of an assistant message indexed for search: its opening. A reply is found by its
first window's words and, above all, as the partner of the user message it answers, shown
with its sentences about the question from the whole kept head (`ASSISTANT_EPISODE_CHARS`).
A reply of ~750 characters made three windows: the assistant's side was three quarters of an
owner's keyword index and cost the keyword read 1.2-1.4 ms a retrieval (3.5-4.8 ms against
2.4-2.6 with the opening alone, at 2,000 memories and 1,600 episodes)."""


def indexed_windows(role: str, text: str) -> list[str]:
    """The windows of a message that are indexed: every one of the user's, the opening of
    the assistant's (`ASSISTANT_WINDOWS`)."""
    found = windows(text)
    return found[:ASSISTANT_WINDOWS] if role == "assistant" else found


@lru_cache(maxsize=1 << 13)
def topical_stems(text: str) -> frozenset[str]:
    """The stems of `text`'s topical words (cached like `sentences`: ~110 texts a
    retrieval, mostly the owner's same windows and sentences)."""
    return frozenset(
        stem(w)
        for w in _WORD.findall(text.casefold())
        if w not in STOPWORDS and not (len(w) == 1 and w.isascii())
    )


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    matched: int
    """How many of the window's sentences shared a word with the query (0: none did)."""


def focus(
    message: str, window: str, query_stems: AbstractSet[str], max_chars: int
) -> Snippet:
    """The snippet of `window` read in its `message`: the message's sentences around the
    window, cut like `trim` to `max_chars` (matched sentences first, the window's before
    the rest of the message's). A window is at most `WINDOW_SENTENCES` sentences, so the
    sentence that answers is often in the next window of the same message ("Last Fri I
    took my kids to a pottery workshop." | "We all made our own pots"): a message that fits
    is kept whole. Reads at most `max_chars` either side of the window, however long the
    message."""
    if len(message) <= max_chars:
        return Snippet(
            message,
            sum(1 for s in sentences(message) if topical_stems(s) & query_stems),
        )
    at = message.find(window[:60])
    if at < 0 or window == message:
        return trim(window, query_stems, max_chars)
    start = max(0, at - max_chars)
    end = min(len(message), at + len(window) + max_chars)
    before = sentences(message[start:at])
    if start > 0 and before:
        before = before[1:]  # the first may be cut mid-sentence
    inside = sentences(window)
    after = sentences(message[at + len(window) : end])
    if end < len(message) and after:
        after = after[:-1]
    return _pick(
        before + inside + after,
        range(len(before), len(before) + len(inside)),
        query_stems,
        max_chars,
    )


def _pick(
    parts: list[str], seed: range, query_stems: AbstractSet[str], max_chars: int
) -> Snippet:
    """`parts` (sentences in order) kept within `max_chars`: those sharing a word with the
    query (the `seed` window's first), their neighbours, the seed's, then the rest."""
    matched = [i for i, s in enumerate(parts) if topical_stems(s) & query_stems]
    first = [i for i in matched if i in seed] + [i for i in matched if i not in seed]
    if not first:
        first = list(seed)  # a match by meaning: the window itself
    chosen: set[int] = set()
    used = 0
    order = (
        first
        + [j for i in first for j in (i - 1, i + 1)]
        + list(seed)
        + list(range(len(parts)))
    )
    for i in order:
        if i in chosen or not 0 <= i < len(parts):
            continue
        cost = len(parts[i]) + (1 if chosen else 0)
        if used + cost > max_chars:
            if not chosen:  # the best sentence alone is too long: cut it
                return Snippet(cut(parts[i], max_chars), len(matched))
            continue
        chosen.add(i)
        used += cost
    return Snippet(" ".join(parts[i] for i in sorted(chosen)), len(matched))


def trim(window: str, query_stems: AbstractSet[str], max_chars: int) -> Snippet:
    """`window` cut to at most `max_chars` around the sentences that share a word with the
    query: the matched sentences first, then their neighbours (before, then after) while they
    fit, in the window's order. A window that fits is kept whole (the answer is often in the
    sentence next to the one that matched: "Biscuit knocked my coffee over. She's a ginger
    tabby."); one with no matched sentence (a match by meaning) is cut from its start."""
    parts = sentences(window) or [window]
    if len(window) <= max_chars:
        return Snippet(window, sum(1 for s in parts if topical_stems(s) & query_stems))
    return _pick(parts, range(len(parts)), query_stems, max_chars)


def cut(text: str, max_chars: int) -> str:
    """`text` cut at a word boundary within `max_chars`, an ellipsis marking the cut."""
    cut = text.rfind(" ", 0, max_chars - 1)
    return text[: cut if cut > max_chars // 2 else max_chars - 1].rstrip() + "\u2026"


def forget_texts() -> None:
    """Empty this module's text caches (`recall.forget_texts`)."""
    _sentences.cache_clear()
    topical_stems.cache_clear()
