"""Reader connections that hand themselves back: a few threads, each with its own SQLite
connection, taking reads from one queue.

Why not a pool of aiosqlite connections: a reader taken from an asyncio pool went back only
when the event loop resumed the read's caller. Under load the loop is late, so a reader
stayed taken for most of a loop iteration after its statement ended, and request-path reads
queued for one (with four readers at 400 streams: p50 58 ms, p99 238 ms of waiting, the
larger part of a retrieval's 250 ms). Here a thread takes the next read as soon as its
statement ends; only the result waits for the loop. A read whose caller gave up before a
thread took it (a retrieval cut by its time limit) is skipped, not run for nobody.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Conn = Any
"""A driver connection (`sqlite3.Connection` or `pysqlite3.dbapi2.Connection`)."""

PROGRESS_OPS = 2000


class ReadNotStarted(Exception):
    """The read's deadline passed before a reader thread took it."""


@dataclass(slots=True)
class PendingRead:
    fn: Callable[[Conn], Any]
    future: asyncio.Future[Any]
    """The read's outcome; cancel it to skip the read if no thread has taken it yet."""
    loop: asyncio.AbstractEventLoop
    deadline: float
    """time.monotonic() after which the read is interrupted (0: no limit)."""
    started: bool = False
    """A reader thread took it (set in that thread)."""


class ReaderPool:
    """`size` reader threads over connections made by `connect` (called in each thread,
    which then owns its connection). `start` before the first read, `close` at the end."""

    def __init__(self, connect: Callable[[], Conn], size: int) -> None:
        self._connect = connect
        self._size = max(1, size)
        self._reads: queue.SimpleQueue[PendingRead | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []

    async def start(self) -> None:
        """Every thread connected, or the first connection error (the others closed)."""
        ready = [concurrent.futures.Future[None]() for _ in range(self._size)]
        for i, each in enumerate(ready):
            thread = threading.Thread(
                target=self._serve, args=(each,), name=f"memtap-reader-{i}", daemon=True
            )
            thread.start()
            self._threads.append(thread)
        try:
            for each in ready:
                await asyncio.wrap_future(each)
        except BaseException:
            await self.close()
            raise

    def submit(self, fn: Callable[[Conn], Any], deadline: float) -> PendingRead:
        """Queue `fn(conn)`; its outcome arrives in the read's future."""
        loop = asyncio.get_running_loop()
        read = PendingRead(fn, loop.create_future(), loop, deadline)
        self._reads.put(read)
        return read

    async def close(self) -> None:
        """Reads already queued run first; then every connection closes."""
        threads, self._threads = self._threads, []
        for _ in threads:
            self._reads.put(None)
        for thread in threads:
            await asyncio.to_thread(thread.join)

    def _serve(self, ready: concurrent.futures.Future[None]) -> None:
        try:
            conn = self._connect()
        except BaseException as exc:  # noqa: BLE001 - reported to start()
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                ready.set_exception(exc)
            return
        deadline = [0.0]
        install_progress(conn, deadline)
        try:
            ready.set_result(None)
        except concurrent.futures.InvalidStateError:
            # start() was cancelled while this thread connected (a signal during startup):
            # nobody will read through this connection.
            with contextlib.suppress(Exception):
                conn.close()
            return
        try:
            while (read := self._reads.get()) is not None:
                self._run(conn, read, deadline)
        finally:
            with contextlib.suppress(Exception):
                conn.close()

    @staticmethod
    def _run(conn: Conn, read: PendingRead, deadline: list[float]) -> None:
        # Reading another thread's future state: at worst a read cancelled this instant
        # runs once for nobody, as every read did before.
        if read.future.cancelled():
            return
        read.started = True
        if read.deadline and time.monotonic() > read.deadline:
            _deliver_soon(read, False, ReadNotStarted())
            return
        deadline[0] = read.deadline
        try:
            value, ok = read.fn(conn), True
        except BaseException as exc:  # noqa: BLE001 - delivered to the caller
            value, ok = exc, False
        finally:
            deadline[0] = 0.0
        _deliver_soon(read, ok, value)


def _deliver_soon(read: PendingRead, ok: bool, value: Any) -> None:
    with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting
        read.loop.call_soon_threadsafe(_deliver, read.future, ok, value)


def _deliver(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if future.done():
        return  # the caller gave up (its time limit, its request)
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


def install_progress(raw: Conn, deadline: list[float]) -> None:
    """Interrupt `raw`'s running statement once time.monotonic() passes `deadline[0]`
    (0: no limit)."""

    def check() -> int:
        # Non-zero aborts the running statement with "interrupted".
        return 1 if deadline[0] and time.monotonic() > deadline[0] else 0

    raw.set_progress_handler(check, PROGRESS_OPS)
