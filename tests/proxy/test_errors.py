"""Upstream failures map to JSON errors; bad input passes through untouched."""

from __future__ import annotations

import json
import logging
import random
import socket
import time
from pathlib import Path

import aiohttp
import pytest

from memtap.config.schema import UpstreamConfig
from memtap.proxy.addons import default_addons
from memtap.proxy.flow import Flow
from memtap.proxy.pipeline import Addon
from tests.support.pki import make_pki
from tests.support.standin import Standin

API_KEY = "sk-test-errors-0123456789"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_upstream_down_is_502_json(memtap_server, memtap_config, caplog):
    caplog.set_level(logging.INFO, logger="memtap.access")
    port = _closed_port()
    config = memtap_config(
        upstreams=(UpstreamConfig(name="dead", url=f"http://127.0.0.1:{port}"),)
    )
    srv = await memtap_server(config)
    async with (
        aiohttp.ClientSession() as client,
        client.post(srv.url + "/v1/chat/completions", data=b"{}") as r,
    ):
        assert r.status == 502
        assert r.headers["Content-Type"].startswith("application/json")
        sent = await r.read()
        error = (await r.json())["error"]
    (done,) = [rec for rec in caplog.records if rec.getMessage() == "request.done"]
    assert done.fields["bytes_out"] == len(sent)  # memtap's own answer, counted
    assert error["code"] == "upstream_unreachable"
    assert error["upstream"] == "dead"
    assert error["message"]
    assert srv.metrics.upstream_errors.value("connect") == 1
    assert srv.metrics.requests.value("dead", "502") == 1


async def test_slow_upstream_is_504_json(standin, memtap_server, memtap_config):
    config = memtap_config(
        upstreams=(UpstreamConfig(name="slow", url=standin.url, timeout_s=0.3),)
    )
    srv = await memtap_server(config)
    started = time.monotonic()
    async with (
        aiohttp.ClientSession() as client,
        client.get(srv.url + "/slow?delay_ms=3000") as r,
    ):
        assert r.status == 504
        error = (await r.json())["error"]
    assert time.monotonic() - started < 2.0
    assert error["code"] == "upstream_timeout"
    assert error["upstream"] == "slow"


async def test_upstream_closing_before_headers_is_502(standin, memtap_server):
    srv = await memtap_server()
    async with (
        aiohttp.ClientSession() as client,
        client.get(srv.url + "/close-before-headers") as r,
    ):
        assert r.status == 502
        assert (await r.json())["error"]["code"] == "upstream_unreachable"


async def test_upstream_failure_after_headers_aborts_client_connection(
    standin, memtap_server
):
    srv = await memtap_server()
    async with aiohttp.ClientSession() as client:
        async with client.get(srv.url + "/close-mid-body") as r:
            assert r.status == 200
            with pytest.raises(aiohttp.ClientPayloadError):
                await r.read()
        async with client.get(srv.url + "/v1/models") as again:
            assert again.status == 200
    assert srv.metrics.upstream_errors.value("protocol") == 1


# -- TLS to the upstream -----------------------------------------------------------------


@pytest.fixture
async def tls_upstream(tmp_path: Path):
    standin = Standin(tls=make_pki(tmp_path / "pki"), fallback=lambda _: {"tls": True})
    async with standin:
        yield standin.url, standin.ca_file


async def test_untrusted_upstream_certificate_is_502_tls(
    tls_upstream, memtap_server, memtap_config
):
    url, _ = tls_upstream
    srv = await memtap_server(
        memtap_config(upstreams=(UpstreamConfig(name="tls", url=url),))
    )
    async with aiohttp.ClientSession() as client, client.get(srv.url + "/hello") as r:
        assert r.status == 502
        error = (await r.json())["error"]
    assert error["code"] == "upstream_tls"
    assert error["upstream"] == "tls"
    assert srv.metrics.upstream_errors.value("tls") == 1


async def test_upstream_ca_file_is_trusted(tls_upstream, memtap_server, memtap_config):
    url, cert_path = tls_upstream
    upstream = UpstreamConfig(name="tls", url=url, ca_file=str(cert_path))
    srv = await memtap_server(memtap_config(upstreams=(upstream,)))
    async with aiohttp.ClientSession() as client, client.get(srv.url + "/hello") as r:
        assert r.status == 200
        assert await r.json() == {"tls": True}


# -- bad input passes through ------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            b'{"model": "gpt-test", "messages": [{"role": "user", "content": "hi"',
            id="malformed-json",
        ),
        pytest.param(
            b'{"model":"gpt-test","messages":[{"role":"user","content":"\xff\xfe\xc3(broken"}]}',
            id="invalid-utf8",
        ),
        pytest.param(b"", id="empty"),
        pytest.param(b"\x00\x01binary\x00", id="binary"),
    ],
)
async def test_bad_bodies_reach_the_upstream_unchanged(body, standin, memtap_server):
    srv = await memtap_server()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"}
    url = srv.url + "/v1/chat/completions"
    async with (
        aiohttp.ClientSession() as client,
        client.post(url, data=body, headers=headers) as r,
    ):
        # The stand-in answers 400 for a body it cannot parse, as a provider would;
        # memtap relays that answer instead of inventing its own.
        assert r.status == 400
        assert (await r.json())["error"]["message"] == "invalid JSON"
    assert standin.last().body == body


async def test_10mb_body_passes_through_unchanged(standin, memtap_server):
    srv = await memtap_server()
    body = random.Random(10).randbytes(10 * 1024 * 1024)
    headers = {
        "Content-Type": "application/octet-stream",
        "Authorization": f"Bearer {API_KEY}",
    }
    async with (
        aiohttp.ClientSession() as client,
        client.post(srv.url + "/echo", data=body, headers=headers) as r,
    ):
        assert r.status == 200
        echoed = await r.read()
    assert standin.last().body == body
    assert standin.last().headers["Content-Length"] == str(len(body))
    assert echoed == body
    assert srv.metrics.bytes_relayed.value("upstream") == len(body)


async def test_unknown_route_is_404_json(standin, memtap_server, memtap_config):
    config = memtap_config(
        upstreams=(UpstreamConfig(name="only", url=standin.url, prefix="/only"),)
    )
    srv = await memtap_server(config)
    async with (
        aiohttp.ClientSession() as client,
        client.get(srv.url + "/elsewhere") as r,
    ):
        assert r.status == 404
        assert json.loads(await r.read())["error"]["code"] == "no_route"
    assert standin.requests == []


# -- the same with memory on: the body is read for the memory endpoint -------------------


@pytest.fixture
def memory_config(memtap_config):
    from memtap.config.schema import EmbeddingConfig, MemoryConfig, VectorStoreConfig

    return memtap_config(
        memory=MemoryConfig(enabled=True, strategy="keyword"),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )


class _BodyProbe(Addon):
    name = "probe"

    def __init__(self) -> None:
        self.read_bodies: list[bool] = []

    async def finished(self, flow: Flow) -> None:
        self.read_bodies.append(flow.body is not None)


BIG_JSON = json.dumps(
    {
        "model": "gpt-test",
        "messages": [{"role": "user", "content": "x" * (10 * 1024 * 1024)}],
    }
).encode()


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            b'{"model": "gpt-test", "messages": [{"role": "user", "content": "hi"',
            id="malformed-json",
        ),
        pytest.param(
            b'{"model":"gpt-test","messages":[{"role":"user","content":"\xff\xfe\xc3(broken"}]}',
            id="invalid-utf8",
        ),
        pytest.param(b"[1, 2, 3]", id="not-an-object"),
        pytest.param(BIG_JSON, id="10mb-json"),
    ],
)
async def test_bad_bodies_unchanged_with_memory_on(
    body, standin, memtap_server, memory_config
):
    probe = _BodyProbe()
    srv = await memtap_server(
        memory_config, addons=lambda runtime: [*default_addons(runtime), probe]
    )
    assert srv.runtime.engine is not None, srv.runtime.engine_error
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"}
    url = srv.url + "/v1/chat/completions"
    async with (
        aiohttp.ClientSession() as client,
        client.post(url, data=body, headers=headers) as r,
    ):
        await r.read()
    assert standin.last().body == body
    assert standin.last().headers["Content-Length"] == str(len(body))
    assert probe.read_bodies == [
        True
    ]  # memory's path: read whole, then forwarded as read


async def test_memtaps_own_502_keeps_the_memory_headers(memtap_server, memory_config):
    # The request went through memory and is in the request log: its id must reach the
    # client even when memtap answers itself because the provider is down.
    from dataclasses import replace

    port = _closed_port()
    config = replace(
        memory_config,
        upstreams=(UpstreamConfig(name="dead", url=f"http://127.0.0.1:{port}"),),
    )
    srv = await memtap_server(config)
    body = b'{"model": "m", "messages": [{"role": "user", "content": "hi there"}]}'
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"}
    async with (
        aiohttp.ClientSession() as client,
        client.post(srv.url + "/v1/chat/completions", data=body, headers=headers) as r,
    ):
        assert r.status == 502
        assert r.headers["X-Memtap-Memories"] == "0"
        assert r.headers["X-Memtap-Request-Id"]


async def test_idle_stream_is_cut_after_timeout_s(
    standin, memtap_server, memtap_config
):
    config = memtap_config(
        upstreams=(UpstreamConfig(name="slow", url=standin.url, timeout_s=0.3),)
    )
    srv = await memtap_server(config)
    async with aiohttp.ClientSession() as client:
        async with client.get(srv.url + "/sse-timed?count=3&interval_ms=1000") as r:
            assert r.status == 200
            assert await r.content.readuntil(b"\n\n") == b"data: 0\n\n"
            started = time.monotonic()
            with pytest.raises(aiohttp.ClientPayloadError):
                await r.read()
        assert (
            time.monotonic() - started < 0.9
        )  # cut by memtap, not by the upstream's next event
        async with client.get(srv.url + "/v1/models") as again:
            assert again.status == 200
    assert srv.metrics.upstream_errors.value("timeout") == 1


async def test_long_stream_with_short_gaps_is_not_cut(
    standin, memtap_server, memtap_config
):
    """timeout_s limits silence, not the stream's total duration."""
    config = memtap_config(
        upstreams=(UpstreamConfig(name="steady", url=standin.url, timeout_s=0.3),)
    )
    srv = await memtap_server(config)
    url = srv.url + "/sse-timed?count=6&interval_ms=150"
    async with aiohttp.ClientSession() as client, client.get(url) as r:
        body = await r.read()
    assert body == b"".join(f"data: {i}\n\n".encode() for i in range(6))
    assert srv.metrics.upstream_errors.value("timeout") == 0
