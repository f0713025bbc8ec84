"""The semantic tier inside a running memtap: engine-status, retrieve-preview, `memtap reindex`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from memtap.config.schema import Config, MemoryConfig
from memtap.engine.types import NewMemory
from memtap.proxy.cli.main import main as memtap_main


async def test_status_preview_and_cli_reindex(
    standin: Any,
    memtap_server: Callable[..., Awaitable[Any]],
    memtap_config: Callable[..., Config],
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = memtap_config(
        # A limit long enough that the first retrieval of a cold engine on a loaded box
        # is not shed to the keyword leg (the shed point is a share of it): this preview
        # is found by meaning alone.
        memory=MemoryConfig(
            enabled=True,
            strategy="hybrid",
            min_similarity=0.3,
            retrieval_timeout_ms=2000,
        )
    )
    server = await memtap_server(config)
    engine = server.runtime.engine
    pg = await engine.create_memory(
        NewMemory(owner="alice", content="I prefer Postgres for side projects")
    )
    await engine.create_memory(
        NewMemory(owner="alice", content="My dog is called Pixel")
    )
    await engine.create_memory(
        NewMemory(owner="bob", content="My favourite database is MongoDB")
    )
    async with aiohttp.ClientSession() as http:
        async with http.get(server.url + "/_memtap/api/engine-status") as resp:
            status = await resp.json()
        vector = status["vector"]
        assert (
            vector["kind"] == "sqlite-vec" and vector["embedding"]["source"] == "onnx"
        )
        assert vector["embedding"]["fallbacks"][0]["cause"] == "remote_not_configured"
        body = {"owner": "alice", "query": "which database do I like?"}
        async with http.post(
            server.url + "/_memtap/api/retrieve-preview", json=body
        ) as resp:
            preview = await resp.json()
        assert resp.status == 200, preview
        assert [r["id"] for r in preview["results"]] == [pg.id]  # not bob's MongoDB
        assert preview["results"][0]["vec_rank"] == 1

    code = await asyncio.to_thread(
        memtap_main, ["reindex", "--url", server.url, "--force", "--json"]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["done"] == 3 and report["pending"] == 0 and report["finished"] is True
