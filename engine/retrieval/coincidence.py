"""Keyword hits that share only a common verb with the question.

"Write a haiku about autumn leaves" matches a stored "Writes tests first" by keyword, and
"Explain how photosynthesis works" matches "Works at Stripe": the words in common are verbs
that say nothing of the topic. When the question is not about the user (no "I", "my",
"we", "our": a task for the assistant) and the vector leg answered without finding such a
memory similar (it is not among the vector hits above the floor), the keyword match is a
coincidence and the hit is dropped. "Where do I work?" keeps "Works at Stripe"; a keyword hit
that shares a topic word ("Helm", "tests", "Postgres") stays, as does every keyword hit when
there is no vector answer to consult.
"""

from __future__ import annotations

import re

from memtap.engine.stopwords import STOPWORDS
from memtap.engine.text import lexicon
from memtap.engine.text.stemming import stem as _stem

# Verbs (and a few nouns) too common in questions and in stored facts to mean a topic.
_GENERIC = frozenset(
    [
        "write",
        "work",
        "use",
        "make",
        "get",
        "go",
        "know",
        "like",
        "need",
        "want",
        "help",
        "explain",
        "tell",
        "show",
        "give",
        "take",
        "find",
        "think",
        "look",
        "call",
        "try",
        "ask",
        "feel",
        "start",
        "keep",
        "let",
        "put",
        "mean",
        "become",
        "leave",
        "seem",
        "turn",
        "move",
        "live",
        "come",
        "bring",
        "happen",
        "thing",
        "way",
        "time",
        "day",
        "good",
        "best",
        "new",
        "right",
    ]
)
_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
# The user as the one the question is about ("me" is left out: "write me a haiku" is a task).
_ABOUT_USER = re.compile(lexicon.ABOUT_USER, re.IGNORECASE)


def _stems(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


_GENERIC_STEMS = frozenset(_stem(w) for w in _GENERIC)


def topic_stems(text: str) -> set[str]:
    """The stems of `text`'s words that can carry a topic: no stop words, no generic verbs."""
    return _stems(text) - _GENERIC_STEMS


def word_stems(text: str) -> set[str]:
    """The stems of `text`'s words but stop words (generic verbs included)."""
    return _stems(text)


def coincidences(query: str, contents: dict[str, str]) -> list[str]:
    """The ids of `contents` (id -> text) that share only generic verbs with `query`, a
    question not about the user (none when it is about the user); the query read once."""
    if _ABOUT_USER.search(query):
        return []
    asked = _stems(query)
    return [
        memory_id
        for memory_id, content in contents.items()
        if (shared := asked & _stems(content)) and shared <= _GENERIC_STEMS
    ]
