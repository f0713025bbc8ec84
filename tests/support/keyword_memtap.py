"""memtap in front of the stand-in with memory on, by keywords alone (no model, no vectors):
the proxy-level tests of the memory path that need a real engine but not ranking by
meaning, optionally with one memory already stored for an API key's owner."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    UpstreamConfig,
    VectorStoreConfig,
)
from memtap.engine.types import NewMemory
from memtap.proxy.headers import owner_id_for_key
from tests.conftest import MemtapServer
from tests.support.standin import Standin


async def keyword_memtap(
    standin: Standin,
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    *,
    remembered: tuple[str, str] | None = None,
    **changes: Any,
) -> MemtapServer:
    """`remembered`: (API key, content) of a memory stored before the first request;
    `changes`: more Config fields (e.g. `server=`)."""
    config = memtap_config(
        upstreams=(UpstreamConfig(name="standin", url=standin.url, timeout_s=30.0),),
        memory=MemoryConfig(enabled=True, strategy="keyword", scope="owner"),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )
    server = await memtap_server(dataclasses.replace(config, **changes))
    engine = server.runtime.engine
    assert engine is not None, server.runtime.engine_error
    if remembered is not None:
        key, content = remembered
        await engine.create_memory(
            NewMemory(owner=owner_id_for_key(key), content=content)
        )
    return server
