"""Reverse mode: clients use memtap as their base URL; the longest matching upstream `prefix`
picks the upstream and the rest of the path is forwarded.

`handle` is the one aiohttp handler for every proxied request (the forward mode reuses it by
extending `resolve_route`): route → Flow → `request` hooks → upstream → tee → `finished`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import aiohttp
import orjson
from aiohttp import web
from aiohttp.payload import AsyncIterablePayload, Payload
from yarl import URL

from memtap.config.schema import Config, UpstreamConfig
from memtap.proxy.appkeys import RUNTIME, Runtime
from memtap.proxy.client_edges import closed_reason, upstream_watchdog
from memtap.proxy.flow import Flow, MemoryMode, new_request_id
from memtap.proxy.headers import (
    api_key_from,
    owner_id_for_key,
    read_memtap_headers,
    strip_hop_by_hop,
    upstream_request_headers,
)
from memtap.proxy.modes.access.forward_gate import send_denied, vet_forward_request
from memtap.proxy.modes.access.gate import FORWARD_ACCESS, Denied
from memtap.proxy.modes.forward import resolve_forward_route
from memtap.proxy.routing import Route
from memtap.proxy.tee import UpstreamBodyError, relay_body
from memtap.proxy.upstream import (
    IdleWatchdog,
    UpstreamFailure,
    open_response,
    ssl_context_for,
)

if TYPE_CHECKING:
    from memtap.proxy.codecs.base import Codec

log = logging.getLogger("memtap.proxy")

DetectCodec = Callable[[str, str, str], "Codec | None"]


def _load_codec_detection() -> DetectCodec | None:
    """The codec registry's `detect`, or None: a build without memory (or a broken codec
    module) must still proxy, every request then streams through untouched."""
    try:
        from memtap.proxy.codecs.registry import detect
    except Exception as exc:  # noqa: BLE001
        log.error("codecs.unavailable", extra={"fields": {"error": repr(exc)}})
        return None
    return detect


_detect_codec = _load_codec_detection()

_MEMORY_MODES: dict[str, MemoryMode] = {"on": "on", "off": "off", "read": "read"}

_EMPTY_BODY_STATUSES = frozenset({204, 304})


# -- routing -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _PrefixEntry:
    prefix: str
    """Without trailing slash; "" matches every path."""
    upstream: UpstreamConfig
    base_url: str


@lru_cache(maxsize=16)
def _prefix_table(upstreams: tuple[UpstreamConfig, ...]) -> tuple[_PrefixEntry, ...]:
    entries = [
        _PrefixEntry(u.prefix.rstrip("/"), u, u.url.rstrip("/")) for u in upstreams
    ]
    # Longest prefix first; ties keep the configured order (sort is stable).
    return tuple(sorted(entries, key=lambda e: len(e.prefix), reverse=True))


def resolve_route(request: web.BaseRequest, config: Config) -> Route | None:
    """The upstream for a request line, or None when no upstream's prefix matches.

    The path and query are taken raw (as the client encoded them) so that they reach the
    upstream byte for byte. Request targets that are not origin-form (absolute URIs, `*`)
    are not reverse-mode requests and resolve to None here.
    """
    # Absolute URIs and intercepted tunnels first (proxy/modes/forward.py).
    forward = resolve_forward_route(request, config)
    if forward is not None:
        return forward
    path, _, query = request.raw_path.partition("?")
    if not path.startswith("/"):
        return None
    for entry in _prefix_table(config.upstreams):
        prefix = entry.prefix
        if prefix and path != prefix and not path.startswith(prefix + "/"):
            continue
        upstream = entry.upstream
        return Route(
            upstream_name=upstream.name,
            base_url=entry.base_url,
            path=path[len(prefix) :] or "/",
            query=query,
            format=upstream.format,
            timeout_s=upstream.timeout_s,
            connect_timeout_s=upstream.connect_timeout_s,
            ssl_context=ssl_context_for(upstream.ca_file) if upstream.ca_file else None,
            mode="reverse",
        )
    return None


@lru_cache(maxsize=64)
def _upstream_host(base_url: str) -> str:
    return URL(base_url).host_port_subcomponent or ""


# -- the flow ----------------------------------------------------------------------------


def new_flow(request: web.BaseRequest, route: Route) -> Flow:
    """The per-request Flow: upstream headers prepared, X-Memtap-* values and owner read."""
    client_headers = request.headers
    memtap = read_memtap_headers(client_headers)
    api_key = api_key_from(client_headers, route.query)
    return Flow(
        request_id=new_request_id(),
        method=request.method,
        route=route,
        request_headers=upstream_request_headers(
            client_headers, _upstream_host(route.base_url)
        ),
        client_ip=request.remote,
        owner_id=owner_id_for_key(api_key) if api_key else None,
        session_id=memtap.session,
        memory_mode=_MEMORY_MODES.get(memtap.memory or "on", "on"),
    )


def _codec_for(flow: Flow) -> Codec | None:
    if _detect_codec is None:
        return None
    try:
        return _detect_codec(flow.route.format, flow.method, flow.route.path)
    except Exception as exc:  # noqa: BLE001 - detection failing means "not a memory endpoint"
        log.error(
            "codecs.detect_failed",
            extra={"fields": {"request_id": flow.request_id, "error": repr(exc)}},
        )
        return None


async def _read_body_for_memory(
    request: web.Request, runtime: Runtime, flow: Flow, config: Config
) -> None:
    """Buffer the body only when memory may use it: a memory endpoint, an API key, memory
    not switched off, a running engine and a declared size within max_rewrite_body_bytes.
    Everything else is streamed upstream as it arrives."""
    if runtime.engine is None or not config.memory.enabled:
        return
    if flow.owner_id is None or flow.memory_mode == "off":
        return
    length = request.content_length
    if length is None or length > config.server.max_rewrite_body_bytes:
        return
    codec = _codec_for(flow)
    if codec is None:
        return
    flow.codec = codec
    flow.body = await request.content.read()


async def _stream_request_body(
    request: web.Request, flow: Flow
) -> AsyncIterator[bytes]:
    async for chunk in request.content.iter_any():
        flow.bytes_in += len(chunk)
        yield chunk


def _upstream_body(request: web.Request, flow: Flow) -> bytes | Payload | None:
    if flow.body is not None:
        # Read (and maybe rewritten) by the request hooks: the length is ours to state.
        flow.request_headers["Content-Length"] = str(len(flow.body))
        flow.bytes_in = len(flow.body)
        return flow.body
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


class _WholeBodyResponse(web.StreamResponse):
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
    response = web.Response(status=status, body=body, content_type="application/json")
    await response.prepare(request)
    await response.write_eof()
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
        web.StreamResponse
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
    request: web.Request, runtime: Runtime, flow: Flow, config: Config
) -> web.StreamResponse:
    await _read_body_for_memory(request, runtime, flow, config)
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
    config = runtime.config.current
    route = resolve_route(request, config)
    if route is None:
        body = error_body(
            "no_route", f"no upstream is configured for {request.path!r}", None
        )
        return web.Response(status=404, body=body, content_type="application/json")
    flow = new_flow(request, route)
    metrics = runtime.metrics
    metrics.inflight.inc()
    try:
        if route.mode == "forward":  # access: proxy auth, destination policy, pinning
            vetted = await vet_forward_request(
                request.app[FORWARD_ACCESS], request, route, config.intercept
            )
            if isinstance(vetted, Denied):
                return await send_denied(request, flow, vetted)
            flow.route = vetted
        return await _forward(request, runtime, flow, config)
    except asyncio.CancelledError as exc:
        # The client went away (or shutdown's grace ran out): the upstream request was
        # closed on the way out; tell the addons.
        flow.error = flow.error or closed_reason(request) or "client disconnected"
        flow.error_kind = flow.error_kind or "client"
        if flow.status is None:
            flow.status = 499
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
        await runtime.pipeline.finished(flow)
