"""Pure fact extraction: `extract_facts(text, role) -> list[ExtractedFact]`.

Steps: drop memtap's own injected block and fenced code, keep the last 64 KiB, split into
sentences, match the patterns of `patterns.py` (negative forms first, so polarity is kept),
sanitise (trim, collapse whitespace, 500-char cap), dedupe within the batch by a stable key
(category + normalised content, Unicode-aware, with a hash fallback so non-ASCII text never
collapses to an empty key), and name a `subject` used for supersession.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Literal

from memtap.engine.extraction.patterns import (
    CLAUSE_END,
    DOMAINS,
    EMPTY_OBJECTS,
    PATTERNS,
    Pattern,
)
from memtap.engine.memory_block import CLOSE, OPEN
from memtap.engine.types import ExtractedFact

Role = Literal["user", "assistant"]

MAX_INPUT_CHARS = 64 * 1024
MAX_CONTENT_CHARS = 500
MAX_OBJECT_CHARS = 300
MAX_FACTS = 32


# Case-insensitive on purpose: a block a client re-cased is still memtap's, never the user's.
_BLOCK = re.compile(
    re.escape(OPEN) + r".*?(?:" + re.escape(CLOSE) + r"|\Z)", re.DOTALL | re.IGNORECASE
)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+|(?<=[。！？；])")
_FIRST_PERSON = re.compile(r"\b(?:i|my)\b", re.IGNORECASE)
_NEGATED = re.compile(r"(?:not|do\s+not|don't|never|no\s+longer)\b", re.IGNORECASE)
_QUOTES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "＇": "'", "“": '"', "”": '"'})
_SPACE = re.compile(r"\s+")
_KEY_CHARS = re.compile(r"[^\w]+", re.UNICODE)


def strip_injected(text: str) -> str:
    """Remove memtap's own memory block (defensive: codecs already strip it)."""
    return _BLOCK.sub(" ", text) if OPEN.lower() in text.lower() else text


def sanitise(text: str, cap: int = MAX_CONTENT_CHARS) -> str:
    text = _SPACE.sub(" ", text).strip()
    return text[:cap].rstrip()


def normalise(text: str) -> str:
    """Unicode-aware normal form for keys: NFKC, casefold, word characters joined by '_'."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _KEY_CHARS.sub("_", folded).strip("_")


def stable_key(category: str, content: str, limit: int = 96) -> str:
    slug = normalise(content)
    digest = hashlib.sha1(
        unicodedata.normalize("NFKC", content).casefold().encode()
    ).hexdigest()[:12]
    if not slug:
        slug = digest
    elif len(slug) > limit:
        slug = slug[:limit].rstrip("_") + "_" + digest
    return f"{category}:{slug}"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _clean_object(raw: str) -> str:
    obj = CLAUSE_END.split(raw, maxsplit=1)[0]
    obj = obj.strip().rstrip(".!?。！？…\"')]").strip()
    return sanitise(obj, MAX_OBJECT_CHARS)


def _wording(pattern: Pattern, verb: str) -> str:
    key = _SPACE.sub(" ", verb.lower().replace("’", "'")).strip()
    return (
        pattern.wording.get(key)
        or pattern.wording.get(key.replace("'", ""))
        or pattern.wording[""]
    )


def _domain(obj: str) -> str | None:
    words = " " + normalise(obj).replace("_", " ") + " "
    head = " ".join(words.split()[:4])
    padded = f" {head} "
    for domain, names in DOMAINS.items():
        for name in names:
            if f" {name} " in padded:
                return domain
    return None


def _subject(pattern: Pattern, obj: str, what: str | None) -> str:
    if what:
        words = normalise(what).split("_")
        for name in DOMAINS:
            if name in words or name.replace("_", " ") == " ".join(words):
                return f"choice:{name}"  # "my favourite editor is vim" = a choice of editor
        return f"{pattern.category}:{normalise(what) or stable_key('', what)}"
    if pattern.exclusive:
        domain = _domain(obj)
        if domain:
            # One current choice per domain, whichever family stated it: "I prefer tabs",
            # then "I switched to spaces" or "I always use spaces" replaces it.
            return f"choice:{domain}"
    # Same thing liked, then disliked: the object itself is the subject (polarity aside).
    return stable_key(pattern.category, obj)


def _match(sentence: str, role: Role) -> ExtractedFact | None:
    if sentence.rstrip().endswith("?"):
        return None  # a question states nothing
    if not _FIRST_PERSON.search(sentence):
        return None  # every pattern speaks in the first person: skip the rest cheaply
    for pattern in PATTERNS:
        m = pattern.regex.search(sentence)
        if m is None:
            continue
        obj = _clean_object(m.group("obj"))
        if (
            not obj
            or obj.lower() in EMPTY_OBJECTS
            or not any(ch.isalnum() for ch in obj)
        ):
            continue
        groups = m.groupdict()
        verb = groups.get("verb2") or groups.get("verb") or ""
        what = sanitise(groups["what"], 60) if groups.get("what") else None
        source = _clean_object(groups["from"]) if groups.get("from") else None
        polarity = pattern.polarity
        if polarity == "positive" and _NEGATED.match(obj):
            polarity = "negative"  # "I usually don't eat meat"
        if what:
            content = f"Favourite {what} is {obj}"
        elif source:
            content = f"{_wording(pattern, verb)} from {source} to {obj}"
        else:
            content = f"{_wording(pattern, verb)} {obj}"
        if role == "assistant":
            content = f"Assistant: {content}"
        content = sanitise(content)
        prefix = "assistant-" if role == "assistant" else ""
        return ExtractedFact(
            type=pattern.type,
            category=pattern.category,
            content=content,
            key=prefix + stable_key(pattern.category, content),
            subject=prefix + _subject(pattern, obj, what),
            polarity=polarity,
            role=role,
        )
    return None


def extract_facts(text: str, role: Role = "user") -> list[ExtractedFact]:
    """Facts stated in `text` by `role`, deduplicated by key, in order of appearance."""
    if not text:
        return []
    text = strip_injected(text).translate(_QUOTES)
    if len(text) > MAX_INPUT_CHARS:
        text = text[-MAX_INPUT_CHARS:]  # the tail is the most recent part of the turn
    text = _FENCE.sub(" ", text)
    text = _INLINE_CODE.sub(" ", text)
    facts: dict[str, ExtractedFact] = {}
    for sentence in _sentences(text):
        fact = _match(sentence, role)
        if fact is not None and fact.key not in facts:
            facts[fact.key] = fact
            if len(facts) >= MAX_FACTS:
                break
    return list(facts.values())
