"""Forward-proxy authentication on loopback, end to end through a running memtap:
`intercept.proxy_auth` makes CONNECT and absolute-URI requests need Proxy-Authorization
(407 with `Proxy-Authenticate: Basic realm="memtap"` otherwise), the header is never
forwarded and never logged, and reverse-mode requests are not affected."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import bcrypt
import orjson
import pytest

from memtap.config.schema import Config, InterceptConfig
from tests.conftest import MemtapServer
from tests.support.standin import Standin

PASSWORD = "correct-horse-battery"


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


async def exchange(port: int, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    out = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return out


def status_of(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1])


StartMemtap = Callable[..., Awaitable[MemtapServer]]


@pytest.fixture
async def guarded(
    memtap_server: StartMemtap, memtap_config: Callable[..., Config], standin: Standin
) -> MemtapServer:
    config = memtap_config(
        intercept=InterceptConfig(
            hosts=("intercepted.test",), proxy_auth=f"ann:{PASSWORD}"
        )
    )
    return await memtap_server(config)


async def test_connect_needs_credentials(
    guarded: MemtapServer, standin: Standin
) -> None:
    port = guarded.running.port
    target = standin.url.removeprefix("http://")
    for auth in ("", f"Proxy-Authorization: {basic('ann', 'wrong')}\r\n"):
        out = await exchange(port, f"CONNECT {target} HTTP/1.1\r\n{auth}\r\n".encode())
        head, _, body = out.partition(b"\r\n\r\n")
        assert status_of(head) == 407, out
        assert b'\r\nProxy-Authenticate: Basic realm="memtap"\r\n' in head
        assert orjson.loads(body)["error"]["code"] == "proxy_auth_required"
    # An intercepted host needs them too: refused before any TLS.
    out = await exchange(port, b"CONNECT intercepted.test:443 HTTP/1.1\r\n\r\n")
    assert status_of(out) == 407
    assert guarded.metrics.requests.value("tunnel", "407") == 3
    assert standin.requests == []

    request = (
        f"CONNECT {target} HTTP/1.1\r\nProxy-Authorization: {basic('ann', PASSWORD)}\r\n\r\n"
        f"GET /tunnelled HTTP/1.1\r\nHost: {target}\r\nConnection: close\r\n\r\n"
    )
    out = await exchange(port, request.encode())
    assert out.startswith(b"HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200")
    assert [r.path for r in standin.requests] == ["/tunnelled"]


async def test_absolute_uri_needs_credentials_and_the_header_stays_here(
    guarded: MemtapServer, standin: Standin, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="memtap")
    port = guarded.running.port
    url = f"{standin.url}/anything"
    out = await exchange(
        port, f"GET {url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    )
    head, _, body = out.partition(b"\r\n\r\n")
    assert status_of(head) == 407
    assert b'Proxy-Authenticate: Basic realm="memtap"' in head
    assert orjson.loads(body)["error"]["code"] == "proxy_auth_required"
    assert standin.requests == []

    header = basic("ann", PASSWORD)
    out = await exchange(
        port,
        f"GET {url} HTTP/1.1\r\nHost: x\r\nProxy-Authorization: {header}\r\n"
        "Connection: close\r\n\r\n".encode(),
    )
    assert status_of(out) == 200
    (seen,) = standin.requests
    assert "Proxy-Authorization" not in seen.headers  # never forwarded
    done = [r for r in caplog.records if r.getMessage() == "request.done"]
    assert [r.fields["status"] for r in done] == [407, 200]
    assert done[0].fields["error_kind"] == "client"
    logged = "\n".join(
        f"{r.getMessage()} {getattr(r, 'fields', '')}" for r in caplog.records
    )
    assert PASSWORD not in logged and header.split()[1] not in logged


async def test_reverse_mode_is_not_affected(
    guarded: MemtapServer, standin: Standin
) -> None:
    out = await exchange(
        guarded.running.port,
        b"GET /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    assert status_of(out) == 200
    assert [r.path for r in standin.requests] == ["/plain"]


async def test_htpasswd_file_with_bcrypt_and_sha(
    memtap_server: StartMemtap,
    memtap_config: Callable[..., Config],
    standin: Standin,
    tmp_path: Path,
) -> None:
    hashed = bcrypt.hashpw(b"bpass", bcrypt.gensalt(4)).decode()
    sha = base64.b64encode(hashlib.sha1(b"spass").digest()).decode()
    htpasswd = tmp_path / "htpasswd"
    htpasswd.write_text(f"bea:$2y${hashed[4:]}\nsam:{{SHA}}{sha}\n")
    server = await memtap_server(
        memtap_config(intercept=InterceptConfig(hosts=(), proxy_auth=f"@{htpasswd}"))
    )
    url = f"{standin.url}/x"

    async def get(user: str, password: str) -> int:
        out = await exchange(
            server.running.port,
            f"GET {url} HTTP/1.1\r\nHost: x\r\nProxy-Authorization: {basic(user, password)}"
            "\r\nConnection: close\r\n\r\n".encode(),
        )
        return status_of(out)

    assert await get("bea", "bpass") == 200
    assert await get("bea", "bpass") == 200  # the remembered bcrypt success
    assert await get("sam", "spass") == 200
    assert await get("sam", "bpass") == 407
    assert await get("nobody", "x") == 407
