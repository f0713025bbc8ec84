"""The engine with Qdrant as the system of record: replicas sharing memory, outage and
recovery through the local outbox, erase / export / import, status and health.

Each "replica" is an engine with its own data_dir (its own SQLite outbox) sharing one Qdrant
client, as two memtap processes share one Qdrant server (local mode allows one client per
path, so two processes cannot share it; that case runs in `test_qdrant_store` against a real
server when QDRANT_URL is set).
"""

from __future__ import annotations

import asyncio
import dataclasses
import socket
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractContextManager
from pathlib import Path

import aiohttp
import pytest
from qdrant_client import AsyncQdrantClient

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    QdrantConfig,
    VectorStoreConfig,
)
from memtap.engine.api import EngineError, NotFound
from memtap.engine.engine import Engine
from memtap.engine.factory import open_qdrant_engine
from memtap.engine.memory_block import OPEN
from memtap.engine.metrics import Metrics
from memtap.engine.qdrant.transport import QdrantTransport, open_transport
from memtap.engine.sqlite import outbox
from memtap.engine.types import ListQuery, NewMemory, RetrievalRequest, Turn
from tests.conftest import MemtapServer
from tests.support.standin import Standin

OpenReplica = Callable[..., Awaitable[Engine]]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def turn(owner: str, text: str) -> Turn:
    return Turn(
        request_id=uuid.uuid4().hex,
        owner=owner,
        session=None,
        format="openai-chat",
        user_text=text,
        assistant_text="Noted.",
    )


async def until(
    predicate: Callable[[], Awaitable[bool]], timeout_s: float = 10.0
) -> None:
    deadline = time.monotonic() + timeout_s
    while not await predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


@pytest.fixture
async def shared() -> AsyncIterator[QdrantTransport]:
    transport = await open_transport(QdrantConfig(), location=":memory:")
    yield transport
    await transport.close()


@pytest.fixture
async def replica(tmp_path: Path) -> AsyncIterator[OpenReplica]:
    engines: list[Engine] = []

    async def open_one(
        transport: QdrantTransport, name: str, **memory: object
    ) -> Engine:
        config = Config(
            data_dir=str(tmp_path / name),
            memory=MemoryConfig(**memory),  # type: ignore[arg-type]
            embedding=EmbeddingConfig(source="none"),
            vector_store=VectorStoreConfig(
                kind="qdrant", qdrant=QdrantConfig(collection="shared", timeout_s=1.0)
            ),
        )
        engine = await open_qdrant_engine(
            ConfigHolder(config, str(tmp_path / "absent.yaml")),
            Metrics(),
            transport=transport,
        )
        engines.append(engine)
        return engine

    yield open_one
    for engine in engines:
        await engine.close()


async def test_replicas_share_memories_both_ways(
    shared: QdrantTransport,
    replica: OpenReplica,
    blocking_guard: Callable[[], AbstractContextManager[object]],
) -> None:
    a, b = await replica(shared, "a"), await replica(shared, "b")
    with blocking_guard():  # no blocking I/O on the event loop on these paths
        written = await a.create_memory(
            NewMemory(owner="alice", content="I deploy with kubernetes")
        )
        assert [
            h.memory.id
            for h in (
                await b.retrieve(RetrievalRequest(owner="alice", query="kubernetes"))
            ).hits
        ]
    assert await b.get_memory(written.id) == written
    found = await b.retrieve(
        RetrievalRequest(owner="alice", query="how do I deploy kubernetes?")
    )
    assert [h.memory.id for h in found.hits] == [written.id]
    assert (
        await b.retrieve(RetrievalRequest(owner="bob", query="kubernetes"))
    ).hits == ()
    # Extraction on replica B (its own outbox) is injected by replica A on the next request.
    await b.enqueue_turn(turn("alice", "I prefer PostgreSQL for side projects."))
    await until(lambda: _has_hit(a, "alice", "postgresql"))
    assert (await a.list_memories(ListQuery(owner="alice"))).total == 2


async def _has_hit(engine: Engine, owner: str, query: str) -> bool:
    return bool(
        (await engine.retrieve(RetrievalRequest(owner=owner, query=query))).hits
    )


async def test_concurrent_writes_of_one_key_converge(
    shared: QdrantTransport, replica: OpenReplica
) -> None:
    a, b = await replica(shared, "a"), await replica(shared, "b")
    made = await asyncio.gather(
        *(
            (a if i % 2 else b).create_memory(
                NewMemory(owner="alice", content=f"editor v{i}", key="editor")
            )
            for i in range(6)
        )
    )
    assert len({m.id for m in made}) == 1
    page = await a.list_memories(ListQuery(owner="alice"))
    assert page.total == 1 and page.items[0].content in {m.content for m in made}


async def test_outage_fails_open_and_the_outbox_drains_on_recovery(
    shared: QdrantTransport, replica: OpenReplica
) -> None:
    down = QdrantTransport(
        AsyncQdrantClient(
            url=f"http://127.0.0.1:{closed_port()}",
            timeout=1,
            check_compatibility=False,
        ),
        timeout_s=1.0,
        local=False,
        retries=1,
    )
    engine = await replica(down, "a")  # starts although Qdrant is unreachable
    started = time.perf_counter()
    with pytest.raises(EngineError):
        await engine.retrieve(RetrievalRequest(owner="alice", query="anything"))
    assert time.perf_counter() - started < 2.0, "an outage must not hold the request"
    for i in range(3):
        await engine.enqueue_turn(turn("alice", f"I prefer tool{i} for builds."))
    await asyncio.sleep(0.3)  # the worker tries, fails, backs off: rows stay on disk
    assert await engine.local.db.read(outbox.depth) == 3
    assert engine.metrics.outbox_depth.value() == 3
    health = await engine.health()
    assert health["store"].endswith("(unavailable)") and health["ready"] == "false"
    status = await engine.status()
    assert status["store"]["healthy"] is False and status["outbox"]["depth"] == 3

    engine.store.replace_transport(shared)  # Qdrant is back
    engine.worker.wake()
    await until(lambda: _drained(engine), timeout_s=15)
    hits = (await engine.retrieve(RetrievalRequest(owner="alice", query="tool1"))).hits
    assert [h.memory.content for h in hits][:1] and "tool1" in hits[0].memory.content
    await down.close()


async def _drained(engine: Engine) -> bool:
    return await engine.local.db.read(outbox.depth) == 0


async def test_erase_export_import(
    shared: QdrantTransport, replica: OpenReplica
) -> None:
    a = await replica(shared, "a")
    for i in range(3):
        await a.create_memory(
            NewMemory(owner="alice", content=f"fact {i}", key=f"k{i}")
        )
    await a.create_memory(NewMemory(owner="bob", content="bob's fact"))
    exported = [m async for m in a.export_owner("alice")]
    assert len(exported) == 3
    receipt = await a.erase_owner("alice")
    assert receipt.removed["memories"] == 3 and receipt.removed["vectors"] == 3
    assert (await a.list_memories(ListQuery(owner="alice"))).total == 0
    with pytest.raises(NotFound):
        await a.get_memory(exported[0].id)
    items = [
        NewMemory(
            owner=m.owner,
            content=m.content,
            key=m.key,
            id=m.id,
            created_at=m.created_at,
            updated_at=m.updated_at,
            superseded_by=m.superseded_by,
            valid_to=m.valid_to,
        )
        for m in exported
    ]
    report = await a.import_memories([*items, NewMemory(owner="alice", content="  ")])
    assert (report.created, report.updated, report.skipped) == (3, 0, 1)
    assert {m.id for m in exported} == {m.id async for m in a.export_owner("alice")}
    again = await a.import_memories(items)
    assert (again.created, again.updated) == (0, 3)
    # History survives an import: a superseded memory stays superseded (and is not injected).
    history = dataclasses.replace(
        items[0], superseded_by=items[1].id, valid_to="2026-01-01T00:00:00Z"
    )
    await a.import_memories([history])
    assert (await a.list_memories(ListQuery(owner="alice"))).total == 2
    kept = await a.get_memory(history.id or "")
    assert (
        kept.superseded_by == items[1].id
        and kept.valid_to == "2026-01-01T00:00:00.000Z"
    )


async def test_status_and_health_report_the_qdrant_tier(
    shared: QdrantTransport, replica: OpenReplica
) -> None:
    a = await replica(shared, "a")
    await a.create_memory(NewMemory(owner="alice", content="one"))
    status = await a.status()
    assert status["store"]["kind"] == "qdrant" and status["store"]["points"] == 1
    assert status["store"]["healthy"] is True and status["store"]["latency_ms"] >= 0
    assert status["counts"]["live"] == 1 and status["outbox"]["depth"] == 0
    health = await a.health()
    assert health["store"] == "qdrant:local" and health["ready"] == "true"
    assert float(health["store_latency_ms"]) >= 0


async def test_retention_and_session_scope_through_the_engine(
    shared: QdrantTransport, replica: OpenReplica
) -> None:
    engine = await replica(shared, "a", scope="session", retention_days=30)
    await engine.create_memory(
        NewMemory(owner="alice", content="gradle builds in s1", session="s1")
    )
    await engine.create_memory(
        NewMemory(
            owner="alice",
            content="gradle builds old",
            session="s1",
            created_at="2020-01-01T00:00:00Z",
            updated_at="2020-01-01T00:00:00Z",
        )
    )
    await engine.create_memory(
        NewMemory(owner="alice", content="gradle builds in s2", session="s2")
    )
    found = await engine.retrieve(
        RetrievalRequest(owner="alice", query="gradle", session="s1")
    )
    assert [h.memory.content for h in found.hits] == ["gradle builds in s1"]
    swept = await engine.sweep()
    assert swept == 1


# -- through the proxy ------------------------------------------------------------------------


async def _chat(url: str, key: str, text: str) -> tuple[int, str | None]:
    body = {"model": "m", "messages": [{"role": "user", "content": text}]}
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{url}/v1/chat/completions",
            json=body,
            headers={"Authorization": f"Bearer {key}"},
        ) as response,
    ):
        await response.read()
        return response.status, response.headers.get("X-Memtap-Memories")


async def test_proxy_keeps_working_through_an_outage_and_learns_after(
    shared: QdrantTransport,
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    standin: Standin,
    tmp_path: Path,
) -> None:
    config = memtap_config(
        # The first retrieval after the outage reads collections local mode has just
        # opened: on a loaded machine past the default 250 ms (answered without memory).
        memory=MemoryConfig(enabled=True, strategy="hybrid", retrieval_timeout_ms=3000),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )
    server = await memtap_server(config)
    runtime = server.runtime
    # Install the Qdrant engine (what `vector_store.kind: qdrant` selects), Qdrant unreachable.
    if runtime.engine is not None:
        await runtime.engine.close()
    down = QdrantTransport(
        AsyncQdrantClient(
            url=f"http://127.0.0.1:{closed_port()}",
            timeout=1,
            check_compatibility=False,
        ),
        timeout_s=1.0,
        local=False,
        retries=0,
    )
    engine = await open_qdrant_engine(
        ConfigHolder(
            dataclasses.replace(config, data_dir=str(tmp_path / "replica")),
            str(tmp_path / "absent.yaml"),
        ),
        runtime.metrics,
        transport=down,
    )
    runtime.engine = engine
    try:
        key = "sk-qdrant-outage"
        status, injected = await _chat(
            server.url, key, "I prefer Postgres for side projects."
        )
        assert status == 200 and injected == "0", "Qdrant down: proxied without memory"
        assert OPEN not in standin.last().body.decode()
        await until(lambda: _depth_is(engine, 1))
        engine.store.replace_transport(
            shared
        )  # Qdrant is back: the outbox drains into it
        await until(lambda: _drained(engine), timeout_s=15)
        status, injected = await _chat(
            server.url, key, "Should I pick Postgres or SQLite for my side project?"
        )
        assert status == 200 and injected is not None and int(injected) >= 1
        assert "Postgres" in standin.last().body.decode().split(OPEN, 1)[1]
    finally:
        runtime.engine = None
        await engine.close()
        await down.close()


async def _depth_is(engine: Engine, depth: int) -> bool:
    return await engine.local.db.read(outbox.depth) == depth


async def test_open_engine_with_kind_qdrant_makes_qdrant_the_system_of_record(
    tmp_path: Path,
) -> None:
    from memtap.engine.factory import open_engine

    config = Config(
        data_dir=str(tmp_path / "data"),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(
            kind="qdrant", qdrant=QdrantConfig(path=str(tmp_path / "qdrant"))
        ),
    )
    engine = await open_engine(ConfigHolder(config, None, {}), Metrics())
    try:
        assert (
            engine.store.name == "qdrant"
        )  # open_engine picked the Qdrant record store
        created = await engine.create_memory(
            NewMemory(owner="o1", content="I prefer Postgres for side projects")
        )
        assert (await engine.get_memory(created.id)).content == created.content
        assert (await engine.health())["store"].startswith("qdrant:")
    finally:
        await engine.close()


async def test_summarize_and_restore_with_qdrant(
    shared: QdrantTransport, replica: OpenReplica
) -> None:
    """Compaction as with SQLite: the summary replaces the long original in retrieval, the
    original stays as history, and restore brings it back; other owners are not touched."""
    engine = await replica(shared, "a")
    long_text = (
        "I deploy the billing service with Kubernetes on GKE. "
        "Releases go out on Tuesdays after the integration suite passes. "
        "Rollbacks use the previous Helm chart. "
        "The on-call rotation is in PagerDuty and lasts one week per person."
    )
    original = await engine.create_memory(NewMemory(owner="alice", content=long_text))
    short = await engine.create_memory(NewMemory(owner="alice", content="Uses vim"))
    theirs = await engine.create_memory(NewMemory(owner="bob", content=long_text))

    preview = await engine.summarize(0, "alice", dry_run=True)
    assert preview["ids"] == [original.id] and preview["tokens_saved"] > 0
    assert (await engine.get_memory(original.id)).superseded_by is None  # dry run

    done = await engine.summarize(0, "alice", dry_run=False)
    [summary_id] = done["summaries"]
    summary = await engine.get_memory(summary_id)
    assert summary.metadata["summary_of"] == original.id
    assert summary.content.endswith("Rollbacks use the previous Helm chart.")
    assert (await engine.get_memory(original.id)).superseded_by == summary_id
    hits = await engine.retrieve(
        RetrievalRequest(owner="alice", query="kubernetes billing")
    )
    assert [h.memory.id for h in hits.hits] == [summary_id]
    assert (await engine.get_memory(theirs.id)).superseded_by is None
    assert (await engine.summarize(0, "alice", dry_run=True))[
        "candidates"
    ] == 0  # summaries are not compacted again
    assert (await engine.get_memory(short.id)).superseded_by is None

    restored = await engine.restore_summary(summary_id)
    assert restored.id == original.id and restored.superseded_by is None
    with pytest.raises(NotFound):
        await engine.get_memory(summary_id)
    hits = await engine.retrieve(
        RetrievalRequest(owner="alice", query="kubernetes billing")
    )
    assert [h.memory.id for h in hits.hits] == [original.id]
    with pytest.raises(NotFound):
        await engine.restore_summary(short.id)  # not a summary


async def test_an_engine_that_fails_to_start_releases_the_qdrant_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Qdrant local mode locks its directory per client: a failed start must close the
    # client it opened, or the next open in this process is refused.
    from memtap.engine.engine import Engine
    from memtap.engine.factory import open_engine

    config = Config(
        data_dir=str(tmp_path / "data"),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(
            kind="qdrant",
            qdrant=QdrantConfig(path=str(tmp_path / "qdrant"), collection="c"),
        ),
    )
    holder = ConfigHolder(config, str(tmp_path / "absent.yaml"))
    real_start = Engine.start

    async def failing_start(self: Engine, *, worker: bool = True) -> None:
        raise RuntimeError("start failed")

    monkeypatch.setattr(Engine, "start", failing_start)
    with pytest.raises(RuntimeError):
        await open_engine(holder, Metrics(), start_worker=False)
    monkeypatch.setattr(Engine, "start", real_start)
    engine = await open_engine(holder, Metrics(), start_worker=False)
    await engine.close()
