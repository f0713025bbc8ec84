"""The SQL of the episode store (`episodes`, `episode_chunks`, `episode_chunks_fts`, from
migration m007): plain synchronous functions over a connection, run by
`sqlite/episodes.py:SqliteEpisodeStore` through `Database.read` / `Database.write`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
from memtap.engine.episodes.chunks import indexed_windows
from memtap.engine.memory_rules import Live
from memtap.engine.retrieval.terms import MAX_TERMS, query_terms
from memtap.engine.sqlite.sql import episode_vectors
from memtap.engine.sqlite.sql.fts import (
    OwnerSizes,
    _has_token,
    informative_terms,
    quote,
    text_first,
)

Conn = Any

E_COLUMNS = (
    "e.id, e.owner, e.session, e.role, e.content, e.said_at, e.request_id, e.format, "
    "e.created_at"
)


def to_episode(row: Sequence[Any]) -> Episode:
    return Episode(*row[:9])


def live_where(
    live: Live, alias: str = "e", *, owner_indexed: bool = True
) -> tuple[str, list[Any]]:
    """`live` over `episodes`: owner, session scope, retention from `said_at`.
    `owner_indexed=False`: the owner term only filters rows found another way (SQLite's
    unary `+` keeps the planner off the owner index)."""
    sql = ["1"]
    params: list[Any] = []
    if live.cutoff is not None:
        sql.append(f"{alias}.said_at >= ?")
        params.append(live.cutoff)
    if live.owner is not None:
        sql.append(f"{'' if owner_indexed else '+'}{alias}.owner = ?")
        params.append(live.owner)
    if live.match_session:
        if live.session is None:
            sql.append(f"{alias}.session IS NULL")
        else:
            sql.append(f"{alias}.session = ?")
            params.append(live.session)
    return " AND ".join(sql), params


def add(
    conn: Conn,
    episodes: Sequence[NewEpisode],
    now: str,
    max_per_owner: int,
    foreign: frozenset[str] = frozenset(),
) -> tuple[list[EpisodeWrite], set[str], int]:
    """(writes, owners touched, evicted). Known ids are left as they are. The windows of
    `foreign` episodes wait for a second vector (`vec2_sig` NULL); the user's others are
    marked as needing none, so the second model's pass never reads them."""
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
            "INSERT INTO episode_chunks "
            "(episode_rowid, owner, seq, text, vec, vec_sig, vec2_sig) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    rowid,
                    new.owner,
                    seq,
                    text,
                    b"" if keyword_only else None,
                    KEYWORD_ONLY if keyword_only else None,
                    KEYWORD_ONLY
                    if keyword_only
                    else (None if eid in foreign else episode_vectors.NO_SECOND),
                )
                for seq, text in enumerate(indexed_windows(new.role, content))
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
COMMON_SHARE = 0.25
"""A query word in more than this share of the owner's windows does not select windows
(`_uncommon`): its BM25 weight is at most ln 4 ~ 1.4 (a word in a few windows weighs 5-6),
so a window holding only such words is floored out beside one holding a rare word
(`recall.KEYWORD_SHARE`), yet ranking every window that holds one was most of the
keyword arm's time ("keep", "day", "help" in an owner's long history: 1,200 matches a
query ranked where the rarer words matched ~120). A quarter, not an eighth: at an eighth
the LoCoMo dev split lost 0.8 points live (0.668 -> 0.660: "What activities has Melanie
done with her family?" asks only by words a long history is full of), at a quarter it
keeps them all (0.668 / 0.875, as with no such rule)."""
COMMON_MIN_WINDOWS = 200
"""Below this many windows an owner's word shares say little: every word selects."""
RANKED_DEPTH = 2
"""Ranked window ids read per window wanted when the owner is a phrase of the MATCH (only
retention, a row filter, can drop one): ids cost next to nothing beside the ranking."""


def keyword(
    conn: Conn, query: str, live: Live, limit: int, sizes: OwnerSizes | None = None
) -> list[ChunkHit]:
    """Live windows matching the query's words, best bm25 first, newer first on ties;
    `sizes` allows the text-first plan (`fts.text_first`).

    Ranked first, read after: the text index ranks the matches as (rowid, rank) alone, and
    only the best are read and joined to their episode (`_best_live`). Joining every match
    before the ORDER BY read ~1,300 windows and their episodes to keep 96, more than half of
    the arm's time (an owner of 3,200 windows, everyday questions: 5.3 -> 3.4 ms a query)."""
    if limit <= 0:
        return []
    terms = informative_terms(
        conn, "episode_chunks_fts", query_terms(query)[:MAX_TERMS], sizes
    )
    terms = _uncommon(conn, terms, live.owner, sizes)
    if not terms:
        return []
    words = "text : (" + " OR ".join(quote(t) for t in terms) + ")"
    plan = text_first(conn, "episode_chunks_fts", words, live, sizes)
    owner_column: str | None = None
    if plan is not None:
        match, depth = words, plan.depth(limit)
        owner_column = live.owner if plan.filter_owner else None
    else:
        parts = []
        if live.owner is not None and _has_token(live.owner):
            parts.append(f"owner : {quote(live.owner)}")
        if live.match_session and live.session and _has_token(live.session):
            parts.append(f"session : {quote(live.session)}")
        parts.append(words)
        match, depth = " AND ".join(parts), limit * RANKED_DEPTH + 1
    ranked = _ranked(conn, match, owner_column, depth)
    if not ranked:
        # Nothing matched, so no row is read: the rows' tables are still touched, so a
        # broken store fails here (a fallback the retrieval reports), not as an empty
        # answer.
        conn.execute(
            f"""SELECT {E_COLUMNS}, c.text FROM episode_chunks c
                CROSS JOIN episodes e ON e.rowid_pk = c.episode_rowid WHERE 0"""
        ).fetchall()
        return []
    hits, short = _best_live(conn, ranked, live, limit)
    if short and len(ranked) >= depth:
        # The live filter dropped too many of the best, or a tie at the cut reaches the
        # depth read: every match, ranked.
        hits, _ = _best_live(
            conn, _ranked(conn, match, owner_column, None), live, limit
        )
    return hits


def _uncommon(
    conn: Conn, terms: list[str], owner: str | None, sizes: OwnerSizes | None
) -> list[str]:
    """`terms` less the words more than `COMMON_SHARE` of the owner's windows hold, when a
    rarer one is left (and the owner has `COMMON_MIN_WINDOWS`). Such a word is still
    scored: the owner re-scoring (`episodes/lexical.py`) weighs every query word of the
    windows read; what it no longer does is bring in windows that hold nothing else."""
    if sizes is None or owner is None or not _has_token(owner) or len(terms) < 2:
        return terms
    total = sizes.rows(conn, "episode_chunks_fts", owner)
    if total < COMMON_MIN_WINDOWS:
        return terms
    kept = [
        t
        for t in terms
        if sizes.owner_word_rows(conn, "episode_chunks_fts", owner, t)
        <= total * COMMON_SHARE
    ]
    return kept or terms


def _ranked(
    conn: Conn, match: str, owner: str | None, depth: int | None
) -> list[tuple[int, float]]:
    """(window rowid, bm25 relevance) of the best `depth` matches (None: all), best first;
    `owner`: kept to that owner's rows (a column filter)."""
    owner_sql = "AND episode_chunks_fts.owner = ?" if owner is not None else ""
    params: list[Any] = [match]
    if owner is not None:
        params.append(owner)
    params.append(-1 if depth is None else depth)
    return [
        (int(r[0]), -float(r[1]))
        for r in conn.execute(
            f"""SELECT rowid, {_RANK} AS rank FROM episode_chunks_fts
                WHERE episode_chunks_fts MATCH ? {owner_sql} ORDER BY rank LIMIT ?""",
            params,
        )
    ]


def _best_live(
    conn: Conn, ranked: Sequence[tuple[int, float]], live: Live, limit: int
) -> tuple[list[ChunkHit], bool]:
    """The best `limit` live windows of `ranked`, newer first among equal relevance (what
    `ORDER BY rank, said_at DESC LIMIT` over the join gave), read a slice at a time;
    and whether `ranked` may not have been deep enough (fewer than `limit` live, or a tie
    at the cut reaching its end)."""
    hits: list[ChunkHit] = []
    start = 0
    while start < len(ranked) and len(hits) < limit:
        end = min(len(ranked), start + limit - len(hits))
        while end < len(ranked) and ranked[end][1] == ranked[end - 1][1]:
            end += 1  # a tie at the cut: every window of that relevance, by date below
        hits += chunks_by_rowid(conn, ranked[start:end], live)
        start = end
    hits.sort(key=lambda h: h.episode.said_at, reverse=True)
    hits.sort(key=lambda h: -h.score)  # stable: the newer first among equal relevance
    # Short too when the relevance at the cut goes on to the end of `ranked`: more windows
    # of it may lie past the depth read, and a newer one of them comes first.
    short = len(hits) < limit or (
        bool(ranked) and ranked[-1][1] == hits[limit - 1].score
    )
    return hits[:limit], short


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
    stored).

    Two statements whatever the count (it was three a snippet: 16 snippets, 48 round trips),
    and each neighbour is a range read of `episodes_owner_said` from the snippet's own
    `said_at` (`said_at <= ?` is the range, the rowid tie-break a filter): the former
    `said_at < ? OR (said_at = ? AND ...)` was no range, so each lookup walked the owner's
    index from its newest (or oldest) row down to the snippet, ~180 us at 1,600 episodes."""
    if not episode_ids:
        return {}
    # The snippets are found by their ids' unique index; the owner only filters them (`+`):
    # with `e.owner = ?` indexable the planner walked the owner's whole history for them
    # (267 -> 41 us for 16 snippets at 1,600 episodes, growing with the history).
    where, params = live_where(live, "e", owner_indexed=False)
    near_where, near_params = live_where(live, "n")
    marks = ",".join("?" * len(episode_ids))
    nearest = """(SELECT n.rowid_pk FROM episodes n
                  WHERE n.owner = e.owner AND n.session IS e.session
                    AND n.said_at {sign}= e.said_at
                    AND (n.said_at {sign} e.said_at OR n.rowid_pk {sign} e.rowid_pk)
                    AND {where}
                  ORDER BY n.said_at {order}, n.rowid_pk {order} LIMIT 1)"""
    anchors = conn.execute(
        f"""SELECT e.id,
               {nearest.format(sign="<", order="DESC", where=near_where)},
               {nearest.format(sign=">", order="ASC", where=near_where)}
            FROM episodes e WHERE e.id IN ({marks}) AND {where}""",
        (*near_params, *near_params, *episode_ids, *params),
    ).fetchall()
    wanted = sorted(
        {rowid for row in anchors for rowid in row[1:] if rowid is not None}
    )
    found: dict[int, Episode] = {}
    if wanted:
        rows = conn.execute(
            f"SELECT {E_COLUMNS}, e.rowid_pk FROM episodes e "
            f"WHERE e.rowid_pk IN ({','.join('?' * len(wanted))})",
            wanted,
        )
        found = {int(r[9]): to_episode(r) for r in rows}
    return {
        str(eid): (
            found.get(before) if before is not None else None,
            found.get(after) if after is not None else None,
        )
        for eid, before, after in anchors
    }


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
        "pending_vectors": episode_vectors.pending(conn),
        "second_vectors": episode_vectors.second_count(conn),
        "second_pending": episode_vectors.pending_second(conn),
    }
