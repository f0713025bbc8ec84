"""The replica's local SQLite file: opened and migrated, reopened when it is replaced.

Every SQLite adapter (record store, sqlite-vec index, outbox, settings) holds the same
`Database`; `reopen` reconnects that object in place, so a replaced file is picked up by all
of them at once: nothing is rebuilt and no adapter is swapped for another.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import Driver, choose_driver, load_sqlite_vec

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
