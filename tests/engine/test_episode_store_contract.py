"""The shared episode store suite: the same behaviour from `SqliteEpisodeStore` (a real
SQLite file, migrated) and `QdrantEpisodeStore` (qdrant-client local mode), both with a
deterministic embedder: dedupe by (owner, session, role, content), sentence windows found by
keyword and by meaning, owner isolation, session scope, retention from `said_at`, the
per-owner cap, delete, erase, sweep, export, listing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from memtap.config.schema import QdrantConfig
from memtap.engine.clock import iso
from memtap.engine.episode_types import EpisodeListQuery, NewEpisode
from memtap.engine.episodes.partners import with_partners
from memtap.engine.fallbacks import NoVectors
from memtap.engine.memory_rules import Live
from memtap.engine.ports import EpisodeStore
from memtap.engine.qdrant.episodes import QdrantEpisodeStore
from memtap.engine.qdrant.transport import open_transport
from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.sqlite.episodes import SqliteEpisodeStore
from tests.support.hash_embedder import HashEmbedder
from tests.support.snippets import snippet_of

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
CAP = 1000


def at(**delta: float) -> str:
    return iso(NOW + timedelta(**delta))


def live(owner: str | None = "alice", **kw: object) -> Live:
    return Live(now=at(), cutoff=kw.pop("cutoff", None), owner=owner, **kw)  # type: ignore[arg-type]


def said(
    content: str, owner: str = "alice", session: str | None = "s1", **kw: object
) -> NewEpisode:
    kw.setdefault("said_at", at())
    return NewEpisode(
        owner=owner, session=session, role=kw.pop("role", "user"), content=content, **kw
    )  # type: ignore[arg-type]


@pytest.fixture(params=["sqlite", "qdrant"])
async def store(
    request: pytest.FixtureRequest, tmp_path
) -> AsyncIterator[EpisodeStore]:  # type: ignore[no-untyped-def]
    embedder = HashEmbedder()
    if request.param == "sqlite":
        db = await Database.open(tmp_path / "memtap.db", choose_driver())
        await db.write_outside_transaction(migrations.migrate)
        yield SqliteEpisodeStore(db, source=lambda: embedder)
        await db.close()
    else:
        transport = await open_transport(QdrantConfig(), location=":memory:")
        qdrant = QdrantEpisodeStore(
            transport, "contract_episodes", embedder, owns_transport=True
        )
        yield qdrant
        await qdrant.close()


async def test_a_resent_message_is_stored_once(store: EpisodeStore) -> None:
    first = await store.add(
        [said("We drove to the coast last weekend.", request_id="r1")], at(), CAP
    )
    again = await store.add(
        [
            said(
                "we drove to the  COAST last weekend.",
                request_id="r2",
                said_at=at(hours=1),
            )
        ],
        at(hours=1),
        CAP,
    )
    assert first[0].created and not again[0].created
    assert first[0].id == again[0].id
    page = await store.list_page(EpisodeListQuery(owner="alice"))
    assert page.total == 1
    episode = page.items[0]
    assert (episode.content, episode.request_id, episode.said_at, episode.role) == (
        "We drove to the coast last weekend.",
        "r1",
        at(),
        "user",
    )
    # The same words in another session, by another role or owner, are other episodes.
    others = await store.add(
        [
            said("We drove to the coast last weekend.", session="s2"),
            said("We drove to the coast last weekend.", role="assistant"),
            said("We drove to the coast last weekend.", owner="bob"),
        ],
        at(),
        CAP,
    )
    assert all(w.created for w in others) and len({w.id for w in others}) == 3


async def test_windows_are_found_by_keyword_and_by_meaning(store: EpisodeStore) -> None:
    long = (
        "The demo went badly because the VPN dropped. "
        + "Filler sentence about nothing much here. " * 12
        + "My sister Ana moved to Porto in March."
    )
    await store.add([said(long), said("I like tea.")], at(), CAP)
    kw = await store.keyword("where did Ana move?", live(), 10)
    assert kw and "Porto" in kw[0].text and kw[0].score > 0
    assert kw[0].chunk > 0  # the window that holds it, not the message's start
    assert len(kw[0].text) < len(long)
    assert kw[0].episode.content == long
    while await store.pending_vectors():
        assert await store.embed_pending(64) > 0
    vec = (await store.vector("VPN demo", live(), 10)).hits
    assert vec[0].text.startswith("The demo went badly") and vec[0].score > 0.3
    assert await store.keyword("zebra", live(), 10) == []


async def test_the_vector_ranking_goes_deeper_than_the_windows_read(
    store: EpisodeStore,
) -> None:
    """Recall looks a keyword window's cosine up in `ranked` by its `ref`: both arms must
    name a window alike, and the ranking must reach past what was read."""
    texts = [f"Note {i} about the garden shed and the tomatoes." for i in range(12)]
    await store.add([said(t) for t in texts], at(), CAP)
    while await store.pending_vectors():
        assert await store.embed_pending(64) > 0
    found = await store.vector("garden shed tomatoes", live(), 2, depth=10)
    assert len(found.hits) >= 2 and len(found.ranked) == 10
    scores = [score for _, score in found.ranked]
    assert scores == sorted(scores, reverse=True)
    assert [h.ref for h in found.hits[:2]] == [ref for ref, _ in found.ranked[:2]]
    assert [h.score for h in found.hits[:2]] == pytest.approx(scores[:2])
    by_ref = dict(found.ranked)
    by_keyword = await store.keyword("garden shed tomatoes", live(), 12)
    assert len(by_keyword) == 12
    ranked_and_read = [h for h in by_keyword if h.ref in by_ref]
    assert len(ranked_and_read) == 10  # the same windows, named the same by both arms
    read_all = await store.vector("garden shed tomatoes", live(), 12, depth=12)
    cosine_when_read = {h.ref: h.score for h in read_all.hits}
    for hit in ranked_and_read:  # ranked but not read: the cosine it has when read
        assert by_ref[hit.ref] == pytest.approx(cosine_when_read[hit.ref], abs=1e-5)


async def test_vector_search_without_vectors_says_so(tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    try:
        store = SqliteEpisodeStore(db, source=lambda: None)
        await store.add([said("I like tea.")], at(), CAP)
        with pytest.raises(NoVectors):
            await store.vector("tea", live(), 5)
    finally:
        await db.close()


async def test_owner_isolation_and_session_scope(store: EpisodeStore) -> None:
    await store.add(
        [
            said("Biscuit is my ginger cat.", session="s1"),
            said("Biscuit ate my sandwich.", session="s2"),
            said("Biscuit the dog of bob.", owner="bob"),
            said("Biscuit without a session.", session=None),
        ],
        at(),
        CAP,
    )
    await store.embed_pending(64)
    owner_wide = {h.episode.content for h in await store.keyword("biscuit", live(), 10)}
    assert owner_wide == {
        "Biscuit is my ginger cat.",
        "Biscuit ate my sandwich.",
        "Biscuit without a session.",
    }
    only_s2 = await store.keyword("biscuit", live(session="s2", match_session=True), 10)
    assert [h.episode.content for h in only_s2] == ["Biscuit ate my sandwich."]
    no_session = await store.keyword(
        "biscuit", live(session=None, match_session=True), 10
    )
    assert [h.episode.content for h in no_session] == ["Biscuit without a session."]
    by_meaning = {
        h.episode.owner for h in (await store.vector("biscuit", live(), 10)).hits
    }
    assert by_meaning == {"alice"}
    assert (await store.list_page(EpisodeListQuery(owner="bob"))).total == 1


async def test_retention_counts_from_said_at(store: EpisodeStore) -> None:
    await store.add(
        [said("Old trip to Rome.", said_at=at(days=-40)), said("New trip to Rome.")],
        at(),
        CAP,
    )
    recent = await store.keyword("rome trip", live(cutoff=at(days=-30)), 10)
    assert [h.episode.content for h in recent] == ["New trip to Rome."]
    assert await store.sweep(at(days=-30)) == 1
    assert (await store.list_page(EpisodeListQuery(owner="alice"))).total == 1
    assert [h.episode.content for h in await store.keyword("rome", live(), 10)] == [
        "New trip to Rome."
    ]


async def test_the_cap_evicts_the_oldest(store: EpisodeStore) -> None:
    await store.add(
        [
            said(f"Note number {i} about gardening.", said_at=at(minutes=i))
            for i in range(5)
        ],
        at(),
        3,
    )
    page = await store.list_page(EpisodeListQuery(owner="alice"))
    assert page.total == 3
    assert [e.content for e in page.items] == [
        f"Note number {i} about gardening." for i in (4, 3, 2)
    ]
    await store.add(
        [said("Another note about gardening.", said_at=at(minutes=10))], at(), 3
    )
    page = await store.list_page(EpisodeListQuery(owner="alice"))
    assert [e.content for e in page.items][-1] == "Note number 3 about gardening."
    assert len(await store.keyword("gardening", live(), 10)) == 3


async def test_list_delete_erase_export(store: EpisodeStore) -> None:
    writes = await store.add(
        [said(f"Sentence {i} about climbing.", said_at=at(minutes=i)) for i in range(3)]
        + [said("Bob likes chess.", owner="bob")],
        at(),
        CAP,
    )
    page = await store.list_page(EpisodeListQuery(owner="alice", limit=2, offset=1))
    assert page.total == 3 and [e.content for e in page.items] == [
        "Sentence 1 about climbing.",
        "Sentence 0 about climbing.",
    ]
    assert (
        await store.list_page(EpisodeListQuery(owner="alice", session="nope"))
    ).total == 0
    assert await store.delete(writes[0].id)
    assert not await store.delete(writes[0].id)
    assert await store.get(writes[0].id) is None
    assert (await store.get(writes[1].id)).content == "Sentence 1 about climbing."  # type: ignore[union-attr]
    exported = sorted(e.content for e in [e async for e in store.export_owner("alice")])
    assert exported == ["Sentence 1 about climbing.", "Sentence 2 about climbing."]
    assert await store.erase_owner("alice") == 2
    assert await store.keyword("climbing", live(), 10) == []
    assert (await store.list_page(EpisodeListQuery())).total == 1
    counts = await store.counts()
    assert counts["episodes"] == 1


async def test_list_full_text(store: EpisodeStore) -> None:
    await store.add(
        [
            said("The heat pump was installed on Tuesday."),
            said("Pump up the volume.", said_at=at(minutes=1)),
            said("Nothing to see."),
        ],
        at(),
        CAP,
    )
    page = await store.list_page(EpisodeListQuery(owner="alice", q="pump"))
    assert page.total == 2
    assert [e.content for e in page.items] == [
        "Pump up the volume.",
        "The heat pump was installed on Tuesday.",
    ]


async def test_a_replaced_local_file_leaves_no_stale_vectors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    embedder = HashEmbedder()
    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    try:
        store = SqliteEpisodeStore(db, source=lambda: embedder)
        await store.add([said("The VPN dropped during the demo.")], at(), CAP)
        await store.embed_pending(64)
        assert (
            await store.vector("VPN demo", live(), 5)
        ).hits  # the owner's matrix is cached now
        await store.local_file_replaced()
        assert store.cache.stats()["owners"] == 0
    finally:
        await db.close()


async def test_sqlite_windows_embedded_later_join_the_cached_matrix(
    tmp_path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    # A chat adds and embeds one turn's windows at a time: the owner's cached matrix takes
    # them in, instead of being reloaded whole on the owner's next request.
    from memtap.engine.sqlite.sql import episode_vectors as sql

    embedder = HashEmbedder()
    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    store = SqliteEpisodeStore(db, source=lambda: embedder)
    loads: list[str] = []
    real_load = sql.owner_vectors

    def counting(conn, owner, signature):  # type: ignore[no-untyped-def]
        loads.append(owner)
        return real_load(conn, owner, signature)

    monkeypatch.setattr(sql, "owner_vectors", counting)
    try:
        await store.add([said("The VPN dropped during the demo.")], at(), 100)
        await store.embed_pending(64)
        assert (await store.vector("VPN demo", live(), 5)).hits
        await store.add(
            [said("We drove to the coast with the biscuit tin.", said_at=at(hours=1))],
            at(hours=1),
            100,
        )
        await store.embed_pending(64)
        found = (await store.vector("coast biscuit tin", live(), 5)).hits
        assert "coast" in found[0].text
        assert loads == ["alice"]  # loaded once, then kept up to date
    finally:
        await db.close()


async def test_qdrant_episodes_collection_of_another_vector_size_is_a_clear_mismatch() -> (
    None
):
    # The episodes collection is set up like the memory points' one: created, validated,
    # indexed. A changed embedding size is the configuration error, not failing writes.
    from memtap.engine.qdrant.collection import QdrantCollectionMismatch

    transport = await open_transport(QdrantConfig(), location=":memory:")
    first = QdrantEpisodeStore(transport, "sized_episodes", HashEmbedder(64))
    await first.add([said("The VPN dropped during the demo.")], at(), 100)
    other = QdrantEpisodeStore(transport, "sized_episodes", HashEmbedder(32))
    with pytest.raises(QdrantCollectionMismatch):
        await other.add([said("We drove to the coast.")], at(), 100)
    await transport.close()


async def test_sqlite_requests_during_an_owners_load_do_not_load_again(
    tmp_path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    # A big owner's windows take seconds to load: a request meanwhile gets no vector answer
    # at once (its keyword arm answers) instead of starting another load of the same rows.
    import asyncio
    import threading
    from typing import Any

    from memtap.engine.sqlite.sql import episode_vectors as sql

    embedder = HashEmbedder()
    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    try:
        store = SqliteEpisodeStore(db, source=lambda: embedder)
        await store.add([said("The VPN dropped during the demo.")], at(), CAP)
        await store.embed_pending(64)
        release, loads = threading.Event(), []
        real = sql.owner_vectors

        def slow_load(*args: Any) -> Any:
            loads.append(1)
            release.wait(5)
            return real(*args)

        monkeypatch.setattr(sql, "owner_vectors", slow_load)
        first = asyncio.ensure_future(store.vector("VPN demo", live(), 5))
        for _ in range(200):
            if loads:
                break
            await asyncio.sleep(0.01)
        with pytest.raises(NoVectors, match="loading"):
            await store.vector("VPN demo", live(), 5)
        release.set()
        assert (await first).hits
        assert (await store.vector("VPN demo", live(), 5)).hits  # cached now
        assert len(loads) == 1
    finally:
        await db.close()


async def test_neighbours_are_the_messages_said_just_before_and_after(
    store: EpisodeStore,
) -> None:
    question = said(
        "Did you go to the pride parade?", role="assistant", said_at=at(seconds=-1)
    )
    answer = said("Yes, last week, with my friends!", said_at=at())
    reply = said("That sounds wonderful.", role="assistant", said_at=at(seconds=1))
    other_session = said(
        "Something else entirely.", session="s2", said_at=at(seconds=-2)
    )
    other_owner = said("Not mine at all.", owner="bob", said_at=at(seconds=-1))
    await store.add([question, answer, reply, other_session, other_owner], at(), CAP)
    near = await store.neighbours([answer.id, question.id, reply.id, "missing"], live())
    assert set(near) == {answer.id, question.id, reply.id}
    before, after = near[answer.id]
    assert before is not None and before.id == question.id
    assert after is not None and after.id == reply.id
    assert near[question.id][0] is None  # the other session's message is not beside it
    assert near[reply.id][1] is None
    # Another owner's episodes are never neighbours, and another owner sees none of these.
    assert await store.neighbours([answer.id], live(owner="bob")) == {}


async def test_an_answer_to_a_follow_up_moves_up_in_either_store(
    store: EpisodeStore,
) -> None:
    """`with_partners` reads the follow-up's neighbours through the port: the same order
    and partner over SQLite and Qdrant."""
    statement = said("We went to the street festival by the river.", said_at=at())
    follow_up = said("Fun! What did you eat?", role="assistant", said_at=at(seconds=1))
    answer = said("Grilled eel and a mango sticky rice.", said_at=at(seconds=2))
    other = said("Work was hectic this week.", said_at=at(seconds=3))
    await store.add([statement, follow_up, answer, other], at(), CAP)

    hits = [snippet_of(statement), snippet_of(other), snippet_of(answer)]
    out = await with_partners(store, hits, live())
    assert [h.memory.id for h in out] == [statement.id, answer.id, other.id]
    assert out[1].memory.metadata["episode"]["partner"]["id"] == follow_up.id


async def test_term_rows_are_the_owners_own_word_statistics(
    store: EpisodeStore,
) -> None:
    await store.add(
        [
            said("Thanks, Caroline! See you soon."),
            said("Hey Caroline, how was the weekend?", said_at=at(seconds=1)),
            said("I was researching adoption agencies.", said_at=at(seconds=2)),
            said("Caroline Caroline Caroline", owner="bob"),
        ],
        at(),
        CAP,
    )
    total, rows = await store.term_rows(
        "alice", "What did Caroline research about adoption?"
    )
    assert total == 3
    assert rows["caroline"] == 2  # bob's window is not alice's
    assert rows["adoption"] == 1
    assert (await store.term_rows("nobody", "caroline"))[1].get("caroline", 0) == 0


LONG_REPLY = " ".join(
    f"Step {n}: stir the {word} slowly for two minutes."
    for n, word in enumerate(
        ["flour", "butter", "sugar", "eggs", "milk", "cinnamon", "salt"], 1
    )
)


async def test_an_assistant_message_is_indexed_by_its_opening(
    store: EpisodeStore,
) -> None:
    """Only the opening window of an assistant message is searched (the whole message is
    kept): a long reply no longer fills the owner's keyword index."""
    await store.add([said(LONG_REPLY, role="assistant")], at(), CAP)
    (kept,) = (await store.list_page(EpisodeListQuery(owner="alice"))).items
    assert kept.content == LONG_REPLY
    assert await store.keyword("stir the flour", live(), 10)
    assert await store.keyword("cinnamon", live(), 10) == []  # past the opening


async def test_windows_past_an_assistant_messages_opening_written_before_are_dropped(
    tmp_path,
) -> None:  # type: ignore[no-untyped-def]
    """A store written before (every window of a reply indexed) is brought in line: SQLite
    by migration m010, Qdrant by each process's first background pass."""
    from memtap.engine.qdrant.episode_points import window_points

    reply = said(LONG_REPLY, role="assistant")
    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(lambda conn: migrations.migrate(conn, upto=9))
    sqlite = SqliteEpisodeStore(db)
    await sqlite.add([reply], at(), CAP)

    def old_windows(conn):  # type: ignore[no-untyped-def]
        conn.execute(
            "INSERT INTO episode_chunks (episode_rowid, owner, seq, text, vec, vec_sig) "
            "SELECT episode_rowid, owner, 1, 'stir the cinnamon', x'', vec_sig "
            "FROM episode_chunks"
        )

    await db.write(old_windows)
    assert await sqlite.keyword("cinnamon", live(), 10)
    await db.write_outside_transaction(migrations.migrate)
    assert await sqlite.keyword("cinnamon", live(), 10) == []
    assert await sqlite.keyword("stir the flour", live(), 10)
    await db.close()

    transport = await open_transport(QdrantConfig(), location=":memory:")
    qdrant = QdrantEpisodeStore(
        transport, "tails_episodes", HashEmbedder(), owns_transport=True
    )
    try:
        await qdrant.add([reply], at(), CAP)
        points = window_points(
            [(reply.id, reply, 1, "stir the cinnamon")],
            at(),
            None,
            embedded_later=False,
        )
        await qdrant._points.call(  # a window a store of before wrote
            "upsert",
            lambda c: c.upsert("tails_episodes", points=points, wait=True),
        )
        assert await qdrant.keyword("cinnamon", live(), 10)
        await qdrant.embed_pending(8)
        assert await qdrant.keyword("cinnamon", live(), 10) == []
        assert await qdrant.keyword("stir the flour", live(), 10)
    finally:
        await qdrant.close()


@pytest.mark.parametrize("kind", ["sqlite", "qdrant"])
async def test_windows_of_another_model_are_embedded_again(
    tmp_path,
    kind: str,  # type: ignore[no-untyped-def]
) -> None:
    """Vectors of another model (another `embedding.source`, the integer graph built or
    lost: the same size, another space) are not compared with a question's: the windows
    wait for the new model (searched by keyword meanwhile) and the background embeds them
    again. SQLite keeps a signature on each window, Qdrant on the collection."""
    old, new = HashEmbedder(), HashEmbedder()
    new.signature = "hash:another-bow:64"
    texts = ["My sister Ana moved to Porto.", "The demo went badly.", "I like tea."]
    source = [old]
    transport = None
    if kind == "sqlite":
        db = await Database.open(tmp_path / "memtap.db", choose_driver())
        await db.write_outside_transaction(migrations.migrate)
        before: EpisodeStore = SqliteEpisodeStore(db, source=lambda: source[0])
        after: EpisodeStore = before  # one store, its source changed under it
    else:
        transport = await open_transport(QdrantConfig(), location=":memory:")
        before = QdrantEpisodeStore(transport, "model_episodes", old)
        after = QdrantEpisodeStore(transport, "model_episodes", new)
    try:
        await before.add([said(t) for t in texts], at(), CAP)
        await before.add([said("Sure, Porto is lovely.", role="assistant")], at(), CAP)
        while await before.pending_vectors():
            await before.embed_pending(64)
        assert (await before.vector("Ana Porto", live(), 3)).hits
        source[0] = new  # a restart with another model, or a settings change

        # The backfill asks how many wait first, and stops at 0: the count sees the change.
        assert await after.pending_vectors() == len(texts)
        try:  # none compared: no window of the new model yet
            assert (await after.vector("Ana Porto", live(), 3)).hits == []
        except NoVectors:
            pass
        assert await after.embed_pending(1) == 1
        assert await after.pending_vectors() == len(texts) - 1
        embedded = [t for t in new.texts if t in texts]
        meanwhile = (await after.vector("Ana Porto sister demo tea", live(), 10)).hits
        assert [h.text for h in meanwhile] == embedded  # only the one of the new model
        assert await after.keyword("Porto", live(), 10)  # words still find them all
        while await after.pending_vectors():
            await after.embed_pending(64)
        windows = [t for t in new.texts if t in texts or t.startswith("Sure")]
        assert sorted(windows) == sorted(texts)  # the assistant's window has none
        hits = (await after.vector("Ana Porto", live(), 1)).hits
        assert hits[0].text == texts[0]
    finally:
        if kind == "sqlite":
            await db.close()
        elif transport is not None:
            await transport.close()


async def test_qdrant_neighbours_take_two_round_trips_whatever_the_count() -> None:
    """The snippets' heads in one read, every neighbour in one batch of ordered queries:
    each was three sequential round trips a snippet (48 for 16), each a network wait on a
    remote server."""
    transport = await open_transport(QdrantConfig(), location=":memory:")
    store = QdrantEpisodeStore(transport, "trips_episodes", HashEmbedder())
    try:
        turns = [
            said(
                f"Message {i} about the trip.",
                role="user" if i % 2 else "assistant",
                said_at=at(seconds=i),
            )
            for i in range(18)
        ]
        await store.add(turns, at(), CAP)
        ops: list[str] = []
        real = transport.call

        async def counted(op, fn):  # type: ignore[no-untyped-def]
            ops.append(op)
            return await real(op, fn)

        transport.call = counted  # type: ignore[method-assign]
        asked = [t.id for t in turns[1:17]]
        near = await store.neighbours(asked, live())
        assert ops == ["retrieve", "neighbours"]
        for i, eid in enumerate(asked, start=1):
            before, after = near[eid]
            assert before is not None and before.id == turns[i - 1].id
            assert after is not None and after.id == turns[i + 1].id
    finally:
        await transport.close()


async def test_keyword_and_terms_is_keyword_and_term_rows_at_once(
    store: EpisodeStore,
) -> None:
    """The keyword arm's one read: the same matches as `keyword`, and the owner's word
    statistics as `term_rows` gives them; none without an owner or without a match."""
    await store.add(
        [
            said("Caroline researched adoption agencies."),
            said("Thanks, Caroline! Great news."),
            said("Caroline likes pottery.", owner="bob"),
        ],
        at(),
        CAP,
    )
    query = "What did Caroline research about adoption?"
    found = await store.keyword_and_terms(query, live(), 10)
    assert [h.ref for h in found.hits] == [
        h.ref for h in await store.keyword(query, live(), 10)
    ]
    assert (found.total, found.term_rows) == await store.term_rows("alice", query)
    everyone = await store.keyword_and_terms(query, live(owner=None), 10)
    assert everyone.hits and (everyone.total, everyone.term_rows) == (0, {})
    nothing = await store.keyword_and_terms("zebra", live(), 10)
    assert (nothing.hits, nothing.total, nothing.term_rows) == ([], 0, {})
