"""The engine's services alone, over real adapters: the enqueue capacity read from the
outbox's own count (never the metric), the worker's unit of work (`FactWriter`) for each
record store — one SQLite transaction, or Qdrant write-then-ack replayed harmlessly after a
crash between the two — and the local file reopened by its recovery."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config, MemoryConfig, QdrantConfig
from memtap.engine.api import InvalidInput, OutboxFull
from memtap.engine.events import EngineEvents
from memtap.engine.limits import MAX_CONTENT_CHARS
from memtap.engine.memory_rules import Live
from memtap.engine.metrics import Metrics
from memtap.engine.ports import OutboxRow, PlannedTurn
from memtap.engine.qdrant.fact_writer import QdrantFactWriter
from memtap.engine.qdrant.memories import QdrantMemoryStore
from memtap.engine.qdrant.transport import open_transport
from memtap.engine.retrieval.admission.pending import PendingTurns
from memtap.engine.services.intake import TurnIntake
from memtap.engine.services.outbox_depth import OutboxDepth
from memtap.engine.services.recovery import LocalFileRecovery
from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.sqlite.fact_writer import SqliteFactWriter
from memtap.engine.sqlite.local import SqliteLocalFile, open_local
from memtap.engine.sqlite.memories import SqliteRecordStore
from memtap.engine.sqlite.outbox import SqliteOutbox
from memtap.engine.store_errors import StoreGone
from memtap.engine.types import ExtractedFact, Turn

OWNER = "e" * 24
NOW = "2026-12-07T10:00:00.000Z"


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "memtap.db", choose_driver())
    await database.write_outside_transaction(migrations.migrate)
    yield database
    await database.close()


def turn(i: int) -> Turn:
    return Turn(f"req-{i}", OWNER, None, "openai-chat", f"I live in town{i}.", "Ok.")


def fact(content: str) -> ExtractedFact:
    return ExtractedFact(
        type="factual",
        category="location",
        content=content,
        key=f"location:{content.lower().replace(' ', '_')[:40]}",
        subject="location:home",
        polarity="positive",
        role="user",
        family="location",
        lang="en",
    )


async def planned(box: SqliteOutbox, i: int, *contents: str) -> PlannedTurn:
    row_turn = turn(i)
    seq = await box.insert(row_turn, NOW)
    return PlannedTurn(
        OutboxRow(seq, row_turn, 0), tuple((fact(c), {}) for c in contents)
    )


async def test_the_enqueue_capacity_is_the_outbox_count_not_the_metric(
    db: Database,
) -> None:
    metrics = Metrics()
    depth = OutboxDepth(metrics.outbox_depth)
    woken: list[int] = []
    intake = TurnIntake(
        holder=ConfigHolder(Config(memory=MemoryConfig(outbox_max_rows=2))),
        metrics=metrics,
        outbox=SqliteOutbox(db),
        ledger=SqliteLocalFile(db).imported_turns,
        events=EngineEvents(),
        pending=PendingTurns(),
        depth=depth,
        wake_worker=lambda: woken.append(1),
    )
    await intake.enqueue(turn(1))
    await intake.enqueue(turn(2))
    assert depth.value == 2 and metrics.outbox_depth.value() == 2 and len(woken) == 2
    metrics.outbox_depth.set(0)  # whatever the gauge says, the count decides
    with pytest.raises(OutboxFull):
        await intake.enqueue(turn(3))
    assert await SqliteOutbox(db).depth() == 2
    depth.removed(1)  # the worker acked one row
    await intake.enqueue(turn(3))
    assert await SqliteOutbox(db).depth() == 3


async def test_sqlite_facts_and_their_acks_commit_together_or_not_at_all(
    db: Database,
) -> None:
    box, store, writer = SqliteOutbox(db), SqliteRecordStore(db), SqliteFactWriter(db)
    good = await planned(box, 1, "Lives in Lyon")
    bad = await planned(box, 2, "x" * (MAX_CONTENT_CHARS + 1))
    with pytest.raises(InvalidInput):
        await writer.write([good, bad], NOW)
    # The transaction rolled back whole: no fact of the good turn, both rows still queued.
    assert await store.recent(Live(now=NOW, cutoff=None, owner=OWNER), 10) == []
    assert await box.depth() == 2
    [written] = await writer.write([good], NOW)
    assert [m.content for m in written.written] == ["Lives in Lyon"]
    assert [seq for seq, _ in await box.pending_rows()] == [bad.row.seq]


class CrashBeforeAck:
    """The local outbox of a process that dies between Qdrant's write and the ack."""

    def __init__(self, box: SqliteOutbox) -> None:
        self.box = box

    async def ack(self, seqs: Sequence[int]) -> None:
        raise SystemExit("killed before the ack")


async def test_qdrant_writes_then_acks_and_a_replay_after_a_crash_stores_nothing_twice(
    db: Database,
) -> None:
    transport = await open_transport(QdrantConfig(), location=":memory:")
    store = QdrantMemoryStore(transport, "services", embedder=None)
    box = SqliteOutbox(db)
    try:
        item = await planned(box, 1, "Lives in Porto")
        crashed = QdrantFactWriter(store, CrashBeforeAck(box))  # type: ignore[arg-type]
        with pytest.raises(SystemExit):
            await crashed.write([item], NOW)
        assert await box.depth() == 1  # written, not acked: the row is replayed
        first = await store.recent(Live(now=NOW, cutoff=None, owner=OWNER), 10)
        [replayed] = await QdrantFactWriter(store, box).write([item], NOW)
        assert [m.id for m in replayed.written] == [m.id for m in first]
        assert len(await store.recent(Live(now=NOW, cutoff=None, owner=OWNER), 10)) == 1
        assert await box.depth() == 0
    finally:
        await store.close()


async def test_a_deleted_local_file_is_reopened_by_its_recovery(
    tmp_path: Path,
) -> None:
    local = SqliteLocalFile(await open_local(str(tmp_path)))
    forgotten: list[str] = []

    async def forget() -> None:
        forgotten.append("cache")

    local.on_replaced(forget)
    reopened: list[bool] = []
    recovery = LocalFileRecovery(local, Metrics(), lambda: reopened.append(True))
    box = SqliteOutbox(local.db)
    try:
        await box.insert(turn(1), NOW)
        os.remove(local.path)
        with pytest.raises(StoreGone) as gone:
            await box.insert(turn(2), NOW)
        assert isinstance(gone.value, StoreGone)  # what recovery reads as "reopen"
        recovery.noticed(gone.value)
        await recovery.close()  # waits for the reopen in progress
        assert reopened == [True] and forgotten == ["cache"]
        assert await box.depth() == 0  # a fresh, migrated file
        await box.insert(turn(3), NOW)
        assert await box.depth() == 1
    finally:
        await local.close()
