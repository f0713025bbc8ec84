"""The store errors an adapter raises and the engine (and its services) catch, importable by
both without either importing the other: the SQLite adapter detects them (`sqlite/database.py`
translates the driver's errors into them), the record stores and the engine handle them.

All are `api.StoreError`s (`EngineError`s): the proxy fails open on them like on any other.
"""

from __future__ import annotations

from memtap.engine.api import StoreError, StoreUnavailable


class StoreBusy(StoreError):
    """The store is locked, or the event loop's share of reads is spent: try elsewhere or later."""

    code = "store_busy"
    retryable = True


class StoreTimeout(StoreError):
    """A read ran past its time limit."""

    code = "store_timeout"
    retryable = True


class StoreClosed(StoreError):
    code = "store_closed"
    retryable = True


class StoreGone(StoreUnavailable):
    """The database file was deleted or replaced while open: the engine reopens it."""

    code = "store_gone"
