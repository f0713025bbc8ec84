"""The shared store suite: the same behaviour from the SQLite store and the Qdrant store.

Every test runs twice, against `SqliteRecordStore` (a real SQLite file in tmp_path, migrated)
and `QdrantMemoryStore` (qdrant-client local mode in memory). What must hold exactly as in
SQLite: upsert on (owner, key), owner isolation, session scope, expiry, retention,
supersession, listing, sweep, erase and export.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtap.config.schema import QdrantConfig
from memtap.engine.api import InvalidInput
from memtap.engine.clock import iso
from memtap.engine.memory_rules import Live
from memtap.engine.ports import FactWriter, OutboxRow, PlannedTurn, RecordStore
from memtap.engine.qdrant.fact_writer import QdrantFactWriter
from memtap.engine.qdrant.memories import QdrantMemoryStore
from memtap.engine.qdrant.transport import open_transport
from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.database import LOOP_READS_PER_ITERATION_MS, Database
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.sqlite.fact_writer import SqliteFactWriter
from memtap.engine.sqlite.memories import SqliteRecordStore
from memtap.engine.sqlite.outbox import SqliteOutbox
from memtap.engine.store_errors import StoreBusy, StoreTimeout
from memtap.engine.types import ExtractedFact, ListQuery, MemoryPatch, NewMemory, Turn

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def at(**delta: float) -> str:
    return iso(NOW + timedelta(**delta))


def live(owner: str | None = "alice", **kw: object) -> Live:
    return Live(now=at(), cutoff=kw.pop("cutoff", None), owner=owner, **kw)  # type: ignore[arg-type]


@pytest.fixture(params=["sqlite", "qdrant"])
async def store(request: pytest.FixtureRequest, tmp_path) -> AsyncIterator[RecordStore]:  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        db = await Database.open(tmp_path / "memtap.db", choose_driver())
        await db.write_outside_transaction(migrations.migrate)
        yield SqliteRecordStore(db)
        await db.close()
    else:
        transport = await open_transport(QdrantConfig(), location=":memory:")
        qdrant = QdrantMemoryStore(transport, "contract", embedder=None)
        yield qdrant
        await qdrant.close()


def new(content: str, owner: str = "alice", **kw: object) -> NewMemory:
    kw.setdefault("created_at", at())
    kw.setdefault("updated_at", kw["created_at"])
    return NewMemory(owner=owner, content=content, **kw)  # type: ignore[arg-type]


async def test_create_and_get(store: RecordStore) -> None:
    memory, created = await store.upsert_memory(
        new(
            "I prefer Postgres",
            type="episodic",
            session="s1",
            metadata={"source": "test"},
        ),
        at(),
    )
    assert created
    got = await store.get_memory(memory.id)
    assert got == memory
    assert (got.owner, got.session, got.type, got.content, got.metadata) == (
        "alice",
        "s1",
        "episodic",
        "I prefer Postgres",
        {"source": "test"},
    )
    assert (
        got.created_at == at() and got.expires_at is None and got.superseded_by is None
    )
    assert await store.get_memory("00000000-0000-4000-8000-000000000000") is None


async def test_upsert_on_owner_key_keeps_one_memory(store: RecordStore) -> None:
    first, created1 = await store.upsert_memory(
        new("editor is vim", key="editor", metadata={"a": 1, "b": 2}), at()
    )
    second, created2 = await store.upsert_memory(
        new(
            "editor is helix",
            key="editor",
            metadata={"b": None, "c": 3},
            created_at=at(hours=1),
        ),
        at(hours=1),
    )
    assert created1 and not created2
    assert second.id == first.id
    assert second.content == "editor is helix"
    assert second.created_at == first.created_at, "created_at is the first write's"
    assert second.updated_at == at(hours=1)
    assert second.metadata == {"a": 1, "c": 3}, "metadata is merge-patched"
    page = await store.list_page(ListQuery(owner="alice"))
    assert page.total == 1 and page.items[0].content == "editor is helix"
    other, created3 = await store.upsert_memory(
        new("editor is emacs", owner="bob", key="editor"), at()
    )
    assert created3 and other.id != first.id


async def test_upsert_by_id_keeps_the_id(store: RecordStore) -> None:
    fixed = "0b5c3c9e-6c2e-4a53-9d2e-8f1d3c1a7b10"
    memory, created = await store.upsert_memory(
        new("imported fact", id=fixed, key="k1"), at()
    )
    assert created and memory.id == fixed
    again, created_again = await store.upsert_memory(
        new("imported fact, revised", id=fixed, key="k2"), at(hours=1)
    )
    assert not created_again and again.id == fixed and again.key == "k2"
    assert (await store.get_memory(fixed)).content == "imported fact, revised"  # type: ignore[union-attr]
    assert (await store.list_page(ListQuery(owner="alice"))).total == 1


async def test_invalid_input_is_rejected(store: RecordStore) -> None:
    with pytest.raises(InvalidInput):
        await store.upsert_memory(new("   "), at())
    with pytest.raises(InvalidInput):
        await store.upsert_memory(new("x", owner=""), at())


async def test_update_fields_and_key_conflict(store: RecordStore) -> None:
    memory, _ = await store.upsert_memory(
        new("uses tabs", key="indent", expires_at=at(days=3)), at()
    )
    await store.upsert_memory(new("uses zsh", key="shell"), at())
    updated = await store.update_memory(
        memory.id,
        MemoryPatch(
            content="uses spaces", type="procedural", session="s9", metadata={"x": 1}
        ),
        at(hours=2),
    )
    assert updated is not None
    assert (updated.content, updated.type, updated.session, updated.metadata) == (
        "uses spaces",
        "procedural",
        "s9",
        {"x": 1},
    )
    assert updated.updated_at == at(hours=2) and updated.expires_at == at(days=3)
    cleared = await store.update_memory(
        memory.id, MemoryPatch(clear_expires_at=True), at(hours=3)
    )
    assert cleared is not None and cleared.expires_at is None
    assert await store.get_memory(memory.id) == cleared
    with pytest.raises(InvalidInput):
        await store.update_memory(memory.id, MemoryPatch(key="shell"), at(hours=4))
    renamed = await store.update_memory(
        memory.id, MemoryPatch(key="whitespace"), at(hours=5)
    )
    assert renamed is not None and renamed.key == "whitespace"
    # The old key is free again, and the renamed memory is still one memory.
    _, created = await store.upsert_memory(
        new("indent is 4", key="indent"), at(hours=6)
    )
    assert created
    assert (await store.list_page(ListQuery(owner="alice"))).total == 3
    assert (
        await store.update_memory(
            "00000000-0000-4000-8000-000000000000", MemoryPatch(content="x"), at()
        )
        is None
    )


async def test_delete(store: RecordStore) -> None:
    memory, _ = await store.upsert_memory(new("short lived"), at())
    assert await store.delete_memory(memory.id)
    assert await store.get_memory(memory.id) is None
    assert not await store.delete_memory(memory.id)


async def test_owner_isolation_on_every_read(store: RecordStore) -> None:
    await store.upsert_memory(new("alice likes postgres databases"), at())
    await store.upsert_memory(new("bob likes postgres databases", owner="bob"), at())
    for found in (
        await store.recent(live("alice"), 10),
        [m for m, _ in await store.keyword("postgres", live(), 10)],
    ):
        assert [m.owner for m in found] == ["alice"]
    page = await store.list_page(ListQuery(owner="bob"))
    assert [m.owner for m in page.items] == ["bob"]
    everyone = await store.recent(live(None), 10)
    assert sorted(m.owner for m in everyone) == ["alice", "bob"], (
        "owner=None is scope global"
    )


async def test_session_scope_is_exact(store: RecordStore) -> None:
    await store.upsert_memory(new("kotlin in session one", session="s1"), at())
    await store.upsert_memory(new("kotlin in session two", session="s2"), at())
    await store.upsert_memory(new("kotlin without a session"), at())
    one = await store.keyword("kotlin", live(session="s1", match_session=True), 10)
    assert [m.content for m, _ in one] == ["kotlin in session one"]
    none = await store.recent(live(session=None, match_session=True), 10)
    assert [m.content for m in none] == ["kotlin without a session"]
    assert len(await store.recent(live(session="s1"), 10)) == 3, (
        "scope owner ignores the session"
    )


async def test_expiry_and_retention(store: RecordStore) -> None:
    await store.upsert_memory(
        new("rust expired yesterday", expires_at=at(days=-1)), at()
    )
    await store.upsert_memory(new("rust expires tomorrow", expires_at=at(days=1)), at())
    await store.upsert_memory(
        new("rust written long ago", created_at=at(days=-40)), at()
    )
    await store.upsert_memory(
        new("rust written recently", created_at=at(days=-2)), at()
    )
    visible = {m.content for m in await store.recent(live(cutoff=at(days=-30)), 10)}
    assert visible == {"rust expires tomorrow", "rust written recently"}
    keyword = {
        m.content for m, _ in await store.keyword("rust", live(cutoff=at(days=-30)), 10)
    }
    assert keyword == visible
    no_retention = {m.content for m in await store.recent(live(), 10)}
    assert (
        "rust written long ago" in no_retention
        and "rust expired yesterday" not in no_retention
    )


async def test_supersession_hides_history(store: RecordStore) -> None:
    old, _ = await store.upsert_memory(
        new("I prefer tabs", key="pref:tabs"), at(), subject="indentation"
    )
    newer, _ = await store.upsert_memory(
        new("I now prefer spaces", key="pref:spaces", created_at=at(hours=1)),
        at(hours=1),
        subject="indentation",
    )
    assert await store.supersede("alice", "indentation", newer.id, at(hours=1)) == [
        old.id
    ]
    assert [m.id for m in await store.recent(live(), 10)] == [newer.id]
    assert await store.keyword("tabs", live(), 10) == []
    history = await store.list_page(ListQuery(owner="alice", include_superseded=True))
    by_id = {m.id: m for m in history.items}
    assert by_id[old.id].superseded_by == newer.id and by_id[old.id].valid_to == at(
        hours=1
    )
    assert (await store.list_page(ListQuery(owner="alice"))).total == 1
    # Re-stating the old fact makes it live again.
    again, created = await store.upsert_memory(
        new("I prefer tabs", key="pref:tabs"), at(hours=2)
    )
    assert not created and again.superseded_by is None
    assert {m.id for m in await store.recent(live(), 10)} == {old.id, newer.id}


async def test_supersede_reaches_every_live_memory_on_the_subject(
    store: RecordStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtap.engine.qdrant import supersession

    monkeypatch.setattr(supersession, "SUPERSEDE_PAGE", 2)  # more than one page
    old = [
        (
            await store.upsert_memory(
                new(f"editor choice {i}", key=f"e{i}"), at(), subject="editor"
            )
        )[0]
        for i in range(5)
    ]
    newer, _ = await store.upsert_memory(
        new("editor is helix", key="e-new"), at(hours=1), subject="editor"
    )
    assert sorted(
        await store.supersede("alice", "editor", newer.id, at(hours=1))
    ) == sorted(m.id for m in old)
    assert [m.id for m in await store.recent(live(), 10)] == [newer.id]


async def test_older_history_arriving_late_does_not_replace_the_current_value(
    store: RecordStore,
) -> None:
    # An import of old conversations after newer live turns: "Paris" (said first) must not
    # supersede "Berlin" (said later); it becomes history of Berlin instead.
    berlin, _ = await store.upsert_memory(
        new("Lives in Berlin", key="loc:berlin", created_at=at(hours=2)),
        at(hours=2),
        subject="slot:home",
    )
    assert await store.supersede("alice", "slot:home", berlin.id, at(hours=2)) == []
    paris, _ = await store.upsert_memory(
        new("Lives in Paris", key="loc:paris", created_at=at(hours=1)),
        at(hours=3),
        subject="slot:home",
    )
    assert await store.supersede("alice", "slot:home", paris.id, at(hours=3)) == []
    assert [m.id for m in await store.recent(live(), 10)] == [berlin.id]
    late = await store.get_memory(paris.id)
    assert late.superseded_by == berlin.id and late.valid_to == at(hours=2)


async def test_a_given_valid_to_is_kept(store: RecordStore) -> None:
    memory, _ = await store.upsert_memory(
        new("Lived in Oslo", valid_to=at(hours=-1)), at()
    )
    assert (await store.get_memory(memory.id)).valid_to == at(hours=-1)


async def test_recent_is_newest_first(store: RecordStore) -> None:
    for hours in (1, 3, 2):
        await store.upsert_memory(
            new(f"note {hours}", created_at=at(hours=-hours)), at()
        )
    assert [m.content for m in await store.recent(live(), 2)] == ["note 1", "note 2"]


async def test_keyword_relevance(store: RecordStore) -> None:
    await store.upsert_memory(new("I deploy with kubernetes clusters"), at())
    await store.upsert_memory(new("kubernetes kubernetes everywhere"), at())
    await store.upsert_memory(new("my cat is called Tom"), at())
    hits = await store.keyword("how do kubernetes deployments work", live(), 10)
    assert {m.content for m, _ in hits} == {
        "I deploy with kubernetes clusters",
        "kubernetes kubernetes everywhere",
    }
    assert all(score > 0 for _, score in hits)
    assert await store.keyword("the and of", live(), 10) == [], (
        "stopwords only: nothing"
    )
    assert await store.keyword("", live(), 10) == []


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[SqliteRecordStore]:
    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    yield SqliteRecordStore(db)
    await db.close()


async def test_a_ranking_read_on_the_loop_answers_the_same(
    sqlite_store: SqliteRecordStore,
) -> None:
    """SQLite's ranking reads run at once on the event loop's own connection; how a store
    reads never changes what it finds (the same reads through a reader thread)."""
    store = sqlite_store
    await store.upsert_memory(new("I deploy with kubernetes clusters"), at())
    await store.upsert_memory(new("my cat is called Tom"), at(hours=-1))
    query = "how do kubernetes deployments work"
    on_the_loop = (
        await store.keyword(query, live(), 10),
        await store.keyword_and_recent(query, live(), 10),
        await store.keyword(query, live("bob"), 10),
    )
    store._read_now_paused_until = float("inf")  # every read through a reader thread
    in_a_thread = (
        await store.keyword(query, live(), 10),
        await store.keyword_and_recent(query, live(), 10),
        await store.keyword(query, live("bob"), 10),
    )
    assert on_the_loop[0] == in_a_thread[0]
    assert on_the_loop[1] == in_a_thread[1]
    assert on_the_loop[2] == [] == in_a_thread[2]


async def test_a_ranking_read_the_loop_cannot_make_goes_to_a_reader(
    sqlite_store: SqliteRecordStore,
) -> None:
    store, db = sqlite_store, sqlite_store.db
    refused: list[str] = []

    def busy(fn: Any, *, budget_ms: int) -> Any:
        refused.append("busy")
        raise StoreBusy("database is locked")  # a lock the loop must not wait for

    await store.upsert_memory(new("I deploy with kubernetes clusters"), at())
    db.read_now = busy  # type: ignore[method-assign]
    found, recent = await store.keyword_and_recent("kubernetes", live(), 10)
    assert [m.content for m, _ in found] == ["I deploy with kubernetes clusters"]
    assert [m.content for m in recent] == ["I deploy with kubernetes clusters"]
    assert refused == ["busy"]


async def test_a_ranking_read_that_ran_out_of_its_loop_budget_pauses_the_loop_reads(
    sqlite_store: SqliteRecordStore,
) -> None:
    store, db = sqlite_store, sqlite_store.db
    tried: list[int] = []
    real = db.read_now

    def slow(fn: Any, *, budget_ms: int) -> Any:
        tried.append(budget_ms)
        raise StoreTimeout("query interrupted")  # a read past its budget on the loop

    await store.upsert_memory(new("I deploy with kubernetes clusters"), at())
    db.read_now = slow  # type: ignore[method-assign]
    for _ in range(3):
        found = await store.keyword("kubernetes", live(), 10)
        assert [m.content for m, _ in found] == ["I deploy with kubernetes clusters"]
    assert len(tried) == 1  # the next ones went straight to a reader thread
    db.read_now = real  # type: ignore[method-assign]
    store._read_now_paused_until = 0.0  # the pause over
    assert await store.keyword("kubernetes", live(), 10) == found


async def test_a_loop_iteration_full_of_reads_sends_the_next_to_a_reader_without_a_pause(
    sqlite_store: SqliteRecordStore,
) -> None:
    """Reads that filled this iteration's share of the loop (`LOOP_READS_PER_ITERATION_MS`)
    were not slow: the next ranking read goes to a reader thread, and the one after the loop
    has gone round reads on the loop again (no 5 s pause)."""
    store, db = sqlite_store, sqlite_store.db
    await store.upsert_memory(new("I deploy with kubernetes clusters"), at())
    expected = await store.keyword("kubernetes", live(), 10)
    threads: list[str] = []
    real_read = db.read

    async def read(fn: Any, **kw: Any) -> Any:
        threads.append("reader")
        return await real_read(fn, **kw)

    db.read = read  # type: ignore[method-assign]
    db.read_now(
        lambda c: time.sleep(LOOP_READS_PER_ITERATION_MS / 1000), budget_ms=1000
    )
    assert await store.keyword("kubernetes", live(), 10) == expected
    assert threads == ["reader"] and store._read_now_paused_until == 0.0
    await asyncio.sleep(0)  # the loop goes round: its share is whole again
    assert await store.keyword("kubernetes", live(), 10) == expected
    assert threads == ["reader"]


async def test_list_filters_order_and_paging(store: RecordStore) -> None:
    for i in range(5):
        await store.upsert_memory(
            new(
                f"fact number {i}",
                type="factual" if i % 2 else "episodic",
                session="s1" if i < 2 else None,
                created_at=at(minutes=i),
            ),
            at(),
        )
    await store.upsert_memory(new("someone else", owner="bob"), at())
    page = await store.list_page(ListQuery(owner="alice", limit=2, offset=1))
    assert page.total == 5 and [m.content for m in page.items] == [
        "fact number 3",
        "fact number 2",
    ]
    assert (await store.list_page(ListQuery(owner="alice", type="factual"))).total == 2
    assert (await store.list_page(ListQuery(owner="alice", session="s1"))).total == 2
    assert (await store.list_page(ListQuery())).total == 6
    found = await store.list_page(ListQuery(owner="alice", q="number 4"))
    assert [m.content for m in found.items] == ["fact number 4"]


async def test_export_and_erase_owner(store: RecordStore) -> None:
    ids = set()
    for i in range(7):
        memory, _ = await store.upsert_memory(new(f"alice fact {i}"), at())
        ids.add(memory.id)
    await store.upsert_memory(new("bob fact", owner="bob"), at())
    exported = [m async for m in store.export_owner("alice")]
    assert {m.id for m in exported} == ids and all(m.owner == "alice" for m in exported)
    assert await store.erase_owner("alice") == 7
    assert [m async for m in store.export_owner("alice")] == []
    assert await store.erase_owner("alice") == 0
    assert (await store.list_page(ListQuery(owner="bob"))).total == 1


async def test_sweep_deletes_expired_and_old(store: RecordStore) -> None:
    gone1, _ = await store.upsert_memory(
        new("expired", expires_at=at(minutes=-1)), at()
    )
    gone2, _ = await store.upsert_memory(new("ancient", created_at=at(days=-100)), at())
    kept, _ = await store.upsert_memory(new("fresh", expires_at=at(days=1)), at())
    removed = await store.sweep(at(), at(days=-30))
    assert set(removed) == {gone1.id, gone2.id}
    assert [m.id for m in await store.recent(live(None), 10)] == [kept.id]
    assert await store.sweep(at(), None) == []


async def test_summary_candidates_include_a_memory_written_at_the_cutoff(
    store: RecordStore,
) -> None:
    # "older than 0 days" must catch a memory written in the same millisecond as the cutoff
    long = "A long note. " + "details " * 40
    await store.upsert_memory(new(long, updated_at=at()), at())
    await store.upsert_memory(
        new(long + "later", updated_at=at(seconds=1)), at(seconds=1)
    )
    found = await store.summary_candidates(at(), "alice")
    assert [m.content for m in found] == [long]


async def test_counts(store: RecordStore) -> None:
    await store.upsert_memory(new("a", type="factual"), at())
    await store.upsert_memory(new("b", type="procedural", owner="bob"), at())
    await store.upsert_memory(new("c", expires_at=at(minutes=-5)), at())
    await store.upsert_memory(new("d", key="k1"), at(), subject="s")
    newer, _ = await store.upsert_memory(new("e", key="k2"), at(), subject="s")
    await store.supersede("alice", "s", newer.id, at())
    counts = await store.counts(at())
    assert counts["by_type"]["procedural"] == 1 and counts["by_type"]["factual"] == 3
    assert counts["live"] == 4 and counts["superseded"] == 1 and counts["expired"] == 1
    assert counts["owners"] == 2


# -- both stores agree, and nothing leaks across owners or sessions -------------------------

WORDS = ("postgres", "redis", "kafka", "vim", "emacs", "rust", "docker")
ITEM = st.tuples(
    st.sampled_from(["alice", "bob"]),
    st.sampled_from([None, "s1", "s2"]),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
    st.booleans(),
)


async def _visible(
    store: RecordStore,
    items: list[tuple[str, str | None, list[str], bool]],
    query: str,
    view: Live,
) -> tuple[set[str], set[str]]:
    for i, (owner, session, words, expired) in enumerate(items):
        expires = at(minutes=-1) if expired else None
        await store.upsert_memory(
            new(
                f"uses {' '.join(words)} #{i}",
                owner=owner,
                session=session,
                expires_at=expires,
            ),
            at(),
        )
    recent = {m.content for m in await store.recent(view, 100)}
    keyword = {m.content for m, _ in await store.keyword(query, view, 100)}
    return recent, keyword


async def _both(
    items: list[tuple[str, str | None, list[str], bool]], query: str, view: Live
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "memtap.db", choose_driver())
        await db.write_outside_transaction(migrations.migrate)
        transport = await open_transport(QdrantConfig(), location=":memory:")
        try:
            sqlite = await _visible(SqliteRecordStore(db), items, query, view)
            qdrant = await _visible(
                QdrantMemoryStore(transport, "prop", None, owns_transport=False),
                items,
                query,
                view,
            )
        finally:
            await transport.close()
            await db.close()
    assert qdrant == sqlite, "the two stores disagree"
    allowed = {
        f"uses {' '.join(words)} #{i}"
        for i, (owner, session, words, expired) in enumerate(items)
        if not expired
        and (view.owner is None or owner == view.owner)
        and (not view.match_session or session == view.session)
    }
    assert sqlite[0] == allowed
    assert sqlite[1] <= allowed and all(
        any(w in c for w in query.split()) for c in sqlite[1]
    )


@settings(max_examples=20, deadline=None)
@given(
    st.lists(ITEM, min_size=1, max_size=10),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=2),
    st.sampled_from(["owner", "session", "global"]),
    st.sampled_from([None, "s1"]),
)
def test_stores_agree_and_never_leak(
    items: list[tuple[str, str | None, list[str], bool]],
    query_words: list[str],
    scope: str,
    session: str | None,
) -> None:
    view = Live(
        now=at(),
        cutoff=None,
        owner=None if scope == "global" else "alice",
        session=session,
        match_session=scope == "session",
    )
    asyncio.run(_both(items, " ".join(query_words), view))


async def test_a_fact_replaces_only_the_named_live_memories_of_its_owner(
    store: RecordStore, tmp_path: Path
) -> None:
    """A model's fact names the memories it replaces (`ExtractedFact.replaces`): the store
    supersedes those that are the owner's and live, and never another owner's, whatever the
    fact names."""
    old, _ = await store.upsert_memory(new("Abita a Roma", key="k-roma"), at())
    theirs, _ = await store.upsert_memory(
        new("Abita a Napoli", owner="bob", key="k-napoli"), at()
    )
    # The unit of work the factory builds for each store: SQLite rows and their outbox in
    # one file (one transaction), Qdrant points beside a local outbox (write, then ack).
    db: Database | None = None
    facts: FactWriter
    if isinstance(store, SqliteRecordStore):
        outbox = SqliteOutbox(store.db)
        facts = SqliteFactWriter(store.db)
    else:
        assert isinstance(store, QdrantMemoryStore)
        db = await Database.open(tmp_path / "outbox.db", choose_driver())
        await db.write_outside_transaction(migrations.migrate)
        outbox = SqliteOutbox(db)
        facts = QdrantFactWriter(store, outbox)
    try:
        turn = Turn(
            "req-1",
            "alice",
            None,
            "openai-chat",
            "Mi sono trasferito a Milano.",
            "",
            created_at=at(seconds=1),
        )
        seq = await outbox.insert(turn, at(seconds=1))
        fact = ExtractedFact(
            type="factual",
            category="location",
            content="Abita a Milano",
            key="location:abita_a_milano",
            subject="location:abita_a_milano",
            polarity="positive",
            role="user",
            family="location",
            lang="it",
            replaces=(old.id, theirs.id, "no-such-id"),
        )
        planned = PlannedTurn(
            OutboxRow(seq, turn, 0), ((fact, {"extractor": "model"}),)
        )
        [written] = await facts.write([planned], at(seconds=2))
        assert await outbox.depth() == 0, "the turn's row is acked with its facts"
    finally:
        if db is not None:
            await db.close()
    [memory] = written.written
    assert written.superseded == [old.id]
    assert (await store.get_memory(old.id)).superseded_by == memory.id  # type: ignore[union-attr]
    assert (await store.get_memory(theirs.id)).superseded_by is None  # type: ignore[union-attr]
    assert [m.content for m in await store.recent(live("bob"), 10)] == [
        "Abita a Napoli"
    ]
    assert [m.content for m in await store.recent(live(), 10)] == ["Abita a Milano"]
