"""Who may reach the admin sub-app from another machine, for real: the client runs in a
network namespace made by the test (tests/support/netns.py), so memtap sees a peer address
on another link. Skipped, with the reason, where network namespaces cannot be made.

With no `admin.token` the admin API answers only on loopback: the API, /metrics and the
Memory Studio page (part of it) refuse a remote client with 403, /health answers it. With a
token the page loads without it (the page asks for it) and the API needs it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import orjson
import pytest

from memtap.config.schema import AdminConfig, Config
from memtap.proxy.server import RunningServer
from tests.support.netns import AllInterfaces, RemoteHost, remote_or_skip

TOKEN = "admin-token-for-the-remote-test"


@pytest.fixture(scope="module")
def remote() -> Iterator[RemoteHost]:
    with remote_or_skip() as made:
        yield made


StartMemtap = Callable[[str | None], Awaitable[RunningServer]]


@pytest.fixture
async def memtap(memtap_config: Callable[..., Config]) -> AsyncIterator[StartMemtap]:
    """memtap on 0.0.0.0 (reachable from the namespace), the admin token given."""
    servers = AllInterfaces()

    async def start(token: str | None) -> RunningServer:
        return await servers.start(
            memtap_config(upstreams=(), admin=AdminConfig(token=token))
        )

    yield start
    await servers.stop()


def get(path: str, token: str | None = None) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (
        f"GET /_memtap{path} HTTP/1.1\r\nHost: memtap.example\r\n{auth}"
        "Connection: close\r\n\r\n"
    ).encode()


def status(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1])


def body(raw: bytes) -> bytes:
    return raw.partition(b"\r\n\r\n")[2]


async def test_no_token_the_admin_answers_a_remote_client_nothing_but_health(
    remote: RemoteHost, memtap: StartMemtap
) -> None:
    running = await memtap(None)
    for path in ("/", "/static/main.js", "/api/memories", "/metrics"):
        out = await remote.exchange(running.port, get(path))
        assert status(out) == 403, (path, out[:200])
        assert orjson.loads(body(out))["error"]["code"] == "forbidden"
    health = await remote.exchange(running.port, get("/health"))
    assert status(health) == 200 and orjson.loads(body(health))["status"] == "ok"


async def test_with_a_token_the_page_loads_and_the_api_needs_it(
    remote: RemoteHost, memtap: StartMemtap
) -> None:
    running = await memtap(TOKEN)
    page = await remote.exchange(running.port, get("/"))
    assert status(page) == 200 and b"Memory Studio" in body(page)
    refused = await remote.exchange(running.port, get("/api/memories"))
    assert status(refused) == 401
    metrics = await remote.exchange(running.port, get("/metrics"))
    assert status(metrics) == 401
    scraped = await remote.exchange(running.port, get("/metrics", TOKEN))
    assert status(scraped) == 200 and b"memtap_" in body(scraped)
