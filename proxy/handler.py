"""The one aiohttp handler for every proxied request, whatever mode brought it here.

route (`proxy/routing.py`) → Flow → `request_headers` hooks (they decide whether the body is
read) → `request` hooks → upstream (`proxy/upstream.py`) → `response_headers` hooks → tee
(`proxy/tee.py`: client first, then `response_chunk` / `response_done`) → `finished`.
The addons (`proxy/addons/`) do the rest; this module knows nothing about memory.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from functools import lru_cache
from typing import Any, Final

import aiohttp
import orjson
from aiohttp import hdrs, web
from aiohttp.payload import AsyncIterablePayload, Payload
from yarl import URL

from memtap.config.schema import EndUserSource
from memtap.proxy.appkeys import RUNTIME, Runtime
from memtap.proxy.client_side.edges import closed_reason, closed_with, upstream_watchdog
from memtap.proxy.flow import Flow, MemoryMode, new_request_id
from memtap.proxy.forward_gate import send_denied, vet_forward_request
from memtap.proxy.headers import (
    api_key_from,
    owner_id_for_key,
    read_memtap_headers,
    strip_hop_by_hop,
    upstream_request_headers,
)
from memtap.proxy.modes.access.gate import FORWARD_ACCESS, Denied
from memtap.proxy.owners import chosen_end_user, end_user_owner
from memtap.proxy.routing import Route, resolve_route
from memtap.proxy.tee import UpstreamBodyError, relay_body
from memtap.proxy.upstream import IdleWatchdog, UpstreamFailure, open_response

log = logging.getLogger("memtap.proxy")

_MEMORY_MODES: dict[str, MemoryMode] = {"on": "on", "off": "off", "read": "read"}

_EMPTY_BODY_STATUSES = frozenset({204, 304})


@lru_cache(maxsize=64)
def _upstream_host(base_url: str) -> str:
    return URL(base_url).host_port_subcomponent or ""


# -- the flow ----------------------------------------------------------------------------


def new_flow(
    request: web.BaseRequest,
    route: Route,
    user_from: Sequence[EndUserSource] = ("header", "body"),
) -> Flow:
    """The per-request Flow: upstream headers prepared, X-Memtap-* values and owner read.

    The owner is the key's, or its end user's when X-Memtap-User names one and `user_from`
    (`memory.user_from`) reads the header; an end user named in the body is read with the
    body, by the memory addon (`proxy/addons/end_user.py`)."""
    client_headers = request.headers
    memtap = read_memtap_headers(client_headers)
    api_key = api_key_from(client_headers, route.query)
    key_owner = owner_id_for_key(api_key) if api_key else None
    owner, end_user = key_owner, None
    if key_owner is not None and memtap.user_tag is not None:
        chosen = chosen_end_user(user_from, memtap.user_tag, None)
        if chosen is not None:
            end_user, owner = chosen[0], end_user_owner(key_owner, chosen[1])
    return Flow(
        request_id=new_request_id(),
        method=request.method,
        route=route,
        request_headers=upstream_request_headers(
            client_headers, _upstream_host(route.base_url)
        ),
        client_ip=request.remote,
        owner_id=owner,
        key_owner_id=key_owner,
        header_user_tag=memtap.user_tag,
        end_user=end_user,
        session_id=memtap.session,
        memory_mode=_MEMORY_MODES.get(memtap.memory or "on", "on"),
        request_length=request.content_length,
    )


async def _stream_request_body(
    request: web.Request, flow: Flow, head: bytes = b""
) -> AsyncIterator[bytes]:
    if head:
        flow.bytes_in += len(head)
        yield head
    async for chunk in request.content.iter_any():
        flow.bytes_in += len(chunk)
        yield chunk


async def _read_chunked_body(request: web.Request, flow: Flow, limit: int) -> None:
    """A body of unknown size (chunked upload) is read up to `limit`: whole, it is the
    flow's `body` like any other; larger, what was read is its `body_head`, sent upstream
    ahead of the rest (memory never holds more than the limit)."""
    if not request.body_exists:
        return
    head = bytearray()
    while len(head) <= limit:
        chunk = await request.content.readany()
        if not chunk:
            flow.body = bytes(head)
            return
        head += chunk
    flow.body_head = bytes(head)


def _upstream_body(request: web.Request, flow: Flow) -> bytes | Payload | None:
    if flow.body is not None:
        # Read (and maybe rewritten) by the request hooks: the length is ours to state.
        flow.request_headers["Content-Length"] = str(len(flow.body))
        flow.bytes_in = len(flow.body)
        return flow.body
    if flow.body_head:
        return AsyncIterablePayload(_stream_request_body(request, flow, flow.body_head))
    if not request.body_exists:
        return None
    content = request.content
    length = request.content_length
    if length is not None and content.is_eof() and content.total_bytes == length:
        # The whole body arrived with the head (the usual small JSON request): hand it on
        # as bytes, the headers and body leave in one write, no body-writer generator.
        body = content.read_nowait()
        flow.bytes_in = len(body)
        return body
    # A ready Payload skips aiohttp's registry scan (a dozen ABC isinstance checks per request).
    return AsyncIterablePayload(_stream_request_body(request, flow))


# -- responses ---------------------------------------------------------------------------


_INVENTED: Final = (hdrs.CONTENT_TYPE, hdrs.SERVER)


class _RelayedResponse(web.StreamResponse):
    """The upstream's answer, with no header memtap's server would make up: aiohttp gives a
    response without them a `Content-Type: application/octet-stream` and its own `Server`.
    (`Date` it adds is the one a proxy must add when the upstream sent none, RFC 9110.)"""

    async def _prepare_headers(self) -> None:
        sent = {name for name in _INVENTED if name in self.headers}
        await super()._prepare_headers()
        for name in _INVENTED:
            if name not in sent:
                self.headers.popall(name, None)


class _WholeBodyResponse(_RelayedResponse):
    """For bodies with a Content-Length: the headers leave in the same write as the first
    body bytes (one syscall instead of two). Streams (SSE, chunked) keep aiohttp's default
    of sending headers at once, so clients see them before the first event."""

    _send_headers_immediately = False


def error_body(code: str, message: str, upstream: str | None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if upstream is not None:
        error["upstream"] = upstream
    return orjson.dumps({"error": error})


async def _send_error(
    request: web.Request, flow: Flow, status: int, body: bytes
) -> web.StreamResponse:
    flow.status = status
    # The memory headers hold for memtap's own answers too: the request was logged (and
    # memory consulted) under X-Memtap-Request-Id whatever the upstream did.
    response = web.Response(
        status=status,
        body=body,
        content_type="application/json",
        headers=flow.extra_response_headers,
    )
    await response.prepare(request)
    await response.write_eof()
    # request.done counts memtap's own answer as sent (a HEAD gets its headers only).
    flow.bytes_out = 0 if request.method == "HEAD" else len(body)
    return response


def _expected_length(
    method: str, status: int, response: web.StreamResponse
) -> int | None:
    if method == "HEAD" or status in _EMPTY_BODY_STATUSES or 100 <= status < 200:
        return 0
    return response.content_length


async def _relay_response(
    request: web.Request,
    runtime: Runtime,
    flow: Flow,
    upstream: aiohttp.ClientResponse,
    watchdog: IdleWatchdog,
) -> web.StreamResponse:
    watchdog.touch()  # headers arrived: from now on the limit is the body's idle time
    flow.status = upstream.status
    flow.response_headers = strip_hop_by_hop(upstream.headers)
    if upstream.headers.get("Content-Type", "").startswith("text/event-stream"):
        flow.stream = True
    await runtime.pipeline.response_headers(flow)
    response_class = (
        _RelayedResponse
        if flow.stream or upstream.content_length is None
        else _WholeBodyResponse
    )
    response = response_class(
        status=upstream.status, reason=upstream.reason, headers=flow.response_headers
    )
    for name, value in flow.extra_response_headers.items():
        response.headers[name] = value
    expected = _expected_length(flow.method, upstream.status, response)
    await response.prepare(request)
    gauge = runtime.metrics.inflight_streams
    gauge.inc()
    watchdog.touch()  # the body's idle limit starts now
    try:
        await relay_body(upstream, response, flow, runtime.pipeline, expected, watchdog)
    except UpstreamBodyError as exc:
        # Headers are gone already: the only honest signal left is a broken connection.
        flow.error, flow.error_kind = str(exc), exc.kind
        runtime.metrics.upstream_errors.inc(exc.kind)
        await runtime.pipeline.error(flow, exc)
        if request.transport is not None:
            request.transport.close()
    except ConnectionError as exc:  # the client went away while we wrote to it
        flow.error, flow.error_kind = f"client connection lost: {exc}", "client"
        await runtime.pipeline.error(flow, exc)
    finally:
        gauge.dec()
    return response


async def _forward(
    request: web.Request, runtime: Runtime, flow: Flow
) -> web.StreamResponse:
    await runtime.pipeline.request_headers(flow)
    if flow.read_body:
        # Asked for by a request_headers hook (it checked the declared size): the request
        # hooks get the whole body — none when a chunked one outgrew the limit (they keep
        # memory out of it); everything else is streamed upstream as it arrives.
        if flow.request_length is not None:
            flow.body = await request.content.read()
        else:
            await _read_chunked_body(
                request, flow, runtime.config.current.server.max_rewrite_body_bytes
            )
            # A chunked body held the whole cap of the body budget while it was read:
            # what it did not need goes back (all of it when it outgrew the cap).
            kept = len(flow.body) if flow.body is not None else 0
            runtime.body_budget.give_back(flow.held_body_bytes - kept)
            flow.held_body_bytes = kept
    await runtime.pipeline.request(flow)
    session = runtime.upstream_session
    if session is None:
        raise RuntimeError("upstream session is not open (server not started)")
    body = _upstream_body(request, flow)
    task = asyncio.current_task()
    assert task is not None
    # One timer for the request: bounds the wait for the response headers, then (touched
    # by every body chunk) the body's idle time.
    # client edges: the upstream's idle time runs only while the client reads.
    watchdog = upstream_watchdog(request, flow.route.timeout_s, task.cancel)
    try:
        try:
            upstream = await open_response(
                session, flow.route, flow.method, flow.request_headers, body, watchdog
            )
        except UpstreamFailure as failure:
            watchdog.cancel()  # answered by memtap from here on
            flow.error, flow.error_kind = failure.message, failure.kind
            runtime.metrics.upstream_errors.inc(failure.kind)
            await runtime.pipeline.error(flow, failure)
            payload = error_body(
                failure.code, failure.message, flow.route.upstream_name
            )
            return await _send_error(request, flow, failure.status, payload)
        try:
            response = await _relay_response(request, runtime, flow, upstream, watchdog)
        except BaseException:
            upstream.close()  # not reusable: drop the upstream connection (cancels it)
            raise
    finally:
        watchdog.cancel()
    if flow.completed:
        upstream.release()
    else:
        upstream.close()
    return response


async def handle(request: web.Request) -> web.StreamResponse:
    """The aiohttp handler for every proxied request."""
    runtime = request.app[RUNTIME]
    route = resolve_route(request, runtime.config.current)
    if route is None:
        body = error_body(
            "no_route", f"no upstream is configured for {request.path!r}", None
        )
        return web.Response(status=404, body=body, content_type="application/json")
    flow = new_flow(request, route, runtime.config.current.memory.user_from)
    metrics = runtime.metrics
    metrics.inflight.inc()
    try:
        if route.mode == "forward":  # access: proxy auth, destination policy, pinning
            vetted = await vet_forward_request(
                request.app[FORWARD_ACCESS],
                request,
                route,
                runtime.config.current.intercept,
            )
            if isinstance(vetted, Denied):
                return await send_denied(request, flow, vetted)
            flow.route = vetted
        return await _forward(request, runtime, flow)
    except asyncio.CancelledError as exc:
        # The client went away (or shutdown's grace ran out): the upstream request was
        # closed on the way out; tell the addons.
        flow.error = flow.error or closed_reason(request) or "client disconnected"
        answered = closed_with(
            request
        )  # memtap answered before closing (400: bad body)
        flow.error_kind = flow.error_kind or (
            "bad_request" if answered == 400 else "client"
        )
        if flow.status is None:
            flow.status = answered or 499
        await runtime.pipeline.error(flow, exc)
        raise
    except (
        Exception
    ) as exc:  # a memtap bug: aiohttp answers 500; the access log says why
        flow.error = flow.error or repr(exc)
        flow.error_kind = flow.error_kind or "internal"
        if flow.status is None:
            flow.status = 500
        await runtime.pipeline.error(flow, exc)
        raise
    finally:
        metrics.inflight.dec()
        runtime.body_budget.give_back(flow.held_body_bytes)
        flow.held_body_bytes = 0
        await runtime.pipeline.finished(flow)
