"""The client side of a listener, over real sockets: malformed requests get a JSON 400 and
one `request.done` (error_kind bad_request, warning, no traceback); a request head that
trickles in gets 408; a request body that stops arriving, an idle keep-alive connection and
connections over the caps are closed (503 for the caps); each counted by kind."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Awaitable, Callable

import orjson
import pytest

from memtap.config.schema import ClientConfig, Config, ServerConfig
from tests.conftest import MemtapServer
from tests.support.standin import Standin

StartMemtap = Callable[..., Awaitable[MemtapServer]]


async def open_to(
    server: MemtapServer,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", server.running.port)


async def exchange(server: MemtapServer, data: bytes) -> bytes:
    reader, writer = await open_to(server)
    writer.write(data)
    await writer.drain()
    out = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return out


def done_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == "request.done"]


@pytest.fixture
async def limited(
    memtap_server: StartMemtap, memtap_config: Callable[..., Config], standin: Standin
) -> Callable[..., Awaitable[MemtapServer]]:
    async def start(**client: float) -> MemtapServer:
        settings = ClientConfig(**client)  # type: ignore[arg-type]
        return await memtap_server(memtap_config(server=ServerConfig(client=settings)))

    return start


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        b"GET /x HTTP/1.1\r\nHost: x\r\n"
        + b"".join(b"X-H%d: v\r\n" % i for i in range(300))
        + b"\r\n",
        b"THIS IS NOT HTTP\r\n\r\n",
        b"GET /x HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 70000 + b"\r\n\r\n",
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
    ],
    ids=[
        "bad-content-length",
        "too-many-headers",
        "bad-request-line",
        "header-too-long",
        "two-lengths",
    ],
)
async def test_malformed_requests_get_a_json_400_and_one_request_done(
    limited: Callable[..., Awaitable[MemtapServer]],
    standin: Standin,
    caplog: pytest.LogCaptureFixture,
    request_bytes: bytes,
) -> None:
    caplog.set_level(logging.DEBUG)
    server = await limited()
    out = await exchange(server, request_bytes)
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith((b"HTTP/1.1 400 ", b"HTTP/1.0 400 ")), out[:200]
    assert b"application/json" in head
    error = orjson.loads(body)["error"]
    assert error["code"] == "bad_request" and error["message"]
    (done,) = done_lines(caplog)
    fields = done.fields  # type: ignore[attr-defined]
    assert fields["status"] == 400 and fields["error_kind"] == "bad_request"
    assert done.levelno == logging.WARNING
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert server.metrics.client_errors.value("bad_request") == 1
    assert server.metrics.requests.value("none", "400") == 1
    assert standin.requests == []


async def test_a_trickling_request_head_gets_408(
    limited: Callable[..., Awaitable[MemtapServer]],
    standin: Standin,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="memtap")
    server = await limited(head_timeout_s=0.6)
    reader, writer = await open_to(server)
    started = asyncio.get_running_loop().time()
    head = b"GET /slow HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
    answer = asyncio.create_task(reader.read())
    for byte in head:  # one byte every 20 ms: never done within 0.6 s
        if answer.done():
            break  # memtap answered and closed: writing on would only reset it
        writer.write(bytes([byte]))
        await asyncio.sleep(0.02)
    out = await asyncio.wait_for(answer, 10)
    elapsed = asyncio.get_running_loop().time() - started
    assert out.startswith(b"HTTP/1.1 408 Request Timeout"), out
    assert (
        orjson.loads(out.partition(b"\r\n\r\n")[2])["error"]["code"] == "head_timeout"
    )
    assert 0.6 <= elapsed < 3.0
    (done,) = done_lines(caplog)
    assert done.fields["status"] == 408 and done.fields["error_kind"] == "client"  # type: ignore[attr-defined]
    assert server.metrics.client_errors.value("head_timeout") == 1
    assert standin.requests == []
    writer.close()


async def test_a_request_body_that_stops_arriving_is_closed(
    limited: Callable[..., Awaitable[MemtapServer]],
    standin: Standin,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="memtap")
    server = await limited(body_idle_timeout_s=0.5)
    reader, writer = await open_to(server)
    writer.write(
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789"
    )
    await writer.drain()
    out = await asyncio.wait_for(reader.read(), 10)  # closed by memtap, not by the test
    assert b" 200 " not in out
    for _ in range(200):
        if done_lines(caplog):
            break
        await asyncio.sleep(0.02)
    (done,) = done_lines(caplog)
    fields = done.fields  # type: ignore[attr-defined]
    assert fields["error_kind"] == "client"
    assert "server.client.body_idle_timeout_s" in fields["error"]
    assert server.metrics.client_errors.value("body_timeout") == 1
    writer.close()


async def test_a_malformed_chunk_after_the_head_gets_a_400_at_once(
    limited: Callable[..., Awaitable[MemtapServer]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The head was fine, so the request is being handled when the bad chunk arrives: it
    # must not wait for the body idle limit (60 s here) and be logged as a slow client.
    caplog.set_level(logging.INFO, logger="memtap")
    server = await limited(body_idle_timeout_s=60)
    reader, writer = await open_to(server)
    writer.write(
        b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
    )
    await writer.drain()
    await asyncio.sleep(0.3)
    writer.write(b"ZZ\r\nxx\r\n0\r\n\r\n")
    await writer.drain()
    out = await asyncio.wait_for(reader.read(), 5)
    assert out.startswith(b"HTTP/1.1 400 "), out[:200]
    assert orjson.loads(out.partition(b"\r\n\r\n")[2])["error"]["code"] == "bad_request"
    for _ in range(200):
        if done_lines(caplog):
            break
        await asyncio.sleep(0.02)
    (done,) = done_lines(caplog)
    fields = done.fields  # type: ignore[attr-defined]
    assert fields["status"] == 400 and fields["error_kind"] == "bad_request"
    assert server.metrics.client_errors.value("bad_request") == 1
    writer.close()


async def test_a_slow_but_steady_body_is_not_cut(
    limited: Callable[..., Awaitable[MemtapServer]], standin: Standin
) -> None:
    server = await limited(body_idle_timeout_s=0.5, head_timeout_s=0.5)
    reader, writer = await open_to(server)
    writer.write(
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\nConnection: close\r\n\r\n"
    )
    for piece in (b"ab", b"cd", b"ef", b"gh"):
        await asyncio.sleep(
            0.3
        )  # each pause under the limit, the whole body well over it
        writer.write(piece)
    out = await asyncio.wait_for(reader.read(), 10)
    assert out.startswith(b"HTTP/1.1 200") and out.endswith(b"abcdefgh")
    assert server.metrics.client_errors.value("body_timeout") == 0
    writer.close()


async def test_an_idle_keepalive_connection_is_closed(
    limited: Callable[..., Awaitable[MemtapServer]], standin: Standin
) -> None:
    server = await limited(keepalive_timeout_s=0.4)
    reader, writer = await open_to(server)
    writer.write(b"GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 200")
    length = int(
        next(
            line.split(b":")[1]
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
    )
    await reader.readexactly(length)
    started = asyncio.get_running_loop().time()
    assert await asyncio.wait_for(reader.read(), 10) == b""  # memtap closed it
    assert asyncio.get_running_loop().time() - started < 3.0
    assert server.metrics.client_errors.value("keepalive_timeout") == 1
    writer.close()


async def test_connections_over_the_per_address_cap_get_503(
    limited: Callable[..., Awaitable[MemtapServer]],
    standin: Standin,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="memtap")
    server = await limited(max_connections_per_address=2)
    held = [await open_to(server) for _ in range(2)]
    out = await exchange(server, b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503"), out
    assert orjson.loads(body)["error"]["code"] == "too_many_connections"
    assert "max_connections_per_address" in orjson.loads(body)["error"]["message"]
    assert server.metrics.client_errors.value("too_many_connections") == 1
    (done,) = done_lines(caplog)
    assert done.fields["status"] == 503  # type: ignore[attr-defined]
    # The held connections still work, and a freed slot is free at once.
    reader, writer = held[0]
    writer.write(b"GET /held HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert (await asyncio.wait_for(reader.read(), 10)).startswith(b"HTTP/1.1 200")
    writer.close()
    await writer.wait_closed()
    await asyncio.sleep(0.05)
    out = await exchange(
        server, b"GET /again HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    assert out.startswith(b"HTTP/1.1 200"), out
    for _, other in held[1:]:
        other.close()


async def test_connections_over_the_listener_cap_get_503(
    limited: Callable[..., Awaitable[MemtapServer]], standin: Standin
) -> None:
    server = await limited(max_connections=1)
    _, writer = await open_to(server)
    out = await exchange(server, b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 503")
    assert b"server.client.max_connections (1)" in out
    writer.close()


async def test_a_client_still_sending_after_the_408_reads_it(
    limited: Callable[..., Awaitable[MemtapServer]],
) -> None:
    # A lingering close: memtap half-closes after its answer and drops what still arrives,
    # so a client trickling on past the limit gets the 408 rather than a connection reset.
    server = await limited(head_timeout_s=0.3)
    sock = socket.create_connection(("127.0.0.1", server.running.port))
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    await loop.sock_sendall(sock, b"GET /slow HTTP/1.1\r\nX-Slow: ")
    for _ in range(
        30
    ):  # 0.6 s of one byte every 20 ms, past the limit; nothing read yet
        await loop.sock_sendall(sock, b"a")
        await asyncio.sleep(0.02)
    out = b""
    while chunk := await asyncio.wait_for(loop.sock_recv(sock, 4096), 10):
        out += chunk
    sock.close()
    assert out.startswith(b"HTTP/1.1 408 Request Timeout"), out
    assert server.metrics.client_errors.value("head_timeout") == 1
