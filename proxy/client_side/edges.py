"""The client side of a listener: malformed requests, slow and silent clients, too many
connections. aiohttp has no limit on how long a request head or body may take, keeps idle
connections for an hour, and answers a malformed request with a traceback at level error;
this module gives each its own setting (`server.client.*`), answer and `request.done` line.

* `EdgeRequestHandler` is aiohttp's `RequestHandler` with three additions: timestamps of
  what the client did (set in `data_received`, plain attribute stores), a JSON 400 for a
  request aiohttp could not parse (`handle_error`) logged as one `request.done` with
  `error_kind: bad_request` at warning and no traceback, and `finish_response` marking the
  connection idle again.
* `ClientEdges.sweep` runs about once a second over the listener's connections (no timer per
  request, nothing on the per-chunk path) and ends those past a limit:
  a head still arriving after `head_timeout_s` → 408 and closed; a request body pausing
  longer than `body_idle_timeout_s` → closed (the request's `request.done` says why, see
  `closed_reason`); an idle keep-alive connection after `keepalive_timeout_s` → closed;
  a client that leaves memtap's writes paused (it stopped reading) past `write_timeout_s`
  → dropped, its request logged with error_kind client.
* `ClientAwareWatchdog` keeps a slow reader from looking like a silent upstream: the
  upstream's idle time (`timeout_s`) only runs while memtap can send to the client.
* `ClientEdges.admission` wraps the listener's protocol factory: a connection over
  `max_connections` or `max_connections_per_address` gets 503 and is closed before any
  protocol sees it (`proxy/client_side/limits.py` counts them).

Each limit reached counts in `memtap_client_errors_total{kind}`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, cast

import orjson
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.http_parser import RawRequestMessage
from aiohttp.web_protocol import RequestHandler

from memtap.config.schema import ClientConfig
from memtap.engine.metrics import Metrics
from memtap.proxy.addons.access_log import log_client_failure
from memtap.proxy.client_side.limits import Caps, ConnectionLimiter
from memtap.proxy.modes.raw_answer import json_answer
from memtap.proxy.upstream import IdleWatchdog

log = logging.getLogger("memtap.client")

LINGER_S = 0.5
"""How long a half-closed connection reads and drops what the client still sends."""
_MAX_SWEEP_S = 1.0
_MIN_SWEEP_S = 0.05


def closed_reason(request: web.BaseRequest) -> str | None:
    """Why memtap closed this request's connection (a client limit), else None."""
    protocol = request.protocol
    return protocol.closed_reason if isinstance(protocol, EdgeRequestHandler) else None


def closed_with(request: web.BaseRequest) -> int | None:
    """The status memtap answered when it closed this request's connection (400 for a
    malformed body), else None."""
    protocol = request.protocol
    return protocol.closed_status if isinstance(protocol, EdgeRequestHandler) else None


class EdgeRequestHandler(RequestHandler):
    """aiohttp's HTTP/1.1 protocol, watched by `ClientEdges` (see the module doc).

    Reads two of RequestHandler's own attributes, `_request_count` (heads parsed on this
    connection) and `_current_request` (the request being handled): aiohttp has no public
    hook for either. tests/proxy/test_client_edges.py fails if they change meaning.
    """

    __slots__ = (
        "clock",
        "closed_reason",
        "closed_status",
        "edges",
        "head_since",
        "idle_since",
        "in_request",
        "lingering",
        "paused_since",
        "resumed_at",
        "rx_at",
    )

    def __init__(self, manager: web.Server, edges: ClientEdges, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self.edges = edges
        self.clock = kwargs["loop"].time
        now = self.clock()
        self.rx_at = now
        """When the client last sent bytes."""
        self.head_since: float | None = None
        """When the head being received began (None: not receiving a head)."""
        self.in_request = False
        """A head was parsed and its response is not finished yet."""
        self.idle_since = now
        self.closed_reason: str | None = None
        """Set when a client limit closes the connection: the request's `request.done` says it."""
        self.closed_status: int | None = None
        self.lingering = False
        """memtap answered and half-closed: what the client still sends is read and dropped
        until the connection closes (`end`)."""
        self.paused_since: float | None = None
        """Since when the client has not been reading (the transport paused our writes)."""
        self.resumed_at = now
        """When memtap could last send to the client again after a pause."""

    # Flow control: the transport pauses writing when the client stops reading. Two stores
    # per pause, nothing per chunk; `ClientAwareWatchdog` and the sweep read them.
    def pause_writing(self) -> None:
        super().pause_writing()
        self.paused_since = self.clock()

    def resume_writing(self) -> None:
        self.paused_since = None
        self.resumed_at = self.clock()
        super().resume_writing()

    def data_received(self, data: bytes) -> None:
        if self.lingering:
            return  # answered already: the rest of a trickling head is not parsed
        now = self.rx_at = self.clock()
        if not self.in_request and self.head_since is None:
            self.head_since = now
        parsed, handling = self._request_count, self.in_request
        super().data_received(data)
        if self._request_count != parsed:  # a head (or a parse error) came out
            self.head_since = None
            self.in_request = True
            if handling and self.body_pending() and self._malformed_queued():
                self._malformed_body()

    def _malformed_queued(self) -> bool:
        # aiohttp queues a parse error in the body being read as a message of its own, for
        # after the request that is waiting for that body: which would wait forever
        return any(
            not isinstance(message, RawRequestMessage) for message, _ in self._messages
        )

    def _malformed_body(self) -> None:
        message = "malformed request body"
        self.closed_reason, self.closed_status = message, 400
        self.end(json_answer(400, "Bad Request", "bad_request", message))
        self.edges.metrics.client_errors.inc("bad_request")

    async def finish_response(
        self,
        request: web.BaseRequest,
        resp: web.StreamResponse,
        start_time: float | None,
    ) -> tuple[web.StreamResponse, bool]:
        try:
            return await super().finish_response(request, resp, start_time)
        finally:
            self.in_request = False
            self.idle_since = self.clock()

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if status != 400 or not isinstance(exc, HttpProcessingError):
            return super().handle_error(request, status, exc, message)
        text = (exc.message or "malformed request").strip().splitlines()[0][:200]
        self.edges.report(400, f"bad request: {text}", "bad_request", "bad_request")
        body = orjson.dumps({"error": {"code": "bad_request", "message": text}})
        response = web.Response(status=400, body=body, content_type="application/json")
        response.force_close()
        return response

    def body_pending(self) -> bool:
        """Whether the request being handled is still receiving its body."""
        request = self._current_request
        return request is not None and not request.content.is_eof()

    def end(self, response: bytes | None = None, *, abort: bool = False) -> None:
        """Close the connection (after `response`); `abort` drops what is still buffered
        (a client that does not read would otherwise keep a closing connection forever)."""
        if self.lingering and not abort:
            return  # answered once already
        transport = self.transport
        if transport is not None and response is not None:
            transport.write(response)
            if not abort and transport.can_write_eof():
                # A lingering close, as web servers do: half-close and read on for a
                # moment, so a client still sending (a trickling head) reads the answer
                # instead of a reset from its own kernel that would discard it.
                self.lingering = True
                transport.write_eof()
                asyncio.get_running_loop().call_later(LINGER_S, self.force_close)
                return
        if abort and transport is not None:
            transport.abort()
        self.force_close()


class ClientAwareWatchdog(IdleWatchdog):
    """The upstream's idle timer (`route.timeout_s`), counting only while memtap can send
    to the client: while the client's transport has our writes paused, the upstream is
    waiting on the client, not silent; after a pause the idle time starts anew. A client
    that stays paused past `server.client.write_timeout_s` is the sweep's to drop."""

    __slots__ = ("_client",)

    def __init__(
        self,
        timeout_s: float,
        on_idle: Callable[[], object],
        client: EdgeRequestHandler,
    ) -> None:
        self._client = client
        super().__init__(timeout_s, on_idle)

    def _check(self) -> None:
        client = self._client
        if client.paused_since is not None:
            self._handle = self._loop.call_at(
                self._loop.time() + self._timeout_s, self._check
            )
            return
        self._last = max(self._last, client.resumed_at)
        super()._check()


def upstream_watchdog(
    request: web.BaseRequest, timeout_s: float, on_idle: Callable[[], object]
) -> IdleWatchdog:
    """The idle timer for one proxied request: client-aware on memtap's own protocol."""
    protocol = request.protocol
    if isinstance(protocol, EdgeRequestHandler):
        return ClientAwareWatchdog(timeout_s, on_idle, protocol)
    return IdleWatchdog(timeout_s, on_idle)


class _Admission(asyncio.Protocol):
    """First protocol of every accepted connection: counted in, or answered 503."""

    __slots__ = ("edges", "inner")

    def __init__(
        self, edges: ClientEdges, inner: Callable[[], asyncio.Protocol]
    ) -> None:
        self.edges = edges
        self.inner = inner

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        refused = self.edges.limiter.admit(transport, self.edges.caps())
        if refused is not None:
            self.edges.refuse(cast(asyncio.Transport, transport), refused)
            return
        protocol = self.inner()
        transport.set_protocol(protocol)
        protocol.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        pass  # a refused connection: closing already


class ClientEdges:
    """The client-side limits of one listener. `start()` after binding, `close()` on stop."""

    def __init__(
        self,
        server: web.Server,
        settings: Callable[[], ClientConfig],
        metrics: Metrics,
    ) -> None:
        self.server = server
        self.settings = settings
        self.metrics = metrics
        self.limiter = ConnectionLimiter()
        self._timer: asyncio.TimerHandle | None = None
        # The protocol settings the runner was built with, as `web.Server.__call__` passes
        # them to aiohttp's RequestHandler (max line and field size, access log off).
        self._handler_kwargs: dict[str, Any] = dict(server._kwargs)

    # -- protocol factories -------------------------------------------------------------

    def protocol(self) -> EdgeRequestHandler:
        """A new HTTP protocol for one connection (the listener's `http_factory`)."""
        return EdgeRequestHandler(
            self.server, self, loop=asyncio.get_running_loop(), **self._handler_kwargs
        )

    def admission(
        self, inner: Callable[[], asyncio.Protocol]
    ) -> Callable[[], asyncio.Protocol]:
        """The listening socket's factory: connection caps in front of `inner`."""
        return lambda: _Admission(self, inner)

    def caps(self) -> Caps:
        settings = self.settings()
        return Caps(settings.max_connections, settings.max_connections_per_address)

    # -- reporting ------------------------------------------------------------------------

    def report(
        self, status: int | None, error: str, error_kind: str, kind: str
    ) -> None:
        self.metrics.client_errors.inc(kind)
        log_client_failure(
            self.metrics,
            status=status,
            error=error,
            error_kind=error_kind,
            duration_ms=0.0,
        )

    def refuse(self, transport: asyncio.Transport, cap: str) -> None:
        settings = self.settings()
        limit = (
            f"max_connections_per_address ({settings.max_connections_per_address})"
            if cap == "per_address"
            else f"max_connections ({settings.max_connections})"
        )
        message = f"too many connections: server.client.{limit} reached"
        transport.write(
            json_answer(503, "Service Unavailable", "too_many_connections", message)
        )
        transport.close()
        self.report(503, message, "client", "too_many_connections")

    # -- the sweep ------------------------------------------------------------------------

    def start(self) -> None:
        self._schedule()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _schedule(self) -> None:
        settings = self.settings()
        shortest = min(
            settings.head_timeout_s,
            settings.body_idle_timeout_s,
            settings.keepalive_timeout_s,
            settings.write_timeout_s,
        )
        interval = max(_MIN_SWEEP_S, min(_MAX_SWEEP_S, shortest / 4))
        self._timer = asyncio.get_running_loop().call_later(interval, self._tick)

    def _tick(self) -> None:
        try:
            self.sweep()
        except Exception as exc:  # noqa: BLE001 - a sweep bug must not stop the next sweep
            log.error("client.sweep_failed", extra={"fields": {"error": repr(exc)}})
        self._schedule()

    def sweep(self) -> None:
        """End every connection past a client limit (see the module doc)."""
        self.limiter.purge()
        settings = self.settings()
        for handler in self.server.connections:
            if (
                not isinstance(handler, EdgeRequestHandler)
                or handler.transport is None
                or handler.lingering  # answered and closing already
            ):
                continue
            now = handler.clock()
            paused = handler.paused_since
            if paused is not None and now - paused > settings.write_timeout_s:
                self._write_timeout(handler, settings.write_timeout_s)
            elif handler.head_since is not None:
                if now - handler.head_since > settings.head_timeout_s:
                    self._head_timeout(handler, settings.head_timeout_s)
            elif handler.in_request:
                silent = now - handler.rx_at > settings.body_idle_timeout_s
                if silent and handler.body_pending():
                    self._body_timeout(handler, settings.body_idle_timeout_s)
            elif now - handler.idle_since > settings.keepalive_timeout_s:
                self.metrics.client_errors.inc("keepalive_timeout")
                handler.end()

    def _head_timeout(self, handler: EdgeRequestHandler, limit: float) -> None:
        message = f"request head not complete within {limit:g}s (server.client.head_timeout_s)"
        handler.end(json_answer(408, "Request Timeout", "head_timeout", message))
        self.report(408, message, "client", "head_timeout")

    def _write_timeout(self, handler: EdgeRequestHandler, limit: float) -> None:
        handler.closed_reason = (
            f"client did not read for {limit:g}s (server.client.write_timeout_s)"
        )
        handler.end(abort=True)
        self.metrics.client_errors.inc("write_timeout")

    def _body_timeout(self, handler: EdgeRequestHandler, limit: float) -> None:
        message = f"request body paused longer than {limit:g}s (server.client.body_idle_timeout_s)"
        handler.closed_reason = message  # the request's own request.done says it
        handler.end()
        self.metrics.client_errors.inc("body_timeout")
