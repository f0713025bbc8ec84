"""A request body uploaded chunked (no Content-Length, as a client streaming its upload
sends it) gets memory like any other when it fits `server.max_rewrite_body_bytes`; larger,
it goes upstream byte for byte, streamed, with memory out of it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import orjson

from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    ServerConfig,
    VectorStoreConfig,
)
from tests.conftest import MemtapServer
from tests.support.standin import Standin

ServerFactory = Callable[..., Awaitable[MemtapServer]]
LIMIT = 64 * 1024


async def start(
    memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> MemtapServer:
    config = memtap_config(
        memory=MemoryConfig(enabled=True, strategy="keyword", scope="owner"),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
        server=ServerConfig(max_rewrite_body_bytes=LIMIT),
    )
    server = await memtap_server(config)
    assert server.runtime.engine is not None, server.runtime.engine_error
    return server


def chat(text: str) -> bytes:
    return orjson.dumps(
        {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]}
    )


async def in_pieces(body: bytes, size: int = 7) -> AsyncIterator[bytes]:
    for start_at in range(0, len(body), size):
        yield body[start_at : start_at + size]
        await asyncio.sleep(0)


async def post_chunked(server: MemtapServer, body: bytes) -> aiohttp.ClientResponse:
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            server.url + "/v1/chat/completions",
            data=in_pieces(body, size=max(7, len(body) // 50)),
            headers={
                "Authorization": "Bearer sk-chunked-upload",
                "Content-Type": "application/json",
            },
        ) as response,
    ):
        await response.read()
        assert response.status == 200
        return response


async def test_a_chunked_upload_gets_memory_and_its_turn_is_remembered(
    memtap_server: ServerFactory, memtap_config: Callable[..., Config], standin: Standin
) -> None:
    server = await start(memtap_server, memtap_config)
    first = await post_chunked(server, chat("My uncle is called Gustavo."))
    assert first.headers["X-Memtap-Memories"] == "0"
    assert standin.last().headers.get("Transfer-Encoding") is None
    assert orjson.loads(standin.last().body) == orjson.loads(
        chat("My uncle is called Gustavo.")
    )
    answer = await post_chunked(server, chat("What is my uncle called?"))
    assert int(answer.headers["X-Memtap-Memories"]) >= 1
    assert "Gustavo" in standin.last().body.decode()


async def test_a_chunked_upload_past_the_limit_streams_through_unchanged(
    memtap_server: ServerFactory, memtap_config: Callable[..., Config], standin: Standin
) -> None:
    server = await start(memtap_server, memtap_config)
    body = chat("My uncle is called Gustavo. " + "la " * LIMIT)
    response = await post_chunked(server, body)
    assert "X-Memtap-Memories" not in response.headers
    assert standin.last().body == body
