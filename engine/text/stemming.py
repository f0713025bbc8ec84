"""The engine's stemming, in one place. Two rules, kept apart on purpose:

- `stem`: the one light suffix strip the engine compares words with — snippet trimming
  (`episodes/chunks.py`), the owner's BM25 over turns (`episodes/lexical.py`) and the
  coincidence check (`retrieval/coincidence.py`). Computed on the fly, never stored.
- `sparse_stem`: the stems of Qdrant's sparse vectors (`qdrant/sparse.py`), hashed into the
  token ids stored with every point: changing it would make the stored vectors miss the
  queries until every collection is re-indexed, so it does not move.

The keyword index (SQLite FTS5) stems with its own `porter` tokenizer, on the content and on
the query alike, inside SQLite: no Python stemmer takes part in it.
"""

from __future__ import annotations

from functools import lru_cache

SUFFIXES = ("ingly", "ings", "ing", "edly", "ed", "ies", "es", "ly", "er", "s")
"""Enough to match "moved" with "moving", "cats" with "cat" and "works"/"working"/"worked"."""


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """`word` without the first of `SUFFIXES` it ends with that leaves at least three
    characters, then without a final "e" when more than three characters remain. Cached:
    a retrieval stems a few hundred words, mostly the same ones."""
    for suffix in SUFFIXES:
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def _undouble(stem: str) -> str:
    # running -> runn -> run, stopped -> stopp -> stop
    return (
        stem[:-1]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiousl"
        else stem
    )


def sparse_stem(word: str) -> str:
    """A deliberately small suffix strip: plural and -ing/-ed forms meet their stem.

    Porter would be closer to FTS5's tokenizer, but over-stemming in hashed space cannot be
    inspected or undone; these three rules cover what users write about preferences."""
    if len(word) > 5 and word.endswith("ing"):
        return _undouble(word[:-3])
    if len(word) > 4 and word.endswith("ed"):
        return _undouble(word[:-2])
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word
