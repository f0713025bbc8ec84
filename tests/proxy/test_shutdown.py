"""Graceful shutdown of a real `memtap serve` process."""

from __future__ import annotations

import asyncio
import signal
import time

import aiohttp
import pytest


async def _read_events(response: aiohttp.ClientResponse) -> list[bytes]:
    events = []
    buffer = b""
    async for chunk in response.content.iter_any():
        buffer += chunk
        while b"\n\n" in buffer:
            event, buffer = buffer.split(b"\n\n", 1)
            events.append(event)
    return events


@pytest.mark.parametrize(
    "sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"]
)
@pytest.mark.slow
async def test_signal_during_stream_lets_it_finish_then_exits_0(
    sig, standin, memtap_process
):
    proc = await memtap_process()
    async with aiohttp.ClientSession() as client:
        response = await client.get(proc.url + "/sse-timed?count=8&interval_ms=100")
        assert await response.content.readuntil(b"\n\n") == b"data: 0\n\n"
        proc.proc.send_signal(sig)
        rest = await _read_events(response)
        response.release()
        # Once stopping, memtap accepts no new connections.
        await asyncio.sleep(0.1)
        with pytest.raises(aiohttp.ClientConnectionError):
            async with client.get(
                proc.url + "/v1/models", headers={"Connection": "close"}
            ) as late:
                await late.read()
    assert rest == [f"data: {i}".encode() for i in range(1, 8)]
    assert await proc.wait() == 0
    events = [e["event"] for e in proc.log_events()]
    assert (
        events.index("server.stopping")
        < events.index("request.done")
        < events.index("server.stopped")
    )


@pytest.mark.slow
async def test_grace_period_bounds_shutdown(standin, memtap_process):
    proc = await memtap_process({"server": {"shutdown_grace_s": 0.5}})
    async with aiohttp.ClientSession() as client:
        response = await client.get(proc.url + "/sse-timed?count=100&interval_ms=100")
        await response.content.readuntil(b"\n\n")
        started = time.monotonic()
        proc.proc.send_signal(signal.SIGTERM)
        with pytest.raises(aiohttp.ClientPayloadError):
            await _read_events(response)  # cut off when the grace runs out
        response.release()
    assert await proc.wait() == 0
    assert time.monotonic() - started < 5.0
    done = [e for e in proc.log_events() if e["event"] == "request.done"]
    assert done and done[0]["error_kind"] == "client"


@pytest.mark.slow
async def test_idle_shutdown_is_immediate(standin, memtap_process):
    proc = await memtap_process()
    async with (
        aiohttp.ClientSession() as client,
        client.get(proc.url + "/v1/models") as response,
    ):
        assert response.status == 200
    started = time.monotonic()
    assert await proc.terminate() == 0
    assert time.monotonic() - started < 3.0


@pytest.mark.slow
async def test_engine_closes_after_in_flight_streams(standin, memtap_process):
    doc = {
        "memory": {"enabled": True, "strategy": "keyword"},
        "embedding": {"source": "none"},
        "vector_store": {"kind": "none"},
    }
    proc = await memtap_process(doc)
    async with aiohttp.ClientSession() as client:
        response = await client.get(proc.url + "/sse-timed?count=4&interval_ms=100")
        await response.content.readuntil(b"\n\n")
        proc.proc.send_signal(signal.SIGTERM)
        assert len(await _read_events(response)) == 3
        response.release()
    assert await proc.wait() == 0
    events = [e["event"] for e in proc.log_events()]
    assert "memory.engine_started" in events
    order = [
        events.index(name)
        for name in (
            "server.stopping",
            "request.done",
            "memory.closed",
            "server.stopped",
        )
    ]
    assert order == sorted(order), events
