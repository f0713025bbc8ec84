"""`SqliteRecordStore`: memory rows in the local SQLite file (the default record store).

Every method is one trip to `Database` (one writer task, pooled readers) running the SQL of
`sql/memories.py`, `sql/fts.py` and `sql/summaries.py`. Extracted facts and the deletion of their outbox
rows commit in one transaction with `apply_facts` (`fact_writer.SqliteFactWriter`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, TypeVar

from memtap.engine.api import InvalidInput
from memtap.engine.memory_rules import Live
from memtap.engine.ports import InvalidItem, PlannedTurn, WrittenTurn
from memtap.engine.retrieval.terms import query_terms
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.local import file_size
from memtap.engine.sqlite.sql import fts, memories, summaries
from memtap.engine.store_errors import StoreBusy, StoreTimeout
from memtap.engine.types import ListQuery, Memory, MemoryPatch, NewMemory, Page

Conn = Any
T = TypeVar("T")
EXPORT_PAGE = 500


def apply_facts(
    conn: Conn, turns: Sequence[PlannedTurn], now: str
) -> list[WrittenTurn]:
    """In a write transaction: store each turn's facts and supersede older ones."""
    results = []
    for item in turns:
        written: list[Memory] = []
        superseded: list[str] = []
        for (new, subject), (fact, _) in zip(
            item.new_memories(), item.facts, strict=True
        ):
            memory, _ = memories.upsert(conn, new, now, subject=subject)
            written.append(memory)
            superseded += memories.supersede(conn, new.owner, subject, memory.id, now)
            if fact.replaces:
                superseded += memories.replace_ids(
                    conn, new.owner, fact.replaces, memory.id, now
                )
        results.append(WrittenTurn(item.row, written, superseded))
    return results


READ_NOW_BUDGET_MS = 20
"""How long a ranking read may hold the event loop (`Database.read_now`): a keyword
search of 100k memories takes 1.4-2.5 ms; past this the read goes to a reader thread."""
READ_NOW_PAUSE_S = 5.0
"""After a ranking read ran out of that budget, how long such reads go to reader threads."""


class SqliteRecordStore:
    name = "sqlite"
    in_local_file = True

    def __init__(
        self, db: Database, read_timeout_ms: Callable[[], int] | None = None
    ) -> None:
        self.db = db
        self._read_timeout_ms = read_timeout_ms
        """The time limit of retrieval reads, read at each call (it follows reloads)."""
        self.owner_sizes = fts.OwnerSizes()
        self._read_now_paused_until = 0.0
        """time.monotonic() until which ranking reads skip the loop (one hit its budget)."""

    @property
    def read_timeout_ms(self) -> int | None:
        return self._read_timeout_ms() if self._read_timeout_ms is not None else None

    async def upsert_memory(
        self, new: NewMemory, now: str, subject: str | None = None
    ) -> tuple[Memory, bool]:
        return await self.db.write(
            lambda conn: memories.upsert(conn, new, now, subject)
        )

    async def import_memories(
        self,
        items: Sequence[NewMemory],
        now: str,
        subjects: Sequence[str | None] | None = None,
    ) -> list[tuple[Memory | InvalidItem, bool]]:
        def run(conn: Conn) -> list[tuple[Memory | InvalidItem, bool]]:
            out: list[tuple[Memory | InvalidItem, bool]] = []
            for i, item in enumerate(items):
                try:
                    conn.execute("SAVEPOINT item")
                    subject = subjects[i] if subjects is not None else None
                    out.append(memories.upsert(conn, item, now, subject))
                    conn.execute("RELEASE item")
                except InvalidInput as exc:
                    conn.execute("ROLLBACK TO item")
                    conn.execute("RELEASE item")
                    out.append((InvalidItem(str(exc)), False))
            return out

        return await self.db.write(run)

    async def get_memory(self, memory_id: str) -> Memory | None:
        return await self.db.read(lambda conn: memories.get(conn, memory_id))

    async def update_memory(
        self, memory_id: str, patch: MemoryPatch, now: str, subject: str | None = None
    ) -> Memory | None:
        return await self.db.write(
            lambda conn: memories.update(conn, memory_id, patch, now, subject)
        )

    async def live_about(self, owner: str, subject: str) -> list[Memory]:
        return await self.db.read(
            lambda conn: memories.live_about(conn, owner, subject)
        )

    async def mark_superseded(self, ids: Sequence[str], by: str, now: str) -> None:
        await self.db.write(lambda conn: memories.mark_superseded(conn, ids, by, now))

    async def delete_memory(self, memory_id: str) -> bool:
        return await self.db.write(lambda conn: memories.delete(conn, memory_id))

    async def supersede(
        self, owner: str, subject: str, new_id: str, now: str
    ) -> list[str]:
        return await self.db.write(
            lambda conn: memories.supersede(conn, owner, subject, new_id, now)
        )

    async def recent(self, live: Live, limit: int) -> list[Memory]:
        return await self.db.read(
            lambda conn: memories.recent(conn, live, limit),
            timeout_ms=self.read_timeout_ms,
        )

    async def keyword(
        self, query: str, live: Live, limit: int
    ) -> list[tuple[Memory, float]]:
        terms = query_terms(query)
        if fts.build_match(terms, live) is None:
            return []
        return await self._read_ranking(
            lambda conn: self._search(conn, terms, live, limit)
        )

    def _search(
        self, conn: Conn, terms: list[str], live: Live, limit: int
    ) -> list[tuple[Memory, float]]:
        chosen = fts.informative_terms(conn, "memories_fts", terms, self.owner_sizes)
        match = fts.build_match(chosen, live)
        if match is None:
            return []
        text = fts.text_match(chosen)
        return fts.search(conn, match, live, limit, text, self.owner_sizes)

    async def keyword_and_recent(
        self, query: str, live: Live, limit: int
    ) -> tuple[list[tuple[Memory, float]], list[Memory]]:
        # Both rankings in ONE read (at once on the loop, or one trip to a reader thread).
        terms = query_terms(query)
        if fts.build_match(terms, live) is None:
            return [], []

        def run(conn: Conn) -> tuple[list[tuple[Memory, float]], list[Memory]]:
            found = self._search(conn, terms, live, limit)
            return found, (memories.recent(conn, live, limit) if found else [])

        return await self._read_ranking(run)

    async def _read_ranking(self, run: Callable[[Conn], T]) -> T:
        """At once on the event loop (`Database.read_now`): a reader thread's result comes
        back two loop iterations later, ~100 ms each when memtap is saturated."""
        if time.monotonic() >= self._read_now_paused_until:
            # Never longer than the retrieval's own limit (a limit of a few ms is no time
            # for a read that would then run past it).
            limit_ms = self.read_timeout_ms
            budget_ms = min(READ_NOW_BUDGET_MS, limit_ms or READ_NOW_BUDGET_MS)
            try:
                return self.db.read_now(run, budget_ms=budget_ms)
            except StoreTimeout:
                # Reads this slow (a cold cache, a slow disk, a huge owner) would hold the
                # loop that long each time: reader threads take them for a while.
                self._read_now_paused_until = time.monotonic() + READ_NOW_PAUSE_S
            except StoreBusy:
                pass  # a reader thread has the rest of the time limit
        return await self.db.read(run, timeout_ms=self.read_timeout_ms)

    async def live_many(self, ids: Sequence[str], live: Live) -> dict[str, Memory]:
        wanted = list(ids)
        return await self.db.read(
            lambda conn: memories.get_many(conn, wanted, live),
            timeout_ms=self.read_timeout_ms,
        )

    async def list_page(self, query: ListQuery) -> Page:
        match = fts.list_match(query.q) if query.q else None
        if query.q and match is None:
            return Page(items=(), total=0)
        return await self.db.read(lambda conn: memories.list_page(conn, query, match))

    async def export_owner(self, owner: str) -> AsyncIterator[Memory]:
        after = 0
        while True:

            def read_page(conn: Conn, start: int = after) -> list[tuple[int, Memory]]:
                return memories.owner_page(conn, owner, start, EXPORT_PAGE)

            page = await self.db.read(read_page)
            for rowid, memory in page:
                after = rowid
                yield memory
            if len(page) < EXPORT_PAGE:
                return

    async def erase_owner(self, owner: str) -> int:
        def erase(conn: Conn) -> int:
            removed = memories.erase_owner(conn, owner)
            fts.optimize(conn)  # merged: no index segment keeps the erased text
            return removed

        return await self.db.write(erase)

    async def sweep(self, now: str, cutoff: str | None, limit: int = 5000) -> list[str]:
        return await self.db.write(
            lambda conn: memories.sweep(conn, now, cutoff, limit)
        )

    async def summary_candidates(
        self, cutoff: str, owner: str | None, limit: int = 1000
    ) -> list[Memory]:
        return await self.db.read(
            lambda conn: summaries.candidates(conn, cutoff, owner, limit)
        )

    async def compact(
        self, pairs: Sequence[tuple[Memory, NewMemory]], now: str
    ) -> list[Memory]:
        return await self.db.write(lambda conn: summaries.compact(conn, pairs, now))

    async def restore_summary(self, summary_id: str) -> Memory | None:
        def run(conn: Conn) -> Memory | None:
            original_id = summaries.restore(conn, summary_id)
            return memories.get(conn, original_id) if original_id else None

        return await self.db.write(run)

    async def counts(self, now: str) -> dict[str, Any] | None:
        return await self.db.read(lambda conn: memories.counts(conn, now))

    async def status(self) -> dict[str, Any]:
        driver = self.db.driver
        return {
            "kind": "sqlite",
            "driver": driver.name,
            "sqlite_version": driver.sqlite_version,
            "path": str(self.db.path),
            "bytes": file_size(self.db),
            "wal": True,
            "extensions": {
                "loadable": driver.can_load_extensions,
                **self.db.extensions,
            },
        }

    def text_index(self) -> dict[str, Any]:
        return {
            "available": self.db.driver.has_fts5,
            "tokenizer": "porter unicode61 remove_diacritics 2",
        }

    async def readiness(self) -> dict[str, str]:
        return {"store": f"sqlite:{self.db.driver.name}"}

    async def close(self) -> None:
        return None  # the local file is closed by its owner (the engine)
