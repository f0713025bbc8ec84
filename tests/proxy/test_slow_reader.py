"""A client that stops reading is not an upstream timeout (issue 15, item 2).

The upstream's `timeout_s` measures its silence only while memtap can send to the client:
a client pausing longer than `timeout_s` (but less than `server.client.write_timeout_s`)
gets the whole body afterwards, and nothing is blamed on the provider; a client that does
not read for longer than `write_timeout_s` is dropped, its `request.done` with error_kind
client, counted as write_timeout."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import socket
from collections.abc import Awaitable, Callable

import pytest

from memtap.config.schema import ClientConfig, Config, ServerConfig, UpstreamConfig
from tests.conftest import MemtapServer
from tests.support.standin import Standin, pattern_bytes

BODY_BYTES = 32 * 1024 * 1024  # far past every socket buffer on the way


async def slow_client(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    # A small stream limit too: the client's own buffer fills quickly once it stops reading.
    return await asyncio.open_connection(sock=sock, limit=4096)


@pytest.fixture
async def memtap(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    standin: Standin,
) -> Callable[[float], Awaitable[MemtapServer]]:
    async def start(write_timeout_s: float) -> MemtapServer:
        upstream = UpstreamConfig(name="standin", url=standin.url, timeout_s=0.5)
        client = ClientConfig(write_timeout_s=write_timeout_s)
        return await memtap_server(
            memtap_config(upstreams=(upstream,), server=ServerConfig(client=client))
        )

    return start


async def test_a_pause_longer_than_the_upstream_timeout_is_not_a_timeout(
    memtap: Callable[[float], Awaitable[MemtapServer]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="memtap")
    server = await memtap(30.0)
    reader, writer = await slow_client(server.running.port)
    writer.write(
        f"GET /bytes/{BODY_BYTES} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    await reader.readexactly(1024)
    await asyncio.sleep(2.0)  # four times the upstream's timeout_s, without reading
    received = 1024 + len(await asyncio.wait_for(reader.read(), 60))
    assert received == BODY_BYTES
    done = [r.fields for r in caplog.records if r.getMessage() == "request.done"]  # type: ignore[attr-defined]
    assert len(done) == 1 and done[0]["status"] == 200 and "error" not in done[0]
    assert server.metrics.upstream_errors.value("timeout") == 0
    writer.close()


async def test_a_client_that_stops_reading_is_dropped_as_a_client_error(
    memtap: Callable[[float], Awaitable[MemtapServer]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="memtap")
    server = await memtap(1.0)
    reader, writer = await slow_client(server.running.port)
    writer.write(f"GET /bytes/{BODY_BYTES} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    await reader.readuntil(b"\r\n\r\n")
    for _ in range(500):  # memtap drops it after write_timeout_s (1 s) of not reading
        if [r for r in caplog.records if r.getMessage() == "request.done"]:
            break
        await asyncio.sleep(0.02)
    (done,) = [r for r in caplog.records if r.getMessage() == "request.done"]
    fields = done.fields  # type: ignore[attr-defined]
    assert fields["error_kind"] == "client"
    assert "server.client.write_timeout_s" in fields["error"]
    assert done.levelno == logging.INFO
    assert server.metrics.client_errors.value("write_timeout") == 1
    assert server.metrics.upstream_errors.value("timeout") == 0
    writer.close()


async def test_an_upstream_silent_mid_body_is_still_an_upstream_timeout(
    memtap: Callable[[float], Awaitable[MemtapServer]],
) -> None:
    """The client reads; the upstream stalls: that is the provider's timeout as before."""
    server = await memtap(30.0)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.running.port)
    writer.write(
        b"GET /chunked?count=3&size=10&delay_ms=2000 HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    out = await asyncio.wait_for(reader.read(), 10)
    assert out.startswith(b"HTTP/1.1 200")
    assert server.metrics.upstream_errors.value("timeout") == 1
    writer.close()


def test_pattern_is_what_the_standin_sends() -> None:
    # Guard for the byte count above: the stand-in's /bytes/{n} sends exactly n bytes.
    assert sum(len(b) for b in pattern_bytes(BODY_BYTES)) == BODY_BYTES
    assert hashlib.sha256(b"".join(pattern_bytes(10))).hexdigest()
