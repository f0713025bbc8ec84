"""One contract, every vector index beside SQLite rows: sqlite-vec (inside the file) and Qdrant
(local mode, vectors only). Rows live in SQLite; each index must find the nearest rows of one
owner (or all owners) and session, forget deleted and erased ones, and reindex what the rows
flag (`needs_reindex`), resuming where it stopped. Retrieval (`engine.retrieval`) re-reads or
receives its hits through the same `Live` filter, so the contract asserts ids and cosines."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from memtap.config.schema import Config, EmbeddingConfig, QdrantConfig
from memtap.engine.embeddings.resolve import EmbeddingResolution
from memtap.engine.ports import VectorIndex
from memtap.engine.qdrant.transport import open_transport
from memtap.engine.qdrant.vectors import QdrantVectorIndex
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.reindex_flags import SqliteReindexFlags
from memtap.engine.sqlite.vectors import SqliteVecIndex
from memtap.engine.types import Memory
from tests.support.hash_embedder import HashEmbedder
from tests.support.semantic import Holder, add_memory, open_db, search_ids


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await open_db(tmp_path / "memtap.db")
    yield database
    await database.close()


@pytest.fixture(params=["sqlite-vec", "qdrant"])
async def index(
    request: pytest.FixtureRequest, db: Database, tmp_path: Path
) -> AsyncIterator[VectorIndex]:
    source = HashEmbedder()
    if request.param == "sqlite-vec":
        config = Config(
            data_dir=str(tmp_path), embedding=EmbeddingConfig(timeout_ms=5000)
        )
        vec = SqliteVecIndex(
            db, EmbeddingResolution("hash", "hash", source), Holder(config), None
        )
        await vec.start()
        yield vec
        await vec.close()
        return
    transport = await open_transport(QdrantConfig(), location=":memory:")
    qdrant = QdrantVectorIndex(transport, "contract", source, SqliteReindexFlags(db))
    yield qdrant
    await qdrant.close()


async def rows(
    db: Database, *items: tuple[str, str] | tuple[str, str, str]
) -> list[Memory]:
    out = []
    for item in items:
        owner, content = item[0], item[1]
        session = item[2] if len(item) == 3 else None
        out.append(await add_memory(db, owner, content, session=session))
    return out


async def test_nearest_rows_of_one_owner_and_session(
    index: VectorIndex, db: Database
) -> None:
    a, b, c = await rows(
        db,
        ("alice", "kubernetes clusters at work"),
        ("alice", "kubernetes at home", "s1"),
        ("bob", "kubernetes elsewhere"),
    )
    await index.upsert([a, b, c])
    found = await search_ids(index, "alice", "kubernetes", None, 10, backfill=False)
    assert {mid for mid, _ in found} == {a.id, b.id} and all(
        -1.0 <= sim <= 1.0 for _, sim in found
    )
    assert [
        mid
        for mid, _ in await search_ids(
            index, "alice", "kubernetes", "s1", 10, backfill=False
        )
    ] == [b.id]
    everyone = await search_ids(index, None, "kubernetes", None, 10, backfill=False)
    assert {mid for mid, _ in everyone} == {a.id, b.id, c.id}


async def test_best_match_first(index: VectorIndex, db: Database) -> None:
    close, far = await rows(
        db, ("alice", "terraform modules for aws"), ("alice", "terraform")
    )
    await index.upsert([close, far])
    found = await search_ids(
        index, "alice", "terraform modules aws", None, 5, backfill=False
    )
    assert [mid for mid, _ in found] == [close.id, far.id] and found[0][1] > found[1][1]


async def test_delete_and_erase_forget_vectors(
    index: VectorIndex, db: Database
) -> None:
    a, b, c = await rows(
        db,
        ("alice", "gradle builds"),
        ("alice", "gradle caches"),
        ("bob", "gradle too"),
    )
    await index.upsert([a, b, c])
    await index.delete([a.id])
    assert [
        mid
        for mid, _ in await search_ids(
            index, "alice", "gradle", None, 5, backfill=False
        )
    ] == [b.id]
    assert await index.erase_owner("alice") == 1
    assert await search_ids(index, "alice", "gradle", None, 5, backfill=False) == []
    assert [
        mid
        for mid, _ in await search_ids(index, "bob", "gradle", None, 5, backfill=False)
    ] == [c.id]


async def test_reindex_follows_the_row_flags_and_resumes(
    index: VectorIndex, db: Database
) -> None:
    made = await rows(db, *[("alice", f"ansible role number {i}") for i in range(5)])
    first = await index.reindex(2, False)  # interrupted after 2...
    assert first["done"] == 2 and first["pending"] == 3
    rest = await index.reindex(None, False)  # ...resumes with the other 3
    assert rest["done"] == 3 and rest["pending"] == 0
    found = await search_ids(index, "alice", "ansible role", None, 10, backfill=False)
    assert {mid for mid, _ in found} == {m.id for m in made}
    forced = await index.reindex(None, True)
    assert forced["done"] == 5 and forced["pending"] == 0


async def test_reports_itself(index: VectorIndex) -> None:
    assert index.name in ("sqlite-vec", "qdrant")
    assert index.embedding() == "hash:bow:64"
    assert index.health() in ("sqlite-vec", "qdrant")
    assert isinstance(await index.status(), dict)


async def test_a_backfill_leaves_a_vector_being_written_to_its_write(
    index: VectorIndex, db: Database
) -> None:
    # The row says "no vector yet" until the write commits; a backfill reading it then
    # (the background loop, a request's inline backfill) must not embed it a second time.
    source = index.embedding_source()
    assert isinstance(source, HashEmbedder)
    in_flight, _ = await rows(
        db, ("alice", "grafana dashboards"), ("alice", "prometheus alerts")
    )
    gate = source.hold = asyncio.Event()
    writing = asyncio.create_task(index.upsert([in_flight]))
    while not source.texts:
        await asyncio.sleep(0.01)
    source.hold = None  # the backfill's own embedding runs at once
    assert await index.backfill("alice", 16) == 1  # only the row nobody is writing
    assert source.texts == ["grafana dashboards", "prometheus alerts"]
    gate.set()
    await writing
    assert await index.pending_count() == 0
    assert source.texts.count("grafana dashboards") == 1
    found = await search_ids(index, "alice", "grafana", None, 5, backfill=False)
    assert found[0][0] == in_flight.id
