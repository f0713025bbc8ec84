"""Byte-exact relay through memtap (memory off): bodies, headers, methods, paths, routing."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from yarl import URL

from memtap.config.schema import UpstreamConfig
from tests.support.standin import FIXTURES, Reply, Standin, gzip_payload, pattern_bytes

FIXTURE_CASES = sorted(
    (p.parent.name, p.name.removesuffix(".expect.json"))
    for p in Path(FIXTURES).glob("*/*.expect.json")
)


@pytest.fixture
async def client() -> AsyncIterator[aiohttp.ClientSession]:
    # auto_decompress=False: the test compares the bytes on the wire, not their decoding.
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        yield session


@pytest.mark.parametrize(
    ("family", "name"), FIXTURE_CASES, ids=[f"{f}/{n}" for f, n in FIXTURE_CASES]
)
async def test_fixture_traffic_is_relayed_byte_exact(
    family, name, standin, memtap_server, client
):
    """Every recorded provider response (SSE with CRLF, invalid UTF-8 tails, JSON arrays,
    error bodies) reaches the client unchanged, split as the fixture says, and the request
    body reaches the upstream unchanged."""
    srv = await memtap_server()
    case = standin.enqueue_fixture(family, name)
    request_body = (FIXTURES / family / f"{name}.request.json").read_bytes()
    method, _, target = case.expect["endpoint"].partition(" ")
    async with client.request(
        method,
        srv.url + target,
        data=request_body,
        headers={
            "Content-Type": "application/json",
            "Authorization": "Bearer sk-test-relay",
        },
    ) as response:
        body = await response.read()
        assert response.status == case.status
        assert response.headers["Content-Type"] == case.content_type
    assert body == case.body
    received = standin.last()
    assert received.body == request_body
    assert received.path == target


async def test_json_response_keeps_content_length(standin, memtap_server, client):
    srv = await memtap_server()
    case = standin.enqueue_fixture("openai-chat", "non_stream_json")
    async with client.post(srv.url + "/v1/chat/completions", data=b"{}") as response:
        assert response.headers["Content-Length"] == str(len(case.body))
        assert "Transfer-Encoding" not in response.headers
        assert await response.read() == case.body


@pytest.mark.parametrize("chunked", [False, True])
async def test_gzip_body_is_not_decompressed(chunked, standin, memtap_server, client):
    srv = await memtap_server()
    url = srv.url + "/gzip" + ("?chunked=1" if chunked else "")
    async with client.get(url, headers={"Accept-Encoding": "gzip"}) as response:
        body = await response.read()
        assert response.headers["Content-Encoding"] == "gzip"
        if chunked:
            assert response.headers["Transfer-Encoding"] == "chunked"
        else:
            assert response.headers["Content-Length"] == str(len(gzip_payload()))
    assert body == gzip_payload()
    assert standin.last().headers["Accept-Encoding"] == "gzip"


async def test_chunked_response_relayed_in_order(standin, memtap_server, client):
    srv = await memtap_server()
    async with client.get(srv.url + "/chunked?count=200&size=333") as response:
        body = await response.read()
        assert response.headers["Transfer-Encoding"] == "chunked"
    assert body == b"".join(bytes([65 + i % 26]) * 333 for i in range(200))


async def test_50mb_download_is_byte_exact(standin, memtap_server, client):
    size = 50 * 1024 * 1024
    srv = await memtap_server()
    expected = hashlib.sha256()
    for block in pattern_bytes(size):
        expected.update(block)
    received = hashlib.sha256()
    total = 0
    async with client.get(f"{srv.url}/bytes/{size}") as response:
        assert response.headers["Content-Length"] == str(size)
        async for chunk in response.content.iter_any():
            received.update(chunk)
            total += len(chunk)
    assert total == size
    assert received.hexdigest() == expected.hexdigest()
    assert srv.metrics.bytes_relayed.value("downstream") == size


async def test_streamed_chunked_request_body_arrives_intact(
    standin, memtap_server, client
):
    srv = await memtap_server()
    parts = [bytes([i]) * 10_000 for i in range(50)]

    async def produce() -> AsyncIterator[bytes]:
        for part in parts:
            yield part

    async with client.post(
        srv.url + "/echo",
        data=produce(),
        headers={"Content-Type": "application/x-test"},
    ) as r:
        assert r.status == 200
        assert await r.read() == b"".join(parts)
    received = standin.last()
    assert received.body == b"".join(parts)
    assert (
        "Content-Length" not in received.headers
    )  # unknown length stays chunked upstream


async def test_hop_by_hop_headers_removed_both_ways(standin, memtap_server, client):
    srv = await memtap_server()
    reply_headers = {
        "Content-Type": "application/json",
        "Connection": "X-Drop-Me-Too",
        "X-Drop-Me-Too": "1",
        "Keep-Alive": "timeout=5",
        "Proxy-Authenticate": "Basic",
        "Trailer": "X-Checksum",
        "Upgrade": "h2c",
        "X-Kept": "yes",
    }
    standin.enqueue(Reply(headers=reply_headers, chunks=[b"{}"]))
    request_headers = {
        "Connection": "keep-alive, X-Hop",
        "X-Hop": "secret-hop",
        "Keep-Alive": "timeout=5",
        "Proxy-Authorization": "Basic Zm9vOmJhcg==",
        "Proxy-Connection": "keep-alive",
        "TE": "trailers",
        "Upgrade": "websocket",
        "X-Memtap-Session": "s1",
        "X-Memtap-Memory": "off",
        "X-Custom": "kept",
        "Host": "example.invalid",
    }
    async with client.get(srv.url + "/anything", headers=request_headers) as response:
        assert response.status == 200
        for name in (
            "X-Drop-Me-Too",
            "Keep-Alive",
            "Proxy-Authenticate",
            "Trailer",
            "Upgrade",
        ):
            assert name not in response.headers, name
        assert response.headers["X-Kept"] == "yes"
    sent = standin.last().headers
    for name in (
        "X-Hop",
        "Keep-Alive",
        "Proxy-Authorization",
        "Proxy-Connection",
        "TE",
        "Upgrade",
    ):
        assert name not in sent, name
    assert "X-Memtap-Session" not in sent and "X-Memtap-Memory" not in sent
    assert sent["X-Custom"] == "kept"
    assert sent["Host"] == f"127.0.0.1:{standin.port}"
    assert (
        sent.get("Connection", "keep-alive").lower() == "keep-alive"
    )  # aiohttp's own, not the client's


async def test_proxy_adds_no_request_headers(standin, memtap_server):
    """Only the client's headers (plus Host) reach the upstream: no User-Agent, Accept,
    Accept-Encoding or Content-Type invented by the HTTP client library."""
    srv = await memtap_server()
    reader, writer = await _raw_connection(srv.url)
    writer.write(
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nX-Only: 1\r\n\r\nabc"
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    writer.close()
    received = standin.last()
    assert sorted(k.lower() for k in received.headers) == [
        "content-length",
        "host",
        "x-only",
    ]
    assert received.body == b"abc"


@pytest.mark.parametrize("split", [False, True])
async def test_request_body_with_length_arrives_whole_in_one_packet_or_later(
    split, standin, memtap_server
):
    """A body that came with the head goes upstream as ready bytes, one that is still
    arriving is streamed: both reach the upstream intact with the client's Content-Length,
    and both count as bytes relayed upstream."""
    srv = await memtap_server()
    body = b'{"model":"m","input":"' + b"x" * 3000 + b'"}'
    head = b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body)
    reader, writer = await _raw_connection(srv.url)
    if split:
        writer.write(head + body[:100])
        await writer.drain()
        await asyncio.sleep(0.05)  # the handler starts with the body incomplete
        writer.write(body[100:])
    else:
        writer.write(head + body)
    await writer.drain()
    response_head = await reader.readuntil(b"\r\n\r\n")
    assert response_head.startswith(b"HTTP/1.1 200")
    writer.close()
    received = standin.last()
    assert received.body == body
    assert received.headers["Content-Length"] == str(len(body))
    assert "Transfer-Encoding" not in received.headers
    for _ in range(100):  # the access log's metrics follow the response's last byte
        if srv.metrics.bytes_relayed.value("upstream"):
            break
        await asyncio.sleep(0.01)
    assert srv.metrics.bytes_relayed.value("upstream") == len(body)


async def _raw_connection(
    url: str,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    parsed = URL(url)
    return await asyncio.open_connection(parsed.host, parsed.port)


async def test_repeated_headers_preserved_both_ways(standin, memtap_server, client):
    srv = await memtap_server()
    cookies = [
        ("Content-Type", "text/plain"),
        ("Set-Cookie", "a=1"),
        ("Set-Cookie", "b=2"),
    ]
    standin.enqueue(Reply(headers=cookies, chunks=[b"ok"]))
    reader, writer = await _raw_connection(srv.url)
    writer.write(b"GET /y HTTP/1.1\r\nHost: x\r\nX-Multi: 1\r\nX-Multi: 2\r\n\r\n")
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    writer.close()
    assert b"Set-Cookie: a=1\r\n" in head and b"Set-Cookie: b=2\r\n" in head
    assert standin.last().headers.getall("X-Multi") == ["1", "2"]


@pytest.mark.parametrize(
    "method", ["GET", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND"]
)
async def test_every_method_and_raw_path_passes_through(
    method, standin, memtap_server, client
):
    srv = await memtap_server()
    # "%0A" decodes to a newline in the path that routing matches: still proxied.
    target = "/v1/files/a%2Fb/c%20d;x=1/line%0Abreak?q=%E2%9C%93&key2=&empty"

    async with client.request(
        method, URL(srv.url + target, encoded=True), data=b"payload"
    ) as response:
        assert response.status == 200
    received = standin.last()
    assert received.method == method
    assert received.path == target
    assert received.body == b"payload"


async def test_head_request_keeps_content_length_without_body(standin, memtap_server):
    srv = await memtap_server()
    reader, writer = await _raw_connection(srv.url)
    writer.write(
        b"HEAD /bytes/1234 HTTP/1.1\r\nHost: x\r\n\r\nGET /bytes/5 HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert b"Content-Length: 1234" in head
    # The next response on the same connection starts right away: no body bytes after HEAD.
    second = await reader.readuntil(b"\r\n\r\n")
    assert second.startswith(b"HTTP/1.1 200")
    assert await reader.readexactly(5) == pattern_bytes(5)[0]
    writer.close()


async def test_longest_prefix_selects_upstream(
    standin, memtap_server, memtap_config, client
):
    async with Standin() as anthropic:
        config = memtap_config(
            upstreams=(
                UpstreamConfig(name="openai", url=standin.url, prefix="/"),
                UpstreamConfig(
                    name="anthropic", url=anthropic.url + "/base", prefix="/anthropic"
                ),
                UpstreamConfig(
                    name="anthropic-beta",
                    url=anthropic.url + "/beta/",
                    prefix="/anthropic/beta/",
                ),
            )
        )
        srv = await memtap_server(config)
        for path, upstream, expected in [
            ("/v1/models", standin, "/v1/models"),
            ("/anthropic/v1/messages?x=1", anthropic, "/base/v1/messages?x=1"),
            ("/anthropic", anthropic, "/base/"),
            ("/anthropic/beta/v1/messages", anthropic, "/beta/v1/messages"),
            ("/anthropicx/v1", standin, "/anthropicx/v1"),
        ]:
            async with client.get(srv.url + path) as response:
                assert response.status == 200, path
            assert upstream.last().path == expected, path


async def test_connection_pool_reuses_upstream_connections(
    standin, memtap_server, client
):
    srv = await memtap_server()
    for _ in range(5):
        async with client.get(srv.url + "/anything") as response:
            await response.read()
    # One pooled keep-alive connection served all five requests.
    assert len({r.peer for r in standin.requests}) == 1


async def test_json_response_parses(standin, memtap_server, client):
    srv = await memtap_server()
    async with client.post(
        srv.url + "/v1/chat/completions", json={"model": "m", "messages": []}
    ) as response:
        payload = json.loads(await response.read())
        assert response.headers["x-request-id"] == "req_standin"
    assert payload["choices"][0]["message"]["content"] == standin.reply_text


async def test_expect_100_continue_answered_by_memtap(standin, memtap_server):
    srv = await memtap_server()
    reader, writer = await _raw_connection(srv.url)
    writer.write(
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"
    )
    await writer.drain()
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 100 Continue")
    writer.write(b"hello")
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    assert await reader.readexactly(5) == b"hello"
    writer.close()
    assert "Expect" not in standin.last().headers
    assert standin.last().body == b"hello"


async def test_http10_client_gets_close_delimited_stream(standin, memtap_server):
    srv = await memtap_server()
    reader, writer = await _raw_connection(srv.url)
    writer.write(b"GET /chunked?count=3&size=4 HTTP/1.0\r\nHost: x\r\n\r\n")
    await writer.drain()
    raw = await reader.read()  # until memtap closes the connection
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200")
    assert b"Transfer-Encoding" not in head
    assert body == b"AAAABBBBCCCC"


async def test_a_response_without_content_type_or_server_gets_none(
    memtap_server, memtap_config
):
    """aiohttp would give such an answer `Content-Type: application/octet-stream` and its
    own `Server`: memtap relays what the upstream said (a `Date` is added, as a proxy must
    when there is none)."""

    async def bare(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Upstream: bare\r\n\r\nhello"
        )
        await writer.drain()
        writer.close()

    upstream = await asyncio.start_server(bare, "127.0.0.1", 0)
    port = upstream.sockets[0].getsockname()[1]
    try:
        srv = await memtap_server(
            memtap_config(
                upstreams=(UpstreamConfig(name="bare", url=f"http://127.0.0.1:{port}"),)
            )
        )
        reader, writer = await asyncio.open_connection("127.0.0.1", URL(srv.url).port)
        writer.write(b"GET /anything HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), 10)
        writer.close()
    finally:
        upstream.close()
        await upstream.wait_closed()
    head, _, body = raw.partition(b"\r\n\r\n")
    names = {line.split(b":", 1)[0].lower() for line in head.split(b"\r\n")[1:]}
    assert body == b"hello" and b"x-upstream" in names
    assert b"content-type" not in names and b"server" not in names
    assert b"date" in names
