"""Helpers for the admin API tests: start memtap (in-process, real socket, real SQLite in
tmp_path) with memory on, and call `/_memtap/...` over HTTP."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
from multidict import CIMultiDictProxy

from memtap.config.schema import (
    AdminConfig,
    Config,
    EmbeddingConfig,
    MemoryConfig,
    VectorStoreConfig,
)
from memtap.engine.engine import Engine
from tests.conftest import MemtapServer

TOKEN = "test-admin-token-7f3a9c"
OWNER = "0123456789abcdef01234567"
_DEFAULT = object()


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    body: Any
    headers: CIMultiDictProxy[str]
    raw: bytes

    @property
    def error_code(self) -> str | None:
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return str(self.body["error"].get("code"))
        return None


@dataclass(slots=True)
class Admin:
    server: MemtapServer
    http: aiohttp.ClientSession
    token: str | None

    @property
    def url(self) -> str:
        return self.server.url + "/_memtap"

    @property
    def engine(self) -> Engine:
        engine = self.server.runtime.engine
        assert isinstance(engine, Engine), self.server.runtime.engine_error
        return engine

    async def call(
        self,
        method: str,
        path: str,
        *,
        json: Any = _DEFAULT,
        data: bytes | str | None = None,
        params: Mapping[str, str] | None = None,
        token: Any = _DEFAULT,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        sent = dict(headers or {})
        use = self.token if token is _DEFAULT else token
        if use is not None:
            sent["Authorization"] = f"Bearer {use}"
        kwargs: dict[str, Any] = {"headers": sent, "params": params}
        if json is not _DEFAULT:
            kwargs["json"] = json
        if data is not None:
            kwargs["data"] = data
        url = path if path.startswith("http") else self.url + path
        async with self.http.request(method, url, **kwargs) as response:
            raw = await response.read()
            body: Any = None
            if response.content_type == "application/json":
                body = await response.json()
            return Reply(response.status, body, response.headers, raw)

    async def create(self, **fields: Any) -> dict[str, Any]:
        fields.setdefault("owner", OWNER)
        reply = await self.call("POST", "/api/memories", json=fields)
        assert reply.status == 201, reply.body
        return dict(reply.body)


def admin_config(
    memtap_config: Callable[..., Config], *, token: str | None = TOKEN, **changes: Any
) -> Config:
    """Memory on, no embeddings and no vector tier (fast, deterministic): keyword + recent."""
    changes.setdefault("memory", MemoryConfig(enabled=True, strategy="keyword"))
    changes.setdefault("embedding", EmbeddingConfig(source="none"))
    changes.setdefault("vector_store", VectorStoreConfig(kind="none"))
    changes.setdefault("admin", AdminConfig(token=token))
    return memtap_config(**changes)


async def start_admin(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    *,
    token: str | None = TOKEN,
    **changes: Any,
) -> Admin:
    server = await memtap_server(admin_config(memtap_config, token=token, **changes))
    assert server.runtime.engine is not None, server.runtime.engine_error
    return Admin(server, http, token)


def with_memory(config: Config, **memory_changes: Any) -> Config:
    return dataclasses.replace(
        config, memory=dataclasses.replace(config.memory, **memory_changes)
    )


async def import_conversations(
    url: str, records: list[dict[str, Any]]
) -> dict[str, Any]:
    """`records` (one turn each, the contract's fields) through memtap's conversation
    import at `url`, as NDJSON; asserts it was taken; its report."""
    body = "\n".join(json.dumps(r) for r in records).encode()
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            url + "/_memtap/api/import/conversations",
            data=body,
            headers={"Content-Type": "application/x-ndjson"},
        ) as r,
    ):
        assert r.status == 200, await r.text()
        return dict(await r.json())
