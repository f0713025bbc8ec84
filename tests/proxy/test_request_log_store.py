"""`admin.request_log_store: database`: the request log survives a restart (entries and
their extraction results), stays bounded, and an erased owner's entries are gone from the
file too; with the default `memory` a restart starts empty. Real memtap, real SQLite."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from memtap.config.errors import ConfigError
from memtap.config.loader import load_config
from memtap.config.schema import AdminConfig, Config
from memtap.proxy.request_log.ring import RequestRecord
from tests.conftest import MemtapServer
from tests.support.admin import TOKEN, Admin, start_admin
from tests.support.standin import Standin

KEY = "sk-request-log-store"
OWNER = hashlib.sha256(KEY.encode()).hexdigest()[:24]

Start = Callable[..., Awaitable[Admin]]


@pytest.fixture
def start(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> Start:
    async def started(store: str, size: int = 500) -> Admin:
        admin = AdminConfig(token=TOKEN, request_log_size=size, request_log_store=store)  # type: ignore[arg-type]
        return await start_admin(memtap_server, memtap_config, http, admin=admin)

    return started


async def chat(admin: Admin, text: str, key: str = KEY) -> str:
    async with admin.http.post(
        admin.server.url + "/v1/chat/completions",
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]},
        headers={"Authorization": f"Bearer {key}"},
    ) as response:
        await response.read()
        return response.headers["X-Memtap-Request-Id"]


async def items(admin: Admin, **params: str) -> list[dict[str, Any]]:
    reply = await admin.call("GET", "/api/requests", params=params)
    assert reply.status == 200, reply.body
    return list(reply.body["items"])


async def wait_done(admin: Admin, request_id: str) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        found = [i for i in await items(admin) if i["request_id"] == request_id]
        if found and found[0]["extraction"] == "done":
            return found[0]
        assert asyncio.get_running_loop().time() < deadline, found
        await asyncio.sleep(0.05)


async def settle(admin: Admin) -> None:
    await asyncio.sleep(
        0.2
    )  # the write-through task hands the last entries to the engine


async def test_entries_survive_a_restart_with_the_database_store(start: Start) -> None:
    first = await start("database")
    request_id = await chat(first, "I prefer oolong tea in the afternoon.")
    done = await wait_done(first, request_id)
    assert done["extracted"]
    await settle(first)
    await first.server.stop()

    second = await start("database")
    (kept,) = [i for i in await items(second) if i["request_id"] == request_id]
    assert kept == done  # the same entry, its extraction result included


async def test_the_memory_store_starts_empty(start: Start) -> None:
    first = await start("memory")
    request_id = await chat(first, "I prefer rooibos.")
    await wait_done(first, request_id)
    await first.server.stop()
    second = await start("memory")
    assert await items(second) == []


async def test_the_stored_log_is_bounded(start: Start) -> None:
    first = await start("database", size=3)
    ids = [await chat(first, f"Note number {i}.") for i in range(6)]
    await settle(first)
    await first.server.stop()
    second = await start("database", size=3)
    assert [i["request_id"] for i in await items(second)] == list(reversed(ids[-3:]))
    rows = await second.engine.local.db.read(
        lambda conn: conn.execute("SELECT count(*) FROM request_log").fetchone()[0]
    )
    assert rows == 3


async def test_erasing_an_owner_removes_their_stored_entries(start: Start) -> None:
    first = await start("database")
    mine = await chat(first, "I prefer sencha.")
    other = await chat(first, "I prefer matcha.", key="sk-someone-else")
    await settle(first)
    reply = await first.call("DELETE", f"/api/owners/{OWNER}")
    assert reply.status == 200, reply.body
    await first.server.stop()
    second = await start("database")
    assert [i["request_id"] for i in await items(second)] == [other]
    assert mine not in {i["request_id"] for i in await items(second)}


def test_a_record_round_trips_through_storage() -> None:
    record = RequestRecord(
        request_id="r1",
        ts="2026-12-03T09:00:00.000Z",
        owner=OWNER,
        format="openai-chat",
        model="gpt-4o-mini",
        status=200,
        injected=("m1", "m2"),
        extracted=None,
        skipped_reason=None,
        captured=True,
    )
    assert RequestRecord.from_stored(record.to_stored()) == record
    done = RequestRecord.from_stored({**record.to_stored(), "extracted": ["m3"]})
    assert done.extracted == ("m3",) and done.extraction_state == "done"


def test_the_store_loads_from_yaml_and_an_unknown_one_names_the_key(
    tmp_path: Path,
) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("admin:\n  request_log_store: database\n")
    assert load_config(str(good)).admin.request_log_store == "database"
    bad = tmp_path / "bad.yaml"
    bad.write_text("admin:\n  request_log_store: disk\n")
    with pytest.raises(ConfigError) as caught:
        load_config(str(bad))
    assert "admin.request_log_store" in str(caught.value)
