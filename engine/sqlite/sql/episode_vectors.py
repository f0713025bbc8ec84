"""The SQL of the episode windows' vectors: an owner's matrix, the windows waiting for one,
storing them (float16), and forgetting another model's. Windows are rows of `episode_chunks`
(`episodes.py` writes them); a keyword-only window (`KEYWORD_ONLY`) never gets a vector."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memtap.engine.episode_types import KEYWORD_ONLY

Conn = Any


def owner_vectors(
    conn: Conn, owner: str, signature: str
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(chunk rowids, float32 matrix) of the owner's windows embedded with `signature`."""
    rows = conn.execute(
        "SELECT rowid_pk, vec FROM episode_chunks WHERE owner = ? AND vec_sig = ?",
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
