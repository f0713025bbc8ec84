"""Normal forms and stable keys of extracted facts (pure string functions)."""

from __future__ import annotations

import hashlib
import re
import unicodedata

MAX_CONTENT_CHARS = 500

_SPACE = re.compile(r"\s+")
_KEY_CHARS = re.compile(r"[^\w]+", re.UNICODE)


def sanitise(text: str, cap: int = MAX_CONTENT_CHARS) -> str:
    """Whitespace collapsed, trimmed, at most `cap` characters."""
    text = _SPACE.sub(" ", text).strip()
    return text[:cap].rstrip()


def normalise(text: str) -> str:
    """Unicode-aware normal form for keys: NFKC, casefold, word characters joined by '_'."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _KEY_CHARS.sub("_", folded).strip("_")


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
