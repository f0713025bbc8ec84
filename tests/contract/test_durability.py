"""End-to-end durability through the contract only: `memtap serve` as a subprocess, 100 turns
sent through it, SIGKILL (or SIGTERM) right after the last response, a restart on the same
data_dir, and then exactly one memory per turn (none lost, none duplicated), read over the
admin API."""

from __future__ import annotations

import asyncio
import hashlib
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.conftest import MemtapProcess
from tests.support.standin import Standin

N = 100
API_KEY = "sk-durability-contract"
OWNER = hashlib.sha256(API_KEY.encode()).hexdigest()[:24]


def _doc(standin: Standin, data_dir: Path) -> dict[str, Any]:
    return {
        "data_dir": str(data_dir),
        "upstreams": [{"name": "standin", "url": standin.url}],
        "memory": {"enabled": True},
    }


async def _chat(http: aiohttp.ClientSession, url: str, i: int) -> None:
    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": f"I prefer tool-{i} for task {i}"}],
    }
    async with http.post(
        f"{url}/v1/chat/completions",
        json=body,
        headers={"Authorization": f"Bearer {API_KEY}"},
    ) as response:
        assert response.status == 200
        assert response.headers["X-Memtap-Memories"].isdigit()
        await response.read()


async def _outbox_depth(http: aiohttp.ClientSession, url: str) -> int:
    async with http.get(f"{url}/_memtap/api/engine-status") as response:
        assert response.status == 200
        status = await response.json()
    depth = status["outbox"]["depth"]
    assert isinstance(depth, int)
    return depth


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
@pytest.mark.slow
async def test_signal_after_last_response_loses_and_duplicates_nothing(
    sig: int,
    standin: Standin,
    memtap_process: Callable[..., Awaitable[MemtapProcess]],
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "durable-data"
    first = await memtap_process(_doc(standin, data_dir))
    async with aiohttp.ClientSession() as http:
        gate = asyncio.Semaphore(16)

        async def one(i: int) -> None:
            async with gate:
                await _chat(http, first.url, i)

        await asyncio.gather(*(one(i) for i in range(N)))
        first.proc.send_signal(
            signal.SIGKILL
        )  # right after the last response completed
        assert await first.wait() == -signal.SIGKILL

        second = await memtap_process(_doc(standin, data_dir))
        deadline = time.monotonic() + 60
        while await _outbox_depth(http, second.url) > 0:
            assert time.monotonic() < deadline, "outbox never drained after restart"
            await asyncio.sleep(0.1)

        async with http.get(
            f"{second.url}/_memtap/api/memories",
            params={"owner": OWNER, "limit": "500"},
        ) as response:
            assert response.status == 200
            page = await response.json()
    contents = [item["content"] for item in page["items"]]
    assert page["total"] == N, sorted(contents)
    assert len(contents) == N
    for i in range(N):
        hits = [c for c in contents if f"tool-{i} " in c and c.endswith(f"task {i}")]
        assert len(hits) == 1, (i, hits)
    assert len(standin.requests) == N
