"""A query's topical words: one reading for every keyword search (the SQLite text index,
Qdrant's full-text counts, the owner's own word statistics)."""

from __future__ import annotations

import re

from memtap.engine.stopwords import STOPWORDS

MAX_TERMS = 32
_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(text: str) -> list[str]:
    """Distinct topical tokens of a query, in order, at most MAX_TERMS."""
    seen: dict[str, None] = {}
    for token in _WORD.findall(text.lower()):
        if token in STOPWORDS or token in seen or token.replace("_", "") == "":
            continue
        if len(token) == 1 and token.isascii():
            continue
        seen[token] = None
        if len(seen) >= MAX_TERMS:
            break
    return list(seen)
