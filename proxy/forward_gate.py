"""Access control for absolute-URI requests (`GET http://host/path` from an `HTTP_PROXY`
client), the request-level half of `proxy/modes/access/`: proxy authentication, then the
destination policy, then the route pinned to the address that was checked.

Why pin: aiohttp would resolve the name again when it connects, and a name can resolve to
a public address for the check and to a private one a moment later (DNS rebinding). So for
a client on another host the route's base URL names the checked IP; the `Host` header (set
from the name when the flow was built) and, for https, the TLS server name stay the name.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import orjson
from aiohttp import web
from yarl import URL

from memtap.config.schema import InterceptConfig
from memtap.proxy.flow import Flow
from memtap.proxy.modes.access.gate import (
    AUTH_REQUIRED,
    Denied,
    ForwardAccess,
    refused_destination,
)
from memtap.proxy.modes.loopback_guard import resolve
from memtap.proxy.routing import Route

_DEFAULT_PORTS = {"http": 80, "https": 443}


async def vet_forward_request(
    access: ForwardAccess,
    request: web.BaseRequest,
    route: Route,
    config: InterceptConfig,
) -> Route | Denied:
    """The route to use (pinned for a client on another host), or how to refuse."""
    if not await access.authorized(config, request.headers.get("Proxy-Authorization")):
        return AUTH_REQUIRED
    transport = request.transport
    peername = transport.get_extra_info("peername") if transport is not None else None
    if not access.checks_destinations(peername):
        return route
    url = URL(route.base_url)
    host = url.raw_host or ""
    port = url.port or _DEFAULT_PORTS.get(url.scheme, 80)
    try:
        async with asyncio.timeout(route.connect_timeout_s):
            addresses = await resolve(host, port)
    except (OSError, TimeoutError):
        return Denied(
            status=502,
            code="upstream_unreachable",
            message=f"cannot resolve {host}",
            error=f"cannot resolve {host}",
        )
    refusal = access.refusal(config, peername, host, port, addresses)
    if refusal is not None:
        return refused_destination(refusal, "forward_denied")
    return _pinned(route, url, addresses[0])


def _pinned(route: Route, url: URL, address: str) -> Route:
    pinned = url.with_host(address)
    return replace(
        route,
        base_url=str(pinned).rstrip("/"),
        server_hostname=url.raw_host if url.scheme == "https" else None,
    )


async def send_denied(
    request: web.Request, flow: Flow, denied: Denied
) -> web.StreamResponse:
    """Answer `denied` as JSON `{"error": {...}}` and record it on the flow (request.done)."""
    flow.status = denied.status
    flow.error = denied.error
    flow.error_kind = "upstream" if denied.status == 502 else "client"
    error = {
        "code": denied.code,
        "message": denied.message,
        "upstream": flow.route.upstream_name,
    }
    body = orjson.dumps({"error": error})
    response = web.Response(
        status=denied.status,
        body=body,
        content_type="application/json",
        headers=denied.headers,
    )
    await response.prepare(request)
    await response.write_eof()
    return response
