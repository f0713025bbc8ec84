"""The request log: `GET /_memtap/api/requests` and `X-Memtap-Request-Id`, through a real
memtap (in-process, real sockets, real SQLite) in front of the provider stand-in."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from memtap.config.errors import ConfigIssue
from memtap.config.schema import AdminConfig, Config, MemoryConfig
from memtap.config.validate import validate
from memtap.engine.events import TurnExtracted
from memtap.proxy.request_log.ring import RequestLog, RequestRecord
from tests.conftest import MemtapServer
from tests.support.admin import TOKEN, Admin, admin_config, start_admin
from tests.support.standin import Reply, Standin

KEY = "sk-request-log-key"
OWNER = hashlib.sha256(KEY.encode()).hexdigest()[:24]
SECRET_PROMPT = "my locker code is 4812 and I prefer green tea"


async def chat(
    admin: Admin, text: str, headers: dict[str, str] | None = None, key: str = KEY
) -> aiohttp.ClientResponse:
    sent = {"Authorization": f"Bearer {key}"} if key else {}
    sent.update(headers or {})
    async with admin.http.post(
        admin.server.url + "/v1/chat/completions",
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]},
        headers=sent,
    ) as response:
        await response.read()
        return response


async def entry(admin: Admin, request_id: str, **params: str) -> dict[str, Any]:
    reply = await admin.call("GET", "/api/requests", params=params)
    assert reply.status == 200, reply.body
    matching = [i for i in reply.body["items"] if i["request_id"] == request_id]
    assert matching, reply.body
    return dict(matching[0])


async def wait_extracted(admin: Admin, request_id: str) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        item = await entry(admin, request_id)
        if item["extraction"] == "done":
            return item
        assert asyncio.get_running_loop().time() < deadline, item
        await asyncio.sleep(0.05)


@pytest.fixture
async def admin(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> Admin:
    return await start_admin(memtap_server, memtap_config, http)


async def test_a_turn_is_logged_with_what_it_extracted_then_injected(
    admin: Admin,
) -> None:
    first = await chat(admin, "I prefer green tea over coffee.")
    request_id = first.headers["X-Memtap-Request-Id"]
    assert first.headers["X-Memtap-Memories"] == "0"
    done = await wait_extracted(admin, request_id)
    assert done["owner"] == OWNER and done["format"] == "openai-chat"
    assert done["model"] == "gpt-4o-mini" and done["status"] == 200
    assert done["injected"] == [] and len(done["extracted"]) >= 1
    extracted = (await admin.call("GET", f"/api/memories/{done['extracted'][0]}")).body
    assert "green tea" in extracted["content"]

    second = await chat(admin, "What tea should I drink today?")
    assert second.headers["X-Memtap-Memories"] != "0"
    later = await entry(admin, second.headers["X-Memtap-Request-Id"], owner=OWNER)
    assert done["extracted"][0] in later["injected"]
    assert set(later) >= {
        "request_id",
        "ts",
        "owner",
        "format",
        "model",
        "status",
        "injected",
        "extracted",
        "skipped_reason",
    }
    # Newest first.
    listed = (await admin.call("GET", "/api/requests")).body["items"]
    assert [i["request_id"] for i in listed[:2]] == [
        second.headers["X-Memtap-Request-Id"],
        request_id,
    ]


async def test_never_prompt_text_and_reasons_when_nothing_happened(
    admin: Admin,
) -> None:
    off = await chat(admin, SECRET_PROMPT, {"X-Memtap-Memory": "off"})
    assert "X-Memtap-Request-Id" not in off.headers
    read = await chat(admin, SECRET_PROMPT, {"X-Memtap-Memory": "read"})
    keyless = await chat(admin, SECRET_PROMPT, key="")
    reply = await admin.call("GET", "/api/requests")
    assert SECRET_PROMPT.encode() not in reply.raw
    # The locker code alone, outside the random hex ids (where "4812" turns up by chance
    # about once in 500 runs).
    beside_ids = [
        {k: v for k, v in item.items() if k not in ("request_id", "owner")}
        for item in reply.body["items"]
    ]
    assert "4812" not in json.dumps(beside_ids)
    reasons = [item["skipped_reason"] for item in reply.body["items"]]
    assert reasons[:3] == ["no_api_key", "memory_header_read", "memory_header_off"]
    assert keyless.status == 200
    read_entry = await entry(admin, read.headers["X-Memtap-Request-Id"])
    assert read_entry["extraction"] == "none" and read_entry["extracted"] == []


async def test_memory_switched_off_still_logs_memory_endpoints_with_the_reason(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> None:
    """With memory off the memory addons leave the pipeline; the request log stays and
    says why a memory endpoint's request got no memory (`memory_disabled`). Other
    requests (not a generation endpoint) are not entries."""
    config = admin_config(memtap_config, memory=MemoryConfig(enabled=False))
    admin = Admin(await memtap_server(config), http, TOKEN)
    off = await chat(admin, SECRET_PROMPT)
    assert off.status == 200 and "X-Memtap-Request-Id" not in off.headers
    async with http.get(admin.server.url + "/v1/models") as listing:
        await listing.read()
    reply = await admin.call("GET", "/api/requests")
    assert reply.status == 200, reply.body
    items = reply.body["items"]
    assert len(items) == 1, items
    assert items[0]["skipped_reason"] == "memory_disabled"
    assert (items[0]["owner"], items[0]["format"]) == (OWNER, "openai-chat")
    assert items[0]["injected"] == [] and items[0]["extraction"] == "none"
    assert SECRET_PROMPT.encode() not in reply.raw


async def test_an_upstream_error_says_why_nothing_was_learnt(
    admin: Admin, standin: Standin
) -> None:
    standin.enqueue(
        Reply(
            status=500,
            headers={"Content-Type": "application/json"},
            chunks=[b'{"error": {"message": "boom"}}'],
        )
    )
    failed = await chat(admin, "I prefer window seats.")
    assert failed.status == 500
    item = await entry(admin, failed.headers["X-Memtap-Request-Id"])
    assert item["status"] == 500 and item["skipped_reason"] == "status_500"
    assert item["extraction"] == "none"


async def test_owner_filter_limit_and_validation(admin: Admin) -> None:
    await chat(admin, "first request")
    other = await chat(admin, "second request", key="sk-another-key")
    only_other = await admin.call(
        "GET",
        "/api/requests",
        params={"owner": hashlib.sha256(b"sk-another-key").hexdigest()[:24]},
    )
    assert [i["request_id"] for i in only_other.body["items"]] == [
        other.headers["X-Memtap-Request-Id"]
    ]
    limited = await admin.call("GET", "/api/requests", params={"limit": "1"})
    assert len(limited.body["items"]) == 1
    for params in (
        {"limit": "0"},
        {"limit": "x"},
        {"owner": "not an owner!"},
        {"q": "a"},
    ):
        bad = await admin.call("GET", "/api/requests", params=params)
        assert bad.status == 400 and bad.error_code == "invalid", params
    anonymous = await admin.call("GET", "/api/requests", token=None)
    assert anonymous.status == 401
    assert TOKEN


async def test_erasing_an_owner_forgets_its_requests(admin: Admin) -> None:
    await chat(admin, "remember that I like green tea")
    kept = await chat(admin, "someone else", key="sk-another-key")
    erased = await admin.call("DELETE", f"/api/owners/{OWNER}")
    assert erased.status == 200 and erased.body["removed"]["requests_logged"] == 1
    listed = (await admin.call("GET", "/api/requests")).body["items"]
    assert [i["request_id"] for i in listed] == [kept.headers["X-Memtap-Request-Id"]]


async def test_the_ring_is_bounded_by_the_live_config(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> None:
    admin = await start_admin(
        memtap_server,
        memtap_config,
        http,
        admin=AdminConfig(token=TOKEN, request_log_size=2),
    )
    ids = [
        (await chat(admin, f"request number {n}")).headers["X-Memtap-Request-Id"]
        for n in range(3)
    ]
    listed = (await admin.call("GET", "/api/requests")).body
    assert [i["request_id"] for i in listed["items"]] == ids[:0:-1]
    assert listed["size"] == 2


def test_extraction_before_the_entry_and_unknown_ids() -> None:
    ring = RequestLog()
    ring.turn_extracted(TurnExtracted("r1", "o", ("m1",)))
    ring.turn_extracted(TurnExtracted("r2", "o", ()))
    base = RequestRecord("r1", "t", "o", "openai-chat", None, 200, (), None, None, True)
    ring.add(base, 10)
    ring.add(dataclasses.replace(base, request_id="r2"), 10)
    r1, r2 = ring.get("r1"), ring.get("r2")
    assert r1 is not None and r1.extracted == ("m1",) and r1.skipped_reason is None
    assert (
        r2 is not None
        and r2.extracted == ()
        and r2.skipped_reason == "no_facts_in_turn"
    )
    ring.add(dataclasses.replace(base, request_id="r3"), 0)
    assert len(ring) == 0


def test_request_log_size_is_validated() -> None:
    config = dataclasses.replace(Config(), admin=AdminConfig(request_log_size=-1))
    assert ConfigIssue("admin.request_log_size", "must be at least 0") in validate(
        config
    )
