"""The user journey of the README, through the contract only: `memtap serve` on the committed
config/memtap.yaml (what `make run` starts) with the stand-in as upstream, the openai SDK as
the client, and the admin API to look inside."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import openai
import pytest

from tests.conftest import MemtapProcess
from tests.support.standin import Standin

REPO_CONFIG = Path(__file__).resolve().parents[2] / "config" / "memtap.yaml"
API_KEY = "sk-journey-contract"
OWNER = hashlib.sha256(API_KEY.encode()).hexdigest()[:24]


async def _get(http: aiohttp.ClientSession, url: str) -> Any:
    async with http.get(url) as response:
        assert response.status == 200
        return await response.json()


async def _outbox_drained(http: aiohttp.ClientSession, url: str) -> None:
    deadline = time.monotonic() + 30
    while (await _get(http, f"{url}/_memtap/api/engine-status"))["outbox"]["depth"]:
        assert time.monotonic() < deadline, "extraction never finished"
        await asyncio.sleep(0.05)


@pytest.mark.slow
async def test_preference_taught_once_reaches_the_next_request(
    standin: Standin,
    memtap_process: Callable[..., Awaitable[MemtapProcess]],
    tmp_path: Path,
) -> None:
    server = await memtap_process(
        config_file=False,
        args=[
            "-c",
            str(REPO_CONFIG),
            "--upstream",
            standin.url,
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            str(tmp_path / "data"),
        ],
        env={"MEMTAP_ADMIN_TOKEN": ""},
    )
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=API_KEY)
    async with aiohttp.ClientSession() as http:
        status = await _get(http, f"{server.url}/_memtap/api/engine-status")
        # The committed config's default: hybrid retrieval with the packaged ONNX model.
        assert status["memory"]["strategy"] == "hybrid"
        assert status["vector"]["available"] is True
        assert status["vector"]["kind"] == "sqlite-vec"
        assert status["embedding"].startswith("onnx:")

        first = await client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini",
            messages=[
                {"role": "user", "content": "I prefer Postgres for side projects"}
            ],
        )
        assert first.headers["x-memtap-memories"] == "0"
        assert first.parse().choices[0].message.content == standin.reply_text
        await _outbox_drained(http, server.url)

        second = await client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini",
            messages=[
                {
                    "role": "user",
                    "content": "which database should I use for my side project?",
                }
            ],
        )
        assert second.headers["x-memtap-memories"] == "1"
        sent = standin.last().json()
        assert sent["messages"][-1]["content"].startswith("which database")
        # Wherever `memory.placement` put the block (default: with the last user turn).
        injected = " ".join(
            str(m["content"]) for m in sent["messages"] if "<memtap:memories>" in str(m)
        )
        assert "Postgres" in injected
        assert "Authorization" in standin.last().headers

        async with http.post(
            f"{server.url}/_memtap/api/retrieve-preview",
            json={"owner": OWNER, "query": "which database for my side project?"},
        ) as response:
            assert response.status == 200
            preview = await response.json()
        assert "resolution" in preview
        [hit] = preview["results"]
        assert {
            "id",
            "content",
            "score",
            "tier",
            "tokens",
            "fts_rank",
            "vec_rank",
        } <= set(hit)
        assert hit["vec_rank"] == 1  # the semantic tier found it, not only keywords
    await client.close()
    assert await server.terminate() == 0
