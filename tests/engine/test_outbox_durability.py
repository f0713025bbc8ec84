"""Durability: kill -9 a process holding 100 turns in the outbox; after a restart every turn
is extracted exactly once (no loss, no duplicate), also when the kill lands mid-extraction."""

from __future__ import annotations

import asyncio
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config, VectorStoreConfig
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.sqlite import outbox
from memtap.engine.types import ListQuery

OWNER = "d" * 24
N = 100

CHILD = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from memtap.config.holder import ConfigHolder
    from memtap.config.schema import Config, VectorStoreConfig
    from memtap.engine.factory import open_engine
    from memtap.engine.metrics import Metrics
    from memtap.engine.types import Turn

    async def main() -> None:
        data_dir, mode = sys.argv[1], sys.argv[2]
        holder = ConfigHolder(Config(data_dir=data_dir, vector_store=VectorStoreConfig(kind="none")))
        engine = await open_engine(holder, Metrics(), start_worker=False)
        for i in range(100):
            await engine.enqueue_turn(
                Turn(f"req-{i}", "OWNER_ID", None, "anthropic", f"I prefer flavour{i} ice cream.", "Noted.")
            )
        print("queued", flush=True)
        if mode == "mid":
            engine.worker.start()
            while engine.worker.processed == 0:
                await asyncio.sleep(0)
        os.kill(os.getpid(), signal.SIGKILL)

    asyncio.run(main())
    """
).replace("OWNER_ID", OWNER)


async def run_child(data_dir: Path, mode: str) -> str:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        str(data_dir),
        mode,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == -signal.SIGKILL, err.decode()[-2000:]
    return out.decode()


@pytest.mark.parametrize("mode", ["paused", "mid"])
@pytest.mark.slow
async def test_kill_9_then_restart_extracts_every_turn_exactly_once(
    tmp_path: Path, mode: str
) -> None:
    assert "queued" in await run_child(tmp_path, mode)
    holder = ConfigHolder(
        Config(data_dir=str(tmp_path), vector_store=VectorStoreConfig(kind="none"))
    )
    engine = await open_engine(holder, Metrics())
    try:
        deadline = time.monotonic() + 20
        while await engine.local.db.read(outbox.depth):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        page = await engine.list_memories(
            ListQuery(owner=OWNER, include_superseded=True, limit=1000)
        )
        assert page.total == N
        request_ids = sorted(m.metadata["request_id"] for m in page.items)
        assert request_ids == sorted(f"req-{i}" for i in range(N))
        assert sorted(m.content for m in page.items) == sorted(
            f"Prefers flavour{i} ice cream" for i in range(N)
        )
    finally:
        await engine.close()
