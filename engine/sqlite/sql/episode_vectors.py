"""The SQL of the episode windows' vectors: an owner's matrix, the windows waiting for one,
storing them (float16), and forgetting another model's. Windows are rows of `episode_chunks`
(`episodes.py` writes them); a keyword-only window (`KEYWORD_ONLY`) never gets a vector."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memtap.engine.episode_types import KEYWORD_ONLY

Conn = Any


NO_SECOND = "english"
"""`vec2_sig` of a window whose message needs no second vector (`multilingual.needs_second`)."""


def owner_vectors(
    conn: Conn, owner: str, signature: str, second: bool = False
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(chunk rowids, float32 matrix) of the owner's windows embedded with `signature`
    (`second`: their second vectors, from the multilingual model)."""
    column, sig = ("vec2", "vec2_sig") if second else ("vec", "vec_sig")
    rows = conn.execute(
        f"SELECT rowid_pk, {column} FROM episode_chunks WHERE owner = ? AND {sig} = ?",
        (owner, signature),
    ).fetchall()
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float16)
    return ids, matrix.reshape(len(rows), -1).astype(np.float32)


def unembedded(conn: Conn, limit: int) -> list[tuple[int, str, str]]:
    """(chunk rowid, owner, text) of windows without a vector, oldest first."""
    return [
        (r[0], r[1], r[2])
        for r in conn.execute(
            "SELECT rowid_pk, owner, text FROM episode_chunks WHERE vec IS NULL "
            "ORDER BY rowid_pk LIMIT ?",
            (limit,),
        )
    ]


def store_vectors(
    conn: Conn, rowids: Sequence[int], matrix: np.ndarray[Any, Any], signature: str
) -> None:
    half = matrix.astype(np.float16)
    conn.executemany(
        "UPDATE episode_chunks SET vec = ?, vec_sig = ? WHERE rowid_pk = ?",
        [(half[i].tobytes(), signature, rid) for i, rid in enumerate(rowids)],
    )


def forget_other_signatures(conn: Conn, signature: str) -> int:
    """Vectors of another embedding model are not comparable: they wait for a new one."""
    return int(
        conn.execute(
            "UPDATE episode_chunks SET vec = NULL, vec_sig = NULL "
            "WHERE vec_sig IS NOT NULL AND vec_sig != ? AND vec_sig != ?",
            (signature, KEYWORD_ONLY),
        ).rowcount
    )


def pending(conn: Conn) -> int:
    return int(
        conn.execute(
            "SELECT count(*) FROM episode_chunks WHERE vec IS NULL"
        ).fetchone()[0]
    )


def unrouted(conn: Conn, limit: int) -> list[tuple[int, str, str, str]]:
    """(chunk rowid, owner, window text, its message's text) of windows not yet looked at
    for a second vector, oldest first."""
    return [
        (r[0], r[1], r[2], r[3])
        for r in conn.execute(
            "SELECT c.rowid_pk, c.owner, c.text, e.content FROM episode_chunks c "
            "JOIN episodes e ON e.rowid_pk = c.episode_rowid "
            "WHERE c.vec2_sig IS NULL ORDER BY c.rowid_pk LIMIT ?",
            (limit,),
        )
    ]


def store_second(
    conn: Conn,
    rowids: Sequence[int],
    matrix: np.ndarray[Any, Any],
    signature: str,
    english: Sequence[int],
) -> None:
    """The second vectors of `rowids`; `english` windows marked as needing none."""
    half = matrix.astype(np.float16)
    conn.executemany(
        "UPDATE episode_chunks SET vec2 = ?, vec2_sig = ? WHERE rowid_pk = ?",
        [(half[i].tobytes(), signature, rid) for i, rid in enumerate(rowids)],
    )
    conn.executemany(
        "UPDATE episode_chunks SET vec2_sig = ? WHERE rowid_pk = ?",
        [(NO_SECOND, rid) for rid in english],
    )


def forget_other_second(conn: Conn, signature: str) -> int:
    """Second vectors of another multilingual model: looked at again."""
    return int(
        conn.execute(
            "UPDATE episode_chunks SET vec2 = NULL, vec2_sig = NULL "
            "WHERE vec2_sig IS NOT NULL AND vec2_sig NOT IN (?, ?, ?)",
            (signature, NO_SECOND, KEYWORD_ONLY),
        ).rowcount
    )


def pending_second(conn: Conn) -> int:
    return int(
        conn.execute(
            "SELECT count(*) FROM episode_chunks WHERE vec2_sig IS NULL"
        ).fetchone()[0]
    )


def second_count(conn: Conn) -> int:
    """Windows with a second vector (said in a routed language)."""
    return int(
        conn.execute(
            "SELECT count(*) FROM episode_chunks WHERE vec2 IS NOT NULL"
        ).fetchone()[0]
    )
