"""Forward mode never hands a client on another machine this host's loopback services: a
blind CONNECT or an absolute-URI request to 127.0.0.1 / localhost from a remote client is
refused (403), because the admin API (no token: loopback only) and other local services
would see it coming *from* loopback. A client on this host may (it could connect directly).

"Another machine" is this host's own non-loopback address: a connection from it has a
non-loopback peer address, exactly as a remote client's would."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import orjson
import pytest
from aiohttp import web

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config, InterceptConfig, MemoryConfig
from memtap.proxy.modes.loopback_guard import is_loopback_ip, peer_is_loopback, refused
from memtap.proxy.server import RunningServer, start_server
from tests.support.standin import Standin


def outside_address() -> str | None:
    """A non-loopback address of this host, or None when it has none."""
    candidates: list[str] = []
    try:
        candidates += [
            i[4][0]
            for i in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        ]
    except OSError:
        pass
    for probe in ("192.0.2.1", "10.255.255.255"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect(
                    (probe, 9)
                )  # UDP: no packet is sent, the route picks the source
                candidates.append(s.getsockname()[0])
        except OSError:
            pass
    for address in candidates:
        if not is_loopback_ip(address):
            try:
                with socket.socket() as s:
                    s.bind((address, 0))
                return str(address)
            except OSError:
                continue
    return None


OUTSIDE = outside_address()
needs_outside = pytest.mark.skipif(
    OUTSIDE is None, reason="this host has no non-loopback address"
)


@dataclass
class Local:
    """A service on this host's loopback, recording what reaches it."""

    port: int
    seen: list[str]


@pytest.fixture
async def local_service() -> AsyncIterator[Local]:
    seen: list[str] = []

    async def handler(request: web.BaseRequest) -> web.Response:
        seen.append(request.path)
        return web.Response(text="local secret")

    server = web.Server(handler)
    runner = web.ServerRunner(server)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield Local(runner.addresses[0][1], seen)
    finally:
        await runner.cleanup()


@pytest.fixture
async def memtap_everywhere(
    memtap_config: Callable[..., Config], standin: Standin
) -> AsyncIterator[RunningServer]:
    """memtap on 0.0.0.0 with no admin token and blind tunnels for every other host."""
    config = memtap_config(
        memory=MemoryConfig(enabled=False),
        intercept=InterceptConfig(hosts=(), others="tunnel"),
    )
    running = await start_server(
        ConfigHolder(config), listen=("0.0.0.0", 0), watch_config=False
    )
    try:
        yield running
    finally:
        await running.stop()


async def exchange(src: str, port: int, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection(src, port)
    writer.write(data)
    await writer.drain()
    out = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return out


def port_of(running: RunningServer) -> int:
    return int(running.base_url.rsplit(":", 1)[1])


@needs_outside
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "0.0.0.0"])
async def test_remote_connect_to_loopback_is_refused(
    memtap_everywhere: RunningServer, local_service: Local, host: str
) -> None:
    assert OUTSIDE is not None
    port = port_of(memtap_everywhere)
    for target_port in (local_service.port, port):  # a local service, and memtap itself
        out = await exchange(
            OUTSIDE, port, f"CONNECT {host}:{target_port} HTTP/1.1\r\n\r\n".encode()
        )
        head, _, body = out.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 403"), out
        assert orjson.loads(body)["error"]["code"] == "connect_denied"
    assert local_service.seen == []


@needs_outside
async def test_remote_absolute_uri_to_loopback_is_refused(
    memtap_everywhere: RunningServer, local_service: Local
) -> None:
    assert OUTSIDE is not None
    port = port_of(memtap_everywhere)
    for host in ("127.0.0.1", "localhost"):
        request = f"GET http://{host}:{local_service.port}/admin HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        out = await exchange(OUTSIDE, port, request.encode())
        head, _, body = out.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 403"), out
        assert orjson.loads(body)["error"]["code"] == "forward_denied"
    assert local_service.seen == []


async def test_a_client_on_this_host_may_reach_loopback(
    memtap_everywhere: RunningServer, local_service: Local
) -> None:
    port = port_of(memtap_everywhere)
    request = f"GET http://127.0.0.1:{local_service.port}/ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    out = await exchange("127.0.0.1", port, request.encode())
    assert out.startswith(b"HTTP/1.1 200") and out.endswith(b"local secret")
    out = await exchange(
        "127.0.0.1",
        port,
        f"CONNECT 127.0.0.1:{local_service.port} HTTP/1.1\r\n\r\nGET /tunnelled HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode(),
    )
    assert out.startswith(b"HTTP/1.1 200 Connection Established") and out.endswith(
        b"local secret"
    )
    assert local_service.seen == ["/ok", "/tunnelled"]


def test_the_rules() -> None:
    assert refused("localhost", []) and refused("db.localhost", [])
    assert refused("example.test", ["93.184.216.34", "127.0.0.1"])  # any address counts
    assert (
        refused("[::1]", ["::1"])
        and refused("x", ["::ffff:127.0.0.1"])
        and refused("x", ["0.0.0.0"])
    )
    assert not refused("api.openai.com", ["104.18.6.192"])
    assert peer_is_loopback(("127.0.0.5", 1)) and peer_is_loopback(("::1", 1, 0, 0))
    assert not peer_is_loopback(("192.0.2.2", 1)) and not peer_is_loopback(None)
