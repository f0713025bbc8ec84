"""The outbox worker: turns waiting on disk become memories.

Loop: read a page of outbox rows (oldest first), extract facts off the event loop, then ONE
write transaction stores the facts (upsert on (owner, key), supersession) AND deletes those
outbox rows. A crash before the commit leaves the rows for the next start; after it, the rows
are gone: each turn takes effect exactly once. Facts are keyed by content, so even a replay
of an old turn updates its memories in place instead of duplicating them.

Rows are read in pages, so a burst waits on disk, not in RAM. A row whose processing keeps
failing (a bug, not the store) is retried `MAX_ATTEMPTS` times, then dropped with a log event.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memtap.engine.api import EngineError
from memtap.engine.clock import now_iso
from memtap.engine.events import EngineEvents, TurnExtracted
from memtap.engine.extraction.extract import extract_facts
from memtap.engine.metrics import Metrics
from memtap.engine.store import memories, outbox
from memtap.engine.store.database import Database, StoreError
from memtap.engine.store.outbox import MAX_ATTEMPTS, OutboxRow
from memtap.engine.types import ExtractedFact, Memory, NewMemory

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

log = logging.getLogger("memtap.extraction")

PAGE_SIZE = 200
IDLE_POLL_S = 5.0
BATCH_DELAY_S = 0.05


@dataclass(frozen=True, slots=True)
class _Planned:
    row: OutboxRow
    facts: tuple[tuple[ExtractedFact, dict[str, Any]], ...]


def plan(rows: list[OutboxRow], extract_from: tuple[str, ...]) -> list[_Planned]:
    """Pure: the facts of each row with their provenance metadata."""
    out = []
    extracted_at = now_iso()
    for row in rows:
        turn = row.turn
        facts: list[tuple[ExtractedFact, dict[str, Any]]] = []
        if turn.owner:
            sources: list[tuple[str, str]] = []
            if "user" in extract_from:
                sources.append(("user", turn.user_text))
            if "assistant" in extract_from:
                sources.append(("assistant", turn.assistant_text))
            seen: set[str] = set()
            for role, text in sources:
                for fact in extract_facts(text, role):  # type: ignore[arg-type]
                    if fact.key in seen:
                        continue
                    seen.add(fact.key)
                    meta = {
                        "source": "extraction",
                        "request_id": turn.request_id,
                        "role": fact.role,
                        "format": turn.format,
                        "model": turn.model,
                        "extracted_at": extracted_at,
                        "category": fact.category,
                        "polarity": fact.polarity,
                        "subject": fact.subject,
                    }
                    facts.append((fact, meta))
        out.append(_Planned(row, tuple(facts)))
    return out


def apply(
    conn: Any, planned: list[_Planned]
) -> list[tuple[OutboxRow, list[Memory], list[str]]]:
    """In the write transaction: store facts, supersede older ones, delete the outbox rows.
    Returns per row (row, memories written, ids superseded)."""
    now = now_iso()
    results = []
    for item in planned:
        written: list[Memory] = []
        superseded: list[str] = []
        turn = item.row.turn
        for fact, meta in item.facts:
            memory, _ = memories.upsert(
                conn,
                NewMemory(
                    owner=turn.owner,
                    content=fact.content,
                    type=fact.type,
                    key=fact.key,
                    session=turn.session,
                    metadata=meta,
                ),
                now,
                subject=fact.subject,
            )
            written.append(memory)
            superseded += memories.supersede(
                conn, turn.owner, fact.subject, memory.id, now
            )
        results.append((item.row, written, superseded))
    outbox.delete(conn, [item.row.seq for item in planned])
    return results


def _apply_one(
    conn: Any, item: _Planned
) -> list[tuple[OutboxRow, list[Memory], list[str]]]:
    return apply(conn, [item])


def _page(conn: Any, after: int) -> list[OutboxRow]:
    return outbox.page(conn, after, PAGE_SIZE)


def ids_of(written: list[Memory]) -> tuple[str, ...]:
    return tuple(memory.id for memory in written)


OnWritten = Callable[[list[Memory]], Awaitable[None]]


class OutboxWorker:
    def __init__(
        self,
        db: Database,
        holder: ConfigHolder,
        metrics: Metrics,
        on_written: OnWritten | None = None,
        events: EngineEvents | None = None,
    ) -> None:
        self.db = db
        self.holder = holder
        self.metrics = metrics
        self.on_written = on_written
        self.events = events if events is not None else EngineEvents()
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self.processed = 0
        self.batch_delay_s = BATCH_DELAY_S
        self.last_error: str | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="memtap-outbox-worker")

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def wake(self) -> None:
        self._wake.set()

    async def stop(self, drain_s: float) -> None:
        """Drain for at most `drain_s` seconds, then stop; what is left stays on disk."""
        if self._task is None:
            return
        self._stopping = True
        self._wake.set()
        try:
            await asyncio.wait_for(
                asyncio.shield(self._task), timeout=max(0.0, drain_s)
            )
        except (TimeoutError, asyncio.CancelledError):
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    async def _run(self) -> None:
        backoff = 0.05
        after = 0
        while True:
            try:
                rows = await self.db.read(functools.partial(_page, after=after))
                if not rows:
                    if self._stopping:
                        return
                    after = 0
                    self._wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), timeout=IDLE_POLL_S)
                    if not self._stopping:
                        # Gather the turns of a burst into one page and one transaction
                        # instead of competing with live requests turn by turn.
                        await asyncio.sleep(self.batch_delay_s)
                    continue
                await self.process(rows)
                after = rows[-1].seq
                backoff = 0.05
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the worker must outlive any failure
                self.last_error = f"{type(exc).__name__}: {exc}"[:300]
                log.warning(
                    "memory.extract_failed",
                    extra={"fields": {"error": self.last_error}},
                )
                if self._stopping:
                    return
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                after = 0

    async def process(self, rows: list[OutboxRow]) -> int:
        """Extract and store one page; returns how many memories were written."""
        extract_from = tuple(self.holder.current.memory.extract_from)
        started = time.perf_counter()
        planned = await asyncio.to_thread(plan, rows, extract_from)
        try:
            results = await self.db.write(lambda conn: apply(conn, planned))
        except StoreError:
            raise  # the store is unwell: back off and retry the page later
        except EngineError:
            results = await self._one_by_one(planned)
        except Exception:  # noqa: BLE001 - a bad row: isolate it
            results = await self._one_by_one(planned)
        written_all: list[Memory] = []
        for row, written, superseded in results:
            written_all += written
            self.events.turn_extracted(
                TurnExtracted(row.turn.request_id, row.turn.owner, ids_of(written))
            )
            if written:
                log.info(
                    "memory.extracted",
                    extra={
                        "fields": {
                            "request_id": row.turn.request_id,
                            "owner": row.turn.owner,
                            "memory_ids": [m.id for m in written],
                            "superseded": superseded,
                            "format": row.turn.format,
                        }
                    },
                )
        self.processed += len(results)
        self.metrics.memories_extracted.inc(amount=len(written_all))
        self.metrics.outbox_depth.dec(amount=len(results))
        log.debug(
            "memory.extract_batch",
            extra={
                "fields": {
                    "turns": len(results),
                    "memories": len(written_all),
                    "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                }
            },
        )
        if written_all and self.on_written is not None:
            try:
                await self.on_written(written_all)
            except Exception as exc:  # noqa: BLE001 - vectors are rebuilt by reindex
                log.warning(
                    "memory.vector_upsert_failed",
                    extra={"fields": {"error": f"{type(exc).__name__}"}},
                )
        return len(written_all)

    async def _one_by_one(
        self, planned: list[_Planned]
    ) -> list[tuple[OutboxRow, list[Memory], list[str]]]:
        results = []
        for item in planned:
            try:
                results += await self.db.write(functools.partial(_apply_one, item=item))
            except StoreError:
                raise
            except Exception as exc:  # noqa: BLE001
                error = f"{type(exc).__name__}: {exc}"
                seq = item.row.seq
                attempts = await self.db.write(
                    functools.partial(outbox.record_failure, seq=seq, error=error)
                )
                if attempts >= MAX_ATTEMPTS:
                    await self.db.write(functools.partial(outbox.delete, seqs=[seq]))
                    log.error(
                        "memory.extract_dropped",
                        extra={
                            "fields": {
                                "request_id": item.row.turn.request_id,
                                "attempts": attempts,
                                "error": error[:200],
                            }
                        },
                    )
                    results.append((item.row, [], []))
        return results
