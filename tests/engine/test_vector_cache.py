"""The in-process KNN cache in front of sqlite-vec: same answers as `vec0`, coherent after
every write (the tier's own, a signature reset, another connection's), owners isolated,
memory bounded by bytes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from memtap.config.schema import EmbeddingConfig, RemoteEmbeddingConfig
from memtap.engine.clock import now_iso
from memtap.engine.factory import build_vector_index
from memtap.engine.memory_rules import Live
from memtap.engine.sqlite import vector_cache
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.sql import memories, vectors
from memtap.engine.sqlite.sql.vectors import PendingMemory
from memtap.engine.sqlite.vector_cache import VectorCache, unit_rows
from memtap.engine.sqlite.vectors import SqliteVecIndex
from memtap.engine.types import MemoryPatch
from tests.support.semantic import (
    EmbeddingsServer,
    Holder,
    add_memory,
    make_config,
    open_db,
    search_ids,
)

DIM = 8


def best(found: list[tuple[str, float]] | None) -> tuple[str, float]:
    assert found
    return found[0][0], round(found[0][1], 4)


def rows(n: int, seed: int) -> np.ndarray:
    return unit_rows(
        np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    )


async def test_cached_knn_matches_vec0_with_every_filter(tmp_path: Path) -> None:
    db = await open_db(tmp_path / "m.db")
    try:
        await db.write(lambda conn: vectors.reset_for_signature(conn, "t:m:8", DIM))
        owners = ["alice", "bob", "carol"]
        made = []
        for i in range(150):
            kw: dict[str, object] = {}
            if i % 7 == 0:
                kw["session"] = "s1"
            made.append(await add_memory(db, owners[i % 3], f"fact number {i}", **kw))
        vecs = rows(len(made), 1)
        items = [PendingMemory(m.id, m.owner, m.content) for m in made]
        await db.write(lambda conn: vectors.store_vectors(conn, items, vecs))
        # a superseded and an expired memory must not come back from either path
        await db.write(
            lambda conn: conn.execute(
                "UPDATE memories SET superseded_by = ? WHERE id = ?",
                (made[1].id, made[0].id),
            )
        )
        await db.write(
            lambda conn: conn.execute(
                "UPDATE memories SET expires_at = '2000-01-01T00:00:00.000Z' WHERE id = ?",
                (made[3].id,),
            )
        )
        cache = VectorCache()
        for owner in owners:
            await db.read(
                lambda conn, o=owner: vectors.warm_owner(conn, cache, o, DIM)  # type: ignore[misc]
            )
        queries = rows(12, 2)
        for owner in owners:
            for session in (None, "s1"):
                for q in queries:

                    def both(
                        conn: Any, q: Any = q, o: str = owner, s: str | None = session
                    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
                        # an un-normalised query: the cache normalises like vec0's cosine;
                        # the live filter of the tier's own `search` (no retention)
                        live = Live(
                            now=now_iso(),
                            cutoff=None,
                            owner=o,
                            session=s,
                            match_session=s is not None,
                        )
                        cached = vectors.knn_live(conn, cache, q * 3.0, live, 10)
                        return vectors.knn(conn, q, o, s, 10), [
                            (m.id, sim) for m, sim in cached
                        ]

                    plain, cached = await db.read(both)
                    assert [m for m, _ in cached] == [m for m, _ in plain]
                    assert np.allclose(
                        [s for _, s in cached], [s for _, s in plain], atol=1e-5
                    )
                    assert made[0].id not in {m for m, _ in cached}
                    assert made[3].id not in {m for m, _ in cached}
        stats = cache.stats()
        assert stats.loads == 3 and stats.owners == 3 and stats.hits > 0
    finally:
        await db.close()


async def test_knn_live_is_knn_plus_the_live_reread_in_one_hop(tmp_path: Path) -> None:
    """`knn_live` (what retrieval uses) returns exactly the rows `knn` + `get_many` return,
    cached or not, with every live filter: owner, session, expiry, supersession and
    retention (which the KNN join itself does not apply)."""
    db = await open_db(tmp_path / "m.db")
    try:
        await db.write(lambda conn: vectors.reset_for_signature(conn, "t:m:8", DIM))
        made = []
        for i in range(90):
            kw: dict[str, object] = {"session": "s1"} if i % 5 == 0 else {}
            made.append(
                await add_memory(db, ("alice", "bob")[i % 2], f"fact {i}", **kw)
            )
        vecs = rows(len(made), 3)
        items = [PendingMemory(m.id, m.owner, m.content) for m in made]
        await db.write(lambda conn: vectors.store_vectors(conn, items, vecs))
        old = made[2]  # alice's, last written long ago: outside retention
        await db.write(
            lambda conn: conn.execute(
                "UPDATE memories SET updated_at = '2001-01-01T00:00:00.000Z' WHERE id = ?",
                (old.id,),
            )
        )
        warm = VectorCache()
        for owner in ("alice", "bob"):
            await db.read(
                lambda conn, o=owner: vectors.warm_owner(conn, warm, o, DIM)  # type: ignore[misc]
            )
        cold = VectorCache()  # nothing loaded: answered by vec0
        now = now_iso()
        checked = 0
        for owner in ("alice", "bob"):
            for session, match in ((None, False), ("s1", True), (None, True)):
                live = Live(
                    now=now,
                    cutoff="2020-01-01T00:00:00.000Z",
                    owner=owner,
                    session=session,
                    match_session=match,
                )
                # limit 3: the re-read goes in batches of 7, and the session filters drop
                # most of them, so several batches are needed
                for q, limit in zip(rows(6, 4), (40, 3, 40, 3, 40, 3), strict=True):

                    def run(
                        conn: Any, q: Any = q, live: Any = live, limit: int = limit
                    ) -> Any:
                        ids = vectors.knn(
                            conn,
                            q,
                            live.owner,
                            live.session if live.match_session else None,
                            1000,  # every row of the owner: the reference ranking
                        )
                        by_id = memories.get_many(conn, [m for m, _ in ids], live)
                        want = [(by_id[m].id, s) for m, s in ids if m in by_id]
                        got = [
                            [
                                (m.id, s)
                                for m, s in vectors.knn_live(conn, c, q, live, limit)
                            ]
                            for c in (warm, cold)
                        ]
                        return want[:limit], got

                    want, (from_cache, from_vec0) = await db.read(run)
                    for got in (from_cache, from_vec0):
                        assert [m for m, _ in got] == [m for m, _ in want]
                        assert np.allclose(
                            [s for _, s in got], [s for _, s in want], atol=1e-5
                        )
                    assert old.id not in {m for m, _ in from_cache}
                    assert len(want) <= 40
                    checked += len(want)
        assert checked > 0
        assert warm.stats().hits > 0 and cold.stats().hits == 0
    finally:
        await db.close()


def test_eviction_is_lru_by_bytes() -> None:
    one = rows(100, 1)
    per_owner = one.nbytes + 120 * 100
    cache = VectorCache(max_bytes=per_owner * 2 + 10)
    cache.observe(5)
    q = one[0]
    ids = [f"m{i}" for i in range(100)]
    for owner in ("a", "b"):
        assert cache.put(owner, list(ids), one.copy(), 5)
    assert best(cache.top("a", q, 1)) == ("m0", 1.0)  # a is now the newest
    assert cache.put("c", list(ids), one.copy(), 5)
    assert cache.cached_owners() == ["a", "c"]  # b was least recently used
    assert cache.stats().evictions == 1
    assert cache.stats().bytes == 2 * per_owner
    # an owner bigger than the whole budget is answered but not kept
    big = rows(400, 3)
    assert not cache.put("huge", [f"h{i}" for i in range(400)], big, 5)
    assert "huge" not in cache.cached_owners() and cache.stats().too_big == 1
    # rows read at an older version than the cache's are not kept either
    assert not cache.put("d", list(ids), one.copy(), 4)
    assert "d" not in cache.cached_owners()


def test_patches_keep_byte_count_and_a_gap_clears() -> None:
    cache = VectorCache()
    cache.observe(1)
    base = rows(10, 1)
    assert cache.put("a", [f"m{i}" for i in range(10)], base.copy(), 1)
    assert cache.put("b", ["x"], base[:1].copy(), 1)
    extra = rows(200, 9)
    cache.apply(2, [(f"n{i}", "a", extra[i] * 5) for i in range(200)])
    assert best(cache.top("a", extra[42], 1)) == ("n42", 1.0)
    cache.apply(3, deletes=["n42", "m0"])
    assert best(cache.top("a", extra[42], 1))[0] != "n42"
    # moving an id to another owner removes it from the first one
    cache.apply(4, [("x", "a", base[5])])
    assert cache.top("b", base[0], 5) == []
    stats = cache.stats()
    assert stats.rows == 209 and stats.version == 4
    assert stats.bytes == sum(e.nbytes for e in cache._owners.values())
    # a patch that skips a version (a write this process missed) drops everything
    cache.apply(6, [("y", "a", base[1])])
    assert cache.cached_owners() == [] and cache.stats().version == 6
    # and so does a newer version seen by a query
    assert cache.put("a", ["z"], base[:1].copy(), 6)
    cache.observe(7)
    assert cache.top("a", base[0], 1) is None


def _remote(server: EmbeddingsServer, model: str) -> EmbeddingConfig:
    return EmbeddingConfig(
        source="remote", remote=RemoteEmbeddingConfig(url=server.url, model=model)
    )


async def _remote_tier(
    tmp_path: Path, server: EmbeddingsServer, db: Database, holder: Holder | None = None
) -> SqliteVecIndex:
    if holder is None:
        holder = Holder(make_config(tmp_path))
    holder.current = replace(holder.current, embedding=_remote(server, "m"))
    tier = await build_vector_index(holder, db, None)
    assert isinstance(tier, SqliteVecIndex)
    return tier


async def _ids(tier: SqliteVecIndex, owner: str, query: str) -> list[str]:
    """The answer, checked to be the same before and after the owner's cache is loaded (the
    first query of an owner uses sqlite-vec's KNN and loads the cache in the background)."""
    first = [
        m for m, _ in await search_ids(tier, owner, query, None, 10, backfill=False)
    ]
    await tier.settle()
    assert tier.cache.holds(owner)
    again = [
        m for m, _ in await search_ids(tier, owner, query, None, 10, backfill=False)
    ]
    assert again == first
    return again


async def test_cache_follows_the_tiers_own_writes(tmp_path: Path) -> None:
    db = await open_db(tmp_path / "m.db")
    async with EmbeddingsServer() as server:
        tier = await _remote_tier(tmp_path, server, db)
        try:
            a1 = await add_memory(db, "alice", "postgres database choice")
            b1 = await add_memory(db, "bob", "postgres database for bob")
            await tier.upsert([a1, b1])
            assert await _ids(tier, "alice", "postgres database") == [a1.id]
            assert await _ids(tier, "bob", "postgres database") == [b1.id]  # isolation
            assert tier.cache.stats().loads == 2
            # upsert: visible at once, patched in place (no reload)
            a2 = await add_memory(db, "alice", "redis cache choice")
            await tier.upsert([a2])
            assert await _ids(tier, "alice", "redis cache") == [a2.id, a1.id]
            # a content change re-embeds: the new vector replaces the old one
            await db.write(
                lambda conn: memories.update(
                    conn, a1.id, MemoryPatch(content="kafka queue"), now_iso()
                )
            )
            changed = await db.read(lambda conn: memories.get(conn, a1.id))
            assert changed is not None
            await tier.upsert([changed])
            found = await search_ids(
                tier, "alice", "kafka queue", None, 1, backfill=False
            )
            assert best(found) == (a1.id, 1.0)
            # delete
            await tier.delete([a2.id])
            assert a2.id not in await _ids(tier, "alice", "redis cache")
            assert await _ids(tier, "bob", "postgres database") == [b1.id]
            assert (
                tier.cache.stats().loads == 2 and tier.cache.stats().invalidations == 0
            )
            # erase drops the owner's rows and the cache entry; others stay
            assert await tier.erase_owner("alice") == 1
            assert "alice" not in tier.cache.cached_owners()
            assert await _ids(tier, "alice", "kafka queue") == []
            assert await _ids(tier, "bob", "postgres database") == [b1.id]
        finally:
            await tier.close()
    await db.close()


async def test_signature_reset_and_another_connections_writes(tmp_path: Path) -> None:
    db = await open_db(tmp_path / "m.db")
    other = await open_db(tmp_path / "m.db")
    async with EmbeddingsServer() as server:
        holder = Holder(make_config(tmp_path))
        tier = await _remote_tier(tmp_path, server, db, holder)
        try:
            a1 = await add_memory(db, "alice", "tabs for indentation")
            a2 = await add_memory(db, "alice", "spaces in yaml files")
            await tier.upsert([a1, a2])
            assert await _ids(tier, "alice", "tabs indentation") == [a1.id, a2.id]
            # another connection (another process, for the cache) deletes a vector
            assert (
                await other.write(lambda conn: vectors.delete_vectors(conn, [a1.id]))
                == 1
            )
            assert await _ids(tier, "alice", "tabs indentation") == [a2.id]
            # ... and stores one
            vec = np.asarray(server.vector("tabs for indentation"), dtype=np.float32)
            item = PendingMemory(a1.id, "alice", a1.content)
            await other.write(
                lambda conn: vectors.store_vectors(conn, [item], vec[None, :])
            )
            assert await _ids(tier, "alice", "tabs indentation") == [a1.id, a2.id]
            assert tier.cache.stats().invalidations == 2
            # a signature change (another model) empties the table and the cache
            holder.current = replace(holder.current, embedding=_remote(server, "other"))
            await tier.switch_source()
            assert tier.cache.cached_owners() == []
            assert await _ids(tier, "alice", "tabs indentation") == []
            await tier.reindex(None, False)
            assert await _ids(tier, "alice", "tabs indentation") == [a1.id, a2.id]
        finally:
            await tier.close()
    await other.close()
    await db.close()


async def test_meta_table_from_before_the_counter_gets_it(tmp_path: Path) -> None:
    db = await open_db(tmp_path / "m.db")
    try:

        def old_layout(conn: object) -> int:
            conn.execute(  # type: ignore[attr-defined]
                f"CREATE TABLE {vectors.META_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1),"
                " signature TEXT, dim INTEGER, reset_at TEXT)"
            )
            conn.execute(  # type: ignore[attr-defined]
                f"INSERT INTO {vectors.META_TABLE} VALUES (1, 'a:b:8', 8, 'x')"
            )
            vectors.ensure_meta(conn)
            return vectors.bump_version(conn)

        assert await db.write(old_layout) == 1
    finally:
        await db.close()


def test_own_write_in_flight_is_not_an_invalidation() -> None:
    cache = VectorCache()
    cache.observe(3)
    base = rows(4, 1)
    assert cache.put("a", ["m0", "m1"], base[:2].copy(), 3)
    cache.begin_write()
    cache.observe(4)  # a query saw our commit before its patch was applied
    assert cache.holds("a") and cache.stats().invalidations == 0
    # rows loaded at that version already hold the write; its patch is idempotent
    assert cache.put("b", ["x"], base[3:4].copy(), 4)
    # rows older than the cache may lack an applied patch: not kept
    assert not cache.put("c", ["y"], base[3:4].copy(), 2)
    cache.apply(4, [("m2", "a", base[2])])
    cache.end_write(ok=True)
    assert best(cache.top("a", base[2], 1)) == ("m2", 1.0)
    cache.observe(5)  # nothing of ours in flight: someone else wrote
    assert not cache.holds("a") and cache.stats().invalidations == 1
    assert cache.put("a", ["m0"], base[:1].copy(), 5)
    cache.begin_write()
    cache.end_write(ok=False)  # failed or cancelled: committed or not, nobody knows
    assert not cache.holds("a") and cache.stats().invalidations == 2


def test_rows_read_before_recent_writes_are_caught_up(
    monkeypatch: Any,
) -> None:
    # A load reads an owner's rows; writes of any owner commit meanwhile and their patches
    # are applied; the load arrives late. Refused, the owner was never cached under a steady
    # write stream (every query paid sqlite-vec's scan and another load): now the recent
    # patches are replayed onto it.
    cache = VectorCache()
    cache.observe(10)
    base = rows(8, 1)
    read_at_10 = (["m0", "m1", "m2"], base[:3].copy())
    cache.apply(11, [("m3", "a", base[3]), ("x0", "other", base[4])])
    cache.apply(12, deletes=["m1"])
    cache.apply(13, [("m2", "elsewhere", base[5])])  # an id moved to another owner
    assert cache.put("a", *read_at_10, 10)
    found = dict(cache.top("a", base[3], 10) or [])
    assert set(found) == {"m0", "m3"} and round(found["m3"], 4) == 1.0
    assert cache.stats().bytes == sum(e.nbytes for e in cache._owners.values())
    # rows of an owner erased after they were read are not kept
    cache.drop_owner(14, "b")
    assert not cache.put("b", ["b0"], base[6:7].copy(), 13)
    # nor rows older than the patches kept
    one_row = vector_cache._Patch(0, (("n", "a", base[7]),)).nbytes
    monkeypatch.setattr(vector_cache, "RECENT_PATCH_BYTES", one_row * 3 // 2)
    for version in range(15, 20):
        cache.apply(version, [(f"n{version}", "a", base[7])])
    assert not cache.put("c", ["c0"], base[:1].copy(), 14)
    assert cache.put("c", ["c0"], base[:1].copy(), 18)  # one patch behind: caught up
    # a write this process did not make (seen by a query) forgets the patches with the rows
    cache.observe(21)
    assert not cache.put("d", ["d0"], base[:1].copy(), 20)


def test_a_load_grown_past_the_budget_by_its_catch_up_is_not_kept() -> None:
    base = rows(40, 4)
    small = base[:2].copy()
    cache = VectorCache(max_bytes=2 * (small.nbytes + 120 * 2) + 600)
    cache.observe(1)
    assert cache.put("x", ["x0", "x1"], small.copy(), 1)
    cache.apply(2, [(f"n{i}", "a", base[i]) for i in range(40)])
    assert not cache.put("a", ["a0"], base[:1].copy(), 1)
    assert cache.cached_owners() == ["x"] and cache.stats().too_big == 1


def test_recent_patches_are_bounded_by_bytes_even_a_single_big_one(
    monkeypatch: Any,
) -> None:
    # Bounded by patch count with the newest always kept, one 20,000-row write stayed
    # whole outside `max_bytes` (25-50 MB at 1,536 dims).
    base = rows(6, 1)
    one_row = vector_cache._Patch(0, (("m", "a", base[0]),)).nbytes
    monkeypatch.setattr(vector_cache, "RECENT_PATCH_BYTES", one_row * 5 // 2)
    cache = VectorCache()
    cache.observe(0)
    cache.apply(
        1, [(f"big{i}", "a", base[i]) for i in range(4)]
    )  # alone past the bound
    assert cache._recent_bytes == 0 and not cache._recent
    assert not cache.put("a", ["a0"], base[:1].copy(), 0)  # its patch is not kept
    cache.apply(2, [("s0", "b", base[4])])
    cache.apply(3, [("s1", "b", base[5])])
    assert cache._recent_bytes == 2 * one_row
    assert cache.put("c", ["c0"], base[:1].copy(), 1)  # caught up from what is kept
