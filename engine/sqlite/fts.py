"""Keyword search over the FTS5 index (`memories_fts`, kept in sync by triggers).

User text never reaches MATCH as syntax: it is cut into word tokens, each token is quoted
as an FTS5 string, and the owner (and session) are phrase filters inside the same MATCH, so
the owner filter is an index lookup. No input can raise an FTS5 syntax error.
"""

from __future__ import annotations

import re
from typing import Any

from memtap.engine.memory_rules import Live
from memtap.engine.sqlite.memories import M_COLUMNS, live_where, to_memory
from memtap.engine.stopwords import STOPWORDS
from memtap.engine.types import Memory

Conn = Any

MAX_TERMS = 32
_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(text: str) -> list[str]:
    """Distinct topical tokens of a query, in order, at most MAX_TERMS."""
    seen: dict[str, None] = {}
    for token in _WORD.findall(text.lower()):
        if token in STOPWORDS or token in seen or token.replace("_", "") == "":
            continue
        if len(token) == 1 and token.isascii():
            continue
        seen[token] = None
        if len(seen) >= MAX_TERMS:
            break
    return list(seen)


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
    parts.append("{content key} : (" + " OR ".join(quote(t) for t in terms) + ")")
    return " AND ".join(parts)


def list_match(text: str) -> str | None:
    """MATCH expression for the admin list's `q` (all terms, any column but owner/session)."""
    tokens = [t for t in _WORD.findall(text.lower()) if t][:MAX_TERMS]
    if not tokens:
        return None
    return "{content key} : (" + " AND ".join(quote(t) for t in tokens) + ")"


def search(
    conn: Conn, match: str, live: Live, limit: int
) -> list[tuple[Memory, float]]:
    """Live rows matching, best first, with relevance = -bm25 (higher is better). Ties go to
    the newer row. Content counts twice as much as the key."""
    where, params = live_where(live, "m")
    rows = conn.execute(
        f"""SELECT {M_COLUMNS}, bm25(memories_fts, 2.0, 1.0, 0.0, 0.0) AS rank
            FROM memories_fts CROSS JOIN memories m ON m.rowid_pk = memories_fts.rowid
            WHERE memories_fts MATCH ? AND {where}
            ORDER BY rank, m.updated_at DESC, m.rowid_pk DESC LIMIT ?""",
        (match, *params, limit),
    )
    return [(to_memory(r[:12]), -float(r[12])) for r in rows]


def optimize(conn: Conn) -> None:
    """Merge the index segments: deleted rows' text leaves the `_data` shadow table."""
    conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")


def owner_rows(conn: Conn, owner: str) -> int:
    return int(
        conn.execute(
            "SELECT count(*) FROM memories_fts WHERE owner MATCH ?", (quote(owner),)
        ).fetchone()[0]
    )
