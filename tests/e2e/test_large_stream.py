"""Bounded capture through a real memtap process: a 200 MB streamed answer with memory on is
relayed byte-exact while memtap's memory stays flat, and the turn it queues keeps only the
tail the extractor reads, with the cut counted (never dropped silently)."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from memtap.engine.limits import MAX_TURN_TEXT_CHARS
from tests.conftest import MemtapProcess
from tests.support.standin import Standin

STREAM_BYTES = 200 * 1024 * 1024
RSS_GROWTH_LIMIT = 80 * 1024 * 1024
"""Well under the stream: before bounded capture the answer's text alone (~200 MB) stayed in
memory until the turn was queued."""
DB_LIMIT = 16 * 1024 * 1024


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"{field} not in /proc/{pid}/status")


def _reset_peak(pid: int) -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False when not permitted."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


async def _stream(
    http: aiohttp.ClientSession, url: str, size: int, text: str
) -> tuple[int, str, dict[str, str]]:
    digest = hashlib.sha256()
    received = 0
    async with http.post(
        url + "/v1/chat/completions",
        json={
            "model": "gpt-4o-mini",
            "stream": True,
            "messages": [{"role": "user", "content": text}],
        },
        headers={
            "Authorization": "Bearer sk-large-stream",
            "x-standin-sse-bytes": str(size),
        },
        timeout=aiohttp.ClientTimeout(total=300),
    ) as response:
        assert response.status == 200
        async for chunk in response.content.iter_any():
            digest.update(chunk)
            received += len(chunk)
        return received, digest.hexdigest(), dict(response.headers)


async def _captured(proc: MemtapProcess, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 20
    while True:
        events = [e for e in proc.log_events() if e.get("event") == "memory.captured"]
        if len(events) >= count or time.monotonic() > deadline:
            return events
        await asyncio.sleep(0.1)


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.slow
async def test_a_200mb_answer_costs_constant_memory_and_a_bounded_turn(
    memtap_process: Callable[..., Awaitable[MemtapProcess]],
    standin: Standin,
    http: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    proc = await memtap_process(
        {
            "memory": {
                "enabled": True,
                "strategy": "keyword",
                "extract_from": ["user", "assistant"],
            },
            "embedding": {"source": "none"},
            "vector_store": {"kind": "none"},
        }
    )
    pid = proc.proc.pid
    # Warm up every lazily built piece (owner, store, codec) with a small stream first.
    await _stream(http, proc.url, 256 * 1024, "I prefer tea.")
    assert len(await _captured(proc, 1)) == 1
    before_kib = _status_kib(pid, "VmRSS")
    peak_reset = _reset_peak(pid)

    # A long user message too: the request body is read whole, but only its tail is queued.
    user_text = "I prefer green tea. " * 10_000  # 200,000 characters
    received, digest, headers = await _stream(http, proc.url, STREAM_BYTES, user_text)

    assert standin.big_sent is not None
    sent, sent_digest, content_chars = standin.big_sent
    assert (received, digest) == (sent, sent_digest), "relayed byte-exact"
    assert headers.get("X-Memtap-Memories") is not None
    peak_kib = _status_kib(pid, "VmHWM" if peak_reset else "VmRSS")
    growth = (peak_kib - before_kib) * 1024
    assert growth < RSS_GROWTH_LIMIT, (
        f"RSS grew {growth / 2**20:.0f} MiB for a 200 MB answer"
    )

    captured = (await _captured(proc, 2))[-1]
    fields = captured.get("fields", captured)
    assert fields["assistant_chars"] == MAX_TURN_TEXT_CHARS
    assert fields["user_chars"] == MAX_TURN_TEXT_CHARS
    assert fields["truncated_chars"] == (content_chars - MAX_TURN_TEXT_CHARS) + (
        len(user_text) - MAX_TURN_TEXT_CHARS
    )
    # The outbox row (and so the database and its WAL) stayed bounded too.
    data = tmp_path / "data"
    on_disk = sum(p.stat().st_size for p in data.rglob("*.db*") if p.is_file())
    assert on_disk < DB_LIMIT, f"database files hold {on_disk} bytes"
