"""The Qdrant store itself: collection management, hybrid search in Qdrant, the vector-tier
role, replica sharing, convergence, outage behaviour, local-mode persistence, reindex.

Local mode (qdrant-client's in-process engine) stands in for a server; a test marked
`qdrant_server` repeats the essentials against a real server when QDRANT_URL is set.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from qdrant_client import models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from memtap.config.errors import ConfigError
from memtap.config.schema import Config, MemoryConfig, QdrantConfig, VectorStoreConfig
from memtap.engine.api import EngineError
from memtap.engine.clock import iso
from memtap.engine.memory_rules import Live
from memtap.engine.qdrant.collection import QdrantCollectionMismatch
from memtap.engine.qdrant.memories import QdrantMemoryStore, open_qdrant_store
from memtap.engine.qdrant.payload import point_id
from memtap.engine.qdrant.transport import (
    QdrantConfigError,
    QdrantRequestError,
    QdrantTransport,
    QdrantUnavailable,
    open_transport,
)
from memtap.engine.qdrant.vectors import QdrantDenseIndex, QdrantVectorIndex
from memtap.engine.retrieval.retrieve import RetrievalContext, retrieve
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.sqlite.migrations import migrate
from memtap.engine.sqlite.reindex_flags import SqliteReindexFlags
from memtap.engine.types import Hit, Memory, NewMemory, RetrievalRequest
from tests.support.hash_embedder import HashEmbedder
from tests.support.semantic import search_ids

NOW = datetime.now(UTC)


def at(**delta: float) -> str:
    return iso(NOW + timedelta(**delta))


def config(**qdrant: object) -> Config:
    return Config(
        vector_store=VectorStoreConfig(kind="qdrant", qdrant=QdrantConfig(**qdrant))
    )  # type: ignore[arg-type]


def live(owner: str | None = "alice", **kw: object) -> Live:
    return Live(now=at(), cutoff=None, owner=owner, **kw)  # type: ignore[arg-type]


@pytest.fixture
async def transport() -> AsyncIterator[QdrantTransport]:
    shared = await open_transport(QdrantConfig(), location=":memory:")
    yield shared
    await shared.close()


@pytest.fixture
async def store(transport: QdrantTransport) -> QdrantMemoryStore:
    qdrant = QdrantMemoryStore(
        transport, "memories", HashEmbedder(), owns_transport=False
    )
    await qdrant.collection.ensure()
    return qdrant


async def hybrid(
    store: QdrantMemoryStore, query: str, live: Live, limit: int, min_similarity: float
) -> list[Hit]:
    """The hybrid ranking (engine.retrieval, the one ranking) over this store's keyword arm
    and the dense arm of its points, without a token budget in the way."""
    scope = (
        "session"
        if live.match_session
        else ("global" if live.owner is None else "owner")
    )
    # Both arms, always (vector_skip_coverage 0: the keyword arm never answers alone).
    cfg = MemoryConfig(
        min_similarity=min_similarity,
        top_k=limit,
        max_items=limit,
        max_tokens=16000,
        vector_skip_coverage=0.0,
    )
    found = await retrieve(
        RetrievalContext(store, cfg, QdrantDenseIndex(store, None)),
        RetrievalRequest(
            owner=live.owner or "-",
            query=query,
            session=live.session,
            scope=scope,  # type: ignore[arg-type]
            strategy="hybrid",
        ),
        side_effects=False,
    )
    return list(found.hits)


@pytest.fixture
async def flags(tmp_path: Path) -> AsyncIterator[SqliteReindexFlags]:
    """`memories.needs_reindex` of a local SQLite file (the rows a vectors-only index serves)."""
    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrate)
    yield SqliteReindexFlags(db)
    await db.close()


@pytest.fixture
async def vectors(
    transport: QdrantTransport, flags: SqliteReindexFlags
) -> QdrantVectorIndex:
    index = QdrantVectorIndex(
        transport, "memories", HashEmbedder(), flags, owns_transport=False
    )
    await index.points.collection.ensure()
    return index


async def points_in(index: QdrantVectorIndex) -> int:
    name = index.points.collection.name
    return int(
        (await index.points.call("count", lambda c: c.count(name, exact=True))).count
    )


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- collection management ------------------------------------------------------------------


async def test_collection_is_created_with_the_right_layout(tmp_path: Path) -> None:
    store = await open_qdrant_store(
        config(path=str(tmp_path / "q"), collection="mem"), HashEmbedder(dim=48)
    )
    try:
        info = await store.transport.call("get", lambda c: c.get_collection("mem"))
        vectors = info.config.params.vectors
        assert isinstance(vectors, dict)
        assert (
            vectors["dense"].size == 48
            and vectors["dense"].distance == models.Distance.COSINE
        )
        assert (
            info.config.params.sparse_vectors["sparse"].modifier == models.Modifier.IDF
        )  # type: ignore[index]
        assert store.collection.has_dense
    finally:
        await store.close()


async def test_vector_size_mismatch_is_a_clear_config_error(tmp_path: Path) -> None:
    first = await open_qdrant_store(
        config(path=str(tmp_path / "q"), collection="mem"), HashEmbedder(dim=32)
    )
    await first.close()
    with pytest.raises(QdrantCollectionMismatch) as caught:
        await open_qdrant_store(
            config(path=str(tmp_path / "q"), collection="mem"), HashEmbedder(dim=48)
        )
    error = caught.value
    assert isinstance(error, ConfigError) and isinstance(error, EngineError)
    text = str(error)
    assert "vector_store.qdrant.collection" in text and "32" in text and "48" in text
    assert error.errors[0].path == "vector_store.qdrant.collection"
    # The path was released by the failed open: the right size opens fine.
    again = await open_qdrant_store(
        config(path=str(tmp_path / "q"), collection="mem"), HashEmbedder(dim=32)
    )
    await again.close()


async def test_sparse_only_collection_refuses_a_dense_source(
    transport: QdrantTransport,
) -> None:
    await QdrantMemoryStore(
        transport, "plain", None, owns_transport=False
    ).collection.ensure()
    with pytest.raises(QdrantCollectionMismatch, match="no dense vector"):
        await QdrantMemoryStore(
            transport, "plain", HashEmbedder(), owns_transport=False
        ).collection.ensure()


async def test_local_path_persists_and_is_locked(tmp_path: Path) -> None:
    path = str(tmp_path / "q")
    store = await open_qdrant_store(config(path=path), HashEmbedder())
    memory, _ = await store.upsert_memory(
        NewMemory(owner="alice", content="I use fish shell", key="shell"), at()
    )
    with pytest.raises(QdrantConfigError, match="already accessed"):
        await open_transport(QdrantConfig(path=path))
    await store.close()
    reopened = await open_qdrant_store(config(path=path), HashEmbedder())
    try:
        assert await reopened.get_memory(memory.id) == memory
    finally:
        await reopened.close()


# -- points and search -------------------------------------------------------------------


async def test_keyed_memory_is_one_point_at_a_deterministic_id(
    store: QdrantMemoryStore,
) -> None:
    memory, _ = await store.upsert_memory(
        NewMemory(owner="alice", content="tabs", key="indent"), at()
    )
    await store.upsert_memory(
        NewMemory(owner="alice", content="spaces", key="indent"), at()
    )
    expected = str(
        uuid.uuid5(uuid.UUID("6b1f7c52-3f0e-5a34-9a55-6d656d746170"), "alice\x00indent")
    )
    assert point_id("alice", "indent", memory.id) == expected
    records = await store.transport.call(
        "get", lambda c: c.retrieve("memories", ids=[expected], with_payload=True)
    )
    assert len(records) == 1 and records[0].payload is not None
    payload = records[0].payload
    assert (
        payload["content"] == "spaces"
        and payload["memory_id"] == memory.id
        and payload["owner"] == "alice"
    )
    assert payload["expires_at_ts"] > 1e11 and isinstance(
        payload["created_at_ts"], float
    )
    assert await store.count() == 1
    keyless, _ = await store.upsert_memory(
        NewMemory(owner="alice", content="no key"), at()
    )
    assert point_id("alice", None, keyless.id) == keyless.id


async def test_hybrid_search_fuses_both_arms_inside_qdrant(
    store: QdrantMemoryStore,
) -> None:
    await store.upsert_memory(
        NewMemory(owner="alice", content="I deploy services with kubernetes"), at()
    )
    await store.upsert_memory(
        NewMemory(owner="alice", content="my favourite database is postgres"), at()
    )
    await store.upsert_memory(
        NewMemory(owner="bob", content="bob deploys with kubernetes too"), at()
    )
    hits = await hybrid(store, "kubernetes deploy", live(), 10, min_similarity=0.35)
    assert [h.memory.content for h in hits] == ["I deploy services with kubernetes"]
    hit = hits[0]
    assert hit.tier == "qdrant" and hit.fts_rank == 1 and hit.vec_rank == 1
    assert (
        hit.similarity is not None
        and hit.similarity > 0.35
        and hit.score > 0
        and hit.tokens > 0
    )
    assert (
        await hybrid(store, "quantum chromodynamics", live(), 10, min_similarity=0.35)
        == []
    )


async def test_hybrid_respects_expiry_supersession_and_session(
    store: QdrantMemoryStore,
) -> None:
    await store.upsert_memory(
        NewMemory(owner="alice", content="golang expired", expires_at=at(minutes=-1)),
        at(),
    )
    await store.upsert_memory(
        NewMemory(owner="alice", content="golang old view", key="k1"), at(), "go"
    )
    new, _ = await store.upsert_memory(
        NewMemory(owner="alice", content="golang new view", key="k2"), at(), "go"
    )
    await store.supersede("alice", "go", new.id, at())
    await store.upsert_memory(
        NewMemory(owner="alice", content="golang in s2", session="s2"), at()
    )
    owner_scope = {
        h.memory.content for h in await hybrid(store, "golang", live(), 10, 0.35)
    }
    assert owner_scope == {"golang new view", "golang in s2"}
    session_scope = await hybrid(
        store, "golang", live(session="s2", match_session=True), 10, 0.35
    )
    assert [h.memory.content for h in session_scope] == ["golang in s2"]


async def test_paraphrase_found_by_the_dense_arm(transport: QdrantTransport) -> None:
    from memtap.engine.embeddings.onnx import open_onnx

    embedder = await open_onnx()
    try:
        store = QdrantMemoryStore(transport, "onnx", embedder, owns_transport=False)
        await store.upsert_memory(
            NewMemory(owner="alice", content="I prefer Postgres for side projects"),
            at(),
        )
        await store.upsert_memory(
            NewMemory(owner="alice", content="My cat is called Tom"), at()
        )
        hits = await hybrid(
            store, "which database do I like?", live(), 5, min_similarity=0.3
        )
        assert [h.memory.content for h in hits] == [
            "I prefer Postgres for side projects"
        ]
        assert hits[0].fts_rank is None and hits[0].vec_rank == 1
    finally:
        await embedder.close()


# -- the vector-tier role (rows in SQLite, vectors in Qdrant) --------------------------------


def memory(
    content: str,
    owner: str = "alice",
    key: str | None = None,
    session: str | None = None,
) -> Memory:
    return Memory(
        id=str(uuid.uuid4()),
        owner=owner,
        session=session,
        type="factual",
        key=key,
        content=content,
        metadata={},
        created_at=at(),
        updated_at=at(),
    )


async def test_vector_tier_search_upsert_delete_erase(
    vectors: QdrantVectorIndex,
) -> None:
    a, b = (
        memory("kubernetes clusters at work"),
        memory("kubernetes at home", session="s1"),
    )
    c = memory("kubernetes elsewhere", owner="bob")
    await vectors.upsert([a, b, c])
    found = await search_ids(vectors, "alice", "kubernetes", None, 10)
    assert {mid for mid, _ in found} == {a.id, b.id} and all(
        -1.0 <= sim <= 1.0 for _, sim in found
    )
    assert [
        mid for mid, _ in await search_ids(vectors, "alice", "kubernetes", "s1", 10)
    ] == [b.id]
    assert {
        mid for mid, _ in await search_ids(vectors, None, "kubernetes", None, 10)
    } == {a.id, b.id, c.id}
    await vectors.delete([a.id])
    assert [
        mid for mid, _ in await search_ids(vectors, "alice", "kubernetes", None, 10)
    ] == [b.id]
    assert await vectors.erase_owner("alice") == 1
    assert await search_ids(vectors, "alice", "kubernetes", None, 10) == []
    assert await points_in(vectors) == 1


async def test_tier_points_follow_memory_ids_across_key_changes(
    vectors: QdrantVectorIndex, store: QdrantMemoryStore
) -> None:
    m = memory("prefers dark mode", key="theme")
    await vectors.upsert([m])
    await vectors.upsert([replace(m, key="ui-theme")])
    assert await points_in(vectors) == 1
    (found,) = [r async for r in store.export_owner("alice")]
    assert found.key == "ui-theme"


async def test_reindex_fills_vectors_that_failed_to_embed(
    transport: QdrantTransport,
) -> None:
    embedder = HashEmbedder()
    store = QdrantMemoryStore(transport, "reindex", embedder, owns_transport=False)
    dense = QdrantDenseIndex(store, None)
    embedder.fail = True
    await store.upsert_memory(
        NewMemory(owner="alice", content="terraform modules everywhere"), at()
    )
    assert (await store.counts(at()))["needs_reindex"] == 1
    # The query embeds but the point has no dense vector: only the keyword arm finds it.
    hits = await hybrid(store, "terraform", live(), 5, 0.35)
    assert [(h.fts_rank, h.vec_rank) for h in hits] == [(1, None)], (
        "embedding failure: keyword arm only"
    )
    embedder.fail = False
    assert await search_ids(dense, "alice", "terraform", None, 5) == []
    progress = await dense.reindex(limit=None, force=False)
    assert progress["done"] == 1 and progress["pending"] == 0
    assert len(await search_ids(dense, "alice", "terraform", None, 5)) == 1
    forced = await dense.reindex(limit=None, force=True)
    assert forced["done"] == 1 and forced["pending"] == 0


# -- replicas ---------------------------------------------------------------------------------


async def test_two_stores_on_one_collection_see_each_other(
    transport: QdrantTransport,
) -> None:
    replica_a = QdrantMemoryStore(
        transport, "shared", HashEmbedder(), owns_transport=False
    )
    replica_b = QdrantMemoryStore(
        transport, "shared", HashEmbedder(), owns_transport=False
    )
    written, _ = await replica_a.upsert_memory(
        NewMemory(owner="alice", content="I use neovim daily"), at()
    )
    assert await replica_b.get_memory(written.id) == written
    assert [
        h.memory.id for h in await hybrid(replica_b, "neovim", live(), 5, 0.35)
    ] == [written.id]
    assert await replica_b.erase_owner("alice") == 1
    assert await replica_a.get_memory(written.id) is None


async def test_concurrent_upserts_of_one_key_converge(
    transport: QdrantTransport,
) -> None:
    replicas = [
        QdrantMemoryStore(transport, "race", HashEmbedder(), owns_transport=False)
        for _ in range(2)
    ]
    contents = [f"editor choice number {i}" for i in range(8)]
    results = await asyncio.gather(
        *(
            replicas[i % 2].upsert_memory(
                NewMemory(owner="alice", content=text, key="editor"), at()
            )
            for i, text in enumerate(contents)
        )
    )
    assert len({m.id for m, _ in results}) == 1, (
        "every writer ends up with the same memory id"
    )
    assert sum(created for _, created in results) >= 1
    stored = [m async for m in replicas[0].export_owner("alice")]
    assert (
        len(stored) == 1
        and stored[0].content in contents
        and stored[0].id == results[0][0].id
    )


# -- outage and retries -------------------------------------------------------------------------


async def test_outage_fails_fast_with_engine_errors() -> None:
    cfg = config(url=f"http://127.0.0.1:{closed_port()}", timeout_s=1.0)
    started = time.perf_counter()
    store = await open_qdrant_store(cfg, HashEmbedder())  # starts anyway: fail-open
    try:
        for operation in (
            store.upsert_memory(NewMemory(owner="alice", content="x"), at()),
            hybrid(store, "anything", live(), 5, 0.35),
            search_ids(QdrantDenseIndex(store, None), "alice", "anything", None, 5),
        ):
            with pytest.raises(QdrantUnavailable):
                await operation
        assert time.perf_counter() - started < 3.0
        assert store.health().startswith("degraded")
        probe = await store.probe()
        assert not probe.ok and probe.latency_ms < 1000
        status = await store.status()
        assert status["healthy"] is False and "error" in status
    finally:
        await store.close()


async def test_transient_errors_are_retried_then_succeed(
    transport: QdrantTransport,
) -> None:
    attempts = 0

    async def flaky(client: object) -> str:
        nonlocal attempts
        attempts += 1
        if attempts < 3:
            raise ResponseHandlingException(ConnectionResetError("reset by peer"))
        return "ok"

    assert await transport.call("flaky", flaky) == "ok" and attempts == 3


async def test_client_errors_are_not_retried(transport: QdrantTransport) -> None:
    attempts = 0

    async def bad_request(client: object) -> None:
        nonlocal attempts
        attempts += 1
        raise UnexpectedResponse(400, "Bad Request", b"{}", None)  # type: ignore[arg-type]

    with pytest.raises(QdrantRequestError, match="HTTP 400"):
        await transport.call("bad", bad_request)
    assert attempts == 1


async def test_status_reports_tier_points_and_latency(store: QdrantMemoryStore) -> None:
    await store.upsert_memory(NewMemory(owner="alice", content="one"), at())
    status = await store.status()
    assert (
        status["tier"] == "qdrant"
        and status["mode"] == "local"
        and status["healthy"] is True
    )
    assert (
        status["points"] == 1
        and status["latency_ms"] >= 0
        and status["embedding"] == "hash:bow:64"
    )
    assert store.health() == "qdrant" and store.embedding() == "hash:bow:64"


# -- a real server -------------------------------------------------------------------------------


@pytest.mark.qdrant_server
async def test_against_a_real_server() -> None:
    url = os.environ.get("QDRANT_URL")
    if not url:
        pytest.skip("QDRANT_URL is not set")
    name = f"memtap_test_{uuid.uuid4().hex[:8]}"
    cfg = config(url=url, api_key=os.environ.get("QDRANT_API_KEY"), collection=name)
    store = await open_qdrant_store(cfg, HashEmbedder())
    other = await open_qdrant_store(
        cfg, HashEmbedder()
    )  # a second "replica", its own client
    try:
        assert store.collection.indexes == "ready"
        written, _ = await store.upsert_memory(
            NewMemory(owner="alice", content="I deploy with nomad", key="k"), at()
        )
        assert await other.get_memory(written.id) == written
        assert [h.memory.id for h in await other.hybrid("nomad", live(), 5, 0.35)] == [
            written.id
        ]
        results = await asyncio.gather(
            *(
                (store if i % 2 else other).upsert_memory(
                    NewMemory(owner="alice", content=f"v{i}", key="race"), at()
                )
                for i in range(6)
            )
        )
        assert len({m.id for m, _ in results}) == 1
        status = await store.status()
        assert status["mode"] == "server" and "owner" in status["payload_indexes"]
    finally:
        await store.transport.call("drop", lambda c: c.delete_collection(name))
        await other.close()
        await store.close()


async def test_tier_mode_reindex_follows_the_sqlite_flags(
    transport: QdrantTransport, tmp_path: Path
) -> None:
    from memtap.engine.sqlite import migrations
    from memtap.engine.sqlite.database import Database
    from memtap.engine.sqlite.driver import choose_driver
    from memtap.engine.sqlite.sql import memories

    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    try:
        await db.write_outside_transaction(migrations.migrate)
        row, _ = await db.write(
            lambda conn: memories.upsert(
                conn, NewMemory(owner="alice", content="ansible roles"), at()
            )
        )
        embedder = HashEmbedder()
        store = QdrantVectorIndex(
            transport, "tier", embedder, SqliteReindexFlags(db), owns_transport=False
        )
        flagged = "SELECT needs_reindex FROM memories WHERE id = ?"
        embedder.fail = True
        await store.upsert(
            [row]
        )  # the write reached Qdrant without a vector: the flag stays
        assert (
            await db.read(lambda conn: conn.execute(flagged, (row.id,)).fetchone()[0])
            == 1
        )
        embedder.fail = False
        progress = await store.reindex(limit=None, force=False)
        assert progress["done"] == 1 and progress["pending"] == 0
        assert (
            await db.read(lambda conn: conn.execute(flagged, (row.id,)).fetchone()[0])
            == 0
        )
        assert [
            mid for mid, _ in await search_ids(store, "alice", "ansible", None, 5)
        ] == [row.id]
        assert (await store.reindex(limit=None, force=True))["done"] == 1
    finally:
        await db.close()
