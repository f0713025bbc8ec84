"""The multilingual route (`engine/embeddings/multilingual.py`, `sqlite/episode_second.py`),
with both real models: the packaged MiniLM and USE-multilingual v3. A window said in German
is found by a question asked in English; an English-only owner's questions never reach the
second model; the second vectors follow deletes, erase and a change of model."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import numpy as np
import pytest

from memtap.config.schema import MemoryConfig
from memtap.engine.clock import iso
from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.embeddings.multilingual import (
    ACROSS_LANGUAGES,
    SAME_LANGUAGE,
    CosineMap,
    MultilingualSource,
    best_of,
    map_for,
    maps_onto,
    needs_second,
    open_multilingual,
    owner_routed,
    second_query,
)
from memtap.engine.embeddings.onnx import OnnxEmbedder
from memtap.engine.episode_types import NewEpisode
from memtap.engine.memory_rules import Live
from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.sqlite.episodes import SqliteEpisodeStore
from tests.support.route_models import Counting, Held

module_loop = pytest.mark.asyncio(loop_scope="module")
NOW = iso(datetime(2026, 12, 2, 12, 0, tzinfo=UTC))

GERMAN = [
    "Meine Schwester heißt Hannah und wohnt seit letztem Jahr in Köln.",
    "Ich arbeite jetzt als Krankenpfleger im Uniklinikum, meistens Nachtschicht.",
    "Am Wochenende gehe ich immer mit meinem Hund Bruno im Wald laufen.",
    "Ich habe angefangen, Töpfern zu lernen, jeden Dienstag in einem kleinen Kurs.",
    "Wir fliegen im August nach Lissabon, das wird unser erster Urlaub seit Jahren.",
]
ENGLISH = [
    "My sister Hannah moved to Cologne last year.",
    "I work nights as a nurse at the university hospital.",
    "On weekends I take my dog Bruno running in the woods.",
    "I started a pottery class on Tuesdays.",
    "We're flying to Lisbon in August, our first holiday in years.",
]


async def _store(
    tmp_path, minilm: OnnxEmbedder, second: EmbeddingSource | None
) -> SqliteEpisodeStore:  # type: ignore[no-untyped-def]
    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    return SqliteEpisodeStore(db, source=lambda: minilm, second=second)


def _said(text: str, owner: str) -> NewEpisode:
    return NewEpisode(owner=owner, session=None, role="user", content=text, said_at=NOW)


async def _drain(store: SqliteEpisodeStore) -> None:
    while await store.pending_vectors():
        assert await store.embed_pending(64) > 0


def test_the_route_reads_the_language_of_the_whole_message() -> None:
    assert all(needs_second(text) for text in GERMAN)
    assert not any(needs_second(text) for text in ENGLISH)
    assert needs_second("Vamos a Lisboa en agosto, es nuestro primer viaje en años.")
    assert needs_second("Je me suis mise à la poterie, tous les mardis soir.")
    assert needs_second("Eu comecei a aprender cerâmica, é muito legal.")
    # Read by the packs' commonest words: with none of them, a message stays on the first
    # model (as every message did before the route).
    assert not needs_second("Comecei a aprender cerâmica, toda terça-feira à noite.")
    # Short English messages that share a word with another language stay English.
    for english in (
        "tell me something nice",
        "No problem, talk soon.",
        "random question, do you ever get bored?",
        "give me a calming breathing technique",
    ):
        assert not needs_second(english), english
    # The map was fitted for the packaged model only: another first model is left alone.
    assert maps_onto("all-MiniLM-L6-v2-int8+int8-matmul-v2")
    assert not maps_onto("text-embedding-3-small")
    assert SAME_LANGUAGE(0.5) == pytest.approx(0.6043)
    assert open_multilingual("off") is None


def test_an_english_question_reads_the_routed_windows_across_languages() -> None:
    # Only windows in a routed language have a second vector: an English question is read
    # across languages, one in a routed language within it.
    assert map_for("How has my diet changed this year?") is ACROSS_LANGUAGES
    assert (
        map_for("Wie hat sich meine Ernährung dieses Jahr verändert?") is SAME_LANGUAGE
    )
    assert map_for("¿Qué clase tomo los jueves por la tarde?") is SAME_LANGUAGE
    # Read from the question's end, the text the second model embeds: a long German
    # message that ends by asking in English is an English question.
    german = " ".join(GERMAN)
    assert len(german) > 160 and map_for(german) is SAME_LANGUAGE
    assert (
        map_for(f"{german} Anyway, how has my diet changed this year?")
        is ACROSS_LANGUAGES
    )
    # Across languages USE-m3 runs lower: the same cosine reads higher on MiniLM's scale,
    # and more so the higher it is (its spread is narrower too).
    for cosine in (0.1, 0.2, 0.4):
        assert ACROSS_LANGUAGES(cosine) > SAME_LANGUAGE(cosine)
    assert ACROSS_LANGUAGES(0.4) - SAME_LANGUAGE(0.4) > ACROSS_LANGUAGES(
        0.1
    ) - SAME_LANGUAGE(0.1)
    # best_of keeps each window's better score, the second's through the map it is given.
    first = [("a", 0.30), ("b", 0.10)]
    second = [("b", 0.20), ("c", 0.05)]
    assert best_of(first, second, 3, SAME_LANGUAGE) == [
        ("a", 0.30),
        ("b", pytest.approx(SAME_LANGUAGE(0.20))),
        ("c", pytest.approx(SAME_LANGUAGE(0.05))),
    ]
    across = dict(best_of(first, second, 3, ACROSS_LANGUAGES))
    assert across["b"] == pytest.approx(ACROSS_LANGUAGES(0.20))
    assert best_of(first, second, 1, ACROSS_LANGUAGES) == [("b", across["b"])]


def test_one_window_in_another_language_routes_an_owner_and_none_does_not() -> None:
    # An English-only owner (no second vector) takes the local model alone; their first
    # window said in German is enough (issue 35's example is a new user's first message).
    assert owner_routed(0) is False
    assert owner_routed(1) is True


@module_loop
async def test_the_second_model_reads_across_languages(
    use: MultilingualSource, minilm: OnnxEmbedder
) -> None:
    question = "What is my sister's name and where does she live?"
    for source, crosses in ((use, True), (minilm, False)):
        vectors = await source.embed([question, GERMAN[0], GERMAN[2]])
        assert vectors.shape == (3, source.dim)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
        answer, other = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
        assert (answer > other + 0.1) is crosses, (source.model, answer, other)


@module_loop
async def test_a_window_said_in_german_is_found_by_an_english_question(
    tmp_path, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:  # type: ignore[no-untyped-def]
    counting = Counting(use)
    store = await _store(tmp_path, minilm, counting)
    try:
        await store.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
        await store.add([_said(t, "emma") for t in ENGLISH], NOW, 1000)
        await _drain(store)
        # Only the German windows went to the second model, in the background (not urgent).
        assert sum(n for n, _ in counting.calls) == len(GERMAN)
        assert not any(urgent for _, urgent in counting.calls)
        counting.calls.clear()

        live = Live(now=NOW, cutoff=None, owner="lukas")
        hits = (await store.vector("Where does my sister live?", live, 3)).hits
        assert "Köln" in hits[0].text and hits[0].score >= 0.20
        assert counting.calls == [(1, True)]

        counting.calls.clear()
        emma = Live(now=NOW, cutoff=None, owner="emma")
        hits = (await store.vector("Where does my sister live?", emma, 3)).hits
        assert "Cologne" in hits[0].text
        assert (
            counting.calls == []
        )  # an English-only owner never pays for the second model

        # Without the route the same question misses the German window.
        (tmp_path / "plain").mkdir()
        plain = await _store(tmp_path / "plain", minilm, None)
        try:
            await plain.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
            await _drain(plain)
            hits = (await plain.vector("Where does my sister live?", live, 1)).hits
            assert "Köln" not in hits[0].text
        finally:
            await plain.db.close()
    finally:
        await store.db.close()


CURRY = (
    "Jaa, immer noch! Mein neues Lieblingsessen ist Linsencurry mit Kokosmilch, "
    "mach ich fast jede Woche"
)
"""A chatty turn about food, read by USE-m3 against an English question about a diet at a
cosine the same-language map left under the snippets' floor (0.20)."""
MAP_CASES = (
    ("How has Jonas's diet changed over the year?", ACROSS_LANGUAGES),
    ("Wie hat sich deine Ernährung dieses Jahr verändert?", SAME_LANGUAGE),
)
"""A question in English is read across languages, one in German within its language."""


async def routed_score(
    minilm: EmbeddingSource, use: EmbeddingSource, question: str, onto_first: CosineMap
) -> float:
    """What a store should rank `CURRY` at for `question`: the better of MiniLM's cosine
    and USE-m3's through `onto_first`."""
    second = await use.embed([question, CURRY])
    first = await minilm.embed([question, CURRY])
    return max(float(first[0] @ first[1]), onto_first(float(second[0] @ second[1])))


@module_loop
async def test_an_english_question_ranks_routed_windows_by_the_across_languages_map(
    tmp_path, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:  # type: ignore[no-untyped-def]
    history = [CURRY, "Na, wie war die Hochzeit von deinem Bruder?? Erzähl alles!"]
    store = await _store(tmp_path, minilm, use)
    try:
        await store.add([_said(t, "jonas") for t in history], NOW, 1000)
        await _drain(store)
        live = Live(now=NOW, cutoff=None, owner="jonas")
        for question, onto_first in MAP_CASES:
            expected = await routed_score(minilm, use, question, onto_first)
            found = await store.vector(question, live, 2)
            ranked = dict(found.ranked)
            score = next(ranked[h.ref] for h in found.hits if h.text == CURRY)
            assert score == pytest.approx(expected, abs=2e-3), question
        cosine = await use.embed([MAP_CASES[0][0], CURRY])
        across = float(cosine[0] @ cosine[1])
        floor = MemoryConfig().episodes.min_similarity
        assert SAME_LANGUAGE(across) < floor <= ACROSS_LANGUAGES(across), across
    finally:
        await store.db.close()


@module_loop
async def test_second_vectors_follow_erase_and_a_change_of_model(
    tmp_path, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:  # type: ignore[no-untyped-def]
    store = await _store(tmp_path, minilm, use)
    try:
        await store.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
        await _drain(store)
        live = Live(now=NOW, cutoff=None, owner="lukas")
        await store.vector("pottery class", live, 3)
        assert store.second is not None and store.second.cached("lukas") is not None

        def second_rows(conn):  # type: ignore[no-untyped-def]
            return conn.execute(
                "SELECT count(*) FROM episode_chunks WHERE vec2 IS NOT NULL"
            ).fetchone()[0]

        assert await store.db.read(second_rows) == len(GERMAN)
        # Another multilingual model's vectors are not comparable: looked at again.
        await store.db.write(
            lambda conn: conn.execute(
                "UPDATE episode_chunks SET vec2_sig = 'use:old:512'"
            )
        )
        store.second.forget_checked()
        # The backfill asks the count first (and stops at 0): the count sees the change.
        assert await store.pending_vectors() == len(GERMAN)
        assert await store.embed_pending(64) == len(GERMAN)
        assert await store.db.read(second_rows) == len(GERMAN)

        await store.erase_owner("lukas")
        assert store.second.cached("lukas") is None
        assert await store.db.read(second_rows) == 0
    finally:
        await store.db.close()


@module_loop
async def test_windows_stored_before_the_route_are_looked_at_after_it(
    tmp_path, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:  # type: ignore[no-untyped-def]
    # A file written with the route off (or before it existed) catches up when it is on.
    before = await _store(tmp_path, minilm, None)
    await before.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
    await _drain(before)
    assert await before.embed_pending(64) == 0
    await before.db.close()
    after = await _store(tmp_path, minilm, use)
    try:
        assert await after.pending_vectors() == len(GERMAN)
        await _drain(after)
        live = Live(now=NOW, cutoff=None, owner="lukas")
        hits = (await after.vector("Which city is my sister in?", live, 1)).hits
        assert "Köln" in hits[0].text
    finally:
        await after.db.close()


@module_loop
async def test_english_messages_are_marked_when_written(
    tmp_path, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:  # type: ignore[no-untyped-def]
    """The language is read once, on the write: an English message's windows never wait
    for the second model, and once nothing waits its pass reads nothing."""
    store = await _store(tmp_path, minilm, use)
    try:
        assert store.second is not None and store.second.waiting  # a file of before
        await _drain(store)
        assert not store.second.waiting
        await store.add([_said(ENGLISH[0], "emma")], NOW, 1000)
        assert not store.second.waiting

        def marks(conn):  # type: ignore[no-untyped-def]
            return conn.execute(
                "SELECT vec2_sig, count(*) FROM episode_chunks GROUP BY 1"
            ).fetchall()

        assert dict(await store.db.read(marks)) == {"english": 1}
        await store.add([_said(GERMAN[0], "lukas")], NOW, 1000)
        assert store.second.waiting
        # Emma's window and Lukas's for the first model, Lukas's for the second.
        assert await store.pending_vectors() == 3
        await _drain(store)
        assert not store.second.waiting
        assert dict(await store.db.read(marks)) == {"english": 1, use.signature: 1}
    finally:
        await store.db.close()


@module_loop
async def test_a_question_never_waits_for_the_second_model_to_load_or_fail() -> None:
    """After a restart the model loads off the request (its first questions rank by the
    first model alone); a model that fails or is held up leaves the first model ranking
    alone."""
    fresh = MultilingualSource()
    try:
        assert await second_query(fresh, "Where does my sister live?") is None
        assert fresh._warming is not None
        await asyncio.wrap_future(fresh._warming)
        assert fresh.loaded
        vector = await second_query(fresh, "Where does my sister live?")
        assert vector is not None and vector.shape == (fresh.dim,)
        # Held up (its one thread busy with a write batch): the question goes on with
        # the first model alone instead of spending the vector arm's deadline.
        busy = fresh._thread.submit(time.sleep, 0.6)
        started = time.perf_counter()
        assert await second_query(fresh, "Where does my sister live?") is None
        assert time.perf_counter() - started < 0.4
        await asyncio.wrap_future(busy)
        assert await second_query(fresh, "Where does my sister live?") is not None
    finally:
        await fresh.close()
    assert await second_query(fresh, "Where does my sister live?") is None  # closed


@module_loop
async def test_the_workers_pass_never_waits_for_the_second_model_to_load(
    tmp_path, minilm: OnnxEmbedder
) -> None:  # type: ignore[no-untyped-def]
    """The worker's own pass (`load_second=False`) embeds the first model's vectors and
    leaves the second to the background pass, which loads the model and embeds them. A
    first message in German was held ~1.3 s by the load, past what the next request
    waits for its own writes."""
    fresh = open_multilingual("auto")
    assert fresh is not None and not fresh.loaded
    store = await _store(tmp_path, minilm, fresh)
    try:
        await store.add([_said(GERMAN[0], "lukas")], NOW, 1000)
        started = time.perf_counter()
        assert (
            await store.embed_pending(32, load_second=False) == 1
        )  # the first model's
        assert time.perf_counter() - started < 0.5 and not fresh.loaded
        assert (await store.counts())["second_vectors"] == 0
        await store.embed_pending(32)  # the background pass: loads, then embeds
        assert fresh.loaded and (await store.counts())["second_vectors"] == 1
    finally:
        await store.db.close()
        await fresh.close()


@module_loop
async def test_windows_a_pass_is_embedding_still_count_as_waiting(
    tmp_path, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:  # type: ignore[no-untyped-def]
    """A pass clears `waiting` as it begins (for the writes that come meanwhile): the count
    said 0 while the second model was still embedding what the pass read, and an import
    that waited for its vectors answered before its German windows could be found."""
    held = Held(use)
    store = await _store(tmp_path, minilm, held)
    try:
        await store.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
        assert store.second is not None
        # The first model's vectors, then the second's pass, caught in the model.
        assert await store.embed_pending(len(GERMAN)) == len(GERMAN)
        running = asyncio.ensure_future(store.embed_pending(64))
        await asyncio.wait_for(held.reached.wait(), 10)
        assert not store.second.waiting
        assert await store.pending_vectors() == len(GERMAN)
        held.release.set()
        assert await running == len(GERMAN)
        assert await store.pending_vectors() == 0
    finally:
        await store.db.close()


@module_loop
async def test_a_count_that_fails_leaves_the_windows_to_be_looked_at_again(
    tmp_path, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:  # type: ignore[no-untyped-def]
    store = await _store(tmp_path, minilm, use)
    await _drain(store)
    assert store.second is not None and not store.second.waiting
    await store.db.close()  # every read fails from here
    with pytest.raises(Exception):  # noqa: B017 - whichever error a closed store gives
        await store.second.pending()
    assert store.second.waiting  # unknown is not "nothing waits"
