"""The outbox worker: turns waiting on disk become memories, whatever the record store.

Loop: read a page of outbox rows (oldest first), hand its turns, grouped by owner, to the
configured `Extractor` (`engine/extractors/`: the rules off the event loop, or a model that
hands any batch it cannot read to the rules), resolve the facts' relative dates against
their turn's time, drop restatements, then hand the page to the `FactWriter` unit of work,
which stores the facts (upsert on (owner, key), supersession) and acks the rows: in ONE
transaction when the record store shares the SQLite file with the outbox, turn by turn
(write, then ack) otherwise. A crash before the ack leaves the rows for the next start; facts
are keyed by content, so a replay updates its memories in place instead of duplicating them
(a model asked again may answer otherwise: its facts are new memories then, the old ones
stay unless its answer replaces them).

Rows are read in pages, so a burst waits on disk, not in RAM. A store that is unwell
(`StoreError`, Qdrant down) makes the worker back off and retry the page: the rows wait in
the outbox. A row whose processing keeps failing for another reason (a bug, a refused fact)
is retried `MAX_ATTEMPTS` times, then dropped with a log event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from memtap.engine.api import StoreError, StoreUnavailable
from memtap.engine.background import cancel_and_wait
from memtap.engine.claims import CLAIM_KEY, claim_metadata
from memtap.engine.clock import now_iso
from memtap.engine.events import EngineEvents, TurnExtracted
from memtap.engine.fallbacks import describe_error
from memtap.engine.metrics import Metrics
from memtap.engine.ports import (
    Extractor,
    FactWriter,
    Outbox,
    OutboxRow,
    PlannedTurn,
    RecordStore,
    TurnBatch,
    TurnFacts,
    WrittenTurn,
)
from memtap.engine.retrieval.admission.pending import PendingTurns
from memtap.engine.supersession.conflict import claim_of
from memtap.engine.supersession.restatement import drop_restatements
from memtap.engine.text.dates import dated_fact
from memtap.engine.types import ExtractedFact, Memory

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

log = logging.getLogger("memtap.extraction")

PAGE_SIZE = 200
MAX_ATTEMPTS = 5
"""Tries of a row that keeps failing (not the store) before it is dropped."""
IDLE_POLL_S = 5.0
BATCH_DELAY_S = 0.05
INLINE_PLAN_FACTS = 8
"""A page with at most this many facts is dated on the event loop, more in a thread."""


def owner_batches(
    rows: list[OutboxRow], extract_from: tuple[str, ...]
) -> list[TurnBatch]:
    """The page's rows grouped by owner, each owner's oldest first (an extractor reads one
    owner's turns together: the model in one call)."""
    by_owner: dict[str, list[OutboxRow]] = {}
    for row in rows:
        by_owner.setdefault(row.turn.owner, []).append(row)
    return [
        TurnBatch(owner, tuple(owned), extract_from)
        for owner, owned in by_owner.items()
    ]


def plan(extracted: list[TurnFacts]) -> list[PlannedTurn]:
    """Pure: each row's facts, their relative dates resolved against the turn's time, with
    their provenance metadata; in the page's order (seq), whatever the extractor's."""
    out = []
    extracted_at = now_iso()
    for item in sorted(extracted, key=lambda t: t.row.seq):
        turn = item.row.turn
        facts: list[tuple[ExtractedFact, dict[str, Any]]] = []
        for fact in item.facts:
            fact, dates = dated_fact(fact, turn.created_at)
            meta = {
                "source": "extraction",
                "extractor": item.extractor,
                "request_id": turn.request_id,
                "role": fact.role,
                "format": turn.format,
                "model": turn.model,
                "extracted_at": extracted_at,
                "category": fact.category,
                "family": fact.family,
                "slot": fact.slot,
                "polarity": fact.polarity,
                "subject": fact.subject,
                "clause": fact.clause,
                "lang": fact.lang,
                # what ranking compares without reading the content again
                CLAIM_KEY: claim_metadata(claim_of(fact.content), fact.content),
                **dates,
            }
            if item.model is not None:
                meta["extraction_model"] = item.model
            facts.append((fact, meta))
        out.append(PlannedTurn(item.row, tuple(facts)))
    return out


OnWritten = Callable[[list[Memory]], Awaitable[None]]
OnAcked = Callable[[int], None]
"""Told how many outbox rows left the outbox (the engine's count of waiting turns)."""
StoreEpisodes = Callable[[list[OutboxRow]], Awaitable[dict[int, tuple[str, ...]]]]
"""Stores a page's episodes; outbox seq -> episode ids; fails open ({}), never raises."""


class OutboxWorker:
    def __init__(
        self,
        outbox: Outbox,
        records: RecordStore,
        holder: ConfigHolder,
        metrics: Metrics,
        extractor: Extractor,
        facts: FactWriter,
        store_episodes: StoreEpisodes,
        on_written: OnWritten | None = None,
        events: EngineEvents | None = None,
        pending: PendingTurns | None = None,
        on_acked: OnAcked | None = None,
    ) -> None:
        self.store_episodes = store_episodes
        self.facts = facts
        """Stores a page's facts and acks its rows, as one unit of work."""
        self.on_acked = on_acked
        self.extractor = extractor
        """Reads each page's turns (`engine/extractors/`: the rules, or a model)."""
        self.outbox = outbox
        self.pending = pending if pending is not None else PendingTurns()
        """Rows committed but not yet applied, per owner (read-your-own-writes)."""
        self._hurry = asyncio.Event()
        self.events = events if events is not None else EngineEvents()
        self.records = records
        self.holder = holder
        self.metrics = metrics
        self.on_written = on_written
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self.processed = 0
        self.batch_delay_s = BATCH_DELAY_S
        self.last_error: str | None = None
        self.page_lock = asyncio.Lock()
        """Held from reading a page to storing its facts and vectors: an owner's erase takes
        it, so a page read before the erase cannot write the erased owner's facts after."""

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="memtap-outbox-worker")

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def wake(self) -> None:
        self._wake.set()

    def hurry(self) -> None:
        """A retrieval waits for rows: apply them now instead of gathering a batch."""
        self._hurry.set()
        self._wake.set()

    async def stop(self, drain_s: float) -> None:
        """Drain for at most `drain_s` seconds, then stop; what is left stays on disk."""
        if self._task is None:
            return
        self._stopping = True
        self._wake.set()
        try:
            # Ends when the worker does (drained, or cancelled before) or at the limit; it
            # never raises what the worker ended with, only its caller's own cancel.
            await asyncio.wait({self._task}, timeout=max(0.0, drain_s))
        finally:
            await cancel_and_wait(self._task)

    async def _run(self) -> None:
        backoff = 0.05
        after = 0
        while True:
            try:
                # Cleared when a pass over the outbox starts, before its first read: a turn
                # committed (and its wake set) during the pass must not be slept through.
                if after == 0:
                    self._wake.clear()
                async with self.page_lock:
                    rows = await self.outbox.page(after, PAGE_SIZE)
                    if rows:
                        await self.process(rows)
                if not rows:
                    if after and self._wake.is_set():
                        # A turn was committed during the pass, maybe below `after`: seqs
                        # start again from 1 once the outbox is empty. Look from the start
                        # (at close too, so it is extracted, not left on disk).
                        after = 0
                        continue
                    if self._stopping:
                        return
                    after = 0
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(IDLE_POLL_S):
                            await self._wake.wait()
                    if not self._stopping and not self.pending.waiting:
                        # Gather the turns of a burst into one page and one transaction
                        # instead of competing with live requests turn by turn, unless a
                        # request waits for them (read-your-own-writes).
                        with contextlib.suppress(TimeoutError):
                            async with asyncio.timeout(self.batch_delay_s):
                                await self._hurry.wait()
                    self._hurry.clear()
                    continue
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
        extracted = await self.extractor.extract(owner_batches(rows, extract_from))
        by_seq = {item.row.seq: item for item in extracted}
        if len(by_seq) != len(rows) or any(row.seq not in by_seq for row in rows):
            # The port's promise, checked: a row left out would never be acked.
            raise RuntimeError(
                "the extractor did not account for every row of the page"
            )
        facts = sum(len(item.facts) for item in extracted)
        # Dating a fact costs ~20-90 µs: a live turn's few are dated here, since a hop to a
        # thread costs more on a busy loop (and delays the read of one's own writes).
        planned = (
            plan(extracted)
            if facts <= INLINE_PLAN_FACTS
            else await asyncio.to_thread(plan, extracted)
        )
        # A store failing here is unwell: the page is retried later, like a failed write.
        planned = await drop_restatements(planned, self.records)
        try:
            try:
                results = await self.facts.write(planned, now_iso())
            except (StoreError, StoreUnavailable):
                raise  # the store is unwell: back off and retry the page later
            except Exception:  # noqa: BLE001 - a bad row: isolate it
                results = await self._one_by_one(planned)
        except (StoreError, StoreUnavailable):
            await self._finish_applied(rows)
            raise
        # The rows left the outbox with the facts' commit: the count follows at once.
        self._acked(len(results))
        # Searchable by keyword now: retrievals that read no vectors stop waiting here. Not
        # after the episodes: the next request of a chat waited for its previous turn's
        # episode write (~1.5 ms at c=1), though that turn is in the history it re-sends.
        self.pending.committed([r.row.seq for r in results])
        # Episodes after the facts (never visible before them) and fail-open: a failing
        # episode store costs the page's episodes, never its facts or its outbox rows.
        episode_ids = await self.store_episodes([r.row for r in results])
        written_all: list[Memory] = []
        for row, written, superseded in (
            (r.row, r.written, r.superseded) for r in results
        ):
            written_all += written
            source = by_seq.get(row.seq)
            self.events.turn_extracted(
                TurnExtracted(
                    row.turn.request_id,
                    row.turn.owner,
                    tuple(m.id for m in written),
                    episode_ids.get(row.seq, ()),
                    extractor=source.extractor if source is not None else "rules",
                    fallback=source.fallback if source is not None else None,
                )
            )
            if written:
                log.info(
                    "memory.extracted",
                    extra={
                        "fields": {
                            "request_id": row.turn.request_id,
                            "owner": row.turn.owner,
                            "memory_ids": [m.id for m in written],
                            "families": [m.metadata.get("family") for m in written],
                            "slots": [m.metadata.get("slot") for m in written],
                            "superseded": superseded,
                            "format": row.turn.format,
                            "extractor": source.extractor if source else "rules",
                        }
                    },
                )
        self.processed += len(results)
        self.metrics.memories_extracted.inc(amount=len(written_all))
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
                    extra={"fields": {"error": describe_error(exc)}},
                )
        # After the vectors too: a waiting retrieval finds these by keyword and by meaning.
        self.pending.finished([r.row.seq for r in results])
        return len(written_all)

    def _acked(self, rows: int) -> None:
        if self.on_acked is not None:
            self.on_acked(rows)

    async def _finish_applied(self, rows: list[OutboxRow]) -> None:
        """A store that fails part-way (Qdrant acks turn by turn) has applied some rows of
        the page: those are gone from the outbox and will not come back, so waiting
        retrievals must stop waiting for them."""
        try:
            left = {seq for seq, _ in await self.outbox.pending_rows()}
        except Exception:  # noqa: BLE001 - the next page's success finishes them
            return
        applied = [row.seq for row in rows if row.seq not in left]
        if applied:
            self.pending.finished(applied)
            self._acked(len(applied))

    async def _one_by_one(self, planned: list[PlannedTurn]) -> list[WrittenTurn]:
        results: list[WrittenTurn] = []
        for item in planned:
            try:
                results += await self.facts.write([item], now_iso())
            except (StoreError, StoreUnavailable):
                raise
            except Exception as exc:  # noqa: BLE001
                error = f"{type(exc).__name__}: {exc}"
                seq = item.row.seq
                attempts = await self.outbox.record_failure(seq, error)
                if attempts >= MAX_ATTEMPTS:
                    await self.outbox.ack([seq])
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
                    results.append(WrittenTurn(item.row, [], []))
        return results
