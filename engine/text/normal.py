"""Normal forms of text (pure string functions): what keys, claims and dedupe compare."""

from __future__ import annotations

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
