"""Keyword search over the FTS5 index (`memories_fts`, kept in sync by triggers).

User text never reaches MATCH as syntax: it is cut into word tokens, each token is quoted
as an FTS5 string, and the owner (and session) are phrase filters inside the same MATCH, so
the owner filter is an index lookup. No input can raise an FTS5 syntax error.

One owner with many rows makes that filter the expensive part: `bm25()` reads the whole
doclist of every phrase in the MATCH to weigh it, the owner's too (weight 0, still read), so
at 100k rows of one owner a query spent ~5 ms on the owner phrase alone whatever it asked.
`text_first` picks the other plan when the query's words match far fewer rows than the owner
has (`OwnerSizes` remembers each owner's row count for a minute): rank the word matches
alone, keep the owner's (a column filter), join only the best few. Same rows, same order.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memtap.engine.memory_rules import Live
from memtap.engine.retrieval.terms import MAX_TERMS, query_terms  # noqa: F401 - also read here by the record store
from memtap.engine.sqlite.sql.memories import M_COLUMNS, live_where, to_memory
from memtap.engine.types import Memory

Conn = Any

_WORD = re.compile(r"\w+", re.UNICODE)
TEXT_FIRST_OWNER_ROWS = 1_000
"""Below this many rows reading the owner's phrase is as cheap as choosing a plan: no choice
made. From 1,000 rows up the text-first plan is already cheaper: an owner of 3,500 facts
searched for two rare words, fts.search p50 0.55 -> 0.38 ms; 1,200 facts 0.42 -> 0.28 ms;
at 600 it was 0.29 -> 0.33 ms (2026-12-04, A/B over 300 queries each)."""
TEXT_FIRST_RATIO = 20
"""Text first when the owner has this many times more rows than the query's words match
(an owner-doclist entry is read much faster than a match is ranked and filtered)."""
TEXT_FIRST_DEPTH = 4
"""Best word matches joined per row wanted (the rest of the live filter may drop some)."""
OWNER_SIZE_TTL_S = 60.0
OWNER_COUNT_MAX = 1_000
"""Words in at most this many rows are counted per owner exactly (`owner_word_rows`)."""
MAX_RANKED_TERMS = 12
"""Words of one query ranked by bm25() at most. bm25() reads the whole doclist of every word
in the MATCH to weigh it, every owner's rows: ~60 µs a word over 4,000 windows, growing
with the table, and a ~450-character message has ~25 words. A longer query keeps its
rarest words (`informative_terms`): a word in many rows weighs little in bm25 anyway."""
WORD_ROWS_CAP = 10_000
"""A word's rows are counted up to this many (past it, only its place in the query tells
two such words apart)."""
COLUMN_FILTERS = {"memories_fts": "{content key}", "episode_chunks_fts": "text"}
"""The columns a query's words are matched in, per FTS index."""
CONTENT_TABLES = {"memories_fts": "memories", "episode_chunks_fts": "episode_chunks"}
"""The table each FTS index is kept from (by triggers, one FTS row per row)."""


class OwnerSizes:
    """Rows per owner, and rows per word, in FTS tables, remembered for `ttl_s` (they only
    steer a plan and the choice of a long query's words)."""

    def __init__(self, ttl_s: float = OWNER_SIZE_TTL_S) -> None:
        self.ttl_s = ttl_s
        self._lock = threading.Lock()
        self._rows: dict[tuple[str, str], tuple[int, float]] = {}
        self._word_rows: dict[tuple[str, str], tuple[int, float]] = {}

    def forget(self, owner: str) -> None:
        """Drop what is remembered of `owner` (their rows were erased): nothing derived
        from an erased owner's text outlives the erasure by the minute of `ttl_s`."""
        prefix = owner + "\x00"
        with self._lock:
            for key in [k for k in self._rows if k[1] == owner]:
                del self._rows[key]
            for key in [k for k in self._word_rows if k[1].startswith(prefix)]:
                del self._word_rows[key]

    def word_rows(self, conn: Conn, table: str, word: str) -> int:
        """Rows of `table` (every owner's) holding `word` in the searched columns, counted up
        to `WORD_ROWS_CAP`."""
        now = time.monotonic()
        key = (table, word)
        with self._lock:
            known = self._word_rows.get(key)
        if known is not None and now - known[1] < self.ttl_s:
            return known[0]
        match = f"{COLUMN_FILTERS[table]} : {quote(word)}"
        count = int(
            conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
                (match, WORD_ROWS_CAP),
            ).fetchone()[0]
        )
        if count == 0:
            return 0  # not remembered: a row written next may hold it (and asking is cheap)
        with self._lock:
            if len(self._word_rows) > 20_000:
                self._word_rows.clear()
            self._word_rows[key] = (count, now)
        return count

    def owner_word_rows(self, conn: Conn, table: str, owner: str, word: str) -> int:
        """Rows of `table` of `owner` holding `word` in the searched columns (remembered
        like `word_rows`). Counted through the word's own matches joined to their owner
        while the word is in at most `OWNER_COUNT_MAX` rows of every owner (an owner phrase
        in MATCH would read the owner's whole doclist: ~5 ms at 100k rows, per word); a
        commoner word is given the owner's share of its rows (its weight is low either way)."""
        now = time.monotonic()
        key = (table, owner + "\x00" + word)
        with self._lock:
            known = self._word_rows.get(key)
        if known is not None and now - known[1] < self.ttl_s:
            return known[0]
        everyone = self.word_rows(conn, table, word)
        if everyone <= OWNER_COUNT_MAX:
            match = f"{COLUMN_FILTERS[table]} : {quote(word)}"
            count = int(
                conn.execute(
                    f"""SELECT count(*) FROM {table} CROSS JOIN {CONTENT_TABLES[table]} c
                        ON c.rowid_pk = {table}.rowid
                        WHERE {table} MATCH ? AND c.owner = ?""",
                    (match, owner),
                ).fetchone()[0]
            )
        else:
            total = max(1, self.rows(conn, table, None))
            count = round(everyone * self.rows(conn, table, owner) / total)
        with self._lock:
            if len(self._word_rows) > 20_000:
                self._word_rows.clear()
            self._word_rows[key] = (count, now)
        return count

    def rows(self, conn: Conn, table: str, owner: str | None) -> int:
        """The owner's rows in `table` (None: all rows)."""
        now = time.monotonic()
        key = (table, owner or "")
        with self._lock:
            known = self._rows.get(key)
        if known is not None and now - known[1] < self.ttl_s:
            return known[0]
        params: tuple[str, ...] = ()
        if owner is None:
            # The indexed table's own rows (one per FTS row): counting an FTS5 table without
            # MATCH reads every row's content.
            sql = f"SELECT count(*) FROM {CONTENT_TABLES[table]}"
        else:
            sql, params = (
                f"SELECT count(*) FROM {table} WHERE owner MATCH ?",
                (quote(owner),),
            )
        count = int(conn.execute(sql, params).fetchone()[0])
        with self._lock:
            if len(self._rows) > 10_000:
                self._rows.clear()
            self._rows[key] = (count, now)
        return count


@dataclass(frozen=True, slots=True)
class TextFirst:
    """The text-first plan for one query."""

    matches: int
    """Rows the query's words match, every owner's."""
    owner_share: float
    """The owner's share of all rows: above a half the owner filter is left to the join
    (reading the owner column of every match cost more than ranking a deeper top)."""

    @property
    def filter_owner(self) -> bool:
        return self.owner_share < 0.5

    def depth(self, limit: int) -> int:
        share = 1.0 if self.filter_owner else self.owner_share
        return int(limit * TEXT_FIRST_DEPTH / share) + 1


def text_first(
    conn: Conn, table: str, text: str, live: Live, sizes: OwnerSizes | None
) -> TextFirst | None:
    """The text-first plan when ranking the matches of `text` (the query's words alone)
    beats filtering by the owner inside MATCH; None to keep the owner phrase. Session scope
    keeps it (a session is a small share of an owner)."""
    if sizes is None or live.owner is None or live.match_session:
        return None
    owner_rows = sizes.rows(conn, table, live.owner)
    if owner_rows < TEXT_FIRST_OWNER_ROWS:
        return None
    # Counted up to the threshold only: a common word in a big table stops the count early.
    cap = owner_rows // TEXT_FIRST_RATIO
    matches = int(
        conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
            (text, cap + 1),
        ).fetchone()[0]
    )
    if matches > cap:
        return None
    total = max(sizes.rows(conn, table, None), owner_rows)
    return TextFirst(matches, owner_rows / total)


def ranked_text_first(
    plan: TextFirst,
    table: str,
    rank: str,
    text: str,
    owner: str | None,
    limit: int,
    run: Callable[[str, tuple[Any, ...]], list[Any]],
) -> list[Any] | None:
    """`run(top, params)`: the caller's query over `top`, the best word matches of `table`
    by `rank` (a bm25() call) as (rowid, rank). None when the live filter left fewer than
    `limit` while more matches were not looked at (the caller then runs the owner-phrase
    plan)."""
    depth = plan.depth(limit)
    owner_sql = f"AND {table}.owner = ?" if plan.filter_owner else ""
    top = f"""(SELECT rowid, {rank} AS rank FROM {table}
               WHERE {table} MATCH ? {owner_sql} ORDER BY rank LIMIT ?)"""
    params = (text, owner, depth) if plan.filter_owner else (text, depth)
    rows = run(top, params)
    if len(rows) < limit and plan.matches > depth:
        return None
    return rows


def informative_terms(
    conn: Conn, table: str, terms: list[str], sizes: OwnerSizes | None
) -> list[str]:
    """`terms` when they are few (or nothing to count with); else, of the words some row of
    `table` holds, the `MAX_RANKED_TERMS` held by the fewest rows, in their order. Among
    words as common, the later ones stay (a long message usually ends with its question)."""
    if len(terms) <= MAX_RANKED_TERMS or sizes is None:
        return terms
    rows = [sizes.word_rows(conn, table, term) for term in terms]
    # A word no row holds matches nothing: it goes first, whatever its count would rank.
    held = [i for i in range(len(terms)) if rows[i] > 0]
    rarest = sorted(held, key=lambda i: (rows[i], -i))
    return [terms[i] for i in sorted(rarest[:MAX_RANKED_TERMS])]


def quote(text: str) -> str:
    """An FTS5 string literal: the whole text is one phrase, never syntax."""
    # NUL would end the expression early inside SQLite (C strings): drop it. It is not a
    # token character, so the phrase still matches the same tokens.
    return '"' + text.replace("\x00", "").replace('"', '""') + '"'


def _has_token(text: str) -> bool:
    """Whether `text` can be a phrase filter: some token character, and no NUL (SQLite reads
    text as C strings in places, so the indexed value and the phrase could disagree)."""
    return "\x00" not in text and any(ch.isalnum() for ch in text)


def build_match(terms: list[str], live: Live) -> str | None:
    """The MATCH expression for `terms` within the live filter's owner/session, or None when
    there is nothing to search for."""
    if not terms:
        return None
    parts = []
    # An id with no token characters ("-") would be an empty phrase that matches nothing;
    # leave it to the SQL equality filter, which `search` always applies as well.
    if live.owner is not None and _has_token(live.owner):
        parts.append(f"owner : {quote(live.owner)}")
    if live.match_session and live.session and _has_token(live.session):
        parts.append(f"session : {quote(live.session)}")
    parts.append(text_match(terms))
    return " AND ".join(parts)


def text_match(terms: list[str]) -> str:
    """The MATCH of the query's words alone (content and key)."""
    return "{content key} : (" + " OR ".join(quote(t) for t in terms) + ")"


def list_match(text: str) -> str | None:
    """MATCH expression for the admin list's `q` (all terms, any column but owner/session)."""
    tokens = [t for t in _WORD.findall(text.lower()) if t][:MAX_TERMS]
    if not tokens:
        return None
    return "{content key} : (" + " AND ".join(quote(t) for t in tokens) + ")"


_FACT_RANK = "bm25(memories_fts, 2.0, 1.0, 0.0, 0.0)"
"""Content counts twice as much as the key; owner and session not at all."""


def search(
    conn: Conn,
    match: str,
    live: Live,
    limit: int,
    text: str | None = None,
    sizes: OwnerSizes | None = None,
) -> list[tuple[Memory, float]]:
    """Live rows matching, best first, with relevance = -bm25 (higher is better). Ties go to
    the newer row. Content counts twice as much as the key. `text` (the words' MATCH alone)
    and `sizes` allow the text-first plan."""
    where, params = live_where(live, "m")
    plan = text_first(conn, "memories_fts", text, live, sizes) if text else None
    if plan is not None and text is not None:

        def best(top: str, top_params: tuple[Any, ...]) -> list[Any]:
            return list(
                conn.execute(
                    f"""SELECT {M_COLUMNS}, top.rank FROM {top} AS top
                        CROSS JOIN memories m ON m.rowid_pk = top.rowid
                        WHERE {where}
                        ORDER BY top.rank, m.updated_at DESC, m.rowid_pk DESC LIMIT ?""",
                    (*top_params, *params, limit),
                )
            )

        found = ranked_text_first(
            plan, "memories_fts", _FACT_RANK, text, live.owner, limit, best
        )
        if found is not None:
            return [(to_memory(r[:12]), -float(r[12])) for r in found]
    rows = conn.execute(
        f"""SELECT {M_COLUMNS}, {_FACT_RANK} AS rank
            FROM memories_fts CROSS JOIN memories m ON m.rowid_pk = memories_fts.rowid
            WHERE memories_fts MATCH ? AND {where}
            ORDER BY rank, m.updated_at DESC, m.rowid_pk DESC LIMIT ?""",
        (match, *params, limit),
    )
    return [(to_memory(r[:12]), -float(r[12])) for r in rows]


def optimize(conn: Conn) -> None:
    """Merge the index segments: deleted rows' text leaves the `_data` shadow table."""
    conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")
