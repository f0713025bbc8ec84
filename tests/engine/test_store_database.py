"""The Database: driver choice, WAL + pragmas, one writer with group commit (a failing job
rolls back alone), reads that never wait on the writer, read time limits, error mapping."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from memtap.engine.api import StoreError
from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.database import LOOP_READS_PER_ITERATION_MS, Database
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.store_errors import StoreBusy, StoreClosed, StoreTimeout


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "t.db", choose_driver(), readers=2)
    await database.write_outside_transaction(migrations.migrate)
    await database.write(
        lambda c: c.execute("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)")
    )
    yield database
    await database.close()


def test_driver_choice_is_logged_and_usable(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="memtap.store"):
        driver = choose_driver()
    assert driver.name in ("sqlite3", "pysqlite3", "sqlite3-noext")
    assert driver.has_fts5
    record = next(r for r in caplog.records if r.getMessage() == "store.driver")
    assert record.fields["driver"] == driver.name  # type: ignore[attr-defined]
    noext = choose_driver("sqlite3-noext")
    assert noext.name == "sqlite3-noext" and not noext.can_load_extensions
    conn = noext.connect(":memory:")
    try:
        with pytest.raises(noext.error):
            conn.execute("SELEC nonsense")
    finally:
        conn.close()


async def test_pragmas(db: Database) -> None:
    mode = await db.read(lambda c: c.execute("PRAGMA journal_mode").fetchone()[0])
    assert mode == "wal"
    assert (
        await db.write_outside_transaction(
            lambda c: c.execute("PRAGMA synchronous").fetchone()[0]
        )
        == 1
    )
    assert (
        await db.write_outside_transaction(
            lambda c: c.execute("PRAGMA busy_timeout").fetchone()[0]
        )
        == 1000
    )
    assert (
        await db.write_outside_transaction(
            lambda c: c.execute("PRAGMA secure_delete").fetchone()[0]
        )
        == 1
    )


async def test_group_commit_isolates_a_failing_job(db: Database) -> None:
    def put(key: str, fail: bool = False) -> Any:
        def job(c: Any) -> str:
            c.execute("INSERT INTO kv VALUES (?, 1)", (key,))
            if fail:
                raise ValueError("job failed")
            return key

        return job

    results = await asyncio.gather(
        *(db.write(put(f"k{i}", fail=i == 5)) for i in range(20)),
        return_exceptions=True,
    )
    assert isinstance(results[5], ValueError)
    assert [r for i, r in enumerate(results) if i != 5] == [
        f"k{i}" for i in range(20) if i != 5
    ]
    keys = await db.read(
        lambda c: [r[0] for r in c.execute("SELECT k FROM kv ORDER BY rowid")]
    )
    assert keys == [f"k{i}" for i in range(20) if i != 5]
    # a driver error in one job (duplicate key) maps to StoreError and spares the others
    results = await asyncio.gather(
        db.write(put("k0")), db.write(put("new")), return_exceptions=True
    )
    assert isinstance(results[0], StoreError) and results[1] == "new"


@pytest.mark.parametrize("now", [False, True])
async def test_reads_do_not_wait_for_the_writer(db: Database, now: bool) -> None:
    """Neither a reader thread's read nor one at once on the loop (`read_now`, which then
    answers in the caller's step: the loop does not turn)."""
    started = asyncio.Event()
    loop = asyncio.get_running_loop()

    def slow_write(c: Any) -> None:
        c.execute("INSERT INTO kv VALUES ('slow', 1)")
        loop.call_soon_threadsafe(started.set)
        time.sleep(0.5)  # holds the write transaction open (in the writer's thread)

    async def rows() -> int:
        def count(c: Any) -> int:
            return int(c.execute("SELECT count(*) FROM kv").fetchone()[0])

        return db.read_now(count, budget_ms=20) if now else await db.read(count)

    writing = asyncio.create_task(db.write(slow_write))
    await started.wait()
    t0 = time.monotonic()
    count = await rows()
    assert time.monotonic() - t0 < 0.3
    assert count == 0  # the uncommitted row is invisible
    await writing
    assert await rows() == 1


async def test_long_read_is_interrupted(db: Database) -> None:
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    t0 = time.monotonic()
    with pytest.raises(StoreTimeout):
        await db.read(lambda c: c.execute(endless).fetchone(), timeout_ms=50)
    assert time.monotonic() - t0 < 2
    # the reader is usable afterwards, and reads without a limit are not interrupted
    assert await db.read(lambda c: c.execute("SELECT 1").fetchone()[0]) == 1


async def test_read_now_is_interrupted_past_its_budget(db: Database) -> None:
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    t0 = time.monotonic()
    with pytest.raises(StoreTimeout):
        db.read_now(lambda c: c.execute(endless).fetchone(), budget_ms=20)
    assert time.monotonic() - t0 < 0.5  # the loop was held ~20 ms, not for ever
    assert db.read_now(lambda c: c.execute("SELECT 1").fetchone()[0], budget_ms=20) == 1


async def test_loop_reads_share_one_budget_per_loop_iteration(db: Database) -> None:
    """Each read under its own budget, reads on the loop still hold one iteration of it at
    most LOOP_READS_PER_ITERATION_MS together; then StoreBusy until the loop has gone round."""
    share_s = LOOP_READS_PER_ITERATION_MS / 1000

    def slow(c: Any) -> int:
        time.sleep(share_s * 0.6)  # Python time: no SQLite step to interrupt
        return int(c.execute("SELECT 1").fetchone()[0])

    assert db.read_now(slow, budget_ms=1000) == 1
    assert db.read_now(slow, budget_ms=1000) == 1  # started with 40 % left
    with pytest.raises(StoreBusy):
        db.read_now(slow, budget_ms=1000)
    await asyncio.sleep(0)
    assert db.read_now(slow, budget_ms=1000) == 1


async def test_a_read_cut_by_the_iterations_share_is_busy_not_slow(
    db: Database,
) -> None:
    """A read interrupted by what was left of the iteration's share raises StoreBusy (the
    loop was full), one interrupted by its own budget StoreTimeout (the read was slow)."""
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    share_s = LOOP_READS_PER_ITERATION_MS / 1000
    db.read_now(lambda c: time.sleep(share_s * 0.9), budget_ms=1000)
    t0 = time.monotonic()
    with pytest.raises(StoreBusy):
        db.read_now(lambda c: c.execute(endless).fetchone(), budget_ms=1000)
    assert time.monotonic() - t0 < share_s  # cut at the share, not at its own budget
    await asyncio.sleep(0)
    with pytest.raises(StoreTimeout):
        db.read_now(lambda c: c.execute(endless).fetchone(), budget_ms=20)


async def test_reads_that_fail_count_against_the_share_too(db: Database) -> None:
    """Time spent by reads the budget cut counts as well: after two reads cut at 20 ms, the
    third gets what is left of 50 ms and is cut there (busy); with less than
    LOOP_READ_MIN_LEFT_MS left, a read is not even started."""
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    for _ in range(2):
        with pytest.raises(StoreTimeout):
            db.read_now(lambda c: c.execute(endless).fetchone(), budget_ms=20)
    with pytest.raises(StoreBusy):
        db.read_now(lambda c: c.execute(endless).fetchone(), budget_ms=20)
    started: list[int] = []
    with pytest.raises(StoreBusy):
        db.read_now(lambda c: started.append(1), budget_ms=20)
    assert started == []


async def test_a_read_made_off_the_loop_has_its_own_budget_only(db: Database) -> None:
    """A script (no running loop) shares no loop: its read is cut at its own budget, past
    the loop's share (StoreTimeout: the read was slow)."""
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    budget_ms = 2 * LOOP_READS_PER_ITERATION_MS

    def read() -> float:
        t0 = time.monotonic()
        with pytest.raises(StoreTimeout):
            db.read_now(lambda c: c.execute(endless).fetchone(), budget_ms=budget_ms)
        return time.monotonic() - t0

    assert await asyncio.to_thread(read) >= budget_ms / 1000 * 0.9


async def test_a_startup_cancelled_while_the_loops_connection_opens_closes_it(
    tmp_path: Path,
) -> None:
    """The loop's connection opens in a thread, which goes on when the startup is
    cancelled: the connection it makes is closed then, not left to the garbage collector."""
    opened: list[Any] = []
    release = threading.Event()
    calls = 0

    def load(conn: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:  # the writer, one reader, then the loop's own connection
            opened.append(conn)
            release.wait(5)

    starting = asyncio.ensure_future(
        Database.open(
            tmp_path / "c.db",
            choose_driver(),
            readers=1,
            extension_loaders=[("x", load)],
        )
    )
    for _ in range(500):
        if opened:
            break
        await asyncio.sleep(0.01)
    assert opened, "the loop's connection never started to open"
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await starting
    release.set()
    for _ in range(500):
        try:
            opened[0].execute("SELECT 1")
        except Exception as exc:  # noqa: BLE001 - the driver's own "closed" error
            assert "closed" in str(exc).lower()
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the loop's connection was left open")


async def test_read_now_follows_close_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "n.db"
    database = await Database.open(path, choose_driver())
    await database.write(lambda c: c.execute("CREATE TABLE t (x)"))
    await database.reopen()
    await database.write(lambda c: c.execute("INSERT INTO t VALUES (1)"))
    assert (
        database.read_now(
            lambda c: c.execute("SELECT x FROM t").fetchone()[0], budget_ms=20
        )
        == 1
    )
    await database.close()
    with pytest.raises(StoreClosed):
        database.read_now(lambda c: None, budget_ms=20)


async def test_waiting_for_a_reader_counts_against_the_read_limit(db: Database) -> None:
    # Every reader busy with long reads: a limited read times out within its limit instead
    # of queueing behind them and then getting its whole limit again.
    release = asyncio.Event()
    loop = asyncio.get_running_loop()
    holding = threading.Event()

    def hold(c: Any) -> None:
        loop.call_soon_threadsafe(holding.set)
        asyncio.run_coroutine_threadsafe(release.wait(), loop).result(10)

    busy = [asyncio.create_task(db.read(hold)) for _ in range(8)]  # more than the pool
    await asyncio.sleep(0.05)
    t0 = time.monotonic()
    with pytest.raises(StoreTimeout):
        await db.read(lambda c: c.execute("SELECT 1").fetchone(), timeout_ms=100)
    assert time.monotonic() - t0 < 0.5
    release.set()
    await asyncio.gather(*busy)


async def test_closed_database_raises_store_closed(tmp_path: Path) -> None:
    database = await Database.open(tmp_path / "c.db", choose_driver())
    await database.close()
    with pytest.raises(StoreClosed):
        await database.write(lambda c: None)
    with pytest.raises(StoreClosed):
        await database.read(lambda c: None)


async def test_close_finishes_queued_writes(tmp_path: Path) -> None:
    database = await Database.open(tmp_path / "q.db", choose_driver())
    await database.write(lambda c: c.execute("CREATE TABLE t (x)"))
    pending = [
        asyncio.ensure_future(
            database.write(lambda c, i=i: c.execute("INSERT INTO t VALUES (?)", (i,)))
        )
        for i in range(50)
    ]
    await asyncio.sleep(0)
    await database.close()
    await asyncio.gather(*pending)
    again = await Database.open(tmp_path / "q.db", choose_driver())
    try:
        assert (
            await again.read(
                lambda c: c.execute("SELECT count(*) FROM t").fetchone()[0]
            )
            == 50
        )
    finally:
        await again.close()


async def test_a_reader_takes_the_next_read_while_the_loop_is_busy(
    tmp_path: Path,
) -> None:
    """A reader goes back as soon as its statement ends, not when the event loop resumes
    the read's caller: under load the loop is late, and reads queued for readers."""
    database = await Database.open(tmp_path / "r.db", choose_driver(), readers=1)
    try:
        ended: list[float] = []
        started: list[float] = []

        def first(c: Any) -> None:
            c.execute("SELECT 1").fetchone()
            ended.append(time.monotonic())

        def second(c: Any) -> None:
            started.append(time.monotonic())

        reads = [
            asyncio.create_task(database.read(first)),
            asyncio.create_task(database.read(second)),
        ]
        await asyncio.sleep(0)  # both reads queued
        time.sleep(0.3)  # noqa: ASYNC251 - the loop busy on purpose, as under load
        await asyncio.gather(*reads)
        assert started[0] - ended[0] < 0.15
    finally:
        await database.close()


async def test_a_read_its_caller_gave_up_on_is_not_run(tmp_path: Path) -> None:
    database = await Database.open(tmp_path / "s.db", choose_driver(), readers=1)
    try:
        release = threading.Event()
        ran: list[str] = []
        holding = asyncio.create_task(database.read(lambda c: release.wait(5)))
        await asyncio.sleep(0.05)  # the only reader is taken
        gave_up = asyncio.create_task(database.read(lambda c: ran.append("abandoned")))
        await asyncio.sleep(0.05)
        gave_up.cancel()
        limited = asyncio.create_task(
            database.read(lambda c: ran.append("too late"), timeout_ms=50)
        )
        with pytest.raises(StoreTimeout):
            await limited
        release.set()
        await holding
        assert await database.read(lambda c: c.execute("SELECT 7").fetchone()[0]) == 7
        assert ran == []
    finally:
        await database.close()


async def test_a_timeout_error_raised_by_the_read_itself_is_not_a_store_timeout(
    db: Database,
) -> None:
    def fails(c: Any) -> None:
        raise TimeoutError("the read's own")

    with pytest.raises(TimeoutError, match="the read's own") as raised:
        await db.read(fails, timeout_ms=1000)
    assert not isinstance(raised.value, StoreTimeout)


async def test_a_start_cancelled_while_readers_connect_raises_in_no_thread() -> None:
    """A signal during startup cancels ReaderPool.start while its threads connect: a thread
    that finishes connecting then must close its connection quietly (it raised
    InvalidStateError on the cancelled future: a traceback on stderr at every such stop)."""
    import threading

    from memtap.engine.sqlite.readers import ReaderPool

    raised: list[BaseException | None] = []
    before = threading.excepthook
    threading.excepthook = lambda args: raised.append(args.exc_value)
    closed = threading.Event()

    class Conn:
        def set_progress_handler(self, *_: object) -> None: ...

        def close(self) -> None:
            closed.set()

    def connect() -> Conn:
        time.sleep(0.3)
        return Conn()

    try:
        pool = ReaderPool(connect, 1)
        task = asyncio.ensure_future(pool.start())
        await asyncio.sleep(0.05)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert await asyncio.to_thread(closed.wait, 5)
    finally:
        threading.excepthook = before
    assert raised == []
