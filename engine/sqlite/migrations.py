"""Schema migrations: an ordered list of named functions, each applied with its bookkeeping
row in ONE transaction (a crash leaves either both or neither).

Never edit a released migration; append a new one. `tests/test_migrations.py` builds the
database at every prefix of `MIGRATIONS` and migrates it to the end.

Statements run one by one through `conn.execute` (never `executescript`, which commits
behind our back).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from memtap.engine.clock import now_iso

log = logging.getLogger("memtap.store")

Conn = Any


def _run(conn: Conn, *statements: str) -> None:
    for sql in statements:
        conn.execute(sql)


def m001_memories(conn: Conn) -> None:
    # rowid_pk is an explicit INTEGER PRIMARY KEY: it is the rowid FTS5 and the vector index
    # use, and VACUUM cannot renumber an explicit primary key (it can renumber implicit rowids).
    _run(
        conn,
        """CREATE TABLE memories (
            rowid_pk INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            owner TEXT NOT NULL,
            session TEXT,
            type TEXT NOT NULL CHECK (type IN ('factual', 'episodic', 'procedural', 'semantic')),
            key TEXT,
            content TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            expires_at TEXT,
            needs_reindex INTEGER NOT NULL DEFAULT 1
        )""",
        # NULL keys never conflict, so keyless memories are plain inserts.
        "CREATE UNIQUE INDEX memories_owner_key ON memories(owner, key)",
        "CREATE INDEX memories_owner_updated ON memories(owner, updated_at)",
        "CREATE INDEX memories_owner_session ON memories(owner, session, updated_at)",
        "CREATE INDEX memories_expires ON memories(expires_at) WHERE expires_at IS NOT NULL",
        "CREATE INDEX memories_reindex ON memories(needs_reindex) WHERE needs_reindex = 1",
    )


def m002_fts(conn: Conn) -> None:
    # owner and session are indexed FTS columns so the owner filter runs INSIDE MATCH
    # (an index lookup), not as a join on a big result set.
    _run(
        conn,
        """CREATE VIRTUAL TABLE memories_fts USING fts5(
            content, key, owner, session,
            tokenize = 'porter unicode61 remove_diacritics 2'
        )""",
        """CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts(rowid, content, key, owner, session)
            VALUES (new.rowid_pk, new.content, coalesce(new.key, ''), new.owner, coalesce(new.session, ''));
        END""",
        """CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN
            DELETE FROM memories_fts WHERE rowid = old.rowid_pk;
        END""",
        """CREATE TRIGGER memories_fts_au AFTER UPDATE OF content, key, owner, session ON memories BEGIN
            UPDATE memories_fts SET content = new.content, key = coalesce(new.key, ''),
                owner = new.owner, session = coalesce(new.session, '')
            WHERE rowid = old.rowid_pk;
        END""",
        # Rows that existed before the FTS table (a database from m001 only).
        """INSERT INTO memories_fts(rowid, content, key, owner, session)
           SELECT rowid_pk, content, coalesce(key, ''), owner, coalesce(session, '') FROM memories""",
    )


def m003_outbox(conn: Conn) -> None:
    _run(
        conn,
        """CREATE TABLE outbox (
            seq INTEGER PRIMARY KEY,
            request_id TEXT NOT NULL,
            owner TEXT NOT NULL,
            payload TEXT NOT NULL,
            enqueued_at TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT
        )""",
        "CREATE INDEX outbox_owner ON outbox(owner)",
    )


def m004_settings(conn: Conn) -> None:
    _run(
        conn,
        """CREATE TABLE settings_overrides (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
    )


def m005_supersession(conn: Conn) -> None:
    _run(
        conn,
        "ALTER TABLE memories ADD COLUMN superseded_by TEXT",
        "ALTER TABLE memories ADD COLUMN valid_to TEXT",
        "ALTER TABLE memories ADD COLUMN subject TEXT",
        "CREATE INDEX memories_subject ON memories(owner, subject) WHERE superseded_by IS NULL AND subject IS NOT NULL",
    )


def m006_request_log(conn: Conn) -> None:
    _run(
        conn,
        """CREATE TABLE request_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            request_id TEXT NOT NULL UNIQUE,
            owner TEXT,
            record TEXT NOT NULL
        )""",
        "CREATE INDEX request_log_owner ON request_log(owner)",
    )


def m007_episodes(conn: Conn) -> None:
    # Episodes (what was said) beside the memories (facts). The id is derived from owner,
    # session, role and content (engine/episode_types.py), so UNIQUE(id) is the dedupe.
    # Windows carry owner and session as FTS columns for the same reason memories do: the
    # owner filter runs inside MATCH. Vectors are float16 blobs (half the bytes of float32;
    # cosine differences stay far below ranking noise), NULL until the embedder gets to them.
    _run(
        conn,
        """CREATE TABLE episodes (
            rowid_pk INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            owner TEXT NOT NULL,
            session TEXT,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            content TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            said_at TEXT NOT NULL,
            request_id TEXT,
            format TEXT,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX episodes_owner_said ON episodes(owner, said_at)",
        "CREATE INDEX episodes_said ON episodes(said_at)",
        """CREATE TABLE episode_chunks (
            rowid_pk INTEGER PRIMARY KEY,
            episode_rowid INTEGER NOT NULL,
            owner TEXT NOT NULL,
            seq INTEGER NOT NULL,
            text TEXT NOT NULL,
            vec BLOB,
            vec_sig TEXT
        )""",
        "CREATE INDEX episode_chunks_episode ON episode_chunks(episode_rowid)",
        "CREATE INDEX episode_chunks_owner_sig ON episode_chunks(owner, vec_sig)",
        "CREATE INDEX episode_chunks_unembedded ON episode_chunks(rowid_pk) WHERE vec IS NULL",
        """CREATE VIRTUAL TABLE episode_chunks_fts USING fts5(
            text, owner, session,
            tokenize = 'porter unicode61 remove_diacritics 2'
        )""",
        """CREATE TRIGGER episode_chunks_fts_ai AFTER INSERT ON episode_chunks BEGIN
            INSERT INTO episode_chunks_fts(rowid, text, owner, session)
            VALUES (new.rowid_pk, new.text, new.owner,
                    coalesce((SELECT session FROM episodes WHERE rowid_pk = new.episode_rowid), ''));
        END""",
        """CREATE TRIGGER episode_chunks_fts_ad AFTER DELETE ON episode_chunks BEGIN
            DELETE FROM episode_chunks_fts WHERE rowid = old.rowid_pk;
        END""",
        """CREATE TRIGGER episodes_ad AFTER DELETE ON episodes BEGIN
            DELETE FROM episode_chunks WHERE episode_rowid = old.rowid_pk;
        END""",
    )


def m008_imported_turns(conn: Conn) -> None:
    # Turns brought in by a conversation import, by their deterministic request id (a hash
    # of owner, session, times, roles and texts: no text is kept), so a re-import skips them.
    _run(
        conn,
        """CREATE TABLE imported_turns (
            request_id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            said_at TEXT NOT NULL,
            imported_at TEXT NOT NULL
        ) WITHOUT ROWID""",
        "CREATE INDEX imported_turns_owner ON imported_turns(owner)",
    )


def m009_second_vectors(conn: Conn) -> None:
    # A window of a message in another language gets a second vector, from the multilingual
    # model (engine/embeddings/multilingual.py). vec2_sig NULL: not looked at yet; ENGLISH:
    # looked at, none needed; KEYWORD_ONLY: an assistant's window, never embedded.
    _run(
        conn,
        "ALTER TABLE episode_chunks ADD COLUMN vec2 BLOB",
        "ALTER TABLE episode_chunks ADD COLUMN vec2_sig TEXT",
        "UPDATE episode_chunks SET vec2_sig = vec_sig WHERE vec_sig = 'keyword-only'",
        "CREATE INDEX episode_chunks_owner_sig2 ON episode_chunks(owner, vec2_sig)",
        "CREATE INDEX episode_chunks_unrouted ON episode_chunks(rowid_pk) "
        "WHERE vec2_sig IS NULL",
    )


def m010_assistant_openings(conn: Conn) -> None:
    # An assistant message is indexed by its opening window alone (engine/episodes/chunks.py
    # ASSISTANT_WINDOWS): the others of a file written before are dropped (the message's text
    # is kept whole on its episode row).
    _run(
        conn,
        "DELETE FROM episode_chunks WHERE seq >= 1 AND vec_sig = 'keyword-only'",
    )


MIGRATIONS: tuple[tuple[str, Callable[[Conn], None]], ...] = (
    ("m001_memories", m001_memories),
    ("m002_fts", m002_fts),
    ("m003_outbox", m003_outbox),
    ("m004_settings", m004_settings),
    ("m005_supersession", m005_supersession),
    ("m006_request_log", m006_request_log),
    ("m007_episodes", m007_episodes),
    ("m008_imported_turns", m008_imported_turns),
    ("m009_second_vectors", m009_second_vectors),
    ("m010_assistant_openings", m010_assistant_openings),
)


def applied(conn: Conn) -> list[str]:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    return [
        row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid")
    ]


def migrate(conn: Conn, upto: int | None = None) -> list[str]:
    """Apply every pending migration (the first `upto` of the list when given) on a connection
    in autocommit mode; returns the names applied now."""
    done = set(applied(conn))
    known = {name for name, _ in MIGRATIONS}
    unknown = sorted(done - known)
    if unknown:
        log.warning("store.unknown_migrations", extra={"fields": {"names": unknown}})
    ran: list[str] = []
    for name, fn in MIGRATIONS[: upto if upto is not None else len(MIGRATIONS)]:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            fn(conn)
            conn.execute(
                "INSERT INTO _migrations(name, applied_at) VALUES (?, ?)",
                (name, now_iso()),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        ran.append(name)
        log.info("store.migrated", extra={"fields": {"migration": name}})
    return ran
