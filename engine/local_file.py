"""The ports of this replica's local file: the file itself (`LocalFile`: reopen,
checkpoint) and the ledger of imported turns kept in it (`TurnLedger`).

| port       | adapter                                                   |
|------------|-----------------------------------------------------------|
| LocalFile  | `sqlite.local.SqliteLocalFile`                            |
| TurnLedger | `sqlite.imported_turns.SqliteTurnLedger`                  |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memtap.engine.types import Turn


class TurnLedger(Protocol):
    """Which imported conversation turns are already in (`engine/history/importer.py`),
    beside the outbox in the local file."""

    async def enqueue_new(self, turns: Sequence[Turn], now: str) -> list[int | None]:
        """Record and queue each turn not recorded before, in one transaction; its outbox
        seq, or None for a turn imported before."""
        ...

    async def erase_owner(self, owner: str) -> int: ...


class LocalFile(Protocol):
    """This replica's local file. It always holds the outbox, the settings overrides, the
    request log and the imported-turns ledger, and the memory rows too when the record
    store is SQLite. Every adapter over it carries on through `reopen` (the file deleted or
    replaced under a running memtap, which its adapters say with `store_errors.StoreGone`):
    none is rebuilt or swapped."""

    @property
    def path(self) -> str: ...

    @property
    def driver(self) -> str:
        """Which SQLite binding (engine-status "store.local")."""
        ...

    @property
    def imported_turns(self) -> TurnLedger: ...

    async def reopen(self) -> None:
        """Reconnect to the file now at the path (a fresh, migrated one when it was
        deleted); the adapters that cached something of the old file forget it."""
        ...

    async def checkpoint(self) -> None:
        """Fold the write-ahead log into the main file (erased text leaves `-wal`)."""
        ...

    async def close(self) -> None: ...
