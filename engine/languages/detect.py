"""Which language a text is in, by the commonest words of each registered pack: cheap (a
set lookup a word) and good enough on a sentence or more, which is all its callers ask of it
(a self-statement's language, whether a message also goes to the multilingual model)."""

from __future__ import annotations

import re

from memtap.engine.languages.registry import PACKS
from memtap.engine.stopwords import STOPWORDS

WORD = re.compile(r"[^\W_][\w'’-]*", re.UNICODE)
"""A word: letters or digits, then apostrophes and hyphens may join more (the packs' common
words are matched against these)."""


def _words(said: str) -> list[str]:
    return [w.lower() for w in WORD.findall(said.replace("'", "' "))]


def language_of(said: str) -> str:
    """The language whose commonest words `said` uses most (English on a tie)."""
    words = _words(said)
    scores = {
        code: sum(w in pack.common for w in words)
        for code, pack in PACKS.items()
        if pack.common
    }
    best = max(scores.values())
    return "en" if scores["en"] == best else max(scores, key=scores.__getitem__)


_ENGLISH = frozenset(STOPWORDS) | PACKS["en"].common
"""English's common words, the stop words too: the packs' lists are short, and a short
English message often shares one word with another language's ("no", "me", "as")."""


def other_language(said: str) -> str | None:
    """The language other than English `said` is plainly in, else None: more of that
    language's own common words than English words (a word both count, "in", "im", counts
    for neither), and at least one. Stricter than `language_of`, which took "tell me
    something nice" for Spanish and "No problem, talk soon." for Portuguese (5-6 % of an
    English speaker's messages in our conversation sets); this one flags none of LoCoMo's
    1,451 dev turns."""
    words = _words(said)
    best, margin = None, 0
    for code, pack in PACKS.items():
        if code == "en" or not pack.common:
            continue
        own = sum(w in pack.common and w not in _ENGLISH for w in words)
        english = sum(w in _ENGLISH and w not in pack.common for w in words)
        if own - english > margin:
            best, margin = code, own - english
    return best
