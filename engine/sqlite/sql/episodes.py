"""The SQL of the episode store (`episodes`, `episode_chunks`, `episode_chunks_fts`, from
migration m007): plain synchronous functions over a connection, run by
`sqlite/episodes.py:SqliteEpisodeStore` through `Database.read` / `Database.write`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memtap.engine.episode_types import (
    KEYWORD_ONLY,
    MAX_EPISODE_CHARS,
    ChunkHit,
    Episode,
    EpisodeListQuery,
    EpisodePage,
    EpisodeWrite,
    NewEpisode,
)
from memtap.engine.episodes.chunks import windows
from memtap.engine.memory_rules import Live
from memtap.engine.retrieval.terms import MAX_TERMS, query_terms
from memtap.engine.sqlite.sql.fts import (
    OwnerSizes,
    _has_token,
    informative_terms,
    quote,
    ranked_text_first,
    text_first,
)

Conn = Any

E_COLUMNS = (
    "e.id, e.owner, e.session, e.role, e.content, e.said_at, e.request_id, e.format, "
    "e.created_at"
)


def to_episode(row: Sequence[Any]) -> Episode:
    return Episode(*row[:9])


def live_where(live: Live, alias: str = "e") -> tuple[str, list[Any]]:
    """`live` over `episodes`: owner, session scope, retention from `said_at`."""
    sql = ["1"]
    params: list[Any] = []
    if live.cutoff is not None:
        sql.append(f"{alias}.said_at >= ?")
        params.append(live.cutoff)
    if live.owner is not None:
        sql.append(f"{alias}.owner = ?")
        params.append(live.owner)
    if live.match_session:
        if live.session is None:
            sql.append(f"{alias}.session IS NULL")
        else:
            sql.append(f"{alias}.session = ?")
            params.append(live.session)
    return " AND ".join(sql), params


def add(
    conn: Conn, episodes: Sequence[NewEpisode], now: str, max_per_owner: int
) -> tuple[list[EpisodeWrite], set[str], int]:
    """(writes, owners touched, evicted). Known ids are left as they are."""
    out: list[EpisodeWrite] = []
    owners: set[str] = set()
    for new in episodes:
        content = new.content[:MAX_EPISODE_CHARS].strip()
        if not content:
            continue
        eid = new.id
        cur = conn.execute(
            """INSERT INTO episodes (id, owner, session, role, content, content_hash,
                   said_at, request_id, format, created_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING""",
            (
                eid,
                new.owner,
                new.session,
                new.role,
                content,
                new.hash,
                new.said_at,
                new.request_id,
                new.format,
                now,
            ),
        )
        created = cur.rowcount == 1
        out.append(EpisodeWrite(eid, created))
        if not created:
            continue
        owners.add(new.owner)
        rowid = cur.lastrowid
        keyword_only = new.role == "assistant"
        conn.executemany(
            "INSERT INTO episode_chunks (episode_rowid, owner, seq, text, vec, vec_sig) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    rowid,
                    new.owner,
                    seq,
                    text,
                    b"" if keyword_only else None,
                    KEYWORD_ONLY if keyword_only else None,
                )
                for seq, text in enumerate(windows(content))
            ],
        )
    evicted = sum(evict(conn, owner, max_per_owner) for owner in owners)
    return out, owners, evicted


def evict(conn: Conn, owner: str, max_per_owner: int) -> int:
    """Delete the owner's oldest episodes (by `said_at`) past `max_per_owner`."""
    count = int(
        conn.execute(
            "SELECT count(*) FROM episodes WHERE owner = ?", (owner,)
        ).fetchone()[0]
    )
    extra = count - max_per_owner
    if extra <= 0:
        return 0
    conn.execute(
        """DELETE FROM episodes WHERE rowid_pk IN (
               SELECT rowid_pk FROM episodes WHERE owner = ?
               ORDER BY said_at, rowid_pk LIMIT ?)""",
        (owner, extra),
    )
    return extra


_RANK = "bm25(episode_chunks_fts, 1.0, 0.0, 0.0)"
"""The window's text alone (owner and session are filters)."""


def keyword(
    conn: Conn, query: str, live: Live, limit: int, sizes: OwnerSizes | None = None
) -> list[ChunkHit]:
    """Live windows matching the query's words, best bm25 first, newer first on ties;
    `sizes` allows the text-first plan (`fts.text_first`)."""
    terms = informative_terms(
        conn, "episode_chunks_fts", query_terms(query)[:MAX_TERMS], sizes
    )
    if not terms:
        return []
    words = "text : (" + " OR ".join(quote(t) for t in terms) + ")"
    where, params = live_where(live)
    plan = text_first(conn, "episode_chunks_fts", words, live, sizes)
    if plan is not None:

        def best(top: str, top_params: tuple[Any, ...]) -> list[Any]:
            return list(
                conn.execute(
                    f"""SELECT {E_COLUMNS}, c.seq, c.text, top.rank, c.rowid_pk FROM {top} AS top
                        CROSS JOIN episode_chunks c ON c.rowid_pk = top.rowid
                        CROSS JOIN episodes e ON e.rowid_pk = c.episode_rowid
                        WHERE {where}
                        ORDER BY top.rank, e.said_at DESC LIMIT ?""",
                    (*top_params, *params, limit),
                )
            )

        found = ranked_text_first(
            plan, "episode_chunks_fts", _RANK, words, live.owner, limit, best
        )
        if found is not None:
            return [_keyword_hit(r) for r in found]
    parts = []
    if live.owner is not None and _has_token(live.owner):
        parts.append(f"owner : {quote(live.owner)}")
    if live.match_session and live.session and _has_token(live.session):
        parts.append(f"session : {quote(live.session)}")
    parts.append(words)
    rows = conn.execute(
        f"""SELECT {E_COLUMNS}, c.seq, c.text, {_RANK} AS rank, c.rowid_pk
            FROM episode_chunks_fts
            CROSS JOIN episode_chunks c ON c.rowid_pk = episode_chunks_fts.rowid
            CROSS JOIN episodes e ON e.rowid_pk = c.episode_rowid
            WHERE episode_chunks_fts MATCH ? AND {where}
            ORDER BY rank, e.said_at DESC LIMIT ?""",
        (" AND ".join(parts), *params, limit),
    )
    return [_keyword_hit(r) for r in rows]


def term_rows(
    conn: Conn, owner: str, query: str, sizes: OwnerSizes
) -> tuple[int, dict[str, int]]:
    """(the owner's windows, query word -> the owner's windows holding it)."""
    if not _has_token(owner):
        return 0, {}
    total = sizes.rows(conn, "episode_chunks_fts", owner)
    words = query_terms(query)[:MAX_TERMS]
    return total, {
        w: sizes.owner_word_rows(conn, "episode_chunks_fts", owner, w) for w in words
    }


def _keyword_hit(row: Sequence[Any]) -> ChunkHit:
    return ChunkHit(to_episode(row), row[9], row[10], -float(row[11]), row[12])


def chunks_by_rowid(
    conn: Conn, ranked: Sequence[tuple[int, float]], live: Live
) -> list[ChunkHit]:
    """The live windows among `ranked` (chunk rowid, cosine), in that order."""
    if not ranked:
        return []
    where, params = live_where(live)
    marks = ",".join("?" * len(ranked))
    rows = conn.execute(
        f"""SELECT {E_COLUMNS}, c.seq, c.text, c.rowid_pk
            FROM episode_chunks c CROSS JOIN episodes e ON e.rowid_pk = c.episode_rowid
            WHERE c.rowid_pk IN ({marks}) AND {where}""",
        (*[rid for rid, _ in ranked], *params),
    )
    found = {r[11]: r for r in rows}
    return [
        ChunkHit(to_episode(found[rid]), found[rid][9], found[rid][10], sim, rid)
        for rid, sim in ranked
        if rid in found
    ]


def neighbours(
    conn: Conn, episode_ids: Sequence[str], live: Live
) -> dict[str, tuple[Episode | None, Episode | None]]:
    """For each live episode among `episode_ids`: the live episode said just before it and
    just after it in the same owner and session (ordered by `said_at`, then by when it was
    stored)."""
    where, params = live_where(live)
    out: dict[str, tuple[Episode | None, Episode | None]] = {}
    for eid in episode_ids:
        row = conn.execute(
            "SELECT e.owner, e.session, e.said_at, e.rowid_pk FROM episodes e "
            f"WHERE e.id = ? AND {where}",
            (eid, *params),
        ).fetchone()
        if row is None:
            continue
        owner, session, said_at, rowid = row
        found: list[Episode | None] = []
        for before, order in ((True, "DESC"), (False, "ASC")):
            sign = "<" if before else ">"
            near = conn.execute(
                f"""SELECT {E_COLUMNS} FROM episodes e
                    WHERE e.owner = ? AND e.session IS ?
                      AND (e.said_at {sign} ? OR (e.said_at = ? AND e.rowid_pk {sign} ?))
                      AND {where}
                    ORDER BY e.said_at {order}, e.rowid_pk {order} LIMIT 1""",
                (owner, session, said_at, said_at, rowid, *params),
            ).fetchone()
            found.append(to_episode(near) if near else None)
        out[eid] = (found[0], found[1])
    return out


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


def get(conn: Conn, episode_id: str) -> Episode | None:
    row = conn.execute(
        f"SELECT {E_COLUMNS} FROM episodes e WHERE e.id = ?", (episode_id,)
    ).fetchone()
    return to_episode(row) if row else None


def list_page(conn: Conn, query: EpisodeListQuery) -> EpisodePage:
    sql = ["1"]
    params: list[Any] = []
    if query.owner is not None:
        sql.append("e.owner = ?")
        params.append(query.owner)
    if query.session is not None:
        sql.append("e.session = ?")
        params.append(query.session)
    if query.q:
        terms = [t for t in query_terms(query.q)]
        if not terms:
            return EpisodePage((), 0)
        match = "text : (" + " AND ".join(quote(t) for t in terms) + ")"
        sql.append(
            "e.rowid_pk IN (SELECT c.episode_rowid FROM episode_chunks_fts "
            "JOIN episode_chunks c ON c.rowid_pk = episode_chunks_fts.rowid "
            "WHERE episode_chunks_fts MATCH ?)"
        )
        params.append(match)
    where = " AND ".join(sql)
    total = int(
        conn.execute(
            f"SELECT count(*) FROM episodes e WHERE {where}", params
        ).fetchone()[0]
    )
    rows = conn.execute(
        f"""SELECT {E_COLUMNS} FROM episodes e WHERE {where}
            ORDER BY e.said_at DESC, e.rowid_pk DESC LIMIT ? OFFSET ?""",
        (*params, query.limit, query.offset),
    )
    return EpisodePage(tuple(to_episode(r) for r in rows), total)


def owner_of(conn: Conn, episode_id: str) -> str | None:
    row = conn.execute(
        "SELECT owner FROM episodes WHERE id = ?", (episode_id,)
    ).fetchone()
    return str(row[0]) if row else None


def delete(conn: Conn, episode_id: str) -> bool:
    return bool(
        conn.execute("DELETE FROM episodes WHERE id = ?", (episode_id,)).rowcount
    )


def erase_owner(conn: Conn, owner: str) -> int:
    removed = int(
        conn.execute("DELETE FROM episodes WHERE owner = ?", (owner,)).rowcount
    )
    # Merged: no index segment keeps the erased text.
    conn.execute(
        "INSERT INTO episode_chunks_fts(episode_chunks_fts) VALUES ('optimize')"
    )
    return removed


def sweep(conn: Conn, cutoff: str, limit: int) -> tuple[int, set[str]]:
    rows = conn.execute(
        "SELECT rowid_pk, owner FROM episodes WHERE said_at < ? LIMIT ?",
        (cutoff, limit),
    ).fetchall()
    conn.executemany("DELETE FROM episodes WHERE rowid_pk = ?", [(r[0],) for r in rows])
    return len(rows), {str(r[1]) for r in rows}


def owner_page(
    conn: Conn, owner: str, after: int, limit: int
) -> list[tuple[int, Episode]]:
    rows = conn.execute(
        f"""SELECT {E_COLUMNS}, e.rowid_pk FROM episodes e
            WHERE e.owner = ? AND e.rowid_pk > ? ORDER BY e.rowid_pk LIMIT ?""",
        (owner, after, limit),
    )
    return [(int(r[9]), to_episode(r)) for r in rows]


def counts(conn: Conn) -> dict[str, int]:
    episodes = conn.execute("SELECT count(*) FROM episodes").fetchone()[0]
    chunks = conn.execute("SELECT count(*) FROM episode_chunks").fetchone()[0]
    return {
        "episodes": int(episodes),
        "windows": int(chunks),
        "pending_vectors": pending(conn),
    }
