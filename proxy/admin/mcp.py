"""`/_memtap/mcp`: the MCP tools of `memtap mcp` over HTTP, for agents that reach memtap over
the network (MCP's Streamable HTTP transport, answering each POST with JSON; no server-sent
stream, so other methods get the admin API's 405 with `Allow: POST`).

The endpoint is part of the admin API and needs its token like every other endpoint.
`?owner=ID` scopes the tools to one owner exactly as `memtap mcp --owner` does (no tool can
name another owner; their ids answer "not found"); without it the tools take an `owner`
argument (`--any-owner`). `?session=ID` is the default session. The tools call the admin API
of this same memtap over loopback with the caller's credentials, so every rule and check of
the API applies to them unchanged. Each POST is handled on its own (no server-side session
state): the client's `MCP-Protocol-Version` header says which revision it agreed on.
"""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from memtap.engine.api import InvalidInput
from memtap.proxy.admin.common import json_response
from memtap.proxy.admin.validation import read_body
from memtap.proxy.adminclient import AdminClient, Target
from memtap.proxy.mcp.protocol import PROTOCOL_VERSIONS, parse_error
from memtap.proxy.mcp.tools import MemoryTools, OwnerScope, memory_session, valid_owner

routes = web.RouteTableDef()

MAX_MESSAGE_BYTES = 1024 * 1024
ASSUMED_VERSION = "2025-03-26"
"""The revision a request without `MCP-Protocol-Version` is answered in (Streamable HTTP)."""


@routes.post("/mcp")
async def mcp_post(request: web.Request) -> web.Response:
    owner = request.query.get("owner")
    if owner is not None and not valid_owner(owner):
        raise InvalidInput("owner is not an owner id", "owner")
    raw = await read_body(request, MAX_MESSAGE_BYTES)
    message: Any
    try:
        message = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json_response(parse_error(), status=400)
    own = Target(_own_admin_url(request), token=None)
    async with AdminClient(
        own, timeout_s=30.0, authorization=request.headers.get("Authorization")
    ) as api:
        tools = MemoryTools(
            api, OwnerScope(owner, request.query.get("session") or None)
        )
        session = memory_session(tools)
        version = request.headers.get("MCP-Protocol-Version")
        # Without the header, the transport's rule: assume 2025-03-26 (no structured
        # results); `initialize` sets the version it agrees on anyway.
        session.protocol_version = (
            version if version in PROTOCOL_VERSIONS else ASSUMED_VERSION
        )
        answer = await session.handle(message)
    if answer is None:  # notifications only
        return web.Response(status=202)
    return json_response(answer)


def _own_admin_url(request: web.Request) -> str:
    """This listener's own address, as the socket knows it (not the Host header, which a
    client chooses)."""
    sockname = (
        request.transport.get_extra_info("sockname") if request.transport else None
    )
    if not sockname:
        raise InvalidInput("cannot tell this listener's address", "listener")
    host, port = sockname[0], sockname[1]
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"
