"""BM25 over one owner's own windows: the keyword arm's second look.

The text index weighs a word by how rare it is among every owner's rows. What makes a word
evidence is how rare it is in *this* owner's history: in a two-person conversation the other
person's name is in a quarter of the windows (every "Thanks, Caroline!") while it is rare
across all owners, so the global weight lets a greeting outrank the one turn that holds the
asked-about thing. The store returns a deeper pool of matches; here they are scored again
with the owner's own document frequencies (`EpisodeStore.term_rows`) and Okapi BM25
(k1 = 1.2, b = 0.75), words matched by the engine's light stem (`text.stemming.stem`) for query
and text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache

from memtap.engine.episode_types import ChunkHit
from memtap.engine.stopwords import STOPWORDS
from memtap.engine.text.stemming import stem

K1, B = 1.2, 0.75
AVERAGE_WINDOW_TERMS = 24.0
"""A window's topical words on average (a window is a chat message of up to three
sentences): the length BM25 normalises by, when the pool is too small to say."""
_WORD = re.compile(r"\w+", re.UNICODE)


@lru_cache(maxsize=1 << 14)
def _bag(text: str) -> tuple[Counter[str], int]:
    """How often each topical stem is in `text`, and how many there are (cached: an
    owner's windows come back query after query, and counting them was most of this
    module's time)."""
    bag = Counter(topical_terms(text))
    return bag, sum(bag.values())


def topical_terms(text: str) -> list[str]:
    """The stems of `text`'s words that are no stop words, in order, repeated."""
    return [stem(w) for w in _WORD.findall(text.casefold()) if w not in STOPWORDS]


def idf(rows: int, total: int) -> float:
    """BM25's inverse document frequency (never negative)."""
    return math.log(1.0 + (total - rows + 0.5) / (rows + 0.5))


def owner_scores(
    hits: Sequence[ChunkHit],
    term_rows: Mapping[str, int],
    total: int,
    limit: int | None = None,
) -> list[ChunkHit]:
    """`hits` scored again by BM25 with the owner's frequencies (`term_rows`: query word ->
    the owner's windows holding it; `total`: the owner's windows), the best `limit` (None:
    all) first; windows sharing no weighed word with the query are left out."""
    if not hits or total <= 0 or not term_rows:
        return list(hits[:limit])
    weights: dict[str, float] = {}
    for term, rows in term_rows.items():
        key = stem(term)
        weights[key] = max(weights.get(key, 0.0), idf(min(rows, total), total))
    bags = [_bag(h.text) for h in hits]
    average = (
        sum(n for _, n in bags) / len(bags) if len(bags) >= 20 else AVERAGE_WINDOW_TERMS
    ) or AVERAGE_WINDOW_TERMS
    order = {key: n for n, key in enumerate(weights)}
    scored: list[tuple[float, int]] = []
    for i, (bag, length) in enumerate(bags):
        shared = bag.keys() & order  # a window read shares a word or two, of ~10 asked
        if not shared:
            continue
        norm = K1 * (1 - B + B * length / average)
        score = 0.0
        # Summed in the query's order, whatever the set's: the same floats every time.
        for key in sorted(shared, key=order.__getitem__) if len(shared) > 1 else shared:
            tf = bag[key]
            score += weights[key] * tf * (K1 + 1) / (tf + norm)
        if score > 0:
            scored.append((score, i))
    scored.sort(key=lambda p: (-p[0], p[1]))
    return [_scored(hits[i], round(score, 6)) for score, i in scored[:limit]]


def _scored(hit: ChunkHit, score: float) -> ChunkHit:
    # Built directly: `dataclasses.replace` was a tenth of this module's time (96 a query).
    return ChunkHit(hit.episode, hit.chunk, hit.text, score, hit.ref)


def forget_texts() -> None:
    """Empty this module's text cache (`recall.forget_texts`)."""
    _bag.cache_clear()
