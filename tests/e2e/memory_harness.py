"""A memtap with memory on in front of the stand-in, and memories seeded through the admin
API (the contract's surface), for the placement and client-shape tests of this folder."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp

from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    UpstreamConfig,
    VectorStoreConfig,
)
from tests.conftest import MemtapServer
from tests.support.standin import Standin

ServerFactory = Callable[..., Awaitable[MemtapServer]]


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:24]


async def start_memtap(
    standin: Standin,
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    **memory: Any,
) -> MemtapServer:
    """memtap with memory on; `recent` ranking so every seeded memory is injected whatever
    the request asks."""
    config = memtap_config(
        upstreams=(
            UpstreamConfig(
                name="standin", url=standin.url, format="auto", timeout_s=30.0
            ),
        ),
        # A generous retrieval limit: these tests are about where memory goes, and a
        # retrieval timing out on a loaded machine would send the request on unchanged
        # (fail-open) and fail them for the wrong reason.
        memory=dataclasses.replace(
            MemoryConfig(
                enabled=True,
                strategy="recent",
                scope="owner",
                retrieval_timeout_ms=3000,
            ),
            **memory,
        ),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )
    server = await memtap_server(config)
    assert server.runtime.engine is not None, server.runtime.engine_error
    return server


async def seed(server: MemtapServer, key: str, *contents: str) -> None:
    async with aiohttp.ClientSession() as http:
        for content in contents:
            async with http.post(
                f"{server.url}/_memtap/api/memories",
                json={"owner": owner_of(key), "content": content},
            ) as response:
                assert response.status == 201, await response.text()
