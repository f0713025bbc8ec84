"""The sqlite-vec vector index, inside the memories database: plain functions over a connection.

One `vec0` table, `memory_vectors`, keyed by the memory id, with the owner as a PARTITION KEY:
a KNN for one owner reads only that owner's chunks (a global KNN filtered afterwards is slower
and lets a big tenant starve a small one). `chunk_size` is small (32) because every partition
allocates whole chunks: with the default 1024, a 1k-row file holding 50 owners took 79 MB;
with 32 it takes 2.5 MB, and KNN speed measured the same from 32 to 128.

`memory_vector_meta` records the embedding signature (`source:model:dim`) the vectors were
made with. A different signature drops and recreates the table and marks every memory
`needs_reindex = 1`; backfill and reindex then fill it again. Its `version` counter goes up
with every vector write, in the same transaction: `engine.sqlite.vector_cache` compares it on
each query to notice writes it was not told about (another process on the same file).
Memories own the flag: the engine sets it on every content write, `store_vectors` clears it
once the vector is in.

Every function runs in a connection's thread (`Database.read` / `Database.write`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from memtap.engine.clock import now_iso
from memtap.engine.heap import release_freed_heap
from memtap.engine.memory_rules import Live
from memtap.engine.sqlite.sql import reindex_flags
from memtap.engine.sqlite.sql.memories import get_many
from memtap.engine.sqlite.vector_cache import VectorCache, unit_rows
from memtap.engine.types import Memory

log = logging.getLogger("memtap.store")

Conn = Any
VEC_TABLE = "memory_vectors"
META_TABLE = "memory_vector_meta"
CHUNK_SIZE = 32
MAX_KNN_K = 4096
"""sqlite-vec's upper bound for `k`."""


@dataclass(frozen=True, slots=True)
class VectorMeta:
    signature: str | None
    dim: int | None
    reset_at: str | None


@dataclass(frozen=True, slots=True)
class StoredVectors:
    """What one `store_vectors_tracked` call changed, for patching the in-process cache."""

    stored: int
    version: int
    upserts: list[tuple[str, str, npt.NDArray[np.float32]]]
    """(memory id, owner, vector) now in the table."""
    deletes: list[str]
    """Memory ids whose vector is gone (an all-zero vector replaced it)."""


@dataclass(frozen=True, slots=True)
class PendingMemory:
    id: str
    owner: str
    content: str


def ensure_meta(conn: Conn) -> None:
    conn.execute(
        f"""CREATE TABLE IF NOT EXISTS {META_TABLE} (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            signature TEXT,
            dim INTEGER,
            reset_at TEXT,
            version INTEGER NOT NULL DEFAULT 0
        )"""
    )
    columns = {row[1] for row in conn.execute(f"PRAGMA table_info({META_TABLE})")}
    if "version" not in columns:  # a file made before the counter existed
        conn.execute(
            f"ALTER TABLE {META_TABLE} ADD COLUMN version INTEGER NOT NULL DEFAULT 0"
        )


def read_version(conn: Conn) -> int:
    """The vector write counter (0 before the first reset)."""
    row = conn.execute(f"SELECT version FROM {META_TABLE} WHERE id = 1").fetchone()
    return int(row[0]) if row is not None else 0


def bump_version(conn: Conn) -> int:
    """Count one vector write (inside its transaction); returns the new version."""
    conn.execute(f"UPDATE {META_TABLE} SET version = version + 1 WHERE id = 1")
    return read_version(conn)


def read_meta(conn: Conn) -> VectorMeta:
    row = conn.execute(
        f"SELECT signature, dim, reset_at FROM {META_TABLE} WHERE id = 1"
    ).fetchone()
    if row is None or not _table_exists(conn, VEC_TABLE):
        return VectorMeta(None, None, None)
    return VectorMeta(row[0], row[1], row[2])


def _table_exists(conn: Conn, name: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
        is not None
    )


def reset_for_signature(conn: Conn, signature: str, dim: int) -> int:
    """(Re)create the vector table for `signature`; returns how many memories now need a vector.

    Called inside a write transaction when the stored signature differs from the active one."""
    ensure_meta(conn)
    conn.execute(f"DROP TABLE IF EXISTS {VEC_TABLE}")
    conn.execute(
        f"""CREATE VIRTUAL TABLE {VEC_TABLE} USING vec0(
            memory_id TEXT PRIMARY KEY,
            owner TEXT PARTITION KEY,
            embedding FLOAT[{int(dim)}] distance_metric=cosine,
            chunk_size={CHUNK_SIZE}
        )"""
    )
    reset_at = now_iso()
    conn.execute(
        f"""INSERT INTO {META_TABLE}(id, signature, dim, reset_at) VALUES (1, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET signature = excluded.signature, dim = excluded.dim,
            reset_at = excluded.reset_at""",
        (signature, int(dim), reset_at),
    )
    bump_version(conn)
    marked = reindex_flags.mark_all(conn)
    log.info(
        "vector.table_reset",
        extra={"fields": {"signature": signature, "dim": dim, "needs_reindex": marked}},
    )
    return marked


def store_vectors(
    conn: Conn,
    items: Sequence[PendingMemory],
    vectors: npt.NDArray[np.float32],
    signature: str | None = None,
) -> int:
    """Insert or replace the vectors of `items` and clear their `needs_reindex` flag.

    A memory whose content changed (or that was deleted) since it was read is skipped: its
    flag stays set, so the next backfill embeds the new text. With `signature`, nothing is
    stored unless the table was made for it (a source switch raced this batch). Returns how
    many were stored."""
    return store_vectors_tracked(conn, items, vectors, signature).stored


def store_vectors_tracked(
    conn: Conn,
    items: Sequence[PendingMemory],
    vectors: npt.NDArray[np.float32],
    signature: str | None = None,
) -> StoredVectors:
    """`store_vectors`, also saying which vectors changed and the version it made."""
    if signature is not None and read_meta(conn).signature != signature:
        return StoredVectors(0, read_version(conn), [], [])
    stored = 0
    upserts: list[tuple[str, str, npt.NDArray[np.float32]]] = []
    deletes: list[str] = []
    for item, vector in zip(items, vectors, strict=True):
        current = conn.execute(
            "SELECT content FROM memories WHERE id = ?", (item.id,)
        ).fetchone()
        if current is None or current[0] != item.content:
            continue
        conn.execute(f"DELETE FROM {VEC_TABLE} WHERE memory_id = ?", (item.id,))
        if np.any(vector):
            conn.execute(
                f"INSERT INTO {VEC_TABLE}(memory_id, owner, embedding) VALUES (?, ?, ?)",
                (
                    item.id,
                    item.owner,
                    np.ascontiguousarray(vector, dtype=np.float32).tobytes(),
                ),
            )
            upserts.append((item.id, item.owner, vector))
        else:
            deletes.append(item.id)
        # An all-zero vector (no known token) has no direction: nothing to index, but done.
        conn.execute("UPDATE memories SET needs_reindex = 0 WHERE id = ?", (item.id,))
        stored += 1
    version = bump_version(conn) if stored else read_version(conn)
    return StoredVectors(stored, version, upserts, deletes)


def delete_vectors(conn: Conn, memory_ids: Sequence[str]) -> int:
    removed = 0
    for memory_id in memory_ids:
        removed += conn.execute(
            f"DELETE FROM {VEC_TABLE} WHERE memory_id = ?", (memory_id,)
        ).rowcount
    removed = max(removed, 0)
    if removed:
        bump_version(conn)
    return removed


def erase_owner_vectors(conn: Conn, owner: str) -> int:
    count: int = conn.execute(
        f"SELECT count(*) FROM {VEC_TABLE} WHERE owner = ?", (owner,)
    ).fetchone()[0]
    conn.execute(f"DELETE FROM {VEC_TABLE} WHERE owner = ?", (owner,))
    bump_version(conn)
    return count


def pending_memories(conn: Conn, owner: str | None, limit: int) -> list[PendingMemory]:
    """Unexpired memories still waiting for a vector (`reindex_flags.pending`), as the text
    to embed."""
    return [
        PendingMemory(m.id, m.owner, m.content)
        for m in reindex_flags.pending(conn, owner, limit)
    ]


count_pending = reindex_flags.count
mark_all_pending = reindex_flags.mark_all


def count_vectors(conn: Conn) -> int:
    if not _table_exists(conn, VEC_TABLE):
        return 0
    count: int = conn.execute(f"SELECT count(*) FROM {VEC_TABLE}_rowids").fetchone()[0]
    return count


def knn(
    conn: Conn,
    query: npt.NDArray[np.float32],
    owner: str | None,
    session: str | None,
    limit: int,
    overfetch: int = 4,
) -> list[tuple[str, float]]:
    """Nearest live memories: (memory id, cosine similarity), best first, at most `limit`.

    The KNN runs inside the owner's partition and over-fetches `limit * overfetch` candidates;
    joining back to `memories` drops what the keyword path never returns (superseded, expired,
    another session's when `session` is given, as `memories.Live` does), so over-fetching
    is not wasted on dead rows. The engine re-reads the ids through `Live` (which also
    applies `retention_days`)."""
    k = min(MAX_KNN_K, max(limit * overfetch, limit + 16))
    blob = np.ascontiguousarray(query, dtype=np.float32).tobytes()
    partition = "AND owner = :owner" if owner is not None else ""
    sql = f"""
        WITH nearest AS (
            SELECT memory_id, distance FROM {VEC_TABLE}
            WHERE embedding MATCH :query AND k = :k {partition}
        )
        SELECT m.id, nearest.distance FROM nearest JOIN memories m ON m.id = nearest.memory_id
        WHERE m.superseded_by IS NULL
          AND (m.expires_at IS NULL OR m.expires_at > :now)
          AND (:session IS NULL OR m.session = :session)
        ORDER BY nearest.distance
        LIMIT :limit
    """
    params = {
        "query": blob,
        "k": k,
        "owner": owner,
        "now": now_iso(),
        "session": session,
        "limit": int(limit),
    }
    return [(row[0], 1.0 - float(row[1])) for row in conn.execute(sql, params)]


KNN_MAX_K = 4096
"""sqlite-vec's largest `k`."""


def load_owner(
    conn: Conn, owner: str, dim: int
) -> tuple[list[str], npt.NDArray[np.float32]]:
    """Every (memory id, unit vector) of `owner`'s partition, for the in-process cache.

    Rows are copied straight into a matrix sized from the owner's memory count (an index
    lookup; `count(*)` on vec0 scans the partition): building it from fetched batches or a
    growing buffer left 2-4x the matrix size in the reader thread's malloc arena as RSS.

    Read as a KNN inside the owner's partition, which returns every row when the owner holds
    fewer than `KNN_MAX_K`: a plain `WHERE owner = ?` reads every chunk of every owner in
    sqlite-vec 0.1.9 (21 rows among 400 owners' 8,400: 17.5 ms against 0.08 ms), so the
    first retrieval of each owner after a start cost a scan of the whole table. Bigger
    owners take that scan."""
    estimate = conn.execute(
        "SELECT count(*) FROM memories WHERE owner = ?", (owner,)
    ).fetchone()[0]
    matrix = np.empty((max(int(estimate), 16), dim), dtype=np.float32)
    probe = np.zeros(dim, dtype=np.float32)
    probe[0] = 1.0  # any unit vector: every distance is computed, the order is not used
    ids, matrix = _copy_rows(
        conn.execute(
            f"""SELECT memory_id, embedding FROM {VEC_TABLE}
                WHERE embedding MATCH ? AND k = ? AND owner = ?""",
            (probe.tobytes(), KNN_MAX_K, owner),
        ),
        matrix,
        dim,
    )
    if len(ids) >= KNN_MAX_K:  # maybe not all of them
        ids, matrix = _copy_rows(
            conn.execute(
                f"SELECT memory_id, embedding FROM {VEC_TABLE} WHERE owner = ?",
                (owner,),
            ),
            matrix,
            dim,
        )
    if len(ids) < matrix.shape[0] // 2:  # most memories lack a vector (after a reset)
        matrix = matrix[: len(ids)].copy()
    unit_rows(matrix[: len(ids)])
    return ids, matrix  # rows past len(ids): room for upserts


def _copy_rows(
    rows: Any, matrix: npt.NDArray[np.float32], dim: int
) -> tuple[list[str], npt.NDArray[np.float32]]:
    """(ids, matrix) with `rows` (memory id, vector blob) copied into `matrix` from row 0,
    grown when they do not fit."""
    flat = matrix.data.cast("B")
    width = dim * 4
    ids: list[str] = []
    for memory_id, blob in rows:
        n = len(ids)
        if n == matrix.shape[0]:  # vectors without a memory row: rare, grow
            grown = np.empty((n + n // 2, dim), dtype=np.float32)
            grown[:n] = matrix
            matrix, flat = grown, grown.data.cast("B")
        flat[n * width : (n + 1) * width] = blob
        ids.append(memory_id)
    return ids, matrix


def warm_owner(conn: Conn, cache: VectorCache, owner: str, dim: int) -> int:
    """Load `owner`'s rows into `cache` (if not there); returns how many rows it holds."""
    version = read_version(conn)
    cache.observe(version)
    if cache.holds(owner):
        return -1
    ids, matrix = load_owner(conn, owner, dim)
    cache.put(owner, ids, matrix, version)
    release_freed_heap()  # the fetched blobs, freed in this reader thread's arena
    return len(ids)


def _cached_top(
    conn: Conn,
    cache: VectorCache,
    query: npt.NDArray[np.float32],
    owner: str,
    k: int,
) -> list[tuple[str, float]] | None:
    """The owner's `k` nearest from `cache` (None: not cached), after checking the write
    counter so a write by another process drops stale rows first."""
    unit = np.asarray(query, dtype=np.float32)
    norm = float(np.linalg.norm(unit))
    if norm == 0.0:
        return []
    cache.observe(read_version(conn))
    return cache.top(owner, unit / norm, k)


def _knn_k(limit: int, overfetch: int) -> int:
    return min(MAX_KNN_K, max(limit * overfetch, limit + 16))


def knn_live(
    conn: Conn,
    cache: VectorCache,
    query: npt.NDArray[np.float32],
    live: Live,
    limit: int,
    overfetch: int = 4,
) -> list[tuple[Memory, float]]:
    """The nearest memories that pass `live` (every retrieval filter, retention included),
    as rows, best first: the KNN and the re-read of its hits in one reader hop (each hop is
    a thread wake-up on the request path).

    The owner's rows come from `cache` (same candidates and order as `vec0`); an owner not
    cached (not loaded yet, or dropped because another process wrote vectors) is answered
    by `vec0`: loading takes ~0.1 s per 10k rows, so the caller does it in the background
    (`warm_owner`). The global scope (no owner) has no partition to cache and stays on
    `vec0`."""
    session = live.session if live.match_session else None
    k = _knn_k(limit, overfetch)
    found = (
        None if live.owner is None else _cached_top(conn, cache, query, live.owner, k)
    )
    if found is None:  # the same k candidates from vec0 (already without dead rows)
        found = knn(conn, query, live.owner, session, k, overfetch=1)
    # Re-read in rank order, a little more than `limit` at a time: usually every candidate
    # is live and one short batch does it (0.14 ms for 29 rows vs 0.37 ms for all 80).
    out: list[tuple[Memory, float]] = []
    step = limit + limit // 4 + 4
    for start in range(0, len(found), step):
        batch = found[start : start + step]
        rows = get_many(conn, [mid for mid, _ in batch], live)
        out.extend((rows[mid], sim) for mid, sim in batch if mid in rows)
        if len(out) >= limit:
            break
    return out[: int(limit)]
