"""GDPR erase: after `DELETE /_memtap/api/owners/{owner}` and a stop, nothing of the owner is
left anywhere in data_dir: not in any table (FTS5 shadow tables included), not in the WAL,
not in free pages. Another owner's data stays (so the grep below can find things)."""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    VectorStoreConfig,
)
from memtap.engine.factory import database_path
from tests.conftest import MemtapServer
from tests.support.admin import Admin, start_admin
from tests.support.standin import Standin

VICTIM_KEY = "sk-erase-victim-" + uuid.uuid4().hex
VICTIM = hashlib.sha256(VICTIM_KEY.encode()).hexdigest()[:24]
KEEPER = "keeper0000000000000000ab"


def files_containing(data_dir: Path, needle: str) -> list[str]:
    """Every file under data_dir whose bytes contain `needle` (UTF-8, and UTF-16 for safety)."""
    patterns = [needle.encode("utf-8"), needle.encode("utf-16-le")]
    hits = []
    for path in sorted(data_dir.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            if any(p in data for p in patterns):
                hits.append(str(path.relative_to(data_dir)))
    return hits


def rows_mentioning(db: Path, needles: list[str]) -> dict[str, int]:
    """Query every ordinary table (FTS5/vec0 shadow tables are ordinary tables) for cells that
    contain any needle; also MATCH the FTS index itself."""
    found: dict[str, int] = {}
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        virtual = {
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"
            )
        }
        assert tables, "the database has tables"
        for table in tables:
            if table in virtual:
                continue
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for cell in row:
                    raw = cell if isinstance(cell, bytes) else str(cell).encode()
                    if any(n.encode() in raw for n in needles):
                        found[table] = found.get(table, 0) + 1
        if "memories_fts" in virtual:
            for needle in needles:
                try:
                    count = conn.execute(
                        "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?",
                        (f'"{needle}"',),
                    ).fetchone()[0]
                except sqlite3.OperationalError:
                    count = 0  # this sqlite3 build lacks FTS5: the shadow tables were checked above
                if count:
                    found["memories_fts MATCH"] = (
                        found.get("memories_fts MATCH", 0) + count
                    )
    finally:
        conn.close()
    return found


@pytest.mark.parametrize("vectors", [False, True], ids=["fts-only", "sqlite-vec"])
async def test_erase_leaves_nothing_in_data_dir(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
    vectors: bool,
) -> None:
    # Ends in a digit so the porter stemmer keeps the FTS token whole; the greps also look for
    # the tail alone, because FTS5 leaves store each term after the prefix it shares with the
    # previous term.
    marker = "zqm" + uuid.uuid4().hex[:16] + "7"
    survivor = "zqs" + uuid.uuid4().hex[:16] + "7"
    marker_tail, survivor_tail = marker[-10:], survivor[-10:]
    changes: dict[str, Any] = {
        "memory": MemoryConfig(
            enabled=True, strategy="hybrid" if vectors else "keyword"
        )
    }
    if vectors:
        changes["embedding"] = EmbeddingConfig(source="onnx")
        changes["vector_store"] = VectorStoreConfig(kind="sqlite-vec")
    admin: Admin = await start_admin(memtap_server, memtap_config, http, **changes)
    data_dir = Path(admin.server.runtime.config.current.data_dir)

    for i in range(30):
        await admin.create(
            owner=VICTIM,
            content=f"Secret {i}: my account code is {marker} and more words {i}",
            key=f"k{i}-{marker}",
            session=f"sess-{marker}",
            metadata={"note": marker},
        )
    await admin.create(owner=KEEPER, content=f"The keeper remembers {survivor}")
    # A proxied turn puts the marker through the outbox (and extraction) too.
    headers = {
        "Authorization": f"Bearer {VICTIM_KEY}",
        "X-Memtap-Session": f"sess-{marker}",
    }
    chat = {
        "model": "m",
        "messages": [
            {
                "role": "user",
                "content": f"I prefer the codename {marker} for my project.",
            }
        ],
    }
    async with http.post(
        admin.server.url + "/v1/chat/completions", json=chat, headers=headers
    ) as response:
        assert response.status == 200
        await response.read()
    if vectors:
        reindex = await admin.call("POST", "/api/reindex", json={})
        assert reindex.status == 200 and reindex.body.get("started") is True, (
            reindex.body
        )
        status = await admin.call("GET", "/api/engine-status")
        assert "sqlite-vec" in str(status.body), status.body
    preview = await admin.call(
        "POST", "/api/retrieve-preview", json={"owner": VICTIM, "query": marker}
    )
    assert preview.body["results"], (
        "the victim's memories were searchable before the erase"
    )

    erase = await admin.call("DELETE", f"/api/owners/{VICTIM}")
    assert erase.status == 200, erase.body
    removed = erase.body["removed"]
    assert removed["memories"] >= 30 and removed["fts"] >= 30
    if vectors:
        assert removed["vectors"] >= 30
    after = await admin.call(
        "GET", "/api/memories", params={"owner": VICTIM, "include_superseded": "true"}
    )
    assert after.body["total"] == 0
    assert (
        await admin.call(
            "POST", "/api/retrieve-preview", json={"owner": VICTIM, "query": marker}
        )
    ).body["results"] == []

    await admin.server.stop()

    assert files_containing(data_dir, survivor_tail), (
        "the grep must find data that was not erased"
    )
    assert files_containing(data_dir, marker_tail) == []
    assert files_containing(data_dir, VICTIM) == []
    db = database_path(admin.server.runtime.config.current)
    kept = rows_mentioning(db, [survivor_tail])
    assert "memories" in kept and "memories_fts_data" in kept, (
        kept
    )  # the scan sees FTS internals
    assert rows_mentioning(db, [marker_tail, VICTIM]) == {}
