"""Stable keys of extracted facts (pure string functions)."""

from __future__ import annotations

import hashlib
import unicodedata

from memtap.engine.text.normal import MAX_CONTENT_CHARS, normalise, sanitise

__all__ = ["MAX_CONTENT_CHARS", "normalise", "sanitise", "stable_key"]


def stable_key(category: str, content: str, limit: int = 96) -> str:
    """`category:slug` of the content; a hash stands in for text without word characters
    (so non-ASCII or symbol-only text never collapses to an empty key) and ends long slugs."""
    slug = normalise(content)
    digest = hashlib.sha1(
        unicodedata.normalize("NFKC", content).casefold().encode()
    ).hexdigest()[:12]
    if not slug:
        slug = digest
    elif len(slug) > limit:
        slug = slug[:limit].rstrip("_") + "_" + digest
    return f"{category}:{slug}"
