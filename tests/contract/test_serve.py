"""`memtap serve` process behaviour of the contract: SIGTERM/SIGINT exit 0, also when the
signal arrives while memtap is still starting (opening the store, loading the model)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import MemtapProcess
from tests.support.standin import Standin

MEMTAP = str(Path(sys.executable).with_name("memtap"))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.slow
async def test_signal_during_startup_exits_0(tmp_path: Path, sig: int) -> None:
    proc = await asyncio.create_subprocess_exec(
        MEMTAP,
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--data-dir",
        str(tmp_path / "data"),
        "--upstream",
        "http://127.0.0.1:9",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=str(tmp_path),
        env={k: v for k, v in os.environ.items() if not k.startswith("MEMTAP_")},
    )
    assert proc.stderr is not None and proc.stdout is not None
    # The first log event comes from opening the store, well before the port is bound.
    first = await asyncio.wait_for(proc.stderr.readline(), 30)
    assert json.loads(first)["event"]
    proc.send_signal(sig)
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, (first + err).decode()[-2000:]
    events = [
        json.loads(line)["event"] for line in err.splitlines() if line.startswith(b"{")
    ]
    assert "server.start_cancelled" in events or "server.stopped" in events
    assert b"Traceback" not in err


@pytest.mark.slow
async def test_no_config_file_runs_on_built_in_defaults(
    memtap_process: Callable[..., Awaitable[MemtapProcess]],
    standin: Standin,  # the fixture writes (but here does not pass) a config naming it
    tmp_path: Path,
) -> None:
    assert not (tmp_path / "config" / "memtap.yaml").exists()
    server = await memtap_process(config_file=False, args=["--listen", "127.0.0.1:0"])
    assert server.stdout_lines[-1] == f"memtap listening on {server.url}"
    assert server.url.startswith("http://127.0.0.1:")
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{server.url}/_memtap/health") as response,
    ):
        assert response.status == 200
        assert (await response.json())["status"] == "ok"
    assert (tmp_path / "data" / "memtap.db").exists()  # default data_dir ./data
    assert await server.terminate() == 0


@pytest.mark.slow
async def test_debug_log_lines_are_json_events(
    memtap_process: Callable[..., Awaitable[MemtapProcess]],
    standin: Standin,
) -> None:
    server = await memtap_process(
        {"memory": {"enabled": True}, "vector_store": {"kind": "none"}},
        args=["--log-level", "debug"],
    )
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{server.url}/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "I use vim"}]},
            headers={"Authorization": "Bearer sk-debug-logs"},
        ) as response,
    ):
        assert response.status == 200
    assert await server.terminate() == 0
    lines = server.stderr_text().splitlines()
    events = [json.loads(line) for line in lines]  # every line is one JSON object
    assert {"ts", "level", "event"} <= set(events[0])
    assert "request.done" in [e["event"] for e in events]
    # Event names, not third-party chatter such as aiosqlite's per-query debug lines.
    assert all(" " not in e["event"] for e in events), [
        e["event"] for e in events if " " in e["event"]
    ][:5]
    assert not any("sk-debug-logs" in line for line in lines)
