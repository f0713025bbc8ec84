"""The one sentence splitter: extraction reads sentence by sentence, episodes are windows of
sentences, a summary keeps the first few.

A sentence ends at end punctuation (and the closing quote or bracket after it) followed by
space, at a line break, or right after a CJK full stop. A title's abbreviation ("Dr.", "e.g.")
ends nothing. A semicolon ends a sentence only for a reader that asks for it: extraction
reads "I live in Oslo; my wife is Ana" as two statements, a summary keeps it as one.
"""

from __future__ import annotations

import re

_ABBREVIATIONS = (
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bProf\.)(?<!\bSt\.)(?<!\bvs\.)"
    r"(?<!\bJr\.)(?<!\bSr\.)(?<!\be\.g\.)(?<!\bi\.e\.)"
)
_CLOSING = "[\"')\\]]"


def _splitter(ends: str, cjk: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?:(?<=[{ends}])|(?<=[{ends}]{_CLOSING})){_ABBREVIATIONS}\s+|\n+|(?<=[{cjk}])"
    )


_END = _splitter(".!?\u2026", "\u3002\uff01\uff1f")
_END_OR_SEMICOLON = _splitter(".!?;\u2026", "\u3002\uff01\uff1f\uff1b")


def sentences(text: str, *, semicolons: bool = False) -> list[str]:
    """`text` cut into sentences, stripped, empty ones left out."""
    splitter = _END_OR_SEMICOLON if semicolons else _END
    return [part.strip() for part in splitter.split(text) if part and part.strip()]
