"""The text-first plan of keyword search (`engine/sqlite/sql/fts.py`): for an owner with many rows
it must return exactly what the owner-phrase plan returns, in the same order, falling back
when the live filter leaves too few of the best word matches."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memtap.engine.clock import iso
from memtap.engine.episode_types import NewEpisode
from memtap.engine.memory_rules import Live
from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.sqlite.sql import episodes, fts, memories
from memtap.engine.types import NewMemory

BIG, SMALL = "o" * 24, "s" * 24
NOW = datetime.now(UTC)


@pytest.fixture
def conn(monkeypatch: pytest.MonkeyPatch) -> Any:
    # The plan's thresholds scaled down, so a test owner of a few hundred rows has it.
    monkeypatch.setattr(fts, "TEXT_FIRST_OWNER_ROWS", 100)
    monkeypatch.setattr(fts, "TEXT_FIRST_RATIO", 5)
    connection = choose_driver().connect(":memory:")
    migrations.migrate(connection)
    yield connection
    connection.close()


def fill_memories(
    conn: Any, owner: str, count: int, every: int = 10, **kw: Any
) -> None:
    for i in range(count):
        words = "bicycle repair" if i % every == 0 else f"note number {i} about errands"
        memories.upsert(
            conn, NewMemory(owner=owner, content=f"{words} {i % 7}", **kw), iso(NOW)
        )


def live(owner: str, **kw: Any) -> Live:
    return Live(now=iso(NOW), cutoff=kw.pop("cutoff", None), owner=owner, **kw)


def both_plans(conn: Any, query: str, view: Live, limit: int) -> tuple[Any, Any, Any]:
    terms = fts.query_terms(query)
    match = fts.build_match(terms, view)
    assert match is not None
    sizes = fts.OwnerSizes()
    plan = fts.text_first(conn, "memories_fts", fts.text_match(terms), view, sizes)
    old = fts.search(conn, match, view, limit)
    new = fts.search(conn, match, view, limit, fts.text_match(terms), sizes)
    return (
        plan,
        [(m.id, round(s, 9)) for m, s in old],
        [(m.id, round(s, 9)) for m, s in new],
    )


def test_a_big_owner_gets_the_same_rows_in_the_same_order(conn: Any) -> None:
    fill_memories(conn, BIG, 600, every=25)
    fill_memories(conn, SMALL, 60, every=2)  # another owner's matches must not leak in
    plan, old, new = both_plans(conn, "how do I do a bicycle repair?", live(BIG), 10)
    assert plan is not None and not plan.filter_owner  # the owner has most rows
    assert len(old) == 10 and new == old


def test_the_owner_filter_moves_into_the_ranking_when_the_owner_is_a_minority(
    conn: Any,
) -> None:
    fill_memories(conn, BIG, 300, every=30)
    fill_memories(conn, SMALL, 900, every=300)
    plan, old, new = both_plans(conn, "bicycle repair", live(BIG), 5)
    assert plan is not None and plan.filter_owner
    assert len(old) == 5 and new == old


def test_common_words_keep_the_owner_phrase(conn: Any) -> None:
    fill_memories(conn, BIG, 300, every=2)  # half the owner's rows match
    plan, old, new = both_plans(conn, "bicycle", live(BIG), 5)
    assert plan is None and new == old


def test_a_live_filter_that_drops_the_best_matches_falls_back(conn: Any) -> None:
    # The best word matches are all expired: the text-first top holds none that are live.
    for i in range(40):
        memories.upsert(
            conn,
            NewMemory(
                owner=BIG,
                content="bicycle repair bicycle repair",
                expires_at=iso(NOW - timedelta(days=1)),
            ),
            iso(NOW - timedelta(days=2)),
        )
    fill_memories(conn, BIG, 600, every=40)
    plan, old, new = both_plans(conn, "bicycle repair", live(BIG), 5)
    assert plan is not None
    assert len(old) == 5 and new == old


def test_session_scope_keeps_the_owner_phrase(conn: Any) -> None:
    fill_memories(conn, BIG, 300, every=30, session="s1")
    plan, old, new = both_plans(
        conn, "bicycle repair", live(BIG, session="s1", match_session=True), 5
    )
    assert plan is None and new == old


def test_episode_windows_get_the_same_plan(conn: Any) -> None:
    rows = [
        NewEpisode(
            BIG,
            f"s{i // 50}",
            "user",
            (
                "We fixed the bicycle brakes today."
                if i % 30 == 0
                else f"Errand list {i}."
            ),
            iso(NOW - timedelta(minutes=i)),
        )
        for i in range(600)
    ]
    rows += [
        NewEpisode(SMALL, "x", "user", "bicycle brakes again", iso(NOW))
        for _ in range(30)
    ]
    episodes.add(conn, rows, iso(NOW), 10**6)
    view = live(BIG)
    sizes = fts.OwnerSizes()
    old = episodes.keyword(conn, "bicycle brakes", view, 8)
    new = episodes.keyword(conn, "bicycle brakes", view, 8, sizes)
    words = (
        "text : ("
        + " OR ".join(fts.quote(t) for t in fts.query_terms("bicycle brakes"))
        + ")"
    )
    assert fts.text_first(conn, "episode_chunks_fts", words, view, sizes) is not None
    assert len(old) == 8
    assert [(h.episode.id, h.chunk, round(h.score, 9)) for h in new] == [
        (h.episode.id, h.chunk, round(h.score, 9)) for h in old
    ]


def test_owner_sizes_are_remembered_for_their_ttl(conn: Any) -> None:
    fill_memories(conn, BIG, 120)
    sizes = fts.OwnerSizes(ttl_s=3600)
    assert sizes.rows(conn, "memories_fts", BIG) == 120
    fill_memories(conn, BIG, 30)
    assert sizes.rows(conn, "memories_fts", BIG) == 120  # a plan hint, not a result
    assert fts.OwnerSizes(ttl_s=0).rows(conn, "memories_fts", BIG) == 150
    assert sizes.rows(conn, "memories_fts", None) == 150


# -- a long query's words -------------------------------------------------------------------

COMMON = (
    "meeting work week team plan review notes today budget release order question "
    "thursday morning office project"
)


def test_a_long_query_ranks_its_rarest_words_in_their_order(conn: Any) -> None:
    for i in range(120):
        memories.upsert(
            conn, NewMemory(owner=SMALL, content=f"{COMMON} entry {i}"), iso(NOW)
        )
    memories.upsert(
        conn, NewMemory(owner=SMALL, content="My dog Rex eats salmon kibble"), iso(NOW)
    )
    query = f"Rex was sick again, {COMMON}: which kibble should he eat?"
    terms = fts.query_terms(query)
    assert len(terms) > fts.MAX_RANKED_TERMS
    sizes = fts.OwnerSizes()
    chosen = fts.informative_terms(conn, "memories_fts", terms, sizes)
    assert len(chosen) == fts.MAX_RANKED_TERMS
    assert chosen == [t for t in terms if t in chosen]  # their order
    # Words no row holds go first ("sick": they match nothing), then the commonest words
    # said first; a rarer word stays wherever it was said.
    assert "sick" not in chosen
    assert {"rex", "kibble", "eat"} <= set(chosen)
    assert "meeting" not in chosen and "project" in chosen
    # Short queries are left whole, and nothing is counted for them.
    assert fts.informative_terms(conn, "memories_fts", terms[:5], sizes) == terms[:5]
    match = fts.build_match(chosen, live(SMALL))
    assert match is not None
    found = fts.search(conn, match, live(SMALL), 3, fts.text_match(chosen), sizes)
    assert found[0][0].content == "My dog Rex eats salmon kibble"


def test_word_rows_are_counted_once_a_while_and_capped(
    conn: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts, "WORD_ROWS_CAP", 50)
    fill_memories(conn, BIG, 200, every=2)
    sizes = fts.OwnerSizes()
    assert sizes.word_rows(conn, "memories_fts", "bicycle") == 50  # 100 rows, capped
    assert sizes.word_rows(conn, "memories_fts", "errands") == 50
    for n in range(3):
        memories.upsert(conn, NewMemory(owner=SMALL, content=f"zebra {n}"), iso(NOW))
    assert sizes.word_rows(conn, "memories_fts", "zebra") == 3
    memories.upsert(conn, NewMemory(owner=SMALL, content="zebra 3"), iso(NOW))
    assert sizes.word_rows(conn, "memories_fts", "zebra") == 3  # remembered a while
    memories.upsert(conn, NewMemory(owner=SMALL, content="A unicorn"), iso(NOW))
    # A word no row held is asked again: a row written since holds it.
    assert sizes.word_rows(conn, "memories_fts", "unicorn") == 1
    episodes.add(
        conn,
        [NewEpisode(SMALL, None, "user", "The unicorn ate my homework.", iso(NOW))],
        iso(NOW),
        1000,
    )
    assert sizes.word_rows(conn, "episode_chunks_fts", "unicorn") == 1
