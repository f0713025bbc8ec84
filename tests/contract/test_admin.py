"""The admin API shapes of the contract, against `memtap serve` run as a subprocess."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from tests.conftest import MemtapProcess
from tests.support.standin import Standin

TOKEN = "contract-admin-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00)$")
MEMORY_KEYS = {
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
}


@pytest.fixture
async def admin(
    memtap_process: Callable[..., Awaitable[MemtapProcess]],
    standin: Standin,  # set up first: memtap_process points the config at it
) -> AsyncIterator[tuple[str, aiohttp.ClientSession]]:
    server = await memtap_process(
        {
            "memory": {"enabled": True},
            "vector_store": {"kind": "none"},
            "embedding": {"source": "none"},
        },
        args=["--admin-token", TOKEN],
    )
    async with aiohttp.ClientSession(headers=AUTH) as http:
        yield f"{server.url}/_memtap", http


async def _call(
    http: aiohttp.ClientSession, method: str, url: str, body: Any = None
) -> tuple[int, Any]:
    async with http.request(method, url, json=body) as response:
        return response.status, await response.json()


@pytest.mark.slow
async def test_errors_and_auth_shape(admin: tuple[str, aiohttp.ClientSession]) -> None:
    base, http = admin
    async with aiohttp.ClientSession() as anonymous:
        async with anonymous.get(f"{base}/health") as response:
            assert response.status == 200
            health = await response.json()
        assert {"status", "version", "store", "vector", "embedding"} <= set(health)
        assert health["status"] == "ok"
        for path in ("/api/memories", "/api/engine-status", "/api/settings"):
            async with anonymous.get(base + path) as response:
                assert response.status == 401
                error = (await response.json())["error"]
            assert isinstance(error["code"], str) and isinstance(error["message"], str)
    status, body = await _call(http, "GET", f"{base}/api/memories/no-such-id")
    assert status == 404 and set(body["error"]) >= {"code", "message"}


@pytest.mark.slow
async def test_memory_crud_shapes(admin: tuple[str, aiohttp.ClientSession]) -> None:
    base, http = admin
    status, created = await _call(
        http,
        "POST",
        f"{base}/api/memories",
        {"owner": "o1", "content": "Drinks green tea", "session": "s1"},
    )
    assert status == 201
    assert MEMORY_KEYS <= set(created)
    assert created["type"] in ("factual", "episodic", "procedural", "semantic")
    for stamp in ("created_at", "updated_at"):
        assert ISO_UTC.match(created[stamp]), created[stamp]
    url = f"{base}/api/memories/{created['id']}"
    status, updated = await _call(http, "PUT", url, {"content": "Drinks oolong"})
    assert status == 200 and updated["content"] == "Drinks oolong"
    status, page = await _call(http, "GET", f"{base}/api/memories?owner=o1&session=s1")
    assert status == 200 and page["total"] == 1
    assert [m["id"] for m in page["items"]] == [created["id"]]
    status, _ = await _call(http, "DELETE", url)
    assert status == 200
    status, _ = await _call(http, "GET", url)
    assert status == 404


@pytest.mark.slow
async def test_settings_accept_dotted_and_nested_names(
    admin: tuple[str, aiohttp.ClientSession],
) -> None:
    base, http = admin

    def value(body: Any, name: str) -> Any:
        [setting] = [s for s in body["settings"] if s["name"] == name]
        return setting["value"], setting["source"]

    status, body = await _call(
        http, "PUT", f"{base}/api/settings", {"memory": {"max_tokens": 321}}
    )
    assert status == 200, body
    assert value(body, "memory.max_tokens") == (321, "override")
    status, body = await _call(
        http, "PUT", f"{base}/api/settings", {"memory.max_tokens": 322}
    )
    assert status == 200 and value(body, "memory.max_tokens") == (322, "override")
    status, body = await _call(
        http, "PUT", f"{base}/api/settings", {"memory": {"no_such_setting": 1}}
    )
    assert status == 400 and "memory.no_such_setting" in body["error"]["message"]
    status, body = await _call(http, "DELETE", f"{base}/api/settings/memory.max_tokens")
    assert status == 200 and value(body, "memory.max_tokens")[1] != "override"
