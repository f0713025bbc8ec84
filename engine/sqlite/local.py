"""The replica's local SQLite file: opened and migrated, reopened when it is replaced.

Every SQLite adapter (record store, sqlite-vec index, outbox, settings) holds the same
`Database`; `reopen` reconnects that object in place, so a replaced file is picked up by all
of them at once: nothing is rebuilt and no adapter is swapped for another.
`SqliteLocalFile` is that file behind the engine's `LocalFile` port.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import Driver, choose_driver, load_sqlite_vec
from memtap.engine.sqlite.imported_turns import SqliteTurnLedger

DB_FILENAME = "memtap.db"


def database_path(data_dir: str) -> Path:
    return Path(data_dir).expanduser() / DB_FILENAME


async def open_local(
    data_dir: str, *, driver: Driver | None = None, sqlite_vec: bool = False
) -> Database:
    """Choose the driver, open and migrate `<data_dir>/memtap.db`, loading sqlite-vec when
    asked and the driver can load extensions."""
    if driver is None:
        driver = await asyncio.to_thread(
            choose_driver, os.environ.get("MEMTAP_SQLITE_DRIVER") or None
        )
    loaders: list[tuple[str, Callable[[Any], None]]] = []
    if sqlite_vec and driver.can_load_extensions:
        loaders.append(("sqlite-vec", load_sqlite_vec))
    db = await Database.open(database_path(data_dir), driver, extension_loaders=loaders)
    try:
        await db.write_outside_transaction(migrations.migrate)
    except BaseException:
        await db.close()
        raise
    return db


async def reopen(db: Database) -> None:
    """Reconnect `db` to the file now at its path (a fresh one when it was deleted), migrated."""
    await db.reopen()
    await db.write_outside_transaction(migrations.migrate)


async def checkpoint(db: Database) -> None:
    """Fold the WAL into the main file and truncate it (erased text leaves `-wal`)."""
    for _ in range(20):
        busy = await db.write_outside_transaction(
            lambda conn: conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        )
        if not busy:
            return
        await asyncio.sleep(0.05)


def file_size(db: Database) -> int:
    """Bytes of the file with its `-wal` and `-shm`."""
    return sum(
        p.stat().st_size for p in db.path.parent.glob(db.path.name + "*") if p.is_file()
    )


class SqliteLocalFile:
    """`LocalFile` over one `Database`: the outbox, settings, request log and ledger of
    imported turns are always in it, the memory rows too with the SQLite record store."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._imported_turns = SqliteTurnLedger(db)
        self._on_replaced: list[Callable[[], Awaitable[None]]] = []

    def on_replaced(self, forget: Callable[[], Awaitable[None]]) -> None:
        """After a reopen, `forget` drops what an adapter cached of the old file (the
        sqlite-vec table, the episodes' vector cache); called in the order registered."""
        self._on_replaced.append(forget)

    @property
    def path(self) -> str:
        return str(self.db.path)

    @property
    def driver(self) -> str:
        return self.db.driver.name

    @property
    def imported_turns(self) -> SqliteTurnLedger:
        return self._imported_turns

    async def reopen(self) -> None:
        await reopen(self.db)
        for forget in self._on_replaced:
            await forget()

    async def checkpoint(self) -> None:
        await checkpoint(self.db)

    async def close(self) -> None:
        await self.db.close()
