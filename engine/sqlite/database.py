"""One SQLite file: one writer connection owned by one writer task, a small pool of readers.

Why this shape: WAL SQLite is fast and never says "database is locked" to itself when a
single task owns every write (`BEGIN IMMEDIATE`) and reads go to other connections, which
WAL lets proceed while the writer works. Store modules are plain synchronous functions over a
driver connection (`fn(conn) -> T`); `Database.write(fn)` / `Database.read(fn)` run them in
the connection's own thread (aiosqlite), so the event loop never blocks on SQLite.

Writes are group-committed: jobs queued while a transaction runs go into the next one, each
inside its own SAVEPOINT so one failing job rolls back alone. A job's effects are committed
before its `write()` returns.

Driver errors are translated into `StoreError` subclasses (all `EngineError`), so callers
handle one family (`engine/store_errors.py`): `StoreBusy` (locked), `StoreTimeout` (a read ran past its time limit),
`StoreUnavailable` (read-only, full, corrupt, deleted), `StoreClosed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from memtap.engine.api import EngineError, StoreError, StoreUnavailable
from memtap.engine.sqlite.driver import Driver
from memtap.engine.sqlite.readers import ReaderPool, ReadNotStarted, install_progress
from memtap.engine.store_errors import StoreBusy, StoreClosed, StoreGone, StoreTimeout

log = logging.getLogger("memtap.store")

T = TypeVar("T")
Conn = Any
"""A driver connection (`sqlite3.Connection` or `pysqlite3.dbapi2.Connection`)."""

WRITE_BATCH_MAX = 64
LOOP_READS_PER_ITERATION_MS = 50
"""How long `read_now` reads may hold the event loop together between two refills of their
share, which happen at the start of an iteration of the loop (so one iteration can see the
end of one share and the whole next one: ~100 ms at worst). Each read has its own budget,
but a crowd of reads just under it (a huge owner's keyword search on every request of a
burst) would otherwise hold the loop for all of them in a row."""
LOOP_READ_MIN_LEFT_MS = 2
"""A read is not started with less of the share than this: it would be cut at once and
made again in full by a reader thread."""


_UNAVAILABLE_MARKERS = (
    "readonly",
    "read-only",
    "disk i/o",
    "full",
    "malformed",
    "not a database",
    "unable to open",
    "no such table",
    "disk image",
)


def translate(exc: BaseException, driver: Driver) -> BaseException:
    """Map a driver (or aiosqlite) exception onto the StoreError family; others pass through."""
    if isinstance(exc, EngineError):
        return exc
    if isinstance(exc, driver.error):
        text = str(exc).lower()
        if "interrupted" in text:
            return StoreTimeout(f"query interrupted: {exc}")
        if "locked" in text or "busy" in text:
            return StoreBusy(str(exc))
        if any(marker in text for marker in _UNAVAILABLE_MARKERS):
            return StoreUnavailable(str(exc))
        return StoreError(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, ValueError) and "no active connection" in str(exc):
        return StoreClosed("database is closed")
    return exc


@dataclass(slots=True)
class _Job:
    fn: Callable[[Conn], Any]
    future: asyncio.Future[Any]
    transactional: bool


def _close_opened(opening: asyncio.Future[Conn]) -> None:
    if not opening.cancelled() and opening.exception() is None:
        with contextlib.suppress(Exception):
            opening.result().close()


def _raw(conn: aiosqlite.Connection) -> Conn:
    # The driver connection behind aiosqlite's thread (private attribute, stable since 0.17).
    return conn._conn


async def _in_thread(conn: aiosqlite.Connection, fn: Callable[[], T]) -> T:
    # One hop into the connection's thread for a whole unit of work (a transaction, a read
    # with its rows), instead of one hop per statement: this is what keeps a commit well
    # under a millisecond. aiosqlite has no public "run this callable" method.
    result: T = await conn._execute(fn)  # type: ignore[no-untyped-call]
    return result


class Database:
    """Open with `await Database.open(...)`; close with `await db.close()`."""

    def __init__(self, path: Path, driver: Driver, busy_timeout_ms: int) -> None:
        self.path = path
        self.driver = driver
        self.busy_timeout_ms = busy_timeout_ms
        self.extensions: dict[str, str] = {}
        """Extension name -> "loaded" | "error: ..." (on the writer; readers load the same)."""
        self._writer: aiosqlite.Connection | None = None
        self._readers: ReaderPool | None = None
        self._now: Conn | None = None
        """The event loop's own reader connection (`read_now`)."""
        self._now_deadline = [0.0]
        self._now_spent_s = 0.0
        """Time `read_now` held the loop in its current iteration."""
        self._now_iteration_open = False
        self._jobs: asyncio.Queue[_Job | None] = asyncio.Queue()
        self._writer_task: asyncio.Task[None] | None = None
        self._closed = False
        self._identity: tuple[int, int] | None = None
        self._settings: tuple[
            int, int, Sequence[tuple[str, Callable[[Conn], None]]]
        ] = (
            2,
            200,
            (),
        )

    # -- lifecycle ----------------------------------------------------------------------
    @classmethod
    async def open(
        cls,
        path: Path,
        driver: Driver,
        *,
        readers: int = 4,
        busy_timeout_ms: int = 1000,
        read_busy_timeout_ms: int = 200,
        extension_loaders: Sequence[tuple[str, Callable[[Conn], None]]] = (),
    ) -> Database:
        db = cls(path, driver, busy_timeout_ms)
        db._settings = (readers, read_busy_timeout_ms, tuple(extension_loaders))
        await db._start()
        return db

    async def _start(self) -> None:
        readers, read_busy_timeout_ms, extension_loaders = self._settings
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._writer = await self._connect(
                self.busy_timeout_ms, extension_loaders, writer=True
            )
            path, driver = str(self.path), self.driver

            def reader() -> Conn:
                raw = driver.connect(path, timeout=read_busy_timeout_ms / 1000)
                try:
                    self._configure(
                        raw, read_busy_timeout_ms, extension_loaders, writer=False
                    )
                except BaseException:
                    raw.close()
                    raise
                return raw

            self._readers = ReaderPool(reader, readers)
            await self._readers.start()

            def reader_now() -> Conn:
                # Never waits for a lock: it runs on the event loop.
                raw = driver.connect(path, timeout=0)
                try:
                    self._configure(raw, 0, extension_loaders, writer=False)
                except BaseException:
                    raw.close()
                    raise
                install_progress(raw, self._now_deadline)
                return raw

            opening = asyncio.ensure_future(asyncio.to_thread(reader_now))
            try:
                self._now = await asyncio.shield(opening)
            except asyncio.CancelledError:
                # The thread opens it anyway: closed once it has, not left to the GC.
                opening.add_done_callback(_close_opened)
                raise
        except BaseException as exc:
            await self._close_connections()
            err = translate(exc, self.driver)
            if err is exc:
                raise
            raise err from exc
        st = os.stat(self.path)
        self._identity = (st.st_dev, st.st_ino)
        self._closed = False
        self._writer_task = asyncio.create_task(
            self._writer_loop(), name="memtap-store-writer"
        )

    async def reopen(self) -> None:
        """The file was deleted or replaced: finish the queued writes on the old file (they
        fail with `StoreGone`), then connect to whatever is at `path` now (a new file when
        nothing is). Everyone holding this `Database` carries on with the new file."""
        await self.close()
        self._jobs = asyncio.Queue()
        self.extensions = {}
        await self._start()

    async def _connect(
        self,
        busy_ms: int,
        loaders: Sequence[tuple[str, Callable[[Conn], None]]],
        *,
        writer: bool,
    ) -> aiosqlite.Connection:
        path, driver = str(self.path), self.driver
        conn = aiosqlite.Connection(
            lambda: driver.connect(path, timeout=busy_ms / 1000), 64
        )
        # A forgotten close() must not keep the process alive at exit; WAL makes an
        # abandoned transaction as safe as a crash.
        conn._thread.daemon = True
        await conn
        try:
            await _in_thread(
                conn,
                lambda: self._configure(_raw(conn), busy_ms, loaders, writer=writer),
            )
        except BaseException:
            await conn.close()
            raise
        return conn

    def _configure(
        self,
        raw: Conn,
        busy_ms: int,
        loaders: Sequence[tuple[str, Callable[[Conn], None]]],
        *,
        writer: bool,
    ) -> None:
        """Pragmas and extensions, in the thread that owns `raw`."""
        raw.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
        if writer:
            mode = raw.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                log.warning("store.no_wal", extra={"fields": {"journal_mode": mode}})
            # Freed pages are zeroed so erased text does not linger in the file.
            raw.execute("PRAGMA secure_delete = ON")
        raw.execute("PRAGMA synchronous = NORMAL")
        raw.execute("PRAGMA temp_store = MEMORY")
        for name, loader in loaders:
            try:
                loader(raw)
                if writer:
                    self.extensions[name] = "loaded"
            except Exception as exc:  # noqa: BLE001 - an extension is optional
                if writer:
                    self.extensions[name] = f"error: {type(exc).__name__}: {exc}"[:200]

    async def close(self) -> None:
        """Finish every queued write, then close all connections."""
        if self._closed:
            return
        self._closed = True
        if self._writer_task is not None:
            self._jobs.put_nowait(None)
            with contextlib.suppress(Exception):
                await self._writer_task
        await self._close_connections()

    async def _close_connections(self) -> None:
        now, self._now = self._now, None
        if now is not None:
            with contextlib.suppress(Exception):
                now.close()
        readers, self._readers = self._readers, None
        if readers is not None:
            with contextlib.suppress(Exception):
                await readers.close()
        if self._writer is not None:
            with contextlib.suppress(Exception):
                await self._writer.close()
        self._writer = None

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_file(self) -> None:
        # On POSIX a deleted (or replaced) database file keeps accepting writes through the
        # open descriptor, and they vanish at the next start: refuse to acknowledge them.
        try:
            st = os.stat(self.path)
        except OSError as exc:
            raise StoreGone(f"database file is gone: {exc.strerror}") from exc
        if self._identity is not None and (st.st_dev, st.st_ino) != self._identity:
            raise StoreGone("database file was replaced while open")

    # -- writes -------------------------------------------------------------------------
    async def write(self, fn: Callable[[Conn], T]) -> T:
        """Run `fn(conn)` inside a write transaction; returns once it is committed."""
        return await self._submit(fn, transactional=True)

    async def write_outside_transaction(self, fn: Callable[[Conn], T]) -> T:
        """Run `fn(conn)` on the writer connection with no transaction open (checkpoint,
        VACUUM, migrations that manage their own transactions)."""
        return await self._submit(fn, transactional=False)

    async def _submit(self, fn: Callable[[Conn], T], *, transactional: bool) -> T:
        if self._closed or self._writer_task is None or self._writer_task.done():
            raise StoreClosed("database is closed")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._jobs.put_nowait(_Job(fn, future, transactional))
        return await future

    async def _writer_loop(self) -> None:
        carry: _Job | None = None
        while True:
            job = carry if carry is not None else await self._jobs.get()
            carry = None
            if job is None:
                return
            batch = [job]
            if job.transactional:
                while len(batch) < WRITE_BATCH_MAX:
                    try:
                        nxt = self._jobs.get_nowait()
                    except asyncio.QueueEmpty:
                        break
                    if nxt is None or not nxt.transactional:
                        carry = nxt
                        if nxt is None:
                            self._jobs.put_nowait(None)
                            carry = None
                        break
                    batch.append(nxt)
            await self._run_batch(batch)

    async def _run_batch(self, batch: list[_Job]) -> None:
        writer = self._writer
        assert writer is not None
        fns = [j.fn for j in batch]
        try:
            if batch[0].transactional:
                results = await _in_thread(
                    writer, lambda: _transaction(_raw(writer), fns, self._check_file)
                )
            else:
                results = [
                    (True, await _in_thread(writer, lambda: fns[0](_raw(writer))))
                ]
        except BaseException as exc:  # noqa: BLE001 - delivered to every waiter of the batch
            err = translate(exc, self.driver)
            for job in batch:
                if not job.future.done():
                    job.future.set_exception(err)
            return
        for job, (ok, value) in zip(batch, results, strict=True):
            if job.future.done():
                continue
            if ok:
                job.future.set_result(value)
            else:
                job.future.set_exception(translate(value, self.driver))

    # -- reads --------------------------------------------------------------------------
    async def read(
        self, fn: Callable[[Conn], T], *, timeout_ms: int | None = None
    ) -> T:
        """Run `fn(conn)` on a reader connection (never waits for the writer). With
        `timeout_ms`, the wait for a free reader and the statement share the limit: SQLite
        interrupts the statement past the deadline (StoreTimeout)."""
        readers = self._readers
        if self._closed or readers is None:
            raise StoreClosed("database is closed")
        deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms else 0.0
        read = readers.submit(fn, deadline)
        try:
            if timeout_ms:
                # Every reader can be busy (a vector-cache load, a long KNN): a retrieval
                # must not spend its whole budget queueing and then run on top of it. A
                # read no reader took by the deadline is given up (and skipped); one that
                # runs is interrupted by SQLite at the deadline, in its statement.
                await asyncio.wait((read.future,), timeout=timeout_ms / 1000)
                if not read.future.done() and not read.started:
                    read.future.cancel()
                    raise StoreTimeout(f"no reader free within {timeout_ms} ms")
            return await self._outcome(read.future)
        except ReadNotStarted:
            raise StoreTimeout(f"no reader free within {timeout_ms} ms") from None
        except asyncio.CancelledError:
            read.future.cancel()  # skipped if no reader took it yet
            raise

    def read_now(self, fn: Callable[[Conn], T], *, budget_ms: int) -> T:
        """Run `fn(conn)` here and now, on the event loop's own connection, for a small read
        a request cannot wait for: a reader thread's result comes back two loop iterations
        later, ~100 ms each when memtap is saturated. It never waits for a lock (StoreBusy)
        and SQLite interrupts it past `budget_ms` (StoreTimeout), so it holds the loop at
        most that long. Together such reads hold the loop at most
        `LOOP_READS_PER_ITERATION_MS` between two refills of their share at the start of a
        loop iteration: past that, StoreBusy too (a reader thread's turn), and
        a read cut short by what was left of it raises StoreBusy, not StoreTimeout (the read
        was not slow, the iteration was full)."""
        conn = self._now
        if self._closed or conn is None:
            raise StoreClosed("database is closed")
        left_s = self._iteration_left_s()
        if left_s < LOOP_READ_MIN_LEFT_MS / 1000:
            raise StoreBusy(
                "the event loop's share of reads is spent for this iteration"
            )
        budget_s = budget_ms / 1000
        started = time.monotonic()
        self._now_deadline[0] = started + min(budget_s, left_s)
        try:
            return fn(conn)
        except BaseException as exc:
            err = translate(exc, self.driver)
            if isinstance(err, StoreTimeout) and left_s < budget_s:
                raise StoreBusy("cut at the event loop's share of reads") from exc
            if err is exc:
                raise
            raise err from exc
        finally:
            self._now_deadline[0] = 0.0
            self._now_spent_s += time.monotonic() - started

    def _iteration_left_s(self) -> float:
        if not self._now_iteration_open:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # called off the loop (a script): its own budget only
                return math.inf
            # Runs at the start of the loop's next iteration: the share is whole again.
            loop.call_soon(self._next_iteration)
            self._now_iteration_open = True
            self._now_spent_s = 0.0
        return LOOP_READS_PER_ITERATION_MS / 1000 - self._now_spent_s

    def _next_iteration(self) -> None:
        self._now_iteration_open = False

    async def _outcome(self, read: asyncio.Future[T]) -> T:
        try:
            return await read
        except (asyncio.CancelledError, ReadNotStarted):
            raise
        except BaseException as exc:
            err = translate(exc, self.driver)
            if err is exc:
                raise
            raise err from exc


def _transaction(
    raw: Conn, fns: list[Callable[[Conn], Any]], check: Callable[[], None]
) -> list[tuple[bool, Any]]:
    """Runs in the writer thread: one BEGIN IMMEDIATE ... COMMIT around every job."""
    check()
    raw.execute("BEGIN IMMEDIATE")
    try:
        results: list[tuple[bool, Any]] = []
        if len(fns) == 1:
            results.append((True, fns[0](raw)))
        else:
            for fn in fns:
                raw.execute("SAVEPOINT job")
                try:
                    value = fn(raw)
                except Exception as exc:  # noqa: BLE001 - this job alone is rolled back
                    raw.execute("ROLLBACK TO job")
                    raw.execute("RELEASE job")
                    results.append((False, exc))
                else:
                    raw.execute("RELEASE job")
                    results.append((True, value))
        raw.execute("COMMIT")
        return results
    except BaseException:
        if raw.in_transaction:
            with contextlib.suppress(Exception):
                raw.execute("ROLLBACK")
        raise
