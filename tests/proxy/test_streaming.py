"""Streaming behaviour: no buffering, client disconnects, the official SDKs end to end."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import anthropic
import openai

OPENAI_KEY = "sk-test-openai-0123456789abcdef"
ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef"


async def _wait_for(predicate, timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


async def test_stream_is_not_buffered(standin, memtap_server, blocking_guard):
    """100 ms between upstream events; each must reach the client within 50 ms of being sent."""
    srv = await memtap_server()
    async with aiohttp.ClientSession() as client:
        with blocking_guard():
            received = await _read_timed_events(
                client, srv.url + "/sse-timed?count=6&interval_ms=100"
            )
    assert [i for i, _ in received] == list(range(6))
    sent = dict(standin.sent_at)
    lags_ms = [(at - sent[i]) * 1000 for i, at in received]
    assert max(lags_ms) < 50, lags_ms
    # And the events really were spread out: nothing waited for the end of the body.
    assert received[-1][1] - received[0][1] > 0.4


async def _read_timed_events(
    client: aiohttp.ClientSession, url: str
) -> list[tuple[int, float]]:
    received: list[tuple[int, float]] = []
    buffer = b""
    async with client.get(url) as response:
        assert response.headers["Content-Type"] == "text/event-stream"
        async for chunk in response.content.iter_any():
            now = time.monotonic()
            buffer += chunk
            while b"\n\n" in buffer:
                event, buffer = buffer.split(b"\n\n", 1)
                received.append((int(event.removeprefix(b"data: ")), now))
    return received


async def test_client_disconnect_cancels_upstream_and_keeps_serving(
    standin, memtap_server
):
    srv = await memtap_server()
    client = aiohttp.ClientSession()
    try:
        response = await client.get(srv.url + "/sse-timed?count=100&interval_ms=30")
        first = await response.content.readuntil(b"\n\n")
        assert first == b"data: 0\n\n"
        assert srv.metrics.inflight_streams.value() == 1
        response.close()  # drop the connection mid-stream
        await _wait_for(lambda: standin.disconnects == 1)
        await _wait_for(
            lambda: (
                srv.metrics.inflight.value() == 0
                and srv.metrics.inflight_streams.value() == 0
            )
        )
        assert (
            len(standin.sent_at) < 100
        )  # the upstream stream was cut short, not drained
        async with client.get(srv.url + "/v1/models") as again:
            assert again.status == 200
    finally:
        await client.close()
    assert srv.metrics.requests.value("standin", "200") == 2


async def test_client_disconnect_before_upstream_answers(standin, memtap_server):
    srv = await memtap_server()
    async with aiohttp.ClientSession() as client:
        with_timeout = aiohttp.ClientTimeout(total=0.2)
        try:
            await client.get(srv.url + "/slow?delay_ms=3000", timeout=with_timeout)
        except TimeoutError:
            pass
        else:  # pragma: no cover
            raise AssertionError("expected the client to time out")
        await _wait_for(lambda: srv.metrics.inflight.value() == 0)
        async with client.get(srv.url + "/v1/models") as again:
            assert again.status == 200
    assert srv.metrics.requests.value("standin", "499") == 1


async def test_openai_sdk_stream_and_non_stream(standin, memtap_server):
    srv = await memtap_server()
    client = openai.AsyncOpenAI(
        base_url=srv.url + "/v1", api_key=OPENAI_KEY, max_retries=0
    )
    try:
        completion = await client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "hi"}]
        )
        assert completion.choices[0].message.content == standin.reply_text
        stream = await client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        text = ""
        async for chunk in stream:
            if chunk.choices:
                text += chunk.choices[0].delta.content or ""
        assert text == standin.reply_text
    finally:
        await client.close()
    assert [r.path for r in standin.requests] == ["/v1/chat/completions"] * 2
    assert standin.last().headers["Authorization"] == f"Bearer {OPENAI_KEY}"


async def test_anthropic_sdk_stream_and_non_stream(standin, memtap_server):
    srv = await memtap_server()
    client = anthropic.AsyncAnthropic(
        base_url=srv.url, api_key=ANTHROPIC_KEY, max_retries=0
    )
    try:
        message = await client.messages.create(
            model="claude-test",
            max_tokens=64,
            messages=[{"role": "user", "content": "hi"}],
        )
        assert message.content[0].text == standin.reply_text
        async with client.messages.stream(
            model="claude-test",
            max_tokens=64,
            messages=[{"role": "user", "content": "hi"}],
        ) as stream:
            text = await stream.get_final_text()
        assert text == standin.reply_text
    finally:
        await client.close()
    assert [r.path for r in standin.requests] == ["/v1/messages"] * 2
    sent = standin.last().headers
    # SDK versions differ: x-api-key (classic) or Authorization: Bearer (newer).
    assert (
        sent.get("x-api-key") == ANTHROPIC_KEY
        or sent.get("Authorization") == f"Bearer {ANTHROPIC_KEY}"
    )


async def test_concurrent_streams_do_not_block_each_other(standin, memtap_server):
    srv = await memtap_server()

    async def one(client: aiohttp.ClientSession) -> bytes:
        async with client.get(
            srv.url + "/sse-timed?count=5&interval_ms=40"
        ) as response:
            return await response.read()

    started = time.monotonic()
    async with aiohttp.ClientSession() as client:
        bodies = await asyncio.gather(*(one(client) for _ in range(20)))
    elapsed = time.monotonic() - started
    assert all(
        body == b"".join(f"data: {i}\n\n".encode() for i in range(5)) for body in bodies
    )
    assert elapsed < 2.0  # 20 x 160 ms serially would be 3.2 s
    assert srv.metrics.inflight_streams.value() == 0
