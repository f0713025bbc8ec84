"""`memtap mcp`: the MCP server (stdio) as a subprocess against a running memtap, driven by the
official `mcp` Python SDK as the client, and by raw JSON-RPC lines for the protocol's edges."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from memtap.config.schema import Config, MemoryConfig
from memtap.proxy.cli.memories_cmd import owner_id_of
from memtap.proxy.owners import end_user_owner, user_tag
from tests.conftest import MemtapServer
from tests.support.admin import TOKEN, Admin, start_admin
from tests.support.standin import Standin

MEMTAP = str(Path(sys.executable).with_name("memtap"))
APP_KEY = "sk-mcp-user-4f1c"
ME = owner_id_of(APP_KEY)
SOMEONE_ELSE = owner_id_of("sk-someone-else")

TOOLS = {
    "memory_search",
    "memory_list",
    "memory_get",
    "memory_add",
    "memory_update",
    "memory_delete",
}


@pytest.fixture
async def admin(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> Admin:
    # scope: global in the config: the MCP tools must still never reach another owner
    return await start_admin(
        memtap_server,
        memtap_config,
        http,
        memory=MemoryConfig(enabled=True, strategy="keyword", scope="global"),
    )


def _env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MEMTAP_")}
    return {**clean, "APP_KEY": APP_KEY}


@asynccontextmanager
async def sdk_session(admin: Admin, *extra: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=MEMTAP,
        args=[
            "mcp",
            "--url",
            admin.server.url,
            "--token",
            TOKEN,
            "--api-key-env",
            "APP_KEY",
            *extra,
        ],
        env=_env(),
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


def structured(result: Any) -> dict[str, Any]:
    data = getattr(result, "structured_content", None)
    if data is None:
        data = getattr(result, "structuredContent", None)
    assert isinstance(data, dict), result
    return data


async def test_sdk_client_manages_its_owners_memories(admin: Admin) -> None:
    async with sdk_session(admin) as session:
        listed = await session.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        schemas = {tool.name: tool for tool in listed.tools}
        # owner-scoped: no tool lets the model name an owner
        assert all("owner" not in str(t.input_schema) for t in listed.tools)
        assert schemas["memory_delete"].annotations.destructive_hint is True  # type: ignore[union-attr]

        added = await session.call_tool(
            "memory_add",
            {"content": "Prefers Postgres for side projects", "key": "database"},
        )
        assert not added.is_error, text_of(added)
        memory = structured(added)["memory"]
        assert memory["owner"] == ME and memory["key"] == "database"

        found = await session.call_tool("memory_search", {"query": "which postgres?"})
        assert not found.is_error
        assert [r["id"] for r in structured(found)["results"]] == [memory["id"]]
        assert "Prefers Postgres for side projects" in text_of(found)
        # A fact, which memory_get/update/delete take (an episode would say "episode").
        assert [r["kind"] for r in structured(found)["results"]] == ["fact"]

        page = await session.call_tool("memory_list", {})
        assert structured(page)["total"] == 1

        changed = await session.call_tool(
            "memory_update",
            {"id": memory["id"], "content": "Prefers SQLite for side projects"},
        )
        assert not changed.is_error, text_of(changed)
        stored = await admin.call("GET", f"/api/memories/{memory['id']}")
        assert stored.body["content"] == "Prefers SQLite for side projects"

        gone = await session.call_tool("memory_delete", {"id": memory["id"]})
        assert not gone.is_error
        assert (await admin.call("GET", f"/api/memories/{memory['id']}")).status == 404
        again = await session.call_tool("memory_get", {"id": memory["id"]})
        assert again.is_error and "not found" in text_of(again)


async def test_another_owners_memories_are_out_of_reach(admin: Admin) -> None:
    theirs = await admin.call(
        "POST",
        "/api/memories",
        json={"owner": SOMEONE_ELSE, "content": "Their secret: uses Postgres at night"},
    )
    assert theirs.status == 201
    their_id = theirs.body["id"]
    async with sdk_session(admin) as session:
        await session.call_tool("memory_add", {"content": "Uses Postgres daily"})
        # the config's scope is global, the search is not
        found = await session.call_tool("memory_search", {"query": "postgres"})
        assert [r["content"] for r in structured(found)["results"]] == [
            "Uses Postgres daily"
        ]
        listed = await session.call_tool("memory_list", {"query": "postgres"})
        assert [m["owner"] for m in structured(listed)["items"]] == [ME]
        for tool, args in (
            ("memory_get", {"id": their_id}),
            ("memory_update", {"id": their_id, "content": "overwritten"}),
            ("memory_delete", {"id": their_id}),
        ):
            result = await session.call_tool(tool, args)
            # exactly the answer for an id that does not exist: nothing leaks
            assert (
                result.is_error and text_of(result) == f"memory not found: {their_id}"
            )
        owner_arg = await session.call_tool(
            "memory_search", {"query": "postgres", "owner": SOMEONE_ELSE}
        )
        assert owner_arg.is_error and "unknown argument: owner" in text_of(owner_arg)
    still = await admin.call("GET", f"/api/memories/{their_id}")
    assert still.body["content"] == "Their secret: uses Postgres at night"


async def test_an_end_user_behind_the_key_is_an_owner_of_its_own(admin: Admin) -> None:
    """`--owner KEYOWNER:USERTAG` (`memtap owner-id KEY --user ID`): the tools act on that
    person alone, not on the key's own memories nor on the key's other users."""
    alice = end_user_owner(ME, user_tag("alice@example.com"))
    bob = end_user_owner(ME, user_tag("bob@example.com"))
    for owner, content in (
        (ME, "Uses Postgres for the app"),
        (bob, "Uses Postgres at home"),
    ):
        reply = await admin.call(
            "POST", "/api/memories", json={"owner": owner, "content": content}
        )
        assert reply.status == 201
    params = StdioServerParameters(
        command=MEMTAP,
        args=["mcp", "--url", admin.server.url, "--token", TOKEN, "--owner", alice],
        env=_env(),
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        added = await session.call_tool(
            "memory_add", {"content": "Uses Postgres daily"}
        )
        assert structured(added)["memory"]["owner"] == alice
        found = await session.call_tool("memory_search", {"query": "postgres"})
        assert [r["content"] for r in structured(found)["results"]] == [
            "Uses Postgres daily"
        ]
        listed = await session.call_tool("memory_list", {})
        assert [m["owner"] for m in structured(listed)["items"]] == [alice]


async def test_session_default_and_any_owner_mode(admin: Admin) -> None:
    async with sdk_session(admin, "--session", "chat-7") as session:
        added = await session.call_tool("memory_add", {"content": "Likes tea"})
        assert structured(added)["memory"]["session"] == "chat-7"
    params = StdioServerParameters(
        command=MEMTAP,
        args=["mcp", "--url", admin.server.url, "--token", TOKEN, "--any-owner"],
        env=_env(),
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = (await session.list_tools()).tools
        assert all("owner" in (t.input_schema.get("required") or []) for t in tools)
        added = await session.call_tool(
            "memory_add", {"owner": SOMEONE_ELSE, "content": "Runs Arch"}
        )
        assert structured(added)["memory"]["owner"] == SOMEONE_ELSE
        missing = await session.call_tool("memory_list", {})
        assert missing.is_error and "missing argument: owner" in text_of(missing)


# -- the protocol's edges, as raw lines --------------------------------------------------


async def raw_exchange(args: list[str], lines: list[Any]) -> list[dict[str, Any]]:
    proc = await asyncio.create_subprocess_exec(
        MEMTAP,
        "mcp",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=_env(),
    )
    payload = b"".join(
        (line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n"
        for line in lines
    )
    out, err = await asyncio.wait_for(proc.communicate(payload), 60)
    assert proc.returncode == 0, err.decode()
    return [json.loads(line) for line in out.decode().splitlines()]


async def test_protocol_edges(admin: Admin) -> None:
    target = ["--url", admin.server.url, "--token", TOKEN, "--owner", ME]
    answers = await raw_exchange(
        target,
        [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2024-11-05", "capabilities": {}},
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "ping"},
            b"{not json",
            {"jsonrpc": "2.0", "id": 3, "method": "resources/list"},
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "no_such_tool"},
            },
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "memory_search", "arguments": {"query": 7}},
            },
            {
                "jsonrpc": "2.0",
                "id": 6,
                "method": "tools/call",
                "params": {"name": "memory_add", "arguments": {"content": "Uses vim"}},
            },
            [
                {"jsonrpc": "2.0", "id": "b1", "method": "ping"},
                {"jsonrpc": "2.0", "method": "notifications/cancelled"},
            ],
            {"jsonrpc": "1.0", "id": 8, "method": "ping"},
            {"jsonrpc": "2.0", "id": 9},
            {"jsonrpc": "2.0", "id": 10, "method": 5},
            b"[" * 100_000,
            {"jsonrpc": "2.0", "id": 11, "method": "ping"},
        ],
    )
    by_id = {a["id"] if isinstance(a, dict) else "batch": a for a in answers}
    assert by_id[1]["result"]["protocolVersion"] == "2024-11-05"
    assert by_id[1]["result"]["serverInfo"]["name"] == "memtap"
    assert by_id[1]["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert by_id[2]["result"] == {}
    assert by_id[3]["error"]["code"] == -32601
    assert by_id[4]["error"]["code"] == -32602
    bad_args = by_id[5]["result"]
    assert (
        bad_args["isError"]
        and "query must be of type string" in bad_args["content"][0]["text"]
    )
    saved = by_id[6]["result"]
    assert not saved["isError"]
    assert "structuredContent" not in saved  # 2024-11-05 has no structured results
    assert by_id["batch"] == [{"jsonrpc": "2.0", "id": "b1", "result": {}}]
    # a request the server cannot serve still gets its answer, with its id
    for request_id in (8, 9, 10):
        assert by_id[request_id]["error"]["code"] == -32600
    errors = [a for a in answers if isinstance(a, dict) and a["id"] is None]
    # not JSON, twice (the second nested past any parser's depth): the session goes on
    assert [e["error"]["code"] for e in errors] == [-32700, -32700]
    assert by_id[11]["result"] == {}
    # one answer per request, none for the notifications
    assert len(answers) == 13


async def test_unknown_version_gets_the_newest_and_unreachable_memtap_is_a_tool_error(
    tmp_path: Path,
) -> None:
    answers = await raw_exchange(
        ["--url", "http://127.0.0.1:9", "--owner", ME],
        [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "1999-01-01"},
            },
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "memory_list", "arguments": {}},
            },
        ],
    )
    assert answers[0]["result"]["protocolVersion"] == "2025-11-25"
    result = answers[1]["result"]
    assert result["isError"] and "cannot reach memtap" in result["content"][0]["text"]


async def test_api_key_env_must_be_set() -> None:
    proc = await asyncio.create_subprocess_exec(
        MEMTAP,
        "mcp",
        "--api-key-env",
        "MEMTAP_TEST_UNSET_KEY",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=_env(),
    )
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2 and out == b""
    assert b"MEMTAP_TEST_UNSET_KEY is not set" in err


@pytest.mark.parametrize("owner", ["", "   ", "../etc"])
async def test_an_owner_that_is_not_one_is_refused(owner: str) -> None:
    """An empty owner would mean "no owner filter" to the admin API: never accepted."""
    proc = await asyncio.create_subprocess_exec(
        MEMTAP,
        "mcp",
        "--owner",
        owner,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=_env(),
    )
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2 and out == b"", err
    assert b"is not an owner id" in err


async def test_any_owner_mode_refuses_an_empty_owner_argument(admin: Admin) -> None:
    await admin.call(
        "POST", "/api/memories", json={"owner": SOMEONE_ELSE, "content": "x"}
    )
    answers = await raw_exchange(
        ["--url", admin.server.url, "--token", TOKEN, "--any-owner"],
        [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "memory_list", "arguments": {"owner": ""}},
            }
        ],
    )
    result = answers[0]["result"]
    assert result["isError"] and "not an owner id" in result["content"][0]["text"]


# -- the same tools over HTTP: /_memtap/mcp ------------------------------------------------


@asynccontextmanager
async def http_session(
    url: str, token: str | None = TOKEN
) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers) as http_client,
        streamable_http_client(url, http_client=http_client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def test_http_endpoint_serves_the_tools_for_one_owner(admin: Admin) -> None:
    theirs = await admin.call(
        "POST",
        "/api/memories",
        json={"owner": SOMEONE_ELSE, "content": "Uses Postgres"},
    )
    url = f"{admin.server.url}/_memtap/mcp?owner={ME}&session=web-1"
    async with http_session(url) as session:
        assert {t.name for t in (await session.list_tools()).tools} == TOOLS
        added = await session.call_tool("memory_add", {"content": "Uses Postgres too"})
        assert not added.is_error, text_of(added)
        memory = structured(added)["memory"]
        assert (memory["owner"], memory["session"]) == (ME, "web-1")
        found = await session.call_tool("memory_search", {"query": "postgres"})
        assert [r["id"] for r in structured(found)["results"]] == [memory["id"]]
        other = await session.call_tool("memory_delete", {"id": theirs.body["id"]})
        assert other.is_error and "not found" in text_of(other)
        gone = await session.call_tool("memory_delete", {"id": memory["id"]})
        assert not gone.is_error
    assert (await admin.call("GET", f"/api/memories/{theirs.body['id']}")).status == 200


async def test_http_endpoint_needs_the_admin_token_and_answers_post_only(
    admin: Admin,
) -> None:
    url = f"{admin.server.url}/_memtap/mcp?owner={ME}"
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json=ping) as response:
            assert response.status == 401
        auth = {"Authorization": f"Bearer {TOKEN}"}
        async with http.post(url, json=ping, headers=auth) as response:
            assert response.status == 200
            assert await response.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
        notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        async with http.post(url, json=notification, headers=auth) as response:
            assert response.status == 202 and await response.read() == b""
        async with http.post(url, data=b"{nope", headers=auth) as response:
            assert response.status == 400
            assert (await response.json())["error"]["code"] == -32700
        for method in ("GET", "DELETE"):
            async with http.request(method, url, headers=auth) as response:
                assert response.status == 405 and response.headers["Allow"] == "POST"
        bad_owner = f"{admin.server.url}/_memtap/mcp?owner="
        async with http.post(bad_owner, json=ping, headers=auth) as response:
            assert response.status == 400
            assert (await response.json())["error"]["field"] == "owner"


async def test_http_endpoint_on_loopback_without_a_token(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> None:
    """No admin.token: the API answers loopback callers only, and so do the tools' own calls."""
    open_admin = await start_admin(memtap_server, memtap_config, http, token=None)
    url = f"{open_admin.server.url}/_memtap/mcp?owner={ME}"
    async with http_session(url, token=None) as session:
        added = await session.call_tool("memory_add", {"content": "Prefers dark mode"})
        assert not added.is_error, text_of(added)
        listed = await session.call_tool("memory_list", {})
        assert structured(listed)["total"] == 1


async def test_http_endpoint_reads_whole_bodies_and_caps_batches(admin: Admin) -> None:
    url = f"{admin.server.url}/_memtap/mcp?owner={ME}"
    auth = {"Authorization": f"Bearer {TOKEN}"}
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "memory_add", "arguments": {"content": "x" * 15_000}},
    }
    raw = json.dumps(call).encode()

    async def in_pieces() -> AsyncIterator[bytes]:
        for at in range(0, len(raw), 1024):  # a body that arrives in several reads
            yield raw[at : at + 1024]
            await asyncio.sleep(0.005)

    async with aiohttp.ClientSession() as http:
        async with http.post(url, data=in_pieces(), headers=auth) as response:
            assert response.status == 200
            assert (await response.json())["result"]["isError"] is False
        batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(51)]
        async with http.post(url, json=batch, headers=auth) as response:
            assert (await response.json())["error"]["code"] == -32600
        async with http.post(url, json=batch[:50], headers=auth) as response:
            assert len(await response.json()) == 50


async def test_http_results_follow_the_agreed_revision(admin: Admin) -> None:
    """`structuredContent` is 2025-06-18 and later: a POST without `MCP-Protocol-Version`
    is answered as 2025-03-26 (the transport's rule), so text only."""
    url = f"{admin.server.url}/_memtap/mcp?owner={ME}"
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "memory_list", "arguments": {}},
    }
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json=call, headers=auth) as response:
            assert "structuredContent" not in (await response.json())["result"]
        headers = {**auth, "MCP-Protocol-Version": "2025-11-25"}
        async with http.post(url, json=call, headers=headers) as response:
            assert (await response.json())["result"]["structuredContent"]["total"] == 0


async def test_memory_add_supersedes_the_old_value_of_a_slot(admin: Admin) -> None:
    async with sdk_session(admin) as session:
        old = structured(
            await session.call_tool("memory_add", {"content": "Works at Google"})
        )["memory"]
        new = structured(
            await session.call_tool("memory_add", {"content": "I work at Stripe now"})
        )["memory"]
        page = structured(await session.call_tool("memory_list", {}))
        assert [m["id"] for m in page["items"]] == [new["id"]]
        both = structured(
            await session.call_tool("memory_list", {"include_superseded": True})
        )
        assert {m["id"] for m in both["items"]} == {old["id"], new["id"]}
        past = (await admin.call("GET", f"/api/memories/{old['id']}")).body
        assert past["superseded_by"] == new["id"] and past["valid_to"]
        # a shorter restatement keeps the richer fact live
        rich = structured(
            await session.call_tool(
                "memory_add", {"content": "Lives in Berlin, Kreuzberg"}
            )
        )["memory"]
        short = structured(
            await session.call_tool("memory_add", {"content": "Lives in Berlin"})
        )["memory"]
        assert (await admin.call("GET", f"/api/memories/{short['id']}")).body[
            "superseded_by"
        ] == rich["id"]
        live = structured(await session.call_tool("memory_list", {}))
        assert sorted(m["content"] for m in live["items"]) == [
            "I work at Stripe now",
            "Lives in Berlin, Kreuzberg",
        ]
