"""The sqlite-vec table: partitions per owner, filters on the vector path, signature resets,
and the file size that the small chunk_size buys."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from memtap.engine.clock import now_iso
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.sql import vectors
from memtap.engine.sqlite.sql.vectors import PendingMemory
from memtap.engine.types import Memory
from tests.support.semantic import add_memory, open_db

DIM = 4


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


async def prepared(tmp_path: Path) -> Database:
    db = await open_db(tmp_path / "m.db")
    await db.write(lambda conn: vectors.reset_for_signature(conn, "test:m:4", DIM))
    return db


async def store(db: Database, memory: Memory, vector: np.ndarray) -> int:
    item = PendingMemory(memory.id, memory.owner, memory.content)
    return await db.write(
        lambda conn: vectors.store_vectors(conn, [item], vector[None, :])
    )


async def knn(
    db: Database,
    query: np.ndarray,
    owner: str | None,
    session: str | None = None,
    limit: int = 10,
):  # type: ignore[no-untyped-def]
    return await db.read(lambda conn: vectors.knn(conn, query, owner, session, limit))


async def test_knn_stays_inside_the_owner_partition(tmp_path: Path) -> None:
    db = await prepared(tmp_path)
    try:
        a = await add_memory(db, "alice", "alice fact")
        b = await add_memory(db, "bob", "bob fact, closer to the query")
        await store(db, a, unit(1, 0.2, 0, 0))
        await store(db, b, unit(1, 0, 0, 0))
        found = await knn(db, unit(1, 0, 0, 0), "alice")
        assert [mid for mid, _ in found] == [a.id]
        assert (
            abs(found[0][1] - float(unit(1, 0.2, 0, 0) @ unit(1, 0, 0, 0))) < 1e-5
        )  # cosine similarity
        assert {mid for mid, _ in await knn(db, unit(1, 0, 0, 0), None)} == {
            a.id,
            b.id,
        }  # scope global
        assert (
            await db.write(lambda conn: vectors.erase_owner_vectors(conn, "bob")) == 1
        )
        assert [mid for mid, _ in await knn(db, unit(1, 0, 0, 0), None)] == [a.id]
    finally:
        await db.close()


async def test_vector_path_drops_expired_superseded_and_other_sessions(
    tmp_path: Path,
) -> None:
    db = await prepared(tmp_path)
    try:
        live = await add_memory(db, "o", "live")
        expired = await add_memory(
            db, "o", "expired", expires_at="2000-01-01T00:00:00Z"
        )
        old = await add_memory(db, "o", "old fact")
        in_s1 = await add_memory(db, "o", "session one", session="s1")
        for i, m in enumerate((live, expired, old, in_s1)):
            await store(db, m, unit(1, 0.1 * i, 0, 0))
        await db.write(
            lambda conn: conn.execute(
                "UPDATE memories SET superseded_by = ? WHERE id = ?", (live.id, old.id)
            )
        )
        assert {mid for mid, _ in await knn(db, unit(1, 0, 0, 0), "o")} == {
            live.id,
            in_s1.id,
        }
        assert [
            mid for mid, _ in await knn(db, unit(1, 0, 0, 0), "o", session="s1")
        ] == [in_s1.id]
        assert await knn(db, unit(1, 0, 0, 0), "o", session="s2") == []
    finally:
        await db.close()


async def test_store_skips_changed_content_and_clears_the_flag(tmp_path: Path) -> None:
    db = await prepared(tmp_path)
    try:
        m = await add_memory(db, "o", "first text")
        assert await db.read(vectors.count_pending) == 1
        stale = PendingMemory(m.id, m.owner, "an older text")
        assert (
            await db.write(
                lambda conn: vectors.store_vectors(
                    conn, [stale], unit(1, 0, 0, 0)[None, :]
                )
            )
            == 0
        )
        assert (
            await db.read(vectors.count_pending) == 1
        )  # still pending: the text changed
        assert await store(db, m, unit(0, 1, 0, 0)) == 1
        assert await db.read(vectors.count_pending) == 0
        assert await db.read(vectors.count_vectors) == 1
        assert (
            await db.write(lambda conn: vectors.delete_vectors(conn, [m.id, "unknown"]))
            == 1
        )
        assert await db.read(vectors.count_vectors) == 0
    finally:
        await db.close()


async def test_signature_change_rebuilds_and_marks_everything(tmp_path: Path) -> None:
    db = await prepared(tmp_path)
    try:
        ms = [await add_memory(db, "o", f"fact {i}") for i in range(3)]
        for m in ms:
            await store(db, m, unit(1, 1, 0, 0))
        assert (await db.read(vectors.read_meta)).signature == "test:m:4"
        marked = await db.write(
            lambda conn: vectors.reset_for_signature(conn, "other:m:8", 8)
        )
        assert marked == 3
        meta = await db.read(vectors.read_meta)
        assert (meta.signature, meta.dim) == ("other:m:8", 8)
        assert await db.read(vectors.count_vectors) == 0
        pending = await db.read(lambda conn: vectors.pending_memories(conn, "o", 10))
        assert {p.id for p in pending} == {m.id for m in ms}
    finally:
        await db.close()


async def test_small_chunks_keep_a_many_owner_file_small(tmp_path: Path) -> None:
    # 1000 vectors of 384 floats over 50 owners: 1.5 MB of data. With chunk_size 1024 the
    # file was 79 MB (every partition allocates whole chunks); with 32 it stays small.
    db = await open_db(tmp_path / "size.db")
    try:
        await db.write(
            lambda conn: vectors.reset_for_signature(conn, "test:m:384", 384)
        )
        rng = np.random.default_rng(1)

        def fill(conn: object) -> None:
            now = now_iso()
            for i in range(1000):
                owner = f"owner{i % 50}"
                conn.execute(  # type: ignore[attr-defined]
                    "INSERT INTO memories(id, owner, type, content, created_at, updated_at) VALUES (?,?,?,?,?,?)",
                    (f"m{i}", owner, "factual", f"fact {i}", now, now),
                )
                conn.execute(  # type: ignore[attr-defined]
                    f"INSERT INTO {vectors.VEC_TABLE}(memory_id, owner, embedding) VALUES (?,?,?)",
                    (
                        f"m{i}",
                        owner,
                        rng.standard_normal(384).astype(np.float32).tobytes(),
                    ),
                )

        await db.write(fill)
        await db.write_outside_transaction(
            lambda conn: conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        )
        size = os.path.getsize(tmp_path / "size.db")
        assert size < 6_000_000, size
        assert (
            len(
                await knn(
                    db, rng.standard_normal(384).astype(np.float32), "owner7", limit=50
                )
            )
            == 20
        )
    finally:
        await db.close()


async def test_an_owner_loads_its_own_rows_whole_small_or_past_the_knn_limit(
    tmp_path: Path,
) -> None:
    """`load_owner` reads a small owner through a KNN inside its partition (a plain
    `WHERE owner = ?` scanned every owner's chunks) and an owner past sqlite-vec's largest
    `k` through the scan: either way every row of the owner, no other owner's."""
    db = await open_db(tmp_path / "load.db")
    big = vectors.KNN_MAX_K + 37
    rng = np.random.default_rng(3)
    expected: dict[str, dict[str, np.ndarray]] = {"small": {}, "big": {}, "other": {}}
    try:
        await db.write(lambda conn: vectors.reset_for_signature(conn, "test:m:4", DIM))

        def fill(conn: object) -> None:
            now = now_iso()
            for owner, count in (("small", 21), ("big", big), ("other", 300)):
                for i in range(count):
                    memory_id = f"{owner}-{i}"
                    vector = rng.standard_normal(DIM).astype(np.float32)
                    expected[owner][memory_id] = vector / np.linalg.norm(vector)
                    conn.execute(  # type: ignore[attr-defined]
                        "INSERT INTO memories(id, owner, type, content, created_at, updated_at) VALUES (?,?,?,?,?,?)",
                        (memory_id, owner, "factual", f"fact {i}", now, now),
                    )
                    conn.execute(  # type: ignore[attr-defined]
                        f"INSERT INTO {vectors.VEC_TABLE}(memory_id, owner, embedding) VALUES (?,?,?)",
                        (memory_id, owner, vector.tobytes()),
                    )

        await db.write(fill)
        for owner in ("small", "big"):
            ids, matrix = await db.read(
                lambda conn, o=owner: vectors.load_owner(conn, o, DIM)
            )
            assert sorted(ids) == sorted(expected[owner]), owner
            for row, memory_id in enumerate(ids):
                assert np.allclose(matrix[row], expected[owner][memory_id], atol=1e-6)
    finally:
        await db.close()
