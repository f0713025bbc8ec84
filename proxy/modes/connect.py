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
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, cast

import orjson

from config.schema import Config, InterceptConfig
from proxy.modes.certs import LeafCertStore

log = logging.getLogger("memtap.connect")

INTERCEPT_EXTRA = "memtap.intercept"
"""`transport.get_extra_info(INTERCEPT_EXTRA)` → the `InterceptTarget` of a decrypted CONNECT tunnel."""

_CONNECT = b"CONNECT "
_MAX_HEAD = 16 * 1024
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_REQUEST_LINE = re.compile(rb"CONNECT ([^\s]+) HTTP/1\.[01]\Z")
_HOSTNAME = re.compile(
    r"(?=.{1,253}\Z)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?\Z"
)
_ESTABLISHED = b"HTTP/1.1 200 Connection Established\r\n\r\n"


@dataclass(frozen=True, slots=True)
class InterceptTarget:
    """Where an intercepted CONNECT tunnel was going: the real upstream for its requests."""

    host: str
    """Lowercase hostname or IP literal (IPv6 without brackets)."""
    port: int

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == 443 else f"{host}:{self.port}"


class BadConnect(ValueError):
    """The CONNECT request line is malformed."""


def parse_connect_head(head: bytes) -> InterceptTarget:
    """Parse the request line of a CONNECT head (`CONNECT host:port HTTP/1.1`); headers are ignored."""
    line = head.split(b"\n", 1)[0].rstrip(b"\r")
    match = _REQUEST_LINE.match(line)
    if match is None:
        raise BadConnect("expected 'CONNECT host:port HTTP/1.1'")
    try:
        authority = match.group(1).decode("ascii")
    except UnicodeDecodeError as exc:
        raise BadConnect("non-ASCII CONNECT target") from exc
    return parse_authority(authority)


def parse_authority(authority: str) -> InterceptTarget:
    if authority.startswith("["):
        host, sep, port_text = authority[1:].partition("]:")
        if not sep:
            raise BadConnect("CONNECT target needs a port")
        try:
            ipaddress.IPv6Address(host)
        except ValueError as exc:
            raise BadConnect("bad IPv6 literal") from exc
    else:
        host, sep, port_text = authority.rpartition(":")
        if not sep or not host:
            raise BadConnect("CONNECT target needs host:port")
        if not _HOSTNAME.match(host):
            raise BadConnect("bad host name")
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise BadConnect("bad port")
    return InterceptTarget(host=host.lower().rstrip("."), port=int(port_text))


def host_matches(target: InterceptTarget, patterns: tuple[str, ...]) -> bool:
    """True if some pattern names the target: `host`, `host:port`, `[v6]:port`, wildcards (`*.x.com`)."""
    for pattern in patterns:
        pattern = pattern.strip().lower()
        port: int | None = None
        if pattern.startswith("["):
            host_pattern, _, rest = pattern[1:].partition("]")
            if rest.startswith(":") and rest[1:].isdigit():
                port = int(rest[1:])
        elif pattern.count(":") == 1:
            host_pattern, _, port_text = pattern.partition(":")
            if port_text.isdigit():
                port = int(port_text)
            elif port_text != "*":
                continue
        else:
            host_pattern = pattern
        if port is not None and port != target.port:
            continue
        if host_pattern == target.host or (
            "*" in host_pattern and fnmatchcase(target.host, host_pattern)
        ):
            return True
    return False


def _json_response(status: int, reason: str, code: str, message: str) -> bytes:
    body = orjson.dumps({"error": {"code": code, "message": message}})
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class InterceptedTransport(asyncio.Transport):
    """The TLS transport of an intercepted tunnel, plus `INTERCEPT_EXTRA` in its extra info.

    A thin delegate: aiohttp's protocol writes through it; reads never pass through it (the
    TLS transport calls aiohttp's protocol directly).
    """

    __slots__ = ("_inner", "target")

    def __init__(self, inner: asyncio.Transport, target: InterceptTarget) -> None:
        super().__init__()
        self._inner = inner
        self.target = target

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        if name == INTERCEPT_EXTRA:
            return self.target
        return self._inner.get_extra_info(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._inner.write(data)

    def writelines(self, list_of_data: Any) -> None:
        self._inner.writelines(list_of_data)

    def write_eof(self) -> None:
        self._inner.write_eof()

    def can_write_eof(self) -> bool:
        return self._inner.can_write_eof()

    def is_closing(self) -> bool:
        return self._inner.is_closing()

    def close(self) -> None:
        self._inner.close()

    def abort(self) -> None:
        self._inner.abort()

    def is_reading(self) -> bool:
        return self._inner.is_reading()

    def pause_reading(self) -> None:
        self._inner.pause_reading()

    def resume_reading(self) -> None:
        self._inner.resume_reading()

    def set_write_buffer_limits(
        self, high: int | None = None, low: int | None = None
    ) -> None:
        self._inner.set_write_buffer_limits(high, low)

    def get_write_buffer_size(self) -> int:
        return self._inner.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._inner.get_write_buffer_limits()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._inner.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._inner.get_protocol()


class _Tunnel:
    """A blind relay between two transports with flow control and half-close."""

    __slots__ = ("eofs", "sides")

    def __init__(self) -> None:
        self.sides: list[_TunnelSide] = []
        self.eofs = 0

    def close(self) -> None:
        for side in self.sides:
            if side.transport is not None:
                side.transport.close()


class _TunnelSide(asyncio.Protocol):
    __slots__ = ("early", "on_lost", "peer", "transport", "tunnel")

    def __init__(
        self, tunnel: _Tunnel, on_lost: Callable[[_Tunnel], None] | None = None
    ) -> None:
        self.tunnel = tunnel
        self.transport: asyncio.Transport | None = None
        self.peer: _TunnelSide | None = None
        self.on_lost = on_lost
        self.early = b""
        """Bytes that arrived before the other side was attached (server-speaks-first protocols)."""
        tunnel.sides.append(self)

    def attach(self, peer: _TunnelSide) -> None:
        self.peer = peer
        if self.early and peer.transport is not None:
            peer.transport.write(self.early)
        self.early = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses: duck-typed, hence the cast.
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.write(data)
        elif self.peer is None:
            self.early += data

    def eof_received(self) -> bool:
        peer = self.peer.transport if self.peer is not None else None
        self.tunnel.eofs += 1
        if peer is None or self.tunnel.eofs >= 2 or not peer.can_write_eof():
            self.tunnel.close()
            return False
        peer.write_eof()
        return True  # keep our write side open: the peer may still answer (half-close)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.close()
        if self.on_lost is not None:
            self.on_lost(self.tunnel)

    def pause_writing(self) -> None:
        # Our outgoing buffer is full: stop reading what would be written into it.
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.resume_reading()


ProtocolFactory = Callable[[], asyncio.BaseProtocol]


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
    ) -> None:
        self.http_factory = http_factory
        self.intercept_config = intercept_config
        self.certs = certs
        self.handshake_timeout_s = handshake_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self._tasks: set[asyncio.Task[None]] = set()
        self._tunnels: set[_Tunnel] = set()

    def __call__(self) -> asyncio.Protocol:
        return FirstLineSniffer(self)

    async def close(self) -> None:
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
            return
        config = self.intercept_config()
        try:
            if host_matches(target, config.hosts):
                await self._intercept(sniffer, transport, target, rest)
            elif config.others == "tunnel":
                await self._tunnel(transport, target, rest)
            else:
                log.info(
                    "connect.denied", extra={"fields": {"target": target.authority}}
                )
                message = f"CONNECT to {target.authority} is not allowed (intercept.others: deny)"
                transport.write(
                    _json_response(403, "Forbidden", "connect_denied", message)
                )
                transport.close()
        except asyncio.CancelledError:
            transport.abort()
            raise
        except Exception as exc:
            log.error(
                "connect.error",
                extra={"fields": {"target": target.authority, "error": repr(exc)}},
                exc_info=exc,
            )
            transport.abort()

    async def _intercept(
        self,
        sniffer: FirstLineSniffer,
        transport: asyncio.Transport,
        target: InterceptTarget,
        rest: bytes,
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
            return
        server_ctx = await self.certs.context_for(target.host)
        if sniffer.closed:
            return
        transport.write(_ESTABLISHED)
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
            return
        if tls_transport is None or sniffer.closed:
            return
        log.debug("connect.intercepted", extra={"fields": {"target": target.authority}})
        sniffer.hand_over(tls_transport, target)

    async def _tunnel(
        self, transport: asyncio.Transport, target: InterceptTarget, rest: bytes
    ) -> None:
        loop = asyncio.get_running_loop()
        tunnel = _Tunnel()
        upstream_side = _TunnelSide(tunnel, self._tunnels.discard)
        try:
            async with asyncio.timeout(self.connect_timeout_s):
                await loop.create_connection(
                    lambda: upstream_side, target.host, target.port
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
            return
        client_side = _TunnelSide(tunnel, self._tunnels.discard)
        self._tunnels.add(tunnel)
        transport.set_protocol(client_side)
        client_side.connection_made(transport)
        if transport.is_closing():  # the client left while we were connecting
            tunnel.close()
            return
        transport.write(_ESTABLISHED)
        client_side.early = rest
        client_side.attach(upstream_side)
        upstream_side.attach(client_side)
        transport.resume_reading()
        log.debug("connect.tunnel", extra={"fields": {"target": target.authority}})


_SNIFF = 0
_BUSY = 1
_TLS = 2
_DONE = 3


class FirstLineSniffer(asyncio.Protocol):
    """Decides, from the first bytes of a connection, who serves it; then steps aside."""

    __slots__ = ("buffer", "closed", "proxy", "state", "task", "transport")

    def __init__(self, proxy: ForwardProxy) -> None:
        self.proxy = proxy
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.state = _SNIFF
        self.closed = False
        self.task: asyncio.Task[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses: duck-typed, hence the cast.
        self.transport = cast(asyncio.Transport, transport)

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
            else:
                self.buffer = buf
            return
        self.buffer = b""
        self.state = _BUSY
        assert self.transport is not None
        self.transport.pause_reading()
        self.proxy.start_connect(self, buf[: end.start()], buf[end.end() :])

    def _to_http(self, first: bytes) -> None:
        transport = self.transport
        assert transport is not None
        self.state = _DONE
        protocol = self.proxy.http_factory()
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        if isinstance(protocol, asyncio.Protocol):
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
        if pending and isinstance(protocol, asyncio.Protocol):
            protocol.data_received(pending)

    def eof_received(self) -> bool | None:
        return None  # close: a half-closed client has nothing left for us

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.transport = None
        # A CONNECT still being decided (cert, upstream connect) is for nobody now. During the
        # TLS handshake start_tls itself fails, so the task ends on its own.
        if self.task is not None and self.state == _BUSY:
            self.task.cancel()


def forward_front(
    http_factory: ProtocolFactory, current_config: Callable[[], Config]
) -> ForwardProxy:
    """The forward-proxy front for a memtap listener: live `intercept` settings, leaf
    certificates under the configured `data_dir` (the CA is created on the first intercept)."""
    certs = LeafCertStore(current_config().data_dir)
    return ForwardProxy(http_factory, lambda: current_config().intercept, certs)
