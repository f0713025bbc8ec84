"""Shared helpers for the semantic-tier tests: a real migrated SQLite file with sqlite-vec,
memories written through the store, and a static table distilled once per test process
from the packaged ONNX model over a small vocabulary subset (the full build takes ~20 s)."""

from __future__ import annotations

import asyncio
import atexit
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    VectorStoreConfig,
)
from memtap.engine.clock import now_iso
from memtap.engine.embeddings.onnx import open_onnx
from memtap.engine.embeddings.static import build_static_sync
from memtap.engine.memory_rules import Live
from memtap.engine.ports import VectorIndex
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import choose_driver, load_sqlite_vec
from memtap.engine.sqlite.migrations import migrate
from memtap.engine.sqlite.sql import memories
from memtap.engine.types import Memory, NewMemory

# Frequent WordPiece ids (the bert vocabulary is roughly frequency ordered from 1996 on).
COMMON_TOKEN_IDS = range(1996, 3000)
_static_ids: dict[str, set[int]] = {}
_static_cache: dict[str, Path] = {}
_static_lock = asyncio.Lock()


@dataclass(slots=True)
class Holder:
    current: Config = field(default_factory=Config)

    def subscribe(self, callback: object) -> Callable[[], None]:
        """A fixed configuration: nothing ever changes, nothing to unsubscribe."""
        return lambda: None


def make_config(data_dir: Path, source: str = "onnx", **embedding: object) -> Config:
    return Config(
        data_dir=str(data_dir),
        memory=MemoryConfig(strategy="hybrid"),
        embedding=EmbeddingConfig(source=source, **embedding),  # type: ignore[arg-type]
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
    )


async def open_db(path: Path, with_vec: bool = True) -> Database:
    loaders = [("sqlite-vec", load_sqlite_vec)] if with_vec else []
    db = await Database.open(path, choose_driver(), extension_loaders=loaders)
    await db.write_outside_transaction(lambda conn: migrate(conn))
    return db


async def add_memory(db: Database, owner: str, content: str, **kw: object) -> Memory:
    new = NewMemory(owner=owner, content=content, **kw)  # type: ignore[arg-type]
    memory, _ = await db.write(lambda conn: memories.upsert(conn, new, now_iso()))
    return memory


async def static_table(texts: Iterable[str]) -> Path:
    """Path of a static table covering `texts` plus common tokens. Built once per process and
    rebuilt (over the union) only when a later caller needs tokens the table lacks, so the
    result never depends on which test file asked first."""
    async with _static_lock:
        teacher = await open_onnx(integer_matmul=False)  # as build_static teaches
        try:
            wanted = set(COMMON_TOKEN_IDS)
            for encoding in teacher.tokenizer.encode_batch(
                list(texts), add_special_tokens=False
            ):
                wanted.update(encoding.ids)
            covered: set[int] = _static_ids.get("ids", set())
            if "path" not in _static_cache or not wanted <= covered:
                ids = wanted | covered
                folder = tempfile.mkdtemp(prefix="memtap-static-")
                atexit.register(shutil.rmtree, folder, True)
                out = Path(folder) / "static.npz"
                await asyncio.to_thread(
                    build_static_sync, teacher, out, token_ids=sorted(ids)
                )
                _static_cache["path"] = out
                _static_ids["ids"] = ids
        finally:
            await teacher.close()
        return _static_cache["path"]


class EmbeddingsServer:
    """An OpenAI-compatible `/v1/embeddings` on 127.0.0.1:0: deterministic bag-of-words
    vectors (`dim` wide), answers in reversed order with `index` set (clients must sort),
    records every request; `delay_s` / `status` simulate a slow or failing provider."""

    def __init__(self, dim: int = 16) -> None:
        self.dim = dim
        self.requests: list[dict[str, object]] = []
        self.auth: list[str | None] = []
        self.delay_s = 0.0
        self.status = 200
        self.url = ""
        self._runner: object | None = None

    def vector(self, text: str) -> list[float]:
        import hashlib

        out = [0.0] * self.dim
        for word in text.lower().split():
            digest = hashlib.sha256(word.encode()).digest()
            out[digest[0] % self.dim] += 1.0
        return out

    async def __aenter__(self) -> Self:
        from aiohttp import web

        async def embeddings(request: web.Request) -> web.Response:
            body = await request.json()
            self.requests.append(body)
            self.auth.append(request.headers.get("Authorization"))
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            if self.status != 200:
                return web.json_response(
                    {"error": {"message": "boom"}}, status=self.status
                )
            items = [
                {"object": "embedding", "index": i, "embedding": self.vector(t)}
                for i, t in enumerate(body["input"])
            ]
            return web.json_response(
                {"object": "list", "data": items[::-1], "model": body["model"]}
            )

        app = web.Application()
        app.router.add_post("/v1/embeddings", embeddings)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        self._runner = runner
        return self

    async def __aexit__(self, *exc: object) -> None:
        from aiohttp import web

        if isinstance(self._runner, web.AppRunner):
            await self._runner.cleanup()


async def search_ids(
    index: VectorIndex,
    owner: str | None,
    query: str,
    session: str | None,
    limit: int,
    *,
    backfill: bool = True,
) -> list[tuple[str, float]]:
    """A vector index's hits as (memory id, cosine) for one owner (None: all) and, when
    given, one session: the shape the vector tests assert on."""
    live = Live(
        now=now_iso(),
        cutoff=None,
        owner=owner,
        session=session,
        match_session=session is not None,
    )
    return (await index.search(live, query, limit, backfill=backfill)).ranked
