"""The multilingual route in a Qdrant episode store (`qdrant/episode_second.py`), with both
real models (the packaged MiniLM, USE-multilingual v3) and qdrant-client's local mode: a
window said in German is found by a question asked in English; an English-only owner's
questions never reach the second model; the second points (`<collection>_ml`) follow
delete, erase and sweep, also when the route is off; windows stored before the route are
looked at after it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
import pytest_asyncio
from qdrant_client import models

from memtap.config.schema import QdrantConfig
from memtap.engine.clock import iso
from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.embeddings.multilingual import MultilingualSource, open_multilingual
from memtap.engine.embeddings.onnx import OnnxEmbedder
from memtap.engine.episode_types import EpisodeListQuery
from memtap.engine.memory_rules import Live
from memtap.engine.qdrant.episode_second import ML, NO, YES, RouteCache
from memtap.engine.qdrant.episodes import QdrantEpisodeStore
from memtap.engine.qdrant.transport import QdrantTransport, open_transport
from tests.engine.test_multilingual_route import (
    CURRY,
    ENGLISH,
    GERMAN,
    MAP_CASES,
    NOW,
    _said,
    routed_score,
)
from tests.support.hash_embedder import HashEmbedder
from tests.support.route_models import Counting, Failing, Held

module_loop = pytest.mark.asyncio(loop_scope="module")
COLLECTION = "route_episodes"


@pytest_asyncio.fixture(loop_scope="module")
async def transport() -> AsyncIterator[QdrantTransport]:
    opened = await open_transport(QdrantConfig(), location=":memory:")
    yield opened
    await opened.close()  # not the stores' close(): it would close the shared models


def _store(
    transport: QdrantTransport, minilm: EmbeddingSource, second: EmbeddingSource | None
) -> QdrantEpisodeStore:
    return QdrantEpisodeStore(transport, COLLECTION, minilm, second=second)


async def _drain(store: QdrantEpisodeStore) -> None:
    while await store.pending_vectors():
        assert await store.embed_pending(64) > 0


async def _second_points(transport: QdrantTransport, owner: str | None = None) -> int:
    flt = models.Filter(
        must=[models.FieldCondition(key="owner", match=models.MatchValue(value=owner))]
        if owner is not None
        else []
    )
    result = await transport.call(
        "count",
        lambda c: c.count(f"{COLLECTION}_ml", count_filter=flt, exact=True),
    )
    return int(result.count)


def _lukas(**kw: object) -> Live:
    return Live(now=NOW, cutoff=kw.get("cutoff"), owner="lukas")  # type: ignore[arg-type]


@module_loop
async def test_a_window_said_in_german_is_found_by_an_english_question(
    transport: QdrantTransport, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:
    counting = Counting(use)
    store = _store(transport, minilm, counting)
    await store.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
    await store.add([_said(t, "emma") for t in ENGLISH], NOW, 1000)
    # Decided when written: only the German windows went to the second model (the
    # worker's path, not urgent), nothing is left for the background.
    assert sum(n for n, _ in counting.calls) == len(GERMAN)
    assert not any(urgent for _, urgent in counting.calls)
    assert await store.pending_vectors() == 0
    assert await _second_points(transport) == len(GERMAN)
    counts = await store.counts()
    assert (counts["second_vectors"], counts["second_pending"]) == (len(GERMAN), 0)
    counting.calls.clear()

    hits = (await store.vector("Where does my sister live?", _lukas(), 3)).hits
    assert "Köln" in hits[0].text and hits[0].score >= 0.20
    assert counting.calls == [(1, True)]
    assert (
        hits[0].episode.content == GERMAN[0]
    )  # the head's text, read as for the first

    counting.calls.clear()
    emma = Live(now=NOW, cutoff=None, owner="emma")
    for _ in range(2):  # the routing is counted once, then cached
        hits = (await store.vector("Where does my sister live?", emma, 3)).hits
        assert "Cologne" in hits[0].text
    assert counting.calls == []  # an English-only owner never pays for the second model
    assert store.second.routes.get("emma") is False

    # Without the route the same question misses the German window.
    plain = QdrantEpisodeStore(transport, "plain_episodes", minilm)
    await plain.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
    await _drain(plain)
    hits = (await plain.vector("Where does my sister live?", _lukas(), 1)).hits
    assert "Köln" not in hits[0].text


@module_loop
async def test_an_english_question_ranks_routed_windows_by_the_across_languages_map(
    transport: QdrantTransport, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:
    # As in the SQLite store (`test_multilingual_route.py`).
    store = QdrantEpisodeStore(transport, "across_episodes", minilm, second=use)
    await store.add([_said(CURRY, "jonas")], NOW, 1000)
    await _drain(store)
    live = Live(now=NOW, cutoff=None, owner="jonas")
    for question, onto_first in MAP_CASES:
        expected = await routed_score(minilm, use, question, onto_first)
        hits = (await store.vector(question, live, 1)).hits
        assert hits[0].text == CURRY
        assert hits[0].score == pytest.approx(expected, abs=2e-3), question


@module_loop
async def test_second_points_follow_delete_erase_and_sweep(
    transport: QdrantTransport, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:
    store = _store(transport, minilm, use)
    await store.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
    await store.add([_said(t, "mia") for t in GERMAN[:3]], NOW, 1000)
    assert await _second_points(transport, "lukas") == len(GERMAN)
    assert await store.second.routed("lukas")

    page = await store.list_page(EpisodeListQuery(owner="lukas", limit=1))
    assert await store.delete(page.items[0].id)
    assert await _second_points(transport, "lukas") == len(GERMAN) - 1
    assert (
        store.second.routes.get("lukas") is None
    )  # counted again at the next question

    assert await store.erase_owner("lukas") == len(GERMAN) - 1
    assert await _second_points(transport, "lukas") == 0
    hits = (await store.vector("Where does my sister live?", _lukas(), 3)).hits
    assert hits == []

    # Swept with their windows, and deleted by a store whose route is off too (an older
    # run's second points are not left behind).
    off = _store(transport, minilm, None)
    assert not off.second.on
    assert await off.sweep(iso(datetime(2027, 1, 1, tzinfo=UTC))) == 3
    assert await _second_points(transport, "mia") == 0


@module_loop
async def test_windows_stored_before_the_route_are_looked_at_after_it(
    transport: QdrantTransport, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:
    # A collection written with the route off (or before it existed) catches up when it is on.
    before = _store(transport, minilm, None)
    await before.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
    await before.add([_said(t, "emma") for t in ENGLISH], NOW, 1000)
    await _drain(before)
    assert await before.embed_pending(64) == 0
    assert "second_pending" not in await before.counts()

    after = _store(transport, minilm, use)
    assert await after.pending_vectors() == len(GERMAN) + len(ENGLISH)
    await _drain(after)
    assert await _second_points(transport) == len(GERMAN)
    records, _ = await transport.call(
        "scroll",
        lambda c: c.scroll(COLLECTION, limit=100, with_payload=[ML, "owner"]),
    )
    marks = {(r.payload or {})["owner"]: (r.payload or {})[ML] for r in records}
    assert marks == {"lukas": YES, "emma": NO}
    hits = (await after.vector("Which city is my sister in?", _lukas(), 1)).hits
    assert "Köln" in hits[0].text
    # Caught up, and writes mark their own windows: the background stops scrolling for them.
    assert not after.second.waiting
    await after.add([_said(ENGLISH[0] + " Again.", "emma")], NOW, 1000)
    await after.add([_said(GERMAN[0] + " Wieder.", "lukas")], NOW, 1000)
    assert not after.second.waiting


@module_loop
async def test_the_route_needs_the_packaged_first_model(
    transport: QdrantTransport, use: MultilingualSource
) -> None:
    # The maps (`CosineMap`) map onto MiniLM's scale only: another first model ranks alone.
    store = _store(transport, HashEmbedder(), use)
    assert not store.second.on and store.second.model == "off"
    await store.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
    assert await store.pending_vectors() == 0
    assert "second_vectors" not in await store.counts()


def test_the_routing_of_an_owner_is_kept_for_its_ttl() -> None:
    now = [0.0]
    cache = RouteCache(ttl_s=60, max_owners=2, clock=lambda: now[0])
    cache.put("emma", False)
    cache.put("lukas", True)
    assert (cache.get("emma"), cache.get("lukas")) == (False, True)
    now[0] = 61
    assert cache.get("emma") is None
    cache.put("emma", False)
    cache.put("mia", True)  # over max_owners: the least recently asked goes
    assert cache.get("lukas") is None and cache.get("mia") is True
    cache.forget({"mia"})
    assert cache.get("mia") is None


@module_loop
async def test_a_replica_with_the_route_off_erases_what_another_stored_later(
    transport: QdrantTransport, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:
    # The replica without the route looked first, when no second collection existed yet.
    off = _store(transport, minilm, None)
    await off.add([_said("Ich trinke gern Tee.", "nina")], NOW, 1000)
    await off.erase_owner("nina")
    on = _store(transport, minilm, use)
    await on.add([_said(t, "nina") for t in GERMAN], NOW, 1000)
    assert await _second_points(transport, "nina") == len(GERMAN)
    await off.erase_owner("nina")
    assert await _second_points(transport, "nina") == 0


@module_loop
async def test_a_change_of_the_second_model_embeds_its_windows_again(
    transport: QdrantTransport, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:
    """Second vectors of another multilingual model are not comparable with a question's:
    after an upgrade that changed it they are dropped and the German windows embedded again
    by the new one; the English windows' `no` stands, and the same model embeds nothing."""
    name = "model_change_episodes"
    before = QdrantEpisodeStore(transport, name, minilm, second=use)
    await before.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
    await before.add([_said(t, "emma") for t in ENGLISH], NOW, 1000)

    async def stored_model() -> str | None:
        info = await transport.call("get", lambda c: c.get_collection(f"{name}_ml"))
        return (info.config.metadata or {}).get("embedding")

    async def marks() -> dict[str, set[str]]:
        records, _ = await transport.call(
            "scroll", lambda c: c.scroll(name, limit=100, with_payload=[ML, "owner"])
        )
        out: dict[str, set[str]] = {}
        for r in records:
            payload = r.payload or {}
            out.setdefault(payload["owner"], set()).add(str(payload.get(ML)))
        return out

    assert await stored_model() == use.signature

    same = Counting(use)
    again = QdrantEpisodeStore(transport, name, minilm, second=same)
    await _drain(again)
    hits = (await again.vector("Where does my sister live?", _lukas(), 1)).hits
    assert "Köln" in hits[0].text
    assert [n for n, urgent in same.calls if not urgent] == []  # nothing embedded again

    upgraded = Counting(use)
    upgraded.signature = use.signature + "+changed"
    after = QdrantEpisodeStore(transport, name, minilm, second=upgraded)
    await _drain(after)
    assert sum(n for n, urgent in upgraded.calls if not urgent) == len(GERMAN)
    assert await stored_model() == upgraded.signature
    assert await marks() == {"lukas": {YES}, "emma": {NO}}
    count = await transport.call("count", lambda c: c.count(f"{name}_ml", exact=True))
    assert count.count == len(GERMAN)
    hits = (await after.vector("Where does my sister live?", _lukas(), 1)).hits
    assert "Köln" in hits[0].text


async def test_a_write_never_waits_for_the_second_model_to_load(
    transport: QdrantTransport, minilm: OnnxEmbedder
) -> None:
    """A window written while the second model loads is left to the background pass
    (unmarked), which embeds it once the model is loaded."""
    fresh = open_multilingual("auto")
    assert fresh is not None and not fresh.loaded
    counting = Counting(fresh)
    store = _store(transport, minilm, counting)
    try:
        started = time.perf_counter()
        await store.add([_said(GERMAN[0], "lukas")], NOW, 1000)
        assert time.perf_counter() - started < 0.5
        assert counting.calls == [] and store.second.waiting  # left for later
        assert await store.embed_pending(32, load_second=False) == 0
        assert counting.calls == [] and not fresh.loaded
        await store.embed_pending(32)  # the background pass: loads, then embeds
        assert counting.calls == [(1, False)]
        assert await _second_points(transport) == 1
    finally:
        await fresh.close()


async def _german_before_the_route(
    transport: QdrantTransport, minilm: OnnxEmbedder
) -> None:
    """Lukas's German windows, written and embedded with the route off."""
    before = _store(transport, minilm, None)
    await before.add([_said(t, "lukas") for t in GERMAN], NOW, 1000)
    await _drain(before)


@module_loop
async def test_windows_a_pass_is_embedding_still_count_as_waiting(
    transport: QdrantTransport, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:
    # A collection written with the route off; the route's first pass is caught in the
    # model: its windows still wait (the count read `waiting`, cleared as the pass began).
    await _german_before_the_route(transport, minilm)
    held = Held(use)
    after = _store(transport, minilm, held)
    running = asyncio.ensure_future(after.embed_pending(64))
    await asyncio.wait_for(held.reached.wait(), 10)
    assert not after.second.waiting
    assert await after.pending_vectors() == len(GERMAN)
    held.release.set()
    assert await running == len(GERMAN)
    assert await after.pending_vectors() == 0


@module_loop
async def test_a_failed_pass_or_count_leaves_the_windows_to_be_looked_at_again(
    transport: QdrantTransport, minilm: OnnxEmbedder, use: MultilingualSource
) -> None:
    await _german_before_the_route(transport, minilm)
    failing = Failing(use)
    after = _store(transport, minilm, failing)
    # The pass fails in the model: its windows are looked at again, and still counted.
    assert await after.embed_pending(64) == 0
    assert after.second.waiting
    assert await after.pending_vectors() == len(GERMAN)

    async def broken(*_: object) -> int:
        raise RuntimeError("qdrant gone")

    after.second.episodes.count = broken  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        await after.second.pending()
    assert after.second.waiting  # unknown is not "nothing waits"
