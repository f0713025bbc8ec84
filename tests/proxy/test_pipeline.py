"""The addon pipeline as the proxy drives it: hook order, durability, guarded failures."""

from __future__ import annotations

import asyncio
import logging
import time

import aiohttp
import pytest

from memtap.proxy.addons import default_addons
from memtap.proxy.flow import Flow
from memtap.proxy.pipeline import Addon
from tests.support.standin import Reply


class Recorder(Addon):
    name = "recorder"

    def __init__(self, done_delay_s: float = 0.0) -> None:
        self.hooks: list[str] = []
        self.chunks: list[bytes] = []
        self.done_delay_s = done_delay_s
        self.done_finished_at: float | None = None
        self.flows: list[Flow] = []

    async def request(self, flow: Flow) -> None:
        self.hooks.append("request")
        self.flows.append(flow)

    async def response_headers(self, flow: Flow) -> None:
        self.hooks.append("response_headers")

    def response_chunk(self, flow: Flow, chunk: bytes) -> None:
        if not self.hooks or self.hooks[-1] != "response_chunk":
            self.hooks.append("response_chunk")
        self.chunks.append(chunk)

    async def response_done(self, flow: Flow) -> None:
        self.hooks.append("response_done")
        await asyncio.sleep(self.done_delay_s)
        self.done_finished_at = time.monotonic()

    async def error(self, flow: Flow, exc: BaseException) -> None:
        self.hooks.append("error")

    async def finished(self, flow: Flow) -> None:
        self.hooks.append("finished")


class Exploding(Addon):
    name = "exploding"

    async def request(self, flow: Flow) -> None:
        raise RuntimeError("request boom")

    async def response_headers(self, flow: Flow) -> None:
        raise RuntimeError("headers boom")

    def response_chunk(self, flow: Flow, chunk: bytes) -> None:
        raise RuntimeError("chunk boom")

    async def response_done(self, flow: Flow) -> None:
        raise RuntimeError("done boom")

    async def finished(self, flow: Flow) -> None:
        raise RuntimeError("finished boom")


def _with(*addons: Addon):
    return lambda runtime: [*addons, *default_addons(runtime)]


@pytest.mark.parametrize(
    "path",
    ["/v1/chat/completions", "/bytes/300000"],
    ids=["chunked-sse", "content-length"],
)
async def test_response_done_completes_before_client_sees_end(
    path, standin, memtap_server
):
    """Durability: the client's read of the whole body can only finish after response_done."""
    recorder = Recorder(done_delay_s=0.3)
    srv = await memtap_server(addons=_with(recorder))
    async with aiohttp.ClientSession() as client:
        if path.startswith("/v1"):
            response = await client.post(
                srv.url + path, json={"model": "m", "stream": True, "messages": []}
            )
        else:
            response = await client.get(srv.url + path)
        body = await response.read()
        client_end = time.monotonic()
        response.release()
    assert recorder.done_finished_at is not None
    assert client_end >= recorder.done_finished_at
    assert b"".join(recorder.chunks) == body  # observers saw every byte, in order
    assert recorder.hooks == [
        "request",
        "response_headers",
        "response_chunk",
        "response_done",
        "finished",
    ]


async def test_hooks_on_upstream_failure(memtap_server, memtap_config):
    from memtap.config.schema import UpstreamConfig

    recorder = Recorder()
    config = memtap_config(
        upstreams=(UpstreamConfig(name="dead", url="http://127.0.0.1:9"),)
    )
    srv = await memtap_server(config, addons=_with(recorder))
    async with (
        aiohttp.ClientSession() as client,
        client.get(srv.url + "/x") as response,
    ):
        assert response.status == 502
    assert recorder.hooks == ["request", "error", "finished"]
    assert recorder.flows[0].error_kind == "connect"


async def test_failing_addon_never_fails_the_request(standin, memtap_server, caplog):
    recorder = Recorder()
    srv = await memtap_server(addons=_with(Exploding(), recorder))
    request_body = {"model": "m", "stream": True, "messages": []}
    with caplog.at_level(logging.ERROR, logger="memtap.pipeline"):
        async with (
            aiohttp.ClientSession() as client,
            client.post(
                srv.url + "/v1/chat/completions", json=request_body
            ) as response,
        ):
            body = await response.read()
    assert response.status == 200
    assert body.endswith(b"data: [DONE]\n\n")
    # The addon after the exploding one still ran every hook.
    assert recorder.hooks == [
        "request",
        "response_headers",
        "response_chunk",
        "response_done",
        "finished",
    ]
    failed_hooks = {
        r.fields["hook"] for r in caplog.records if r.getMessage() == "addon.error"
    }  # type: ignore[attr-defined]
    assert failed_hooks == {
        "request",
        "response_headers",
        "response_chunk",
        "response_done",
        "finished",
    }


class Rewriter(Addon):
    name = "rewriter"

    async def request(self, flow: Flow) -> None:
        flow.body = b'{"rewritten":true}'
        flow.body_rewritten = True
        flow.extra_response_headers["X-Memtap-Memories"] = "2"


async def test_rewritten_body_gets_its_own_content_length(standin, memtap_server):
    srv = await memtap_server(addons=_with(Rewriter()))
    headers = {"Content-Type": "text/plain"}
    async with (
        aiohttp.ClientSession() as client,
        client.post(srv.url + "/echo", data=b"x" * 5000, headers=headers) as r,
    ):
        assert await r.read() == b'{"rewritten":true}'
        assert r.headers["X-Memtap-Memories"] == "2"
        assert r.headers["Content-Length"] == "18"
    received = standin.last()
    assert received.body == b'{"rewritten":true}'
    assert received.headers["Content-Length"] == "18"


async def test_flow_carries_owner_session_and_mode(standin, memtap_server):
    recorder = Recorder()
    srv = await memtap_server(addons=_with(recorder))
    async with aiohttp.ClientSession() as client:
        headers = {
            "x-goog-api-key": "AIza-test-key",
            "X-Memtap-Session": "sess-1",
            "X-Memtap-Memory": "READ",
        }
        async with client.get(srv.url + "/v1beta/models", headers=headers) as r:
            assert r.status == 200
        async with client.get(srv.url + "/v1beta/models?alt=sse&key=query-key") as r:
            assert r.status == 200
    import hashlib

    first, second = recorder.flows
    assert first.owner_id == hashlib.sha256(b"AIza-test-key").hexdigest()[:24]
    assert first.session_id == "sess-1"
    assert first.memory_mode == "read"
    assert "X-Memtap-Session" not in first.request_headers
    assert second.owner_id == hashlib.sha256(b"query-key").hexdigest()[:24]
    assert second.memory_mode == "on"
    assert len({first.request_id, second.request_id}) == 2
    assert all(len(f.request_id) == 32 for f in recorder.flows)


async def test_scripted_status_and_empty_bodies(standin, memtap_server):
    """204 / 304 and an empty 200 complete without a body and still reach response_done."""
    recorder = Recorder()
    srv = await memtap_server(addons=_with(recorder))
    standin.enqueue(Reply(status=204))
    standin.enqueue(Reply(status=304, headers={"ETag": '"abc"'}))
    standin.enqueue(Reply(status=200, headers={"Content-Type": "text/plain"}))
    async with aiohttp.ClientSession() as client:
        for status in (204, 304, 200):
            async with client.get(srv.url + "/x") as r:
                assert r.status == status
                assert await r.read() == b""
    assert recorder.hooks.count("response_done") == 3
    assert all(f.completed for f in recorder.flows)


async def test_memory_addon_leaves_the_pipeline_without_an_engine(
    standin, memtap_server
):
    srv = await memtap_server()  # memory disabled: no engine for this process
    assert srv.runtime.engine is None
    # The request log stays: it records why such requests got no memory.
    assert [a.name for a in srv.runtime.pipeline.addons] == [
        "request_log",
        "access_log",
    ]
