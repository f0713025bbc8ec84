"""A bounded load test (loopback, a few seconds): concurrent streams with memory on through a
real memtap server, every body byte-exact, no errors, memory injected where the owner has a
relevant memory and nowhere else."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp

from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    VectorStoreConfig,
)
from memtap.engine.types import NewMemory
from memtap.proxy.headers import owner_id_for_key as owner_id
from tests.conftest import MemtapServer
from tests.support.standin import Standin, openai_chat_sse

OWNERS = 12
STREAMS_PER_OWNER = 4
MODEL = "gpt-4o-mini"


async def test_concurrent_streams_with_memory_are_exact_and_get_their_memory(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    standin: Standin,
    http: aiohttp.ClientSession,
) -> None:
    config = memtap_config(
        memory=MemoryConfig(
            enabled=True, strategy="keyword", retrieval_timeout_ms=2000
        ),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )
    server = await memtap_server(config)
    engine = server.runtime.engine
    assert engine is not None
    # Even owners remember a drink; odd owners have nothing relevant.
    for index in range(OWNERS):
        content = (
            f"I prefer jasmine tea number {index}"
            if index % 2 == 0
            else f"My bicycle is painted colour {index}"
        )
        await engine.create_memory(
            NewMemory(owner=owner_id(f"sk-load-{index}"), content=content)
        )
    standin.reply_text = " ".join(f"word{i}" for i in range(300))
    expected = hashlib.sha256(
        b"".join(openai_chat_sse(standin.reply_text, MODEL))
    ).hexdigest()

    async def one(index: int) -> tuple[int, str, str | None]:
        async with http.post(
            server.url + "/v1/chat/completions",
            json={
                "model": MODEL,
                "stream": True,
                "messages": [
                    {"role": "user", "content": "Which jasmine tea do I prefer?"}
                ],
            },
            headers={"Authorization": f"Bearer sk-load-{index}"},
        ) as response:
            digest = hashlib.sha256()
            async for chunk in response.content.iter_any():
                digest.update(chunk)
            return (
                response.status,
                digest.hexdigest(),
                response.headers.get("X-Memtap-Memories"),
            )

    results = await asyncio.wait_for(
        asyncio.gather(*(one(i % OWNERS) for i in range(OWNERS * STREAMS_PER_OWNER))),
        60,
    )
    for position, (status, digest, injected) in enumerate(results):
        index = position % OWNERS
        assert status == 200
        assert digest == expected, "byte-exact"
        assert injected == ("1" if index % 2 == 0 else "0"), (index, injected)

    # Upstream saw each owner's own memory, and only in the even owners' requests.
    def said(recorded: Any) -> str:
        return str(recorded.json()["messages"])

    sent = [said(r) for r in standin.requests]
    assert len(sent) == OWNERS * STREAMS_PER_OWNER
    assert (
        sum("jasmine tea number" in s for s in sent)
        == (OWNERS // 2) * STREAMS_PER_OWNER
    )
    assert not any("bicycle" in s for s in sent)
    assert server.metrics.memory_fallbacks.value("retrieval_timeout") == 0


async def test_concurrent_streams_with_the_default_install_get_their_memory(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    standin: Standin,
    http: aiohttp.ClientSession,
) -> None:
    """The default install (hybrid, the local model, sqlite-vec, the query projection) under
    48 concurrent streams: every body exact, memory where relevant and nowhere else (a
    vector hit past the floor for an unrelated owner would show), no retrieval given up.
    The time limit has room for a slow CI machine; the projection keeps a busy model's
    queries from queueing."""
    config = memtap_config(memory=MemoryConfig(enabled=True, retrieval_timeout_ms=1000))
    server = await memtap_server(config)
    engine = server.runtime.engine
    assert engine is not None
    for index in range(OWNERS):
        content = (
            "I drink jasmine tea every morning"
            if index % 2 == 0
            else "My bicycle is painted bright red"
        )
        await engine.create_memory(
            NewMemory(owner=owner_id(f"sk-hybrid-{index}"), content=content)
        )
    status = await engine.status()
    assert status["vector"]["embedding"]["query_projection"]["state"] == "ready"
    standin.reply_text = " ".join(f"word{i}" for i in range(300))
    expected = hashlib.sha256(
        b"".join(openai_chat_sse(standin.reply_text, MODEL))
    ).hexdigest()

    async def one(position: int) -> tuple[int, str, str | None]:
        index = position % OWNERS
        async with http.post(
            server.url + "/v1/chat/completions",
            json={
                "model": MODEL,
                "stream": True,
                "messages": [
                    {
                        "role": "user",
                        # Each request its own question: no shared query embedding.
                        "content": f"Which tea do I drink in the morning? ({position})",
                    }
                ],
            },
            headers={"Authorization": f"Bearer sk-hybrid-{index}"},
        ) as response:
            digest = hashlib.sha256()
            async for chunk in response.content.iter_any():
                digest.update(chunk)
            return (
                response.status,
                digest.hexdigest(),
                response.headers.get("X-Memtap-Memories"),
            )

    results = await asyncio.wait_for(
        asyncio.gather(*(one(p) for p in range(OWNERS * STREAMS_PER_OWNER))), 120
    )
    # What each request carried upstream (an owner's own earlier question may come back
    # as an episode snippet: memory of what was said, for every owner alike).
    asked = re.compile(r"^Which tea do I drink in the morning\? \((\d+)\)")
    sent: dict[int, str] = {}
    for recorded in standin.requests:
        messages = recorded.json()["messages"]
        found = asked.match(messages[-1]["content"])
        assert found is not None
        sent[int(found.group(1))] = str(messages)
    assert len(sent) == OWNERS * STREAMS_PER_OWNER
    for position, (status_code, digest, injected) in enumerate(results):
        assert status_code == 200
        assert digest == expected, "byte-exact"
        if position % OWNERS % 2 == 0:
            assert injected is not None and int(injected) >= 1, (position, injected)
            assert "I drink jasmine tea every morning" in sent[position]
        assert "bicycle" not in sent[position], (position, sent[position][-400:])
    assert server.metrics.memory_fallbacks.value("retrieval_timeout") == 0
