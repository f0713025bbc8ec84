"""The one listening socket.

`start_listener` is the only place a listening socket is created, so the forward mode can put
a CONNECT-peeking protocol in front of aiohttp's protocol here. `ListenerSite` plugs it into
aiohttp's runner so `runner.cleanup()` stops accepting before it drains in-flight requests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from aiohttp import web
from aiohttp.web_server import Server

from memtap.proxy.modes.connect import ForwardProxy, ProtocolFactory


class ClientEdges(Protocol):
    """The client-side limits of a listener (`proxy/client_side/edges.py`), as the site uses them."""

    def protocol(self) -> asyncio.Protocol: ...

    def admission(self, inner: ProtocolFactory) -> ProtocolFactory: ...

    def start(self) -> None: ...

    def close(self) -> None: ...


def parse_listen(value: str) -> tuple[str, int]:
    """`HOST:PORT` (IPv6 as `[::1]:8080`) → (host, port). Raises ValueError."""
    host, sep, port_text = value.strip().rpartition(":")
    if not sep or not host:
        raise ValueError(f"listen address {value!r} is not HOST:PORT")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(
            f"listen address {value!r}: port {port_text!r} is not a number"
        ) from None
    if not 0 <= port <= 65535:
        raise ValueError(f"listen address {value!r}: port out of range")
    return host, port


def format_hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def start_listener(
    runtime_app_server: Server | ForwardProxy | ProtocolFactory,
    host: str,
    port: int,
    *,
    backlog: int = 512,
) -> asyncio.Server:
    """Bind `host:port` and serve HTTP/1.1 with aiohttp's protocol factory.

    Returns the asyncio server (its sockets give the bound port when `port` is 0).
    """
    loop = asyncio.get_running_loop()
    # asyncio and uvloop set TCP_NODELAY on accepted sockets: small SSE events leave at once.
    return await loop.create_server(
        runtime_app_server, host, port, backlog=backlog, reuse_address=True
    )


class ListenerSite(web.BaseSite):
    """An aiohttp site whose socket comes from `start_listener`.

    `front` builds the CONNECT-peeking protocol factory (`proxy/modes/connect.py`) around
    aiohttp's; without it the socket serves plain HTTP (no forward mode).
    """

    __slots__ = (
        "_bound_port",
        "_edges",
        "_front",
        "_host",
        "_make_edges",
        "_make_front",
        "_port",
    )

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        *,
        front: Callable[[ProtocolFactory], ForwardProxy] | None = None,
        edges: Callable[[Server], ClientEdges] | None = None,
    ) -> None:
        super().__init__(runner)
        self._host = host
        self._port = port
        self._bound_port: int | None = None
        self._make_front = front
        self._front: ForwardProxy | None = None
        self._make_edges = edges
        self._edges: ClientEdges | None = (
            None  # client limits (proxy/client_side/edges.py)
        )

    @property
    def port(self) -> int:
        """The bound port once started (useful with port 0)."""
        return self._bound_port if self._bound_port is not None else self._port

    @property
    def name(self) -> str:
        return f"http://{format_hostport(self._host, self.port)}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None, "runner.setup() must run before the site starts"
        http: ProtocolFactory = server
        if self._make_edges is not None:
            # client edges: timeouts, connection caps, JSON 400 (proxy/client_side/edges.py)
            self._edges = self._make_edges(server)
            http = self._edges.protocol
        if self._make_front is not None:
            # Forward mode: the CONNECT-peeking front before aiohttp's protocol.
            self._front = self._make_front(http)
        factory: ProtocolFactory = self._front or http
        if self._edges is not None:  # client edges: connection caps before any protocol
            factory = self._edges.admission(factory)
        self._server = await start_listener(factory, self._host, self._port)
        self._bound_port = self._server.sockets[0].getsockname()[1]
        if self._edges is not None:
            self._edges.start()

    async def stop(self) -> None:
        await super().stop()
        if self._edges is not None:
            self._edges.close()
        if self._front is not None:
            # Blind tunnels and TLS handshakes in flight are not aiohttp's to close.
            await self._front.close()
