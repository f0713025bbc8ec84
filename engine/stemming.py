"""The light suffix strip shared by snippet trimming and the coincidence check.

Each caller keeps its own suffix list (and its own cache): the lists differ, so the stems
differ, and both are tuned to what they match. Qdrant's sparse tokens use another rule
(`qdrant/sparse.py`), whose output is stored as token ids and must not move.
"""

from __future__ import annotations


def strip_suffix(word: str, suffixes: tuple[str, ...]) -> str:
    """`word` without the first of `suffixes` it ends with that leaves at least three
    characters, then without a final "e" when more than three characters remain."""
    for suffix in suffixes:
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word
