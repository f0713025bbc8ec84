"""Who may reach what through the forward proxy, with remote clients for real: the client
runs in a network namespace made by the test (tests/support/netns.py), so memtap sees a peer
address on another link, as from another machine. Skipped, with the reason, where network
namespaces cannot be made.

Default (`private_networks: deny`): a remote client's tunnels and absolute-URI requests to
private, loopback, link-local (metadata) and unique-local addresses get 403, and nothing
reaches the service there; a client on this host is not refused; `intercept.allow` and
`private_networks: allow` open what the operator chose; proxy authentication applies to
remote clients as to local ones."""

from __future__ import annotations

import asyncio
import base64
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field

import orjson
import pytest
from aiohttp import web

from memtap.config.schema import Config, InterceptConfig
from memtap.proxy.server import RunningServer
from tests.support.netns import AllInterfaces, RemoteHost, remote_or_skip


@pytest.fixture(scope="module")
def remote() -> Iterator[RemoteHost]:
    with remote_or_skip() as made:
        yield made


@dataclass
class Service:
    """A plain HTTP service on one address of this host, recording what reaches it."""

    address: str
    port: int
    seen: list[tuple[str, str]] = field(default_factory=list)
    """(path, Host header) of every request."""

    @property
    def hostport(self) -> str:
        return (
            f"[{self.address}]:{self.port}"
            if ":" in self.address
            else f"{self.address}:{self.port}"
        )


async def _service(address: str) -> AsyncIterator[Service]:
    service = Service(address, 0)

    async def handler(request: web.BaseRequest) -> web.Response:
        service.seen.append((request.path, request.headers.get("Host", "")))
        return web.Response(text="inside")

    runner = web.ServerRunner(web.Server(handler))
    await runner.setup()
    site = web.TCPSite(runner, address, 0)
    await site.start()
    service.port = runner.addresses[0][1]
    try:
        yield service
    finally:
        await runner.cleanup()


@pytest.fixture
async def lan_service(remote: RemoteHost) -> AsyncIterator[Service]:
    """On this host's address on the private link: a service in a private network."""
    async for service in _service(remote.host_ip):
        yield service


@pytest.fixture
async def loopback_service() -> AsyncIterator[Service]:
    async for service in _service("127.0.0.1"):
        yield service


StartMemtap = Callable[[InterceptConfig], Awaitable[RunningServer]]


@pytest.fixture
async def memtap(memtap_config: Callable[..., Config]) -> AsyncIterator[StartMemtap]:
    """memtap on 0.0.0.0 (reachable from the namespace and from loopback), no upstreams."""
    servers = AllInterfaces()

    async def start(intercept: InterceptConfig) -> RunningServer:
        return await servers.start(memtap_config(upstreams=(), intercept=intercept))

    yield start
    await servers.stop()


def status(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1])


def error_code(raw: bytes) -> str:
    return str(orjson.loads(raw.partition(b"\r\n\r\n")[2])["error"]["code"])


def connect(target: str, extra: str = "") -> bytes:
    return (
        f"CONNECT {target} HTTP/1.1\r\n{extra}\r\n"
        "GET /through HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
    ).encode()


def get(url: str, extra: str = "") -> bytes:
    return f"GET {url} HTTP/1.1\r\nHost: t\r\n{extra}Connection: close\r\n\r\n".encode()


async def local_exchange(port: int, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    out = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return out


async def test_remote_client_cannot_reach_private_loopback_or_metadata(
    remote: RemoteHost,
    memtap: StartMemtap,
    lan_service: Service,
    loopback_service: Service,
) -> None:
    running = await memtap(InterceptConfig(hosts=()))
    port = running.port
    for target in (
        lan_service.hostport,  # a private network this host is in
        loopback_service.hostport,  # this host's loopback
        "localhost:80",
        "169.254.169.254:80",  # cloud metadata (link-local)
        "[fd00:ec2::254]:80",  # unique-local
        "100.100.100.200:80",  # shared address space (a cloud's metadata)
    ):
        out = await remote.exchange(port, connect(target))
        assert status(out) == 403, (target, out)
        assert error_code(out) == "connect_denied"
    for url in (
        f"http://{lan_service.hostport}/x",
        f"http://{loopback_service.hostport}/x",
    ):
        out = await remote.exchange(port, get(url))
        assert status(out) == 403, (url, out)
        assert error_code(out) == "forward_denied"
    assert lan_service.seen == [] and loopback_service.seen == []
    assert running.runtime.metrics.requests.value("tunnel", "403") == 6


async def test_a_client_on_this_host_is_not_refused(
    remote: RemoteHost, memtap: StartMemtap, lan_service: Service
) -> None:
    running = await memtap(InterceptConfig(hosts=()))
    out = await local_exchange(running.port, connect(lan_service.hostport))
    assert out.startswith(b"HTTP/1.1 200 Connection Established") and out.endswith(
        b"inside"
    )
    out = await local_exchange(running.port, get(f"http://{lan_service.hostport}/abs"))
    assert status(out) == 200
    assert [path for path, _ in lan_service.seen] == ["/through", "/abs"]


async def test_allow_list_opens_what_the_operator_chose(
    remote: RemoteHost,
    memtap: StartMemtap,
    lan_service: Service,
    loopback_service: Service,
) -> None:
    running = await memtap(InterceptConfig(hosts=(), allow=(f"{remote.host_ip}/32",)))
    out = await remote.exchange(running.port, connect(lan_service.hostport))
    assert out.startswith(b"HTTP/1.1 200 Connection Established") and out.endswith(
        b"inside"
    )
    out = await remote.exchange(running.port, get(f"http://{lan_service.hostport}/abs"))
    assert status(out) == 200
    assert [path for path, _ in lan_service.seen] == ["/through", "/abs"]
    # Only what is listed.
    out = await remote.exchange(running.port, connect(loopback_service.hostport))
    assert status(out) == 403
    assert loopback_service.seen == []


async def test_private_networks_allow_still_keeps_loopback(
    remote: RemoteHost,
    memtap: StartMemtap,
    lan_service: Service,
    loopback_service: Service,
) -> None:
    running = await memtap(InterceptConfig(hosts=(), private_networks="allow"))
    out = await remote.exchange(running.port, connect(lan_service.hostport))
    assert out.endswith(b"inside")
    out = await remote.exchange(running.port, connect(loopback_service.hostport))
    assert status(out) == 403
    out = await remote.exchange(
        running.port, get(f"http://{loopback_service.hostport}/")
    )
    assert status(out) == 403
    assert loopback_service.seen == []


async def test_an_allowed_name_is_pinned_to_the_checked_address(
    remote: RemoteHost, memtap: StartMemtap
) -> None:
    """The absolute-URI request goes to the address memtap resolved and checked (aiohttp is
    not left to resolve the name again); the upstream still sees the name in Host."""
    address = socket.getaddrinfo(
        "localhost", None, socket.AF_UNSPEC, socket.SOCK_STREAM
    )[0][4][0]
    async for service in _service(str(address)):
        running = await memtap(InterceptConfig(hosts=(), allow=("localhost",)))
        out = await remote.exchange(
            running.port, get(f"http://localhost:{service.port}/pinned")
        )
        assert status(out) == 200, out
        assert service.seen == [("/pinned", f"localhost:{service.port}")]


async def test_remote_clients_need_proxy_credentials(
    remote: RemoteHost, memtap: StartMemtap, lan_service: Service
) -> None:
    running = await memtap(
        InterceptConfig(hosts=(), allow=(f"{remote.host_ip}/32",), proxy_auth="ann:pw")
    )
    out = await remote.exchange(running.port, connect(lan_service.hostport))
    assert status(out) == 407
    assert b'Proxy-Authenticate: Basic realm="memtap"' in out
    good = "Proxy-Authorization: Basic " + base64.b64encode(b"ann:pw").decode() + "\r\n"
    out = await remote.exchange(running.port, connect(lan_service.hostport, good))
    assert out.endswith(b"inside")
    out = await remote.exchange(running.port, get(f"http://{lan_service.hostport}/a"))
    assert status(out) == 407
    out = await remote.exchange(
        running.port, get(f"http://{lan_service.hostport}/b", good)
    )
    assert status(out) == 200
    assert [path for path, _ in lan_service.seen] == ["/through", "/b"]
