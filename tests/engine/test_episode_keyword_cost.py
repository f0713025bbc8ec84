"""What the episode keyword arm and its caches do to save CPU, held to what they replaced:
the keyword read ranks window ids first and reads only the best (the same windows in the same
order as the one joined query it replaced, on every plan); a word most of the owner's windows
hold selects none (it is still scored); neighbours come in two statements (the same
neighbours across sessions, ties and retention); and the text caches and word counts forget
an erased owner. A real migrated SQLite file each."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memtap.config.schema import MemoryConfig
from memtap.engine.clock import iso
from memtap.engine.episode_types import EpisodeListQuery, NewEpisode
from memtap.engine.episodes import chunks, lexical, partners, recall, render
from memtap.engine.episodes.recall import forget_texts, recall_episodes
from memtap.engine.memory_rules import Live
from memtap.engine.retrieval.terms import MAX_TERMS, query_terms
from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.sqlite.episodes import SqliteEpisodeStore
from memtap.engine.sqlite.sql import episodes as sql
from memtap.engine.sqlite.sql.fts import _has_token, quote
from memtap.engine.types import RetrievalRequest
from tests.support.hash_embedder import HashEmbedder

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
CAP = 100_000


def at(**delta: float) -> str:
    return iso(NOW + timedelta(**delta))


def live(owner: str | None = "alice", **kw: Any) -> Live:
    return Live(now=at(), cutoff=kw.pop("cutoff", None), owner=owner, **kw)


def said(
    content: str, owner: str = "alice", session: str | None = "s1", **kw: Any
) -> NewEpisode:
    kw.setdefault("said_at", at())
    return NewEpisode(
        owner=owner, session=session, role=kw.pop("role", "user"), content=content, **kw
    )


@pytest.fixture
async def store(tmp_path) -> AsyncIterator[SqliteEpisodeStore]:  # type: ignore[no-untyped-def]
    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    yield SqliteEpisodeStore(db, source=lambda: HashEmbedder())
    await db.close()


def joined(
    conn: Any, query: str, where_live: Live, limit: int
) -> list[tuple[int, float]]:
    """The query the ranked-first read replaced: every match joined, then ordered."""
    terms = query_terms(query)[:MAX_TERMS]
    parts = []
    if where_live.owner is not None and _has_token(where_live.owner):
        parts.append(f"owner : {quote(where_live.owner)}")
    if where_live.match_session and where_live.session:
        parts.append(f"session : {quote(where_live.session)}")
    parts.append("text : (" + " OR ".join(quote(t) for t in terms) + ")")
    where, params = sql.live_where(where_live)
    rows = conn.execute(
        f"""SELECT c.rowid_pk, bm25(episode_chunks_fts, 1.0, 0.0, 0.0) AS rank
            FROM episode_chunks_fts
            CROSS JOIN episode_chunks c ON c.rowid_pk = episode_chunks_fts.rowid
            CROSS JOIN episodes e ON e.rowid_pk = c.episode_rowid
            WHERE episode_chunks_fts MATCH ? AND {where}
            ORDER BY rank, e.said_at DESC LIMIT ?""",
        (" AND ".join(parts), *params, limit),
    )
    return [(int(r[0]), round(-float(r[1]), 9)) for r in rows]


def found(hits: Sequence[Any]) -> list[tuple[int, float]]:
    return [(int(h.ref), round(h.score, 9)) for h in hits]


async def test_ranked_first_reads_the_same_windows_in_the_same_order(
    store: SqliteEpisodeStore,
) -> None:
    rng = random.Random(3)
    words = [
        f"w{i:03d}" for i in range(400)
    ]  # no word in more than a few percent of windows
    episodes = []
    for i in range(
        1300
    ):  # alice: enough windows for the text-first plan on a rare word
        text = " ".join(rng.sample(words, 6)) + "."
        episodes.append(said(text, session=f"s{i % 3}", said_at=at(minutes=-i)))
    for n, owner in enumerate(("bob", "carol"), start=1):
        for i in range(
            200
        ):  # said at times of their own: a tie of relevance and time has no order
            text = " ".join(rng.sample(words, 6)) + "."
            episodes.append(said(text, owner=owner, said_at=at(minutes=-i, seconds=n)))
    # Equal relevance: the same text said at three times ranks the newest first.
    for minutes in (-5000, -10, -3000):
        episodes.append(
            said("zebra quartz.", said_at=at(minutes=minutes), session=f"t{minutes}")
        )
    await store.add(episodes, at(), CAP)
    queries = [
        "w001 w002 w003",
        "w010 or w399?",
        "zebra quartz",
        "w123",
        "w005 w077 w250 w300",
    ]
    scopes = [
        live(),  # the owner-phrase plan or text-first, by the words' counts
        live(owner="bob"),
        live(owner=None),  # global scope: no owner filter
        live(session="s1", match_session=True),
        live(cutoff=at(minutes=-60)),  # retention drops most of the best matches
        live(cutoff=at(minutes=-1290)),
    ]
    for query in queries:
        for scope in scopes:
            for limit in (1, 5, 96):
                got = await store.keyword(query, scope, limit)
                want = await store.db.read(
                    lambda c, q=query, s=scope, n=limit: joined(c, q, s, n)
                )
                assert found(got) == want, (query, scope, limit)
    newest = await store.keyword("zebra quartz", live(), 3)
    assert [h.episode.said_at for h in newest] == [
        at(minutes=-10),
        at(minutes=-3000),
        at(minutes=-5000),
    ]


async def test_a_word_most_windows_hold_selects_none_but_still_counts(
    store: SqliteEpisodeStore,
) -> None:
    filler = [
        said(f"Today I sorted folder number {i}.", said_at=at(minutes=-i))
        for i in range(150)
    ]
    other = [
        said(f"Quiet evening number {i} with tea.", said_at=at(minutes=-200 - i))
        for i in range(150)
    ]
    baked = said("I baked sourdough today, my first loaf!", said_at=at(minutes=-500))
    baked_before = said("Last month I baked a lemon cake.", said_at=at(minutes=-600))
    await store.add([*filler, *other, baked, baked_before], at(), CAP)
    read = await store.keyword("What did I bake today?", live(), 50)
    # "today" is in half the windows: it brings none in; "bake" brings both loaves.
    assert {h.episode.id for h in read} == {baked.id, baked_before.id}
    # Scored again with every query word, the loaf said today leads.
    total, rows = await store.term_rows("alice", "What did I bake today?")
    assert rows["today"] > total * sql.COMMON_SHARE
    rescored = lexical.owner_scores(read, rows, total)
    assert rescored[0].episode.id == baked.id
    # A question of common words alone still finds them.
    assert len(await store.keyword("today?", live(), 200)) == 151
    # A small owner's words all select.
    await store.add(
        [said("Today was long.", owner="bob"), said("We baked bread.", owner="bob")],
        at(),
        CAP,
    )
    assert len(await store.keyword("bake today", live(owner="bob"), 10)) == 2


async def test_neighbours_across_sessions_ties_and_retention(
    store: SqliteEpisodeStore,
) -> None:
    a1 = said("Did you try the new cafe?", role="assistant", said_at=at(seconds=-10))
    b1 = said(
        "Unrelated chat in another session.", session="s2", said_at=at(seconds=-9)
    )
    u1 = said("Yes, the one by the station.", said_at=at(seconds=-8))
    same_time = said(
        "Also bought beans there.", said_at=at(seconds=-8)
    )  # stored after u1
    other = said(
        "Bob's message between them.", owner="bob", session="s1", said_at=at(seconds=-7)
    )
    a2 = said("Nice, what did you order?", role="assistant", said_at=at(seconds=-6))
    old = said("An old message.", said_at=at(days=-40))
    await store.add([a1, b1, u1, same_time, other, a2, old], at(), CAP)
    ids = [a1.id, u1.id, same_time.id, a2.id, old.id, b1.id, other.id, "missing"]
    near = await store.neighbours(ids, live())
    ident = {
        k: (v[0].id if v[0] else None, v[1].id if v[1] else None)
        for k, v in near.items()
    }
    assert ident == {
        a1.id: (old.id, u1.id),
        u1.id: (a1.id, same_time.id),  # equal said_at: storage order
        same_time.id: (u1.id, a2.id),  # bob's message is never a neighbour
        a2.id: (same_time.id, None),
        old.id: (None, a1.id),
        b1.id: (None, None),  # alone in its session
    }
    # Retention: the old message is not live, neither asked about nor beside a1.
    near = await store.neighbours([a1.id, old.id], live(cutoff=at(days=-30)))
    assert set(near) == {a1.id}
    assert near[a1.id][0] is None
    # Session scope: only the session's messages are live.
    scoped = await store.neighbours(
        [u1.id, b1.id], live(session="s1", match_session=True)
    )
    assert set(scoped) == {u1.id}


async def test_neighbours_find_the_snippets_by_id_not_by_walking_the_owner(
    store: SqliteEpisodeStore,
) -> None:
    """The snippets asked about are read by their ids' index; the owner only filters
    them. With the owner indexable the planner walked the owner's whole history to find 16
    snippets (267 us at 1,600 episodes, growing with it)."""
    await store.add(
        [
            said(f"Message number {i} about things.", said_at=at(seconds=i))
            for i in range(300)
        ],
        at(),
        CAP,
    )
    page = await store.list_page(EpisodeListQuery(owner="alice", limit=16))
    ids = [e.id for e in page.items]
    statements: list[str] = []

    def traced(conn):  # type: ignore[no-untyped-def]
        conn.set_trace_callback(statements.append)
        try:
            return sql.neighbours(conn, ids, live())
        finally:
            conn.set_trace_callback(None)

    near = await store.db.read(traced)
    assert len(near) == 16
    anchors = next(s for s in statements if "e.id IN" in s)
    plan = await store.db.read(
        lambda conn: [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + anchors)]
    )
    outer = plan[0]  # the loop over the snippets themselves
    assert "(id=?)" in outer and "owner=?" not in outer, plan


async def test_erase_forgets_the_owners_word_counts_and_the_text_caches(
    store: SqliteEpisodeStore,
) -> None:
    cfg = MemoryConfig(strategy="keyword")
    await store.add(
        [
            said(f"I keep bees on the roof, hive {i}. Yesterday we got honey.")
            for i in range(3)
        ]
        + [said("Bob keeps bees too.", owner="bob")],
        at(),
        CAP,
    )
    question = "Tell me about the bees and the honey"
    alice = await recall_episodes(
        store, cfg, RetrievalRequest(owner="alice", query=question)
    )
    assert alice.hits
    # The caches are warm with alice's texts: bob asking the same still gets his own only.
    bob = await recall_episodes(
        store, cfg, RetrievalRequest(owner="bob", query=question)
    )
    assert bob.hits and all(h.memory.owner == "bob" for h in bob.hits)
    assert any(k[1].startswith("alice\x00") for k in store.owner_sizes._word_rows)
    assert chunks.topical_stems.cache_info().currsize > 0
    assert render.dated_in_words.cache_info().currsize > 0
    await store.erase_owner("alice")
    assert not any(k[1].startswith("alice\x00") for k in store.owner_sizes._word_rows)
    assert not any(k[1] == "alice" for k in store.owner_sizes._rows)
    assert any(k[1].startswith("bob\x00") for k in store.owner_sizes._word_rows)
    forget_texts()  # what EpisodeService.erase_owner and delete call after the store
    for cached in (
        chunks._sentences,
        chunks.topical_stems,
        render.dated_in_words,
        lexical._bag,
        recall.normalise_text,
        partners._line_tokens,
    ):
        assert cached.cache_info().currsize == 0, cached
    assert not (
        await recall_episodes(
            store, cfg, RetrievalRequest(owner="alice", query=question)
        )
    ).hits
    again = await recall_episodes(
        store, cfg, RetrievalRequest(owner="bob", query=question)
    )
    assert [h.memory.content for h in again.hits] == [
        h.memory.content for h in bob.hits
    ]


def test_the_cached_text_functions_answer_as_uncached() -> None:
    text = "Yesterday I went to the market. Did you go? I bought apples!"
    assert chunks.sentences(text) == [
        "Yesterday I went to the market.",
        "Did you go?",
        "I bought apples!",
    ]
    first = chunks.sentences(text)
    first.append("changed by a caller")
    assert chunks.sentences(text) == [
        "Yesterday I went to the market.",
        "Did you go?",
        "I bought apples!",
    ]
    assert chunks.topical_stems(text) == {
        "yesterday",
        "went",
        "market",
        "bought",
        "appl",
    }
    assert render.dated_in_words(text, "2023-05-08T10:00:00Z").startswith(
        "Yesterday (7 May 2023)"
    )
    assert render.dated_in_words(text, "not a time") == text
