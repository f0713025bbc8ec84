"""Migrations: from a blank file and from every earlier schema, each with its bookkeeping row
in one transaction; data written at an older schema survives and is searchable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memtap.engine.clock import now_iso
from memtap.engine.memory_rules import Live
from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.driver import Driver, choose_driver
from memtap.engine.sqlite.sql import fts, memories
from memtap.engine.types import NewMemory


@pytest.fixture(scope="module")
def driver() -> Driver:
    return choose_driver()


def connect(driver: Driver, path: Path) -> Any:
    return driver.connect(str(path))


def schema(conn: Any) -> dict[str, str]:
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND sql IS NOT NULL ORDER BY name"
    )
    return {name: " ".join(sql.split()) for name, sql in rows}


def test_blank_file(tmp_path: Path, driver: Driver) -> None:
    conn = connect(driver, tmp_path / "blank.db")
    ran = migrations.migrate(conn)
    assert ran == [name for name, _ in migrations.MIGRATIONS]
    assert migrations.migrate(conn) == []  # idempotent
    assert migrations.applied(conn) == ran
    tables = schema(conn)
    for table in (
        "memories",
        "memories_fts",
        "outbox",
        "settings_overrides",
        "_migrations",
    ):
        assert table in tables
    cols = [r[1] for r in conn.execute("PRAGMA table_info(memories)")]
    for col in (
        "rowid_pk",
        "id",
        "owner",
        "session",
        "type",
        "key",
        "content",
        "metadata",
        "created_at",
        "updated_at",
        "expires_at",
        "superseded_by",
        "valid_to",
        "needs_reindex",
        "subject",
    ):
        assert col in cols
    conn.close()


@pytest.mark.parametrize("prefix", range(len(migrations.MIGRATIONS)))
def test_from_every_earlier_schema(tmp_path: Path, driver: Driver, prefix: int) -> None:
    conn = connect(driver, tmp_path / "old.db")
    migrations.migrate(conn, upto=prefix + 1)
    assert len(migrations.applied(conn)) == prefix + 1
    # data written by the old schema (memories exist from m001 on)
    conn.execute(
        "INSERT INTO memories(id, owner, session, type, key, content, metadata, created_at, updated_at) "
        "VALUES ('old-1', 'own', NULL, 'factual', 'k', 'Prefers pottery classes', '{}', ?, ?)",
        (now_iso(), now_iso()),
    )
    migrations.migrate(conn)
    assert migrations.applied(conn) == [name for name, _ in migrations.MIGRATIONS]
    fresh = connect(driver, tmp_path / "fresh.db")
    migrations.migrate(fresh)
    assert schema(conn) == schema(fresh)  # same end state as a blank file
    live = Live(now=now_iso(), cutoff=None, owner="own")
    match = fts.build_match(["pottery"], live)
    assert match is not None
    found = fts.search(conn, match, live, 10)
    assert [m.id for m, _ in found] == ["old-1"]
    # and new writes work through every module
    conn.execute("BEGIN")
    memories.upsert(
        conn,
        NewMemory(owner="own", content="Prefers pottery wheels", key="k"),
        now_iso(),
    )
    conn.execute("COMMIT")
    assert [m.content for m, _ in fts.search(conn, match, live, 10)] == [
        "Prefers pottery wheels"
    ]
    conn.close()
    fresh.close()


def test_failed_migration_leaves_no_bookkeeping(
    tmp_path: Path, driver: Driver, monkeypatch: Any
) -> None:
    conn = connect(driver, tmp_path / "fail.db")
    migrations.migrate(conn, upto=2)

    def broken(c: Any) -> None:
        c.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("boom")

    monkeypatch.setattr(
        migrations, "MIGRATIONS", (*migrations.MIGRATIONS[:2], ("m003_broken", broken))
    )
    with pytest.raises(RuntimeError):
        migrations.migrate(conn)
    assert migrations.applied(conn) == ["m001_memories", "m002_fts"]
    assert "half_done" not in schema(conn)
    assert not conn.in_transaction
    conn.close()
