"""Which SQLite binding memtap runs on, chosen once at start.

Order: the stdlib `sqlite3` when it can load extensions (sqlite-vec needs that), else
`pysqlite3` (the `pysqlite3-binary` wheel, a recent SQLite with extension loading), else the
stdlib without extensions (keyword/FTS5 only, no sqlite-vec). The choice is logged as
`store.driver` and reported by health/status as `sqlite:<name>`.

Every module that talks SQL catches `Driver.error` (the chosen binding's own `Error`
base class), never `sqlite3.Error` blindly: pysqlite3's exceptions are different classes.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass
from types import ModuleType
from typing import Any

log = logging.getLogger("memtap.store")


@dataclass(frozen=True, slots=True)
class Driver:
    name: str
    """"sqlite3" | "pysqlite3" | "sqlite3-noext"."""
    module: ModuleType
    can_load_extensions: bool
    sqlite_version: str
    has_fts5: bool

    @property
    def error(self) -> type[Exception]:
        err: type[Exception] = self.module.Error
        return err

    @property
    def operational_error(self) -> type[Exception]:
        err: type[Exception] = self.module.OperationalError
        return err

    def connect(self, path: str, **kwargs: Any) -> Any:
        """A connection in autocommit mode: memtap issues BEGIN/COMMIT itself."""
        return self.module.connect(
            path, isolation_level=None, check_same_thread=False, **kwargs
        )


def _probe(module: ModuleType) -> tuple[bool, bool]:
    """(can load extensions, has FTS5) for a binding."""
    conn = module.connect(":memory:")
    try:
        can_load = False
        if hasattr(conn, "enable_load_extension"):
            try:
                conn.enable_load_extension(True)
                conn.enable_load_extension(False)
                can_load = True
            except Exception:  # noqa: BLE001 - any failure means "cannot load"
                can_load = False
        try:
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
            has_fts5 = True
        except Exception:  # noqa: BLE001
            has_fts5 = False
        return can_load, has_fts5
    finally:
        conn.close()


def _load(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def choose_driver(prefer: str | None = None) -> Driver:
    """Pick the binding. `prefer` ("sqlite3", "pysqlite3", "sqlite3-noext") forces one (tests)."""
    candidates: list[tuple[str, str]] = [
        ("sqlite3", "sqlite3"),
        ("pysqlite3", "pysqlite3.dbapi2"),
    ]
    if prefer == "sqlite3-noext":
        candidates = []
    elif prefer is not None:
        candidates = [c for c in candidates if c[0] == prefer]
    for name, module_name in candidates:
        module = _load(module_name)
        if module is None:
            continue
        can_load, has_fts5 = _probe(module)
        if can_load or prefer == name:
            driver = Driver(
                name, module, can_load, str(module.sqlite_version), has_fts5
            )
            _log_choice(driver)
            return driver
    import sqlite3

    _, has_fts5 = _probe(sqlite3)
    driver = Driver("sqlite3-noext", sqlite3, False, sqlite3.sqlite_version, has_fts5)
    _log_choice(driver)
    return driver


def _log_choice(driver: Driver) -> None:
    log.info(
        "store.driver",
        extra={
            "fields": {
                "driver": driver.name,
                "sqlite_version": driver.sqlite_version,
                "extensions": driver.can_load_extensions,
                "fts5": driver.has_fts5,
            }
        },
    )


def load_sqlite_vec(conn: Any) -> None:
    """Load sqlite-vec into one connection (called in that connection's thread)."""
    import sqlite_vec

    conn.enable_load_extension(True)
    try:
        sqlite_vec.load(conn)
    finally:
        conn.enable_load_extension(False)
