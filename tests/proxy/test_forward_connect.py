"""The CONNECT front (proxy/modes/connect.py, targets.py, relay.py) on real sockets, in front
of a tiny aiohttp server.

Interception is checked with real TLS: httpx through the proxy, trusting only memtap's CA.
The end-to-end tests through the whole memtap server are in test_forward_e2e.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
import pytest
from aiohttp import web

from memtap.config.schema import InterceptConfig
from memtap.proxy.modes.certs import LeafCertStore, ca_cert_path
from memtap.proxy.modes.connect import ConnectDone, ForwardProxy
from memtap.proxy.modes.targets import (
    INTERCEPT_EXTRA,
    BadConnect,
    InterceptTarget,
    host_matches,
    intercept_pattern_error,
    parse_authority,
    parse_connect_head,
)
from tests.support.pki import make_pki


@dataclass
class Front:
    port: int
    proxy: ForwardProxy
    certs: LeafCertStore
    ca_file: Path
    seen: list[tuple[str, str, InterceptTarget | None]] = field(default_factory=list)
    intercept: InterceptConfig = field(default_factory=InterceptConfig)
    done: list[ConnectDone] = field(default_factory=list)
    """What `on_done` reported: one per CONNECT that was not intercepted."""

    async def next_done(self) -> ConnectDone:
        # A tunnel ends when its sides' connection_lost run: soon after the client closes.
        for _ in range(
            1000
        ):  # generous: a loaded CI machine, a handshake that must fail
            if self.done:
                return self.done.pop(0)
            await asyncio.sleep(0.01)
        raise AssertionError("no ConnectDone reported")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
async def front(tmp_path: Path) -> AsyncIterator[Front]:
    async with _front(tmp_path) as started:
        yield started


@contextlib.asynccontextmanager
async def _front(
    tmp_path: Path,
    *,
    first_bytes_timeout_s: float = 75.0,
    head_timeout_s: float = 30.0,
    write_timeout_s: float = 120.0,
) -> AsyncIterator[Front]:
    """memtap's CONNECT front + a tiny aiohttp server that records what reached it."""
    certs = LeafCertStore(tmp_path / "data")
    holder: list[Front] = []

    async def handler(request: web.BaseRequest) -> web.StreamResponse:
        target = request.get_extra_info(INTERCEPT_EXTRA)
        body = await request.read()
        holder[0].seen.append((request.method, request.raw_path, target))
        payload = {
            "path": request.raw_path,
            "target": target.authority if target else None,
            "connection": id(request.protocol),
            "body": body.decode(),
            "secure": request.secure,
        }
        return web.Response(body=orjson.dumps(payload), content_type="application/json")

    server = web.Server(handler)
    proxy = ForwardProxy(
        server,
        lambda: holder[0].intercept,
        certs,
        handshake_timeout_s=2.0,
        connect_timeout_s=2.0,
        first_bytes_timeout_s=first_bytes_timeout_s,
        head_timeout=lambda: head_timeout_s,
        write_timeout=lambda: write_timeout_s,
        on_done=lambda d: holder[0].done.append(d),
    )
    listener = await asyncio.get_running_loop().create_server(proxy, "127.0.0.1", 0)
    await certs.ensure_ca()
    holder.append(
        Front(
            listener.sockets[0].getsockname()[1],
            proxy,
            certs,
            ca_cert_path(tmp_path / "data"),
        )
    )
    try:
        yield holder[0]
    finally:
        listener.close()
        await proxy.close()
        await server.shutdown(0.5)
        await listener.wait_closed()


@pytest.fixture
async def tls_echo(tmp_path: Path) -> AsyncIterator[tuple[int, Path]]:
    """A TLS server with its own CA (not memtap's) that echoes one line: a non-intercepted host."""
    pki = make_pki(tmp_path / "echo-pki")
    ctx, ca_file = pki.server_context(), pki.ca_file

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
            writer.write(b"echo:" + line)
            await writer.drain()
        finally:
            writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0, ssl=ctx)
    try:
        yield server.sockets[0].getsockname()[1], ca_file
    finally:
        server.close()
        await server.wait_closed()


def _client(front: Front) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        proxy=front.url,
        verify=ssl.create_default_context(cafile=str(front.ca_file)),
        trust_env=False,
    )


async def _raw(front: Front, data: bytes, *, read: bool = True) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
    writer.write(data)
    await writer.drain()
    out = await asyncio.wait_for(reader.read(), 5) if read else b""
    writer.close()
    return out


async def _still_serving(front: Front) -> None:
    async with httpx.AsyncClient(trust_env=False) as client:
        response = await client.get(f"{front.url}/alive")
    assert response.status_code == 200
    assert response.json()["path"] == "/alive"


# -- parsing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("authority", "expected"),
    [
        ("api.openai.com:443", InterceptTarget("api.openai.com", 443)),
        ("API.OpenAI.com.:8443", InterceptTarget("api.openai.com", 8443)),
        ("127.0.0.1:9", InterceptTarget("127.0.0.1", 9)),
        ("[::1]:443", InterceptTarget("::1", 443)),
    ],
)
def test_parse_authority(authority: str, expected: InterceptTarget) -> None:
    assert parse_authority(authority) == expected


@pytest.mark.parametrize(
    "line",
    [
        b"CONNECT api.openai.com HTTP/1.1",
        b"CONNECT api.openai.com:0 HTTP/1.1",
        b"CONNECT api.openai.com:70000 HTTP/1.1",
        b"CONNECT :443 HTTP/1.1",
        b"CONNECT a b:443 HTTP/1.1",
        b"CONNECT ../x:443 HTTP/1.1",
        b"CONNECT [zz]:443 HTTP/1.1",
        b"CONNECT api.openai.com:443 HTTP/2",
        b"CONNECT api.openai.com:443",
        b"CONNECT \xff\xfe:443 HTTP/1.1",
    ],
)
def test_parse_connect_rejects_malformed_lines(line: bytes) -> None:
    with pytest.raises(BadConnect):
        parse_connect_head(line + b"\r\nHost: x\r\n")


@pytest.mark.parametrize(
    ("target", "patterns", "expected"),
    [
        (InterceptTarget("api.openai.com", 443), ("api.openai.com",), True),
        (InterceptTarget("api.openai.com", 8443), ("api.openai.com",), True),
        (InterceptTarget("api.openai.com", 8443), ("api.openai.com:443",), False),
        (InterceptTarget("api.openai.com", 443), ("API.OPENAI.COM:443",), True),
        (InterceptTarget("x.openai.azure.com", 443), ("*.openai.azure.com",), True),
        (InterceptTarget("a.b.openai.azure.com", 443), ("*.openai.azure.com",), True),
        (InterceptTarget("openai.azure.com", 443), ("*.openai.azure.com",), False),
        (InterceptTarget("evil-openai.azure.com", 443), ("*.openai.azure.com",), False),
        (InterceptTarget("::1", 443), ("[::1]:443",), True),
        (InterceptTarget("::1", 444), ("[::1]:443",), False),
        (
            InterceptTarget("example.com", 443),
            ("api.openai.com", "127.0.0.1:443"),
            False,
        ),
    ],
)
def test_host_matches(
    target: InterceptTarget, patterns: tuple[str, ...], expected: bool
) -> None:
    assert host_matches(target, patterns) is expected


# -- plain HTTP passes through untouched --------------------------------------------------


async def test_plain_requests_reach_aiohttp_with_keep_alive(front: Front) -> None:
    async with httpx.AsyncClient(trust_env=False) as client:
        first = (await client.get(f"{front.url}/v1/models")).json()
        second = (await client.post(f"{front.url}/v1/chat", content=b"hello")).json()
    assert (
        first["path"] == "/v1/models"
        and first["target"] is None
        and not first["secure"]
    )
    assert second["body"] == "hello"
    assert (
        first["connection"] == second["connection"]
    )  # one connection, aiohttp's keep-alive


@pytest.mark.parametrize(
    "pieces",
    [
        [b"G", b"ET /split HTTP/1.1\r\n", b"Host: x\r\nConnection: close\r\n\r\n"],
        [b"CON", b"TENT /x HTTP/1.1\r\n\r\n"],
    ],
)
async def test_first_bytes_split_across_packets(
    front: Front, pieces: list[bytes]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
    for piece in pieces:
        writer.write(piece)
        await writer.drain()
        await asyncio.sleep(0.01)
    out = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    if pieces[0] == b"G":
        assert out.startswith(b"HTTP/1.1 200")
        assert front.seen[-1][:2] == ("GET", "/split")
    else:
        # "CON" looked like CONNECT until "T": aiohttp got every byte and answered, not memtap's front.
        assert out.startswith(b"HTTP/1.")
        assert b"bad_connect" not in out


# -- interception --------------------------------------------------------------------------


async def test_intercepted_tunnel_is_served_by_aiohttp_with_its_target(
    front: Front,
) -> None:
    front.intercept = InterceptConfig(hosts=("api.example.test",))
    async with _client(front) as client:
        first = await client.post(
            "https://api.example.test/v1/chat/completions?x=1", content=b"{}"
        )
        second = await client.get("https://api.example.test/v1/models")
    assert first.status_code == 200, first.text
    assert first.json() == {
        "path": "/v1/chat/completions?x=1",
        "target": "api.example.test",
        "connection": first.json()["connection"],
        "body": "{}",
        "secure": True,
    }
    # Keep-alive inside the tunnel: both requests on one decrypted connection.
    assert second.json()["connection"] == first.json()["connection"]
    assert front.seen[-1][2] == InterceptTarget("api.example.test", 443)
    assert first.extensions["http_version"] == b"HTTP/1.1"
    await asyncio.sleep(0.05)
    assert front.done == []  # intercepted: the requests inside log their own lines


async def test_leaf_is_generated_once_per_host(front: Front) -> None:
    front.intercept = InterceptConfig(hosts=("*.example.test",))
    for _ in range(3):
        async with _client(front) as client:  # a new client = a new CONNECT + handshake
            assert (await client.get("https://a.example.test/")).status_code == 200
    async with _client(front) as client:
        assert (await client.get("https://b.example.test:8443/")).json()[
            "target"
        ] == "b.example.test:8443"
    assert front.certs.issued == 2


async def test_client_that_does_not_trust_memtap_fails_and_memtap_keeps_serving(
    front: Front,
) -> None:
    front.intercept = InterceptConfig(hosts=("api.example.test",))
    async with httpx.AsyncClient(
        proxy=front.url, verify=ssl.create_default_context(), trust_env=False
    ) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get("https://api.example.test/")
    await _still_serving(front)
    done = (
        await front.next_done()
    )  # no request inside to log: the CONNECT itself is reported
    assert (done.outcome, done.status, done.error_kind) == ("tls_failed", 200, "client")


async def test_client_dropping_during_tls_handshake_leaves_memtap_serving(
    front: Front,
) -> None:
    front.intercept = InterceptConfig(hosts=("api.example.test",))
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
    writer.write(
        b"CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n"
    )
    await writer.drain()
    assert (await asyncio.wait_for(reader.readline(), 5)).startswith(b"HTTP/1.1 200")
    await reader.readline()
    writer.write(
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"
    )  # the start of a ClientHello, then gone
    await writer.drain()
    writer.transport.abort()
    # And one that connects, gets 200, and sends nothing until the handshake times out.
    _, writer2 = await asyncio.open_connection("127.0.0.1", front.port)
    writer2.write(b"CONNECT api.example.test:443 HTTP/1.1\r\n\r\n")
    await _still_serving(front)
    writer2.close()
    await asyncio.sleep(0.05)
    await _still_serving(front)
    # neither connection got to requests: each is reported (after the 200) as a TLS failure
    first, second = await front.next_done(), await front.next_done()
    assert {(d.outcome, d.status, d.error_kind) for d in (first, second)} == {
        ("tls_failed", 200, "client")
    }


async def test_bytes_before_200_on_intercepted_connect_are_refused(
    front: Front,
) -> None:
    front.intercept = InterceptConfig(hosts=("api.example.test",))
    out = await _raw(
        front, b"CONNECT api.example.test:443 HTTP/1.1\r\n\r\n\x16\x03\x01"
    )
    assert out.startswith(b"HTTP/1.1 400")
    done = await front.next_done()
    assert (done.target, done.outcome, done.status) == (
        "api.example.test:443",
        "bad_request",
        400,
    )


# -- tunnel, deny, errors ---------------------------------------------------------------------


async def test_blind_tunnel_relays_tls_end_to_end(
    front: Front, tls_echo: tuple[int, Path]
) -> None:
    port, echo_ca = tls_echo
    front.intercept = InterceptConfig(hosts=("api.example.test",), others="tunnel")
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
    writer.write(
        f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    )
    await writer.drain()
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
    # TLS with the real upstream: its certificate verifies against ITS CA, not memtap's.
    await writer.start_tls(
        ssl.create_default_context(cafile=str(echo_ca)), server_hostname="127.0.0.1"
    )
    peer_cert = writer.get_extra_info("peercert")
    assert peer_cert is not None
    writer.write(b"ping through the tunnel\n")
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 5) == b"echo:ping through the tunnel\n"
    writer.close()
    assert front.seen == []  # memtap's HTTP side saw no plaintext
    assert front.certs.issued == 0
    done = await front.next_done()
    assert (done.target, done.outcome, done.status, done.error) == (
        f"127.0.0.1:{port}",
        "tunnel",
        200,
        None,
    )
    # TLS records both ways: more than the plaintext, and the server's certificate is big
    assert done.bytes_in > len(b"ping through the tunnel\n") and done.bytes_out > 500
    assert done.established_ms is not None and done.duration_ms >= done.established_ms


async def test_a_client_that_stops_reading_a_tunnel_is_dropped(tmp_path: Path) -> None:
    """server.client.write_timeout_s holds for blind tunnels too: memtap's writes to a client
    that does not read stay blocked that long, then the tunnel goes, blamed on the client."""

    async def flood(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            for _ in range(
                4096
            ):  # up to 256 MiB, far more than every buffer in between
                writer.write(b"x" * 65536)
                await writer.drain()
        writer.close()

    server = await asyncio.start_server(flood, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with _front(tmp_path, write_timeout_s=0.3) as front:
        front.intercept = InterceptConfig(hosts=(), others="tunnel")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        await loop.sock_connect(sock, ("127.0.0.1", front.port))
        await loop.sock_sendall(
            sock, f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(loop.sock_recv(sock, 39), 5)
        assert head.startswith(b"HTTP/1.1 200"), head
        # ... and now the client reads nothing more.
        done = await asyncio.wait_for(front.next_done(), 10)
        assert (done.outcome, done.status, done.error_kind) == ("tunnel", 200, "client")
        assert done.error is not None and "server.client.write_timeout_s" in done.error
        sock.close()
    server.close()
    await server.wait_closed()


async def test_blind_tunnel_half_close_and_flow(front: Front) -> None:
    """A server that speaks first and one that answers after the client's EOF both work."""

    async def greet_then_echo_all(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        writer.write(b"hello\n")
        data = await reader.read()  # until the client's EOF
        writer.write(b"got %d" % len(data))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(greet_then_echo_all, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    front.intercept = InterceptConfig(hosts=(), others="tunnel")
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
        writer.write(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
        assert await asyncio.wait_for(reader.readline(), 5) == b"hello\n"
        payload = b"x" * (4 * 1024 * 1024)
        writer.write(payload)
        writer.write_eof()
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 10) == b"got %d" % len(payload)
        writer.close()
        done = await front.next_done()
        assert (done.outcome, done.status) == ("tunnel", 200)
        assert done.bytes_in == len(payload)  # client -> upstream, exactly
        assert done.bytes_out == len(b"hello\n") + len(b"got %d" % len(payload))
    finally:
        server.close()
        await server.wait_closed()


async def test_others_deny_answers_403(
    front: Front, tls_echo: tuple[int, Path]
) -> None:
    port, _ = tls_echo
    front.intercept = InterceptConfig(hosts=("api.example.test",), others="deny")
    out = await _raw(front, f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 403")
    assert orjson.loads(body)["error"]["code"] == "connect_denied"
    await _still_serving(front)
    done = await front.next_done()
    assert (done.target, done.outcome, done.status) == (
        f"127.0.0.1:{port}",
        "denied",
        403,
    )
    assert done.established_ms is None and done.bytes_in == done.bytes_out == 0


async def test_connect_to_closed_port_is_502_and_memtap_keeps_serving(
    front: Front,
) -> None:
    probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    closed_port = probe.sockets[0].getsockname()[1]
    probe.close()
    await probe.wait_closed()
    front.intercept = InterceptConfig(hosts=(), others="tunnel")
    out = await _raw(
        front, f"CONNECT 127.0.0.1:{closed_port} HTTP/1.1\r\n\r\n".encode()
    )
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 502")
    assert orjson.loads(body)["error"]["code"] == "upstream_unreachable"
    await _still_serving(front)
    done = await front.next_done()
    assert (done.outcome, done.status, done.error_kind) == (
        "unreachable",
        502,
        "upstream",
    )


@pytest.mark.parametrize(
    "data",
    [
        b"CONNECT nonsense HTTP/1.1\r\n\r\n",
        b"CONNECT host:99999 HTTP/1.1\r\n\r\n",
        b"CONNECT \r\n\r\n",
        b"CONNECT host:443 SPDY/3\r\n\r\n",
    ],
)
async def test_malformed_connect_is_400_and_memtap_keeps_serving(
    front: Front, data: bytes
) -> None:
    out = await _raw(front, data)
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), out
    assert orjson.loads(body)["error"]["code"] == "bad_connect"
    await _still_serving(front)
    done = await front.next_done()
    assert (done.outcome, done.status, done.error_kind) == (
        "bad_request",
        400,
        "client",
    )


async def test_endless_connect_head_is_refused(front: Front) -> None:
    out = await _raw(
        front, b"CONNECT host:443 HTTP/1.1\r\n" + b"X-Pad: " + b"a" * 20000
    )
    assert out.startswith(b"HTTP/1.1 431")
    await _still_serving(front)
    done = await front.next_done()
    assert (done.target, done.outcome, done.status) == ("host:443", "bad_request", 431)


async def test_client_gone_while_connecting_upstream(front: Front) -> None:
    """The client hangs up while memtap is still connecting onward: nothing leaks or crashes."""
    front.intercept = InterceptConfig(hosts=(), others="tunnel")
    # 192.0.2.1 (TEST-NET-1) does not answer: the connect hangs until the client leaves.
    _, writer = await asyncio.open_connection("127.0.0.1", front.port)
    writer.write(b"CONNECT 192.0.2.1:443 HTTP/1.1\r\n\r\n")
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.transport.abort()
    await asyncio.sleep(0.05)
    await _still_serving(front)
    done = await front.next_done()
    assert done.target == "192.0.2.1:443"
    # Where TEST-NET-1 has no route the connect fails at once: 502 before the client left.
    assert (done.status, done.error_kind) in ((None, "client"), (502, "upstream"))


async def test_close_ends_open_tunnels(
    front: Front, tls_echo: tuple[int, Path]
) -> None:
    port, _ = tls_echo
    front.intercept = InterceptConfig(hosts=(), others="tunnel")
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
    writer.write(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
    await reader.readuntil(b"\r\n\r\n")
    silent_reader, silent_writer = await asyncio.open_connection(
        "127.0.0.1", front.port
    )
    await asyncio.sleep(0.05)  # accepted, no byte sent: only the front knows about it
    await front.proxy.close()
    assert await asyncio.wait_for(reader.read(), 5) == b""
    assert await asyncio.wait_for(silent_reader.read(), 5) == b""
    writer.close()
    silent_writer.close()


def test_front_works_on_uvloop(tmp_path: Path) -> None:
    """`memtap serve` runs on uvloop: plain, intercepted, tunnelled and denied on that loop."""
    uvloop = pytest.importorskip("uvloop")

    async def scenario() -> None:
        async def echo(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter
        ) -> None:
            writer.write(b"echo:" + await reader.readline())
            await writer.drain()
            writer.close()

        echo_server = await asyncio.start_server(echo, "127.0.0.1", 0)
        echo_port = echo_server.sockets[0].getsockname()[1]
        async with _front(tmp_path) as front:
            await _still_serving(front)
            front.intercept = InterceptConfig(
                hosts=("api.example.test",), others="tunnel"
            )
            async with _client(front) as client:
                first = (await client.get("https://api.example.test/a")).json()
                second = (
                    await client.post("https://api.example.test/b", content=b"x")
                ).json()
            assert first["target"] == "api.example.test" and first["secure"]
            assert second["connection"] == first["connection"] and second["body"] == "x"
            reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
            writer.write(f"CONNECT 127.0.0.1:{echo_port} HTTP/1.1\r\n\r\nhi\n".encode())
            assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
            assert await asyncio.wait_for(reader.read(), 5) == b"echo:hi\n"
            writer.close()
            front.intercept = InterceptConfig(hosts=(), others="deny")
            assert (
                await _raw(front, b"CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n")
            ).startswith(b"HTTP/1.1 403")
            await _still_serving(front)
        echo_server.close()
        await echo_server.wait_closed()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(scenario())


@pytest.mark.parametrize(
    "pattern",
    [
        "api.openai.com",
        "api.openai.com:443",
        "*.openai.azure.com",
        "127.0.0.1:8443",
        "[::1]:443",
        "[::1]",
    ],
)
def test_valid_intercept_patterns(pattern: str) -> None:
    assert intercept_pattern_error(pattern) is None


@pytest.mark.parametrize(
    "pattern",
    [
        "https://api.openai.com",
        "api.openai.com/v1",
        "api.openai.com:0",
        "host:x",
        "::1",
        "[zz]:1",
        "",
    ],
)
def test_invalid_intercept_patterns(pattern: str) -> None:
    assert intercept_pattern_error(pattern)


async def test_silent_connections_are_closed_until_aiohttp_owns_them(
    tmp_path: Path,
) -> None:
    async with _front(tmp_path, first_bytes_timeout_s=0.2, head_timeout_s=0.3) as front:
        silent = await asyncio.open_connection("127.0.0.1", front.port)
        partial = await asyncio.open_connection("127.0.0.1", front.port)
        partial[1].write(
            b"CONNECT api.example.test:443 HTTP/1.1\r\n"
        )  # head never finished
        assert await asyncio.wait_for(silent[0].read(), 5) == b""
        # A CONNECT head that began but never ended gets the head timeout: 408, reported.
        answer = await asyncio.wait_for(partial[0].read(), 5)
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert b"server.client.head_timeout_s" in answer
        (done,) = [d for d in front.done if d.status == 408]
        assert done.error_kind == "client"
        # A connection that did send a request is aiohttp's: the timer no longer applies.
        reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
        writer.write(b"GET /kept HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
        await asyncio.sleep(0.4)
        writer.write(b"GET /still HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert b"/still" in await asyncio.wait_for(reader.read(), 5)
        for _, w in (silent, partial, (reader, writer)):
            w.close()


async def test_sni_selects_a_cached_leaf_for_another_name(front: Front) -> None:
    """CONNECT to an IP with SNI naming a host: the client gets that host's leaf when cached."""
    front.intercept = InterceptConfig(hosts=("127.0.0.1", "named.example.test"))
    await front.certs.context_for("named.example.test")
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
    writer.write(b"CONNECT 127.0.0.1:443 HTTP/1.1\r\n\r\n")
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
    verify = ssl.create_default_context(cafile=str(front.ca_file))
    await writer.start_tls(
        verify, server_hostname="named.example.test"
    )  # verifies the name
    writer.write(
        b"GET /sni HTTP/1.1\r\nHost: named.example.test\r\nConnection: close\r\n\r\n"
    )
    out = await asyncio.wait_for(reader.read(), 5)
    assert out.startswith(b"HTTP/1.1 200")
    assert (
        orjson.loads(out.partition(b"\r\n\r\n")[2])["target"] == "127.0.0.1"
    )  # routing: CONNECT target
    writer.close()
