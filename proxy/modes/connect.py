"""The small protocol in front of aiohttp's HTTP server that gives memtap a forward-proxy mode.

aiohttp never routes `CONNECT` to handlers, so every accepted connection starts with
`FirstLineSniffer`, which looks at the first bytes only:

* anything but `CONNECT ` → the connection is handed to aiohttp's protocol with the bytes
  already read, and the sniffer is out of the way (`transport.set_protocol`; no copying after
  that: this is the normal reverse-mode path and must stay as cheap as possible);
* `CONNECT host:port` to a host in `intercept.hosts` → `200`, TLS terminated with a leaf
  certificate for the host (`loop.start_tls`), and the decrypted transport handed to the same
  aiohttp protocol, wrapped in `InterceptedTransport` so handlers can ask where it goes:
  `request.get_extra_info(INTERCEPT_EXTRA)` → `InterceptTarget`;
* `CONNECT` to any other host → blind TCP relay (`intercept.others: tunnel`) or `403` (`deny`).

Each CONNECT that is not intercepted (tunnel, deny, error) is reported once through
`on_done` as a `ConnectDone` (the access log writes it as `request.done`); an intercepted
one is not: each request inside it logs its own line.
"""

from __future__ import annotations

import asyncio
import logging
import re
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import orjson

from memtap.config.schema import InterceptConfig
from memtap.proxy.modes.access.gate import (
    AUTH_REQUIRED,
    Denied,
    ForwardAccess,
    denied_response,
    proxy_authorization_in_head,
    refused_destination,
)
from memtap.proxy.modes.certs import LeafCertStore
from memtap.proxy.modes.loopback_guard import resolve
from memtap.proxy.modes.relay import InterceptedTransport, Tunnel, TunnelSide
from memtap.proxy.modes.targets import (
    INTERCEPT_EXTRA,
    BadConnect,
    InterceptTarget,
    host_matches,
    parse_connect_head,
)

__all__ = [
    "INTERCEPT_EXTRA",
    "ConnectDone",
    "FirstLineSniffer",
    "ForwardProxy",
    "InterceptTarget",
    "ProtocolFactory",
]

log = logging.getLogger("memtap.connect")

_CONNECT = b"CONNECT "
_MAX_HEAD = 16 * 1024
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_ESTABLISHED = b"HTTP/1.1 200 Connection Established\r\n\r\n"


def _json_response(status: int, reason: str, code: str, message: str) -> bytes:
    body = orjson.dumps({"error": {"code": code, "message": message}})
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


ProtocolFactory = Callable[[], asyncio.Protocol]
"""aiohttp's `web.Server` (its RequestHandler is a plain `asyncio.Protocol`)."""


@dataclass(frozen=True, slots=True)
class ConnectDone:
    """How one CONNECT that memtap did not intercept ended."""

    target: str
    """host:port as the client asked."""
    outcome: str
    """tunnel | denied | bad_request | unreachable | tls_failed | error"""
    status: int | None
    """What memtap answered (200 once a tunnel was established); None: no answer."""
    duration_ms: float
    established_ms: float | None
    """When the client got `200 Connection Established` (a blind tunnel's time to ready)."""
    bytes_in: int = 0
    """Client → upstream bytes relayed."""
    bytes_out: int = 0
    """Upstream → client bytes relayed."""
    error: str | None = None
    error_kind: str | None = None
    """upstream | client | proxy, as for `request.done` lines of other requests."""


async def _connect_first(
    loop: asyncio.AbstractEventLoop,
    factory: Callable[[], asyncio.Protocol],
    addresses: list[str],
    port: int,
) -> None:
    """Connect to the first of `addresses` that answers (the last error if none does)."""
    failure: OSError = OSError(f"no address to connect to on port {port}")
    for address in addresses:
        try:
            await loop.create_connection(factory, address, port)
            return
        except OSError as exc:
            failure = exc
    raise failure


def _target_text(head: bytes) -> str:
    """The target as the client wrote it on a CONNECT line memtap could not use (for logs)."""
    first = head.split(b"\n", 1)[0][len(_CONNECT) :]
    return first.split(b" ", 1)[0][:200].decode("latin-1").strip()


class _Pending:
    """The clock and the report of one CONNECT on its way to a `ConnectDone`."""

    __slots__ = ("established", "on_done", "started", "target")

    def __init__(
        self, target: str, on_done: Callable[[ConnectDone], None] | None
    ) -> None:
        self.target = target
        self.on_done = on_done
        self.started = time.perf_counter()
        self.established: float | None = None

    def mark_established(self) -> None:
        self.established = (time.perf_counter() - self.started) * 1000

    def done(
        self,
        outcome: str,
        status: int | None,
        *,
        error: str | None = None,
        error_kind: str | None = None,
        bytes_in: int = 0,
        bytes_out: int = 0,
    ) -> None:
        on_done, self.on_done = self.on_done, None  # at most once
        if on_done is None:
            return
        on_done(
            ConnectDone(
                target=self.target,
                outcome=outcome,
                status=status,
                duration_ms=(time.perf_counter() - self.started) * 1000,
                established_ms=self.established,
                bytes_in=bytes_in,
                bytes_out=bytes_out,
                error=error,
                error_kind=error_kind,
            )
        )


class ForwardProxy:
    """Protocol factory for the listening socket: one `FirstLineSniffer` per connection.

    `http_factory` is aiohttp's protocol factory (`runner.server`, a `web.Server`);
    `intercept_config` returns the live `intercept` section (read per CONNECT, so reloads apply).
    Call `close()` on shutdown: tunnels and handshakes in flight are not aiohttp's to close.
    """

    def __init__(
        self,
        http_factory: ProtocolFactory,
        intercept_config: Callable[[], InterceptConfig],
        certs: LeafCertStore,
        *,
        handshake_timeout_s: float = 10.0,
        connect_timeout_s: float = 10.0,
        first_bytes_timeout_s: float = 75.0,
        before_intercept: Callable[[], bool] | None = None,
        prepare_intercept: Callable[[], None] | None = None,
        on_done: Callable[[ConnectDone], None] | None = None,
        access: ForwardAccess | None = None,
    ) -> None:
        self.http_factory = http_factory
        self.access = access if access is not None else ForwardAccess()
        """Proxy auth and destination policy (proxy/modes/access/)."""
        self.intercept_config = intercept_config
        self.certs = certs
        self.handshake_timeout_s = handshake_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.first_bytes_timeout_s = first_bytes_timeout_s
        """A connection that has not shown its first request line by then is closed (aiohttp's
        default keep-alive timeout is 75 s too)."""
        self.needs_prepare = before_intercept
        self.prepare_intercept = prepare_intercept
        """Blocking set-up an intercepted tunnel needs (the onward SSL context reads CA files):
        run in a thread, only when `needs_prepare()` says so (cheap check on the loop)."""
        self.on_done = on_done
        self._tasks: set[asyncio.Task[None]] = set()
        self._tunnels: dict[Tunnel, tuple[_Pending, TunnelSide, TunnelSide]] = {}
        """Established blind tunnels: their report, client side and upstream side."""
        self.undecided: set[FirstLineSniffer] = set()
        """Connections that have not sent their first line yet: nobody else would close them."""

    def __call__(self) -> asyncio.Protocol:
        return FirstLineSniffer(self)

    async def close(self) -> None:
        for sniffer in list(self.undecided):
            if sniffer.transport is not None:
                sniffer.transport.close()
        for task in list(self._tasks):
            task.cancel()
        for tunnel in list(self._tunnels):
            tunnel.close()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def start_connect(
        self, sniffer: FirstLineSniffer, head: bytes, rest: bytes
    ) -> None:
        task = asyncio.get_running_loop().create_task(
            self._handle_connect(sniffer, head, rest)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        sniffer.task = task

    async def _handle_connect(
        self, sniffer: FirstLineSniffer, head: bytes, rest: bytes
    ) -> None:
        transport = sniffer.transport
        assert transport is not None
        try:
            target = parse_connect_head(head)
        except BadConnect as exc:
            log.info(
                "connect.bad_request",
                extra={
                    "fields": {"error": str(exc), "line": head[:120].decode("latin-1")}
                },
            )
            transport.write(_json_response(400, "Bad Request", "bad_connect", str(exc)))
            transport.close()
            _Pending(_target_text(head), self.on_done).done(
                "bad_request", 400, error=str(exc), error_kind="client"
            )
            return
        config = self.intercept_config()
        pending = _Pending(target.hostport, self.on_done)
        try:
            # access: proxy authentication (407) before anything else is decided.
            if not await self.access.authorized(
                config, proxy_authorization_in_head(head)
            ):
                return self._deny(transport, target, pending, AUTH_REQUIRED)
            if host_matches(target, config.hosts):
                await self._intercept(sniffer, transport, target, rest, pending)
            elif config.others == "tunnel":
                await self._tunnel(sniffer, transport, target, rest, pending)
            else:
                log.info(
                    "connect.denied", extra={"fields": {"target": target.authority}}
                )
                message = f"CONNECT to {target.authority} is not allowed (intercept.others: deny)"
                transport.write(
                    _json_response(403, "Forbidden", "connect_denied", message)
                )
                transport.close()
                pending.done("denied", 403, error="connect_denied", error_kind="client")
        except asyncio.CancelledError:
            transport.abort()
            pending.done("error", None, error="cancelled", error_kind="client")
            raise
        except Exception as exc:
            log.error(
                "connect.error",
                extra={"fields": {"target": target.authority, "error": repr(exc)}},
                exc_info=exc,
            )
            transport.abort()
            pending.done("error", None, error=repr(exc)[:200], error_kind="proxy")

    async def _intercept(
        self,
        sniffer: FirstLineSniffer,
        transport: asyncio.Transport,
        target: InterceptTarget,
        rest: bytes,
        pending: _Pending,
    ) -> None:
        try:
            await self._intercept_tls(sniffer, transport, target, rest, pending)
        finally:
            # Every way out before the hand-over that did not report already: the client
            # went away (or the connection was closed) before requests could flow.
            pending.done(
                "tls_failed",
                200 if pending.established is not None else None,
                error="connection closed before the hand-over",
                error_kind="client",
            )

    async def _intercept_tls(
        self,
        sniffer: FirstLineSniffer,
        transport: asyncio.Transport,
        target: InterceptTarget,
        rest: bytes,
        pending: _Pending,
    ) -> None:
        if rest:
            # The client spoke before our 200: those bytes cannot be fed into start_tls.
            transport.write(
                _json_response(
                    400,
                    "Bad Request",
                    "bad_connect",
                    "data sent before 200 Connection Established",
                )
            )
            transport.close()
            pending.done(
                "bad_request", 400, error="data before 200", error_kind="client"
            )
            return
        server_ctx = await self.certs.context_for(target.host)
        if self.prepare_intercept is not None and (
            self.needs_prepare is None or self.needs_prepare()
        ):
            await asyncio.to_thread(self.prepare_intercept)
        if sniffer.closed:
            return
        if sniffer.buffer:  # same as `rest`: bytes that raced pause_reading
            transport.close()
            pending.done(
                "bad_request", None, error="data before 200", error_kind="client"
            )
            return
        transport.write(_ESTABLISHED)
        pending.mark_established()
        sniffer.state = _TLS
        loop = asyncio.get_running_loop()
        try:
            tls_transport = await loop.start_tls(
                transport,
                sniffer,
                server_ctx,
                server_side=True,
                ssl_handshake_timeout=self.handshake_timeout_s,
            )
        except (
            TimeoutError,
            OSError,
            ssl.SSLError,
            ConnectionError,
            RuntimeError,
        ) as exc:
            # Typical: the client does not trust memtap's CA, or dropped mid-handshake.
            log.info(
                "connect.tls_failed",
                extra={"fields": {"target": target.authority, "error": repr(exc)}},
            )
            transport.abort()
            pending.done("tls_failed", 200, error=repr(exc)[:200], error_kind="client")
            return
        if tls_transport is None or sniffer.closed:
            return
        log.debug("connect.intercepted", extra={"fields": {"target": target.authority}})
        pending.on_done = None  # from here on, each request inside logs its own line
        sniffer.hand_over(tls_transport, target)

    async def _tunnel(
        self,
        sniffer: FirstLineSniffer,
        transport: asyncio.Transport,
        target: InterceptTarget,
        rest: bytes,
        pending: _Pending,
    ) -> None:
        loop = asyncio.get_running_loop()
        tunnel = Tunnel()
        upstream_side = TunnelSide(tunnel, self._tunnel_lost)
        try:
            async with asyncio.timeout(self.connect_timeout_s):
                addresses = await resolve(target.host, target.port)
                # access: the destination policy, on the addresses connected to below.
                refusal = self._destination_refusal(transport, target, addresses)
                if refusal is not None:
                    return self._deny(transport, target, pending, refusal)
                # The addresses just checked, not the name again (it could resolve anew).
                await _connect_first(
                    loop, lambda: upstream_side, addresses, target.port
                )
        except (TimeoutError, OSError) as exc:
            log.info(
                "connect.upstream_unreachable",
                extra={"fields": {"target": target.authority, "error": repr(exc)}},
            )
            message = f"cannot connect to {target.authority}: {exc.__class__.__name__}"
            transport.write(
                _json_response(502, "Bad Gateway", "upstream_unreachable", message)
            )
            transport.close()
            pending.done(
                "unreachable", 502, error=repr(exc)[:200], error_kind="upstream"
            )
            return
        client_side = TunnelSide(tunnel, self._tunnel_lost)
        transport.set_protocol(client_side)
        client_side.connection_made(transport)
        if transport.is_closing():  # the client left while we were connecting
            tunnel.close()
            pending.done("tunnel", None, error="client gone", error_kind="client")
            return
        if (
            upstream_side.transport is None
        ):  # the upstream hung up before we could relay
            transport.close()
            pending.done("tunnel", None, error="upstream closed", error_kind="upstream")
            return
        self._tunnels[tunnel] = (pending, client_side, upstream_side)
        transport.write(_ESTABLISHED)
        pending.mark_established()
        client_side.early = (
            rest + sniffer.buffer
        )  # bytes that raced pause_reading, if any
        sniffer.buffer = b""
        client_side.received += len(client_side.early)
        client_side.attach(upstream_side)
        upstream_side.attach(client_side)
        transport.resume_reading()
        log.debug("connect.tunnel", extra={"fields": {"target": target.authority}})

    def _destination_refusal(
        self,
        transport: asyncio.Transport,
        target: InterceptTarget,
        addresses: list[str],
    ) -> Denied | None:
        """access: why this client may not tunnel to `addresses` (None: it may)."""
        refusal = self.access.refusal(
            self.intercept_config(),
            transport.get_extra_info("peername"),
            target.host,
            target.port,
            addresses,
        )
        return refused_destination(refusal, "connect_denied") if refusal else None

    def _deny(
        self,
        transport: asyncio.Transport,
        target: InterceptTarget,
        pending: _Pending,
        denied: Denied,
    ) -> None:
        """access: answer a refused CONNECT (407, 403) and report it."""
        log.info(
            "connect.denied",
            extra={"fields": {"target": target.authority, "reason": denied.error}},
        )
        transport.write(denied_response(denied))
        transport.close()
        pending.done("denied", denied.status, error=denied.error, error_kind="client")

    def _tunnel_lost(self, tunnel: Tunnel) -> None:
        # The first side to go closes the other; the tunnel is over.
        entry = self._tunnels.pop(tunnel, None)
        if entry is not None:
            pending, client_side, upstream_side = entry
            pending.done(
                "tunnel",
                200,
                bytes_in=client_side.received,
                bytes_out=upstream_side.received,
            )


_SNIFF = 0
_BUSY = 1
_TLS = 2
_DONE = 3


class FirstLineSniffer(asyncio.Protocol):
    """Decides, from the first bytes of a connection, who serves it; then steps aside."""

    __slots__ = ("buffer", "closed", "idle", "proxy", "state", "task", "transport")

    def __init__(self, proxy: ForwardProxy) -> None:
        self.proxy = proxy
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.state = _SNIFF
        self.closed = False
        self.task: asyncio.Task[None] | None = None
        self.idle: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses: duck-typed, hence the cast.
        self.transport = cast(asyncio.Transport, transport)
        self.proxy.undecided.add(self)
        # aiohttp closes a connection that never sends a request; until it owns this one, we do.
        self.idle = asyncio.get_running_loop().call_later(
            self.proxy.first_bytes_timeout_s, self._idle_timeout
        )

    def _idle_timeout(self) -> None:
        if self.state == _SNIFF and self.transport is not None:
            self.state = _DONE
            self.transport.close()

    def _decided(self) -> None:
        self.proxy.undecided.discard(self)
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None

    def data_received(self, data: bytes) -> None:
        if self.state != _SNIFF:
            # _BUSY: bytes that raced our pause_reading; _TLS: decrypted bytes that arrived
            # between the end of the handshake and hand_over. Both are replayed in order.
            self.buffer += data
            return
        buf = self.buffer + data if self.buffer else data
        if not buf.startswith(_CONNECT[: len(buf)]):
            self.buffer = b""
            self._to_http(buf)
            return
        if len(buf) < len(_CONNECT):
            self.buffer = buf
            return
        end = _HEAD_END.search(buf)
        if end is None:
            if len(buf) > _MAX_HEAD:
                assert self.transport is not None
                self.transport.write(
                    _json_response(
                        431,
                        "Request Header Fields Too Large",
                        "bad_connect",
                        "CONNECT head too large",
                    )
                )
                self.transport.close()
                self.state = _DONE
                _Pending(_target_text(buf), self.proxy.on_done).done(
                    "bad_request",
                    431,
                    error="CONNECT head too large",
                    error_kind="client",
                )
            else:
                self.buffer = buf
            return
        self.buffer = b""
        self.state = _BUSY
        self._decided()
        assert self.transport is not None
        self.transport.pause_reading()
        self.proxy.start_connect(self, buf[: end.start()], buf[end.end() :])

    def _to_http(self, first: bytes) -> None:
        transport = self.transport
        assert transport is not None
        self.state = _DONE
        self._decided()
        protocol = self.proxy.http_factory()
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        protocol.data_received(first)

    def hand_over(
        self, tls_transport: asyncio.Transport, target: InterceptTarget
    ) -> None:
        """Serve the decrypted stream with aiohttp, replaying what arrived before this call."""
        self.state = _DONE
        protocol = self.proxy.http_factory()
        wrapped = InterceptedTransport(tls_transport, target)
        tls_transport.set_protocol(protocol)
        protocol.connection_made(wrapped)
        pending, self.buffer = self.buffer, b""
        if pending:
            protocol.data_received(pending)

    def eof_received(self) -> bool | None:
        return None  # close: a half-closed client has nothing left for us

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.transport = None
        self._decided()
        # A CONNECT still being decided (cert, upstream connect) is for nobody now. During the
        # TLS handshake start_tls itself fails, so the task ends on its own.
        if self.task is not None and self.state == _BUSY:
            self.task.cancel()
