"""`Engine`: the one MemoryEngine, over ports (`engine/ports.py`).

It holds the behaviour once — retrieval, the outbox worker, writes with their vector upkeep,
erase, import/export, maintenance, status — and calls a `RecordStore` (SQLite or Qdrant),
an optional `VectorIndex` (sqlite-vec or Qdrant), and the `Outbox` and `SettingsStore` of
this replica's local SQLite file (`db`). `engine.factory.open_engine` picks the adapters.
The config is read from `holder.current` at every call, never cached, so reloads and
overrides apply at once.

Fail-open: every public method raises only `EngineError` subclasses (driver errors are
translated). Retrieval reads carry time limits, `enqueue_turn` waits at most
`ENQUEUE_TIMEOUT_S`; other writes queue behind the one writer (docs/engine.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from memtap.engine.api import (
    EngineError,
    InvalidInput,
    NotFound,
    OutboxFull,
    RetrievalTimeout,
)
from memtap.engine.background import cancel_and_wait
from memtap.engine.clock import now_iso
from memtap.engine.episode_types import (
    Episode,
    EpisodeListQuery,
    EpisodePage,
    NewEpisode,
)
from memtap.engine.episodes.service import EpisodeService
from memtap.engine.events import EngineEvents
from memtap.engine.extractors.choice import ConfiguredExtractor
from memtap.engine.fallbacks import describe_error
from memtap.engine.history.importer import DEFAULT_WAIT_S, ConversationImport
from memtap.engine.maintenance import summarize
from memtap.engine.maintenance.backfill import VectorBackfill
from memtap.engine.maintenance.sweep import run_sweep
from memtap.engine.metrics import Metrics
from memtap.engine.ports import (
    EpisodeStore,
    InvalidItem,
    Outbox,
    RecordStore,
    RequestLogStore,
    SettingsStore,
    VectorIndex,
)
from memtap.engine.retrieval.admission import loop_lag
from memtap.engine.retrieval.admission.loop_lag import LoopLag
from memtap.engine.retrieval.admission.pending import PendingTurns
from memtap.engine.retrieval.admission.slots import CROWDED_REASON, RetrievalSlots
from memtap.engine.retrieval.deadline import RetrievalClock
from memtap.engine.retrieval.gate import SHED_AFTER_SHARE, VectorGate
from memtap.engine.retrieval.partial import PartialAnswer
from memtap.engine.retrieval.retrieve import RetrievalContext, retrieve
from memtap.engine.sqlite import local
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.imported_turns import SqliteTurnLedger
from memtap.engine.store_errors import StoreGone, StoreTimeout
from memtap.engine.supersession.conflict import (
    Claim,
    claim_of,
    claim_of_memory,
    resolve,
)
from memtap.engine.turn_bounds import bounded_turn
from memtap.engine.types import (
    EraseReceipt,
    ImportReport,
    ImportTally,
    ListQuery,
    Memory,
    MemoryPatch,
    NewMemory,
    Page,
    Retrieval,
    RetrievalRequest,
    Turn,
)
from memtap.engine.worker.outbox_worker import OutboxWorker

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder
    from memtap.config.schema import Config, MemoryConfig

log = logging.getLogger("memtap.engine")

ENQUEUE_TIMEOUT_S = 2.0
READ_YOUR_WRITES_MAX_S = 0.2
"""The longest a retrieval waits for its owner's just-completed turns to be applied."""
DRAIN_S = 5.0
VECTOR_WRITE_TIMEOUT_S = 5.0
IMPORT_CHUNK = 500

P = ParamSpec("P")
R = TypeVar("R")


def _guarded(
    fn: Callable[P, Coroutine[Any, Any, R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """Anything but an EngineError leaving a public method becomes one (fail-open contract)."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except StoreGone:
            engine = args[0]
            if isinstance(engine, Engine):
                engine.store_gone()
            raise
        except EngineError:
            raise
        except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
            raise
        except TimeoutError as exc:
            raise StoreTimeout("memory store timed out") from exc
        except Exception as exc:
            raise EngineError(f"{type(exc).__name__}: {exc}") from exc

    return wrapper


class Engine:
    def __init__(
        self,
        holder: ConfigHolder,
        metrics: Metrics,
        db: Database,
        store: RecordStore,
        outbox: Outbox,
        settings: SettingsStore,
        vector_index: VectorIndex | None = None,
        vector_error: str | None = None,
        events: EngineEvents | None = None,
        request_log: RequestLogStore | None = None,
        episodes: EpisodeStore | None = None,
    ) -> None:
        self.episodes = (
            EpisodeService(episodes, holder, metrics) if episodes is not None else None
        )
        """What was said (`engine/episodes/`); None: no episode store."""
        self.request_log = request_log
        """Where the proxy's request log persists with `admin.request_log_store: database`."""
        self.events = events if events is not None else EngineEvents()
        """Where the engine tells listeners (the proxy's request log) what it did."""
        self.holder = holder
        self.metrics = metrics
        self.db = db
        """The local SQLite file: outbox and settings always, the rows too with SQLite."""
        self.store = store
        self.outbox = outbox
        self.settings = settings
        self.vector_index = vector_index
        self.vector_error = vector_error
        """Why there is no vector index (engine-status, health, reindex)."""
        self.pending = PendingTurns()
        self.retrieval_slots = RetrievalSlots()
        self.loop_lag = LoopLag()
        """How late the event loop runs: retrieval sheds multi-hop legs while it lags."""
        self.extractor = ConfiguredExtractor(lambda: holder.current, store, metrics)
        """The rules, or a model falling back to them (`extraction.kind`)."""
        self.worker = OutboxWorker(
            outbox,
            store,
            holder,
            metrics,
            extractor=self.extractor,
            on_written=self._vector_upsert,
            events=self.events,
            pending=self.pending,
            store_episodes=self.episodes.store_turns if self.episodes else None,
        )
        self.imported_turns = SqliteTurnLedger(db)
        """Which imported conversation turns are in (`engine/history/`)."""
        self._sweeper: asyncio.Task[None] | None = None
        self.backfill = (
            VectorBackfill(vector_index, lambda: self.config.memory.backfill_interval_s)
            if vector_index is not None
            else None
        )
        """Retries what vector writes left behind (`engine/maintenance/backfill.py`)."""
        self._closed = False
        self._reopening: asyncio.Task[None] | None = None

    @property
    def config(self) -> Config:
        return self.holder.current

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self, *, worker: bool = True) -> None:
        for seq, owner in await self.outbox.pending_rows():
            self.pending.added(owner, seq)
        depth = await self.outbox.depth()
        self.metrics.outbox_depth.set(depth)
        if depth:
            log.info("memory.outbox_resumed", extra={"fields": {"pending": depth}})
        if worker:
            self.worker.start()
        self.loop_lag.start()
        self._sweeper = asyncio.create_task(
            self._sweep_loop(), name="memtap-retention-sweep"
        )
        if self.backfill is not None:
            self.backfill.start()
        if self.episodes is not None:
            self.episodes.start()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._reopening is not None:
            with contextlib.suppress(BaseException):
                await self._reopening
        await cancel_and_wait(self._sweeper)
        if self.backfill is not None:
            await self.backfill.stop()
        await self.loop_lag.stop()
        await self.worker.stop(min(DRAIN_S, self.config.server.shutdown_grace_s))
        with contextlib.suppress(Exception):
            await self.extractor.close()
        if self.episodes is not None:
            with contextlib.suppress(Exception):
                await self.episodes.stop()
        if self.vector_index is not None:
            with contextlib.suppress(Exception):
                await self.vector_index.close()
        with contextlib.suppress(Exception):
            await self.store.close()
        await self.db.close()

    def store_gone(self) -> None:
        """The local database file vanished under us (deleted or replaced): reopen it in the
        background — a fresh, migrated file — so memory comes back without a restart.
        Until then every call fails fast with an EngineError (the proxy runs without memory)."""
        if self._closed or self._reopening is not None:
            return
        self.metrics.memory_fallbacks.inc("store_gone")
        log.error("memory.store_gone", extra={"fields": {"path": str(self.db.path)}})
        self._reopening = asyncio.create_task(
            self._reopen(), name="memtap-store-reopen"
        )

    async def _reopen(self) -> None:
        # The same Database object reconnects to the new file, so every adapter over it
        # (outbox, settings, SQLite rows, sqlite-vec) carries on; the worker keeps its
        # ports, and with Qdrant as the record store memories keep going to Qdrant.
        try:
            await local.reopen(self.db)
            if self.vector_index is not None:
                await self.vector_index.local_file_replaced()
            if self.episodes is not None:
                await self.episodes.store.local_file_replaced()
        except Exception as exc:  # noqa: BLE001 - retried at the next failing call
            log.error(
                "memory.store_reopen_failed",
                extra={"fields": {"error": f"{type(exc).__name__}: {exc}"[:200]}},
            )
            self._reopening = None
            return
        self.metrics.outbox_depth.set(0)
        self.pending.clear()  # the old file's rows went with it
        self.worker.wake()
        if self.backfill is not None:
            self.backfill.wake()  # the fresh file's rows all wait for their vector
        log.warning(
            "memory.store_reopened", extra={"fields": {"path": str(self.db.path)}}
        )
        self._reopening = None

    # -- the proxy's path ---------------------------------------------------------------------
    def _context(
        self,
        clock: RetrievalClock | None = None,
        gate: VectorGate | None = None,
        own_vectors: Callable[[], Awaitable[object]] | None = None,
        partial: PartialAnswer | None = None,
    ) -> RetrievalContext:
        return RetrievalContext(
            self.store,
            self.config.memory,
            self.vector_index,
            self.metrics,
            clock,
            gate,
            own_vectors,
            partial,
            claim_of_memory,
        )

    @_guarded
    async def retrieve(
        self,
        request: RetrievalRequest,
        *,
        side_effects: bool = True,
        limit_ms: int | None = None,
    ) -> Retrieval:
        if not request.owner:
            raise InvalidInput("owner is required", "owner")
        # The request's `limit` bounds its results, facts and episodes' snippets together
        # (the facts' walk and the snippets' slots each have their own bound below it).
        retrieval = await self._retrieve_within(request, side_effects, limit_ms)
        if request.limit is None or len(retrieval.hits) <= request.limit:
            return retrieval
        return Retrieval(retrieval.hits[: request.limit], retrieval.resolution)

    async def _retrieve_within(
        self, request: RetrievalRequest, side_effects: bool, limit_ms: int | None
    ) -> Retrieval:
        clock = RetrievalClock()  # the waits below come out of the same time limit
        if limit_ms is None:
            return await self._retrieve(request, side_effects, clock, None)
        partial = PartialAnswer()
        limit = asyncio.timeout(limit_ms / 1000)
        try:
            async with limit:
                return await self._retrieve(request, side_effects, clock, partial)
        except TimeoutError:
            if not limit.expired():
                raise
        # Cut by the limit (its timer fires an iteration late on a busy loop: the hops a
        # retrieval still needed would come later still): what it read before answers.
        answer = partial.take()
        if answer is None:
            raise RetrievalTimeout(f"nothing retrieved within {limit_ms} ms") from None
        self.metrics.memory_fallbacks.inc("retrieval_partial")
        answer.resolution.setdefault("fallbacks", []).append(
            {
                "tier": "retrieval",
                "reason": "time_limit",
                "answered_with": partial.stage,
            }
        )
        return answer

    async def _retrieve(
        self,
        request: RetrievalRequest,
        side_effects: bool,
        clock: RetrievalClock,
        partial: PartialAnswer | None,
    ) -> Retrieval:
        cfg = self.config.memory
        strategy = request.strategy or cfg.strategy
        # A saturated loop: only the facts' keyword leg (one hop) makes it in time, and
        # waiting for the owner's turns (a worker behind, more hops) would not either.
        # So do many retrievals in progress at once (a burst arrives in one iteration,
        # before the loop's lag shows).
        shed = None
        lag_s = self.loop_lag.now_s()
        if loop_lag.lagging(lag_s, cfg.retrieval_timeout_ms):
            shed = {"reason": loop_lag.REASON, "lag_ms": round(lag_s * 1000, 1)}
        elif self.retrieval_slots.crowded(cfg.retrieval_timeout_ms):
            shed = {"reason": CROWDED_REASON, "running": self.retrieval_slots.running}
        # The keyword leg waits for the owner's rows; the vector leg, if it runs, for
        # their vectors too (a retrieval that reads no vectors never waits for a write
        # embedding).
        rows_applied = await self._read_own_writes(
            request.owner, clock, vectors=False, wait=shed is None
        )

        async def own_vectors() -> None:
            if rows_applied:
                await self._read_own_writes(request.owner, clock, vectors=True)

        async def own_episodes() -> None:
            if rows_applied:
                await self._own_turns_whole(request.owner, clock)

        # Only the vector legs wait for a slot, and not past the shed point; a request
        # waiting for its owner's turns (above) holds none.
        admission = (
            self.retrieval_slots.admission(
                cfg.max_concurrent_retrievals,
                clock.started + SHED_AFTER_SHARE * cfg.retrieval_timeout_ms / 1000,
            )
            if strategy in ("hybrid", "semantic") and shed is None
            else None
        )
        gate = VectorGate.for_request(strategy, cfg, admission=admission, shed=shed)
        context = self._context(clock, gate, own_vectors, partial)
        with self.retrieval_slots.retrieving():
            try:
                facts = retrieve(context, request, side_effects=side_effects)
                if self.episodes is None:
                    return await facts
                return await self.episodes.retrieve(
                    facts,
                    request,
                    clock,
                    gate,
                    shed=shed,
                    partial=partial,
                    # Not for strategies that read no vectors: they never wait for a
                    # write embedding (the previous turn is in the history a chat re-sends).
                    own_turns=own_episodes
                    if strategy in ("hybrid", "semantic")
                    else None,
                )
            finally:
                gate.close()

    def _own_writes_left_s(self, clock: RetrievalClock) -> float:
        """What is left, since `clock` started, of the time a retrieval may wait for its
        owner's turns: at most half the retrieval budget, and at most
        READ_YOUR_WRITES_MAX_S."""
        budget_s = min(
            READ_YOUR_WRITES_MAX_S, self.config.memory.retrieval_timeout_ms / 2000
        )
        return max(0.0, budget_s - clock.elapsed_s())

    async def _own_turns_whole(self, owner: str, clock: RetrievalClock) -> None:
        """The episodes' recall waits, like the vector leg, until the owner's pending turns
        are stored whole (episodes and vectors), within the same bound. Not counted nor
        logged: the vector leg's own wait for the same rows is."""
        if not self.pending.pending(owner):
            return
        left_s = self._own_writes_left_s(clock)
        if self.pending.expected_wait_s(owner, vectors=True) > left_s:
            return  # the worker is that far behind: the recall reads what is stored
        await self.pending.wait_for(owner, left_s, vectors=True)

    async def _read_own_writes(
        self, owner: str, clock: RetrievalClock, *, vectors: bool, wait: bool = True
    ) -> bool:
        """Turns of this owner that completed before the request arrived take effect first
        (`vectors`: their vectors too; bounded: at most half the retrieval budget since
        `clock` started; after that retrieval goes on with what is stored). Owners with
        nothing pending do not wait at all; nor does anyone with `wait` False (memtap
        saturated). False when the wait timed out or did not happen."""
        if not self.pending.pending(owner) or not self.worker.running:
            return True
        if not wait:
            # Not even a wait of 0: under a lagging loop it still costs two iterations.
            self._own_writes_pending(owner, time.perf_counter())
            return False
        self.worker.hurry()
        started = time.perf_counter()
        left_s = self._own_writes_left_s(clock)
        behind_s = self.pending.expected_wait_s(owner, vectors=vectors)
        if behind_s > left_s:
            # The worker is that far behind: waiting would only cost this request its
            # time before it retrieves what is stored anyway.
            self._own_writes_pending(owner, started, behind_s)
            return False
        try:
            applied = await self.pending.wait_for(owner, left_s, vectors=vectors)
        except asyncio.CancelledError:
            # Cut short: by the vector leg's deadline (a busy loop can fire both timers
            # at once; retrieval goes on without these writes) or with the request.
            self._own_writes_pending(owner, started)
            raise
        if not applied:
            self._own_writes_pending(owner, started)
        else:
            waited_ms = round((time.perf_counter() - started) * 1000, 3)
            log.debug(
                "memory.own_writes_applied",
                extra={"fields": {"owner": owner, "waited_ms": waited_ms}},
            )
        return applied

    def _own_writes_pending(
        self, owner: str, started: float, behind_s: float | None = None
    ) -> None:
        self.metrics.memory_fallbacks.inc("own_writes_pending")
        fields: dict[str, Any] = {
            "owner": owner,
            "waited_ms": round((time.perf_counter() - started) * 1000, 3),
        }
        if behind_s is not None:
            fields["behind_ms"] = round(behind_s * 1000, 1)  # why it did not wait
        log.warning("memory.own_writes_pending", extra={"fields": fields})

    @_guarded
    async def enqueue_turn(self, turn: Turn) -> None:
        if not turn.owner:
            raise InvalidInput("owner is required", "owner")
        if self.metrics.outbox_depth.value() >= self.config.memory.outbox_max_rows:
            self.metrics.memory_fallbacks.inc("outbox_full")
            raise OutboxFull(
                f"the outbox holds memory.outbox_max_rows="
                f"{self.config.memory.outbox_max_rows} turns already; this one is not kept"
            )
        turn = bounded_turn(turn)  # the outbox row stays bounded whoever the caller
        if turn.truncated_chars:
            self.metrics.turns_truncated.inc()
            self.metrics.turn_chars_truncated.inc(amount=turn.truncated_chars)
        now = now_iso()
        # asyncio.timeout, not wait_for: no extra task on the response's tail.
        async with asyncio.timeout(ENQUEUE_TIMEOUT_S):
            seq = await self.outbox.insert(turn, now)
        self.pending.added(turn.owner, seq)
        self.metrics.outbox_depth.inc()
        self.worker.wake()

    def conversation_import(self, wait_s: float = DEFAULT_WAIT_S) -> ConversationImport:
        """Past turns in through the outbox, as live turns go (`engine/history/importer.py`)."""
        return ConversationImport(
            self.imported_turns, self.events, self._imported, wait_s=wait_s
        )

    def _imported(self, rows: int) -> None:
        # Not `pending`: an owner's live requests must not wait for a whole import to apply.
        self.metrics.outbox_depth.inc(amount=rows)
        self.worker.wake()

    # -- the request log (admin.request_log_store: database) -------------------------------
    @_guarded
    async def save_request_record(
        self, request_id: str, owner: str | None, record: dict[str, Any], keep: int
    ) -> None:
        if self.request_log is not None:
            await self.request_log.save(request_id, owner, record, keep)

    @_guarded
    async def load_request_records(self, limit: int) -> list[dict[str, Any]]:
        if self.request_log is None:
            return []
        return await self.request_log.load(limit)

    # -- admin: memories --------------------------------------------------------------------
    @_guarded
    async def list_memories(self, query: ListQuery) -> Page:
        if not (1 <= query.limit <= 1000) or query.offset < 0:
            raise InvalidInput("limit must be 1..1000 and offset >= 0", "limit")
        return await self.store.list_page(query)

    @_guarded
    async def get_memory(self, memory_id: str) -> Memory:
        found = await self.store.get_memory(memory_id)
        if found is None:
            raise NotFound(f"memory {memory_id!r} not found")
        return found

    @_guarded
    async def create_memory(self, new: NewMemory) -> Memory:
        now = now_iso()
        claim = claim_of(new.content)
        memory, _ = await self.store.upsert_memory(new, now, _subject(claim))
        memory = await self._settle(memory, claim)
        await self._vector_upsert([memory])
        return memory

    @_guarded
    async def update_memory(self, memory_id: str, patch: MemoryPatch) -> Memory:
        claim = claim_of(patch.content) if patch.content is not None else None
        updated = await self.store.update_memory(
            memory_id, patch, now_iso(), _subject(claim)
        )
        if updated is None:
            raise NotFound(f"memory {memory_id!r} not found")
        updated = await self._settle(updated, claim)
        await self._vector_upsert([updated])
        return updated

    async def _settle(self, memory: Memory, claim: Claim | None) -> Memory:
        """The slot and conflict handling extracted facts get, for a memory written by the
        admin API, MCP, the CLI or an import: the live memories about the same subject are
        superseded by it, unless one is newer or richer (then `memory` is history at once)."""
        if claim is None or memory.superseded_by is not None:
            return memory
        # A session is its own context: its facts settle against that session's only.
        others = [
            o
            for o in await self.store.live_about(memory.owner, claim.subject)
            if o.id != memory.id and o.session == memory.session
        ]
        if not others:
            return memory
        outcome = resolve(memory, claim, others)
        if outcome.supersede:
            await self.store.mark_superseded(
                outcome.supersede, outcome.by, memory.updated_at
            )
        if outcome.kept is None:
            return memory
        await self.store.mark_superseded([memory.id], outcome.kept, outcome.valid_to)
        return replace(memory, superseded_by=outcome.kept, valid_to=outcome.valid_to)

    @_guarded
    async def restore_summary(self, summary_id: str) -> Memory:
        """Undo one compaction by `summarize`: the original is live again, the summary is
        gone. NotFound when `summary_id` is not a summary."""
        original = await self.store.restore_summary(summary_id)
        if original is None:
            raise NotFound(f"memory {summary_id!r} is not a summary")
        await self._vector_delete([summary_id])
        await self._vector_upsert([original])
        return original

    @_guarded
    async def delete_memory(self, memory_id: str) -> None:
        if not await self.store.delete_memory(memory_id):
            raise NotFound(f"memory {memory_id!r} not found")
        await self._vector_delete([memory_id])

    @_guarded
    async def erase_owner(self, owner: str) -> EraseReceipt:
        """GDPR erase: vectors, rows (and their keyword index, merged so no segment keeps
        the text), this replica's outbox rows, then a WAL checkpoint so no old page survives
        in `-wal`. With Qdrant as the record store other replicas' outboxes are theirs to
        erase: run the erase on each replica, or stop extraction first."""
        if not owner:
            raise InvalidInput("owner is required", "owner")
        async with self.worker.page_lock:  # no page in flight writes the owner back
            return await self._erase_owner(owner)

    async def _erase_owner(self, owner: str) -> EraseReceipt:
        vectors = 0
        if self.vector_index is not None:
            try:
                async with asyncio.timeout(VECTOR_WRITE_TIMEOUT_S):
                    vectors = await self.vector_index.erase_owner(owner)
            except Exception as exc:
                raise EngineError(
                    f"the vector index failed ({type(exc).__name__}); nothing erased, retry"
                ) from exc
        rows = await self.store.erase_owner(owner)
        episodes = (
            await self.episodes.erase_owner(owner) if self.episodes is not None else 0
        )
        queued = await self.outbox.erase_owner(owner)
        imported = await self.imported_turns.erase_owner(owner)
        if self.request_log is not None:
            await self.request_log.erase_owner(owner)
        self.pending.forget_owner(owner)
        self.metrics.outbox_depth.dec(amount=queued)
        await self.checkpoint()
        removed = {
            "memories": rows,
            "outbox": queued,
            "fts": rows,
            "vectors": vectors,
            "episodes": episodes,
            "imported_turns": imported,
        }
        log.info(
            "memory.owner_erased",
            extra={
                "fields": {"owner": owner, "removed": removed, "store": self.store.name}
            },
        )
        return EraseReceipt(owner=owner, removed=removed)

    @_guarded
    async def checkpoint(self) -> None:
        """Fold the local WAL into the main file and truncate it."""
        await local.checkpoint(self.db)

    async def export_owner(self, owner: str) -> AsyncIterator[Memory]:
        try:
            async for memory in self.store.export_owner(owner):
                yield memory
        except EngineError:
            raise
        except Exception as exc:
            raise EngineError(f"{type(exc).__name__}: {exc}") from exc

    @_guarded
    async def import_memories(self, items: list[NewMemory]) -> ImportReport:
        tally = ImportTally()
        for start in range(0, len(items), IMPORT_CHUNK):
            chunk = items[start : start + IMPORT_CHUNK]
            claims = [claim_of(item.content) for item in chunk]
            results = await self.store.import_memories(
                chunk, now_iso(), [_subject(c) for c in claims]
            )
            written: list[Memory] = []
            for line, (result, was_created), claim in zip(
                range(start + 1, start + 1 + len(results)), results, claims, strict=True
            ):
                if isinstance(result, InvalidItem):
                    tally.refused(f"line {line}: {result.message}")
                else:
                    written.append(await self._settle(result, claim))
                    tally.stored(was_created)
            await self._vector_upsert(written)
        return tally.report()

    # -- admin: episodes (engine/episodes/service.py) ---------------------------------------
    def _episode_service(self) -> EpisodeService:
        if self.episodes is None:
            raise NotFound("this engine keeps no episodes")
        return self.episodes

    @_guarded
    async def list_episodes(self, query: EpisodeListQuery) -> EpisodePage:
        return await self._episode_service().list_page(query)

    @_guarded
    async def get_episode(self, episode_id: str) -> Episode:
        return await self._episode_service().get(episode_id)

    @_guarded
    async def delete_episode(self, episode_id: str) -> None:
        await self._episode_service().delete(episode_id)

    async def export_episodes(self, owner: str) -> AsyncIterator[Episode]:
        if self.episodes is None:
            return
        try:
            async for episode in self.episodes.export_owner(owner):
                yield episode
        except EngineError:
            raise
        except Exception as exc:
            raise EngineError(f"{type(exc).__name__}: {exc}") from exc

    @_guarded
    async def import_episodes(self, items: list[NewEpisode]) -> tuple[int, int]:
        return await self._episode_service().import_episodes(items)

    # -- maintenance ------------------------------------------------------------------------
    @_guarded
    async def summarize(
        self, older_than_days: int, owner: str | None, dry_run: bool
    ) -> dict[str, Any]:
        if older_than_days < 0:
            raise InvalidInput("older_than_days must be >= 0", "older_than_days")
        report, written = await summarize.run(
            self.store, older_than_days, owner, dry_run
        )
        await self._vector_upsert(written)
        return report

    @_guarded
    async def reindex(
        self, limit: int | None = None, force: bool = False
    ) -> dict[str, Any]:
        if self.vector_index is None:
            counts = await self.store.counts(now_iso())
            return {
                "started": False,
                "pending": counts["needs_reindex"] if counts else 0,
                "reason": self.vector_error or "no vector tier",
            }
        if self.backfill is None:
            return await self.vector_index.reindex(limit, force)
        async with self.backfill.busy:  # the backfill's pass finishes first, then waits
            return await self.vector_index.reindex(limit, force)

    @_guarded
    async def sweep(self) -> int:
        """Really delete expired and out-of-retention memories (also their vectors), and
        episodes said before their retention."""
        swept = await run_sweep(
            self.store, self.config.memory.retention_days, self._vector_delete
        )
        if self.episodes is not None:
            await self.episodes.sweep()
        return swept

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, self.config.memory.sweep_interval_s))
            try:
                await self.sweep()
            except Exception as exc:  # noqa: BLE001 - retried at the next interval
                log.warning(
                    "memory.sweep_failed",
                    extra={"fields": {"error": describe_error(exc)}},
                )

    # -- settings overrides -----------------------------------------------------------------
    @_guarded
    async def load_overrides(self) -> dict[str, Any]:
        return await self.settings.load_all()

    @_guarded
    async def save_override(self, name: str, value: Any) -> None:
        await self.settings.save(name, value, now_iso())

    @_guarded
    async def delete_override(self, name: str) -> bool:
        return await self.settings.delete(name)

    # -- status ------------------------------------------------------------------------------
    @_guarded
    async def status(self) -> dict[str, Any]:
        counts = await self.store.counts(now_iso())
        depth = await self.outbox.depth()
        store = await self.store.status()
        if not self.store.in_local_file:
            store["local"] = {
                "path": str(self.db.path),
                "driver": self.db.driver.name,
                "holds": ["outbox", "settings_overrides"],
            }
        index = self.vector_index
        return {
            "store": store,
            "fts": self.store.text_index(),
            "vector": await self._vector_status(),
            "embedding": index.embedding() if index is not None else "off",
            "outbox": {
                "depth": depth,
                "worker": "running" if self.worker.running else "stopped",
                "processed": self.worker.processed,
                "last_error": self.worker.last_error,
            },
            "extraction": self.extractor.status(),
            "counts": counts,
            "memory": memory_status(self.config.memory),
            "retrievals": {
                **self.retrieval_slots.to_json(
                    self.config.memory.max_concurrent_retrievals
                ),
                # Retrievals shed to the facts' keyword leg from 3 % of the limit.
                "loop_lag_ms": round(self.loop_lag.now_s() * 1000, 1),
            },
            "episodes": await self.episodes.status()
            if self.episodes is not None
            else {"enabled": False, "store": None},
        }

    async def _vector_status(self) -> dict[str, Any]:
        index = self.vector_index
        if index is None:
            return {"available": False, "reason": self.vector_error or "no vector tier"}
        backlog = {"backfill": self.backfill.status.to_json()} if self.backfill else {}
        try:
            return {
                "available": True,
                "kind": index.name,
                **await index.status(),
                **backlog,
            }
        except Exception as exc:  # noqa: BLE001
            return {
                "available": False,
                "kind": index.name,
                "reason": describe_error(exc),
                **backlog,
            }

    @_guarded
    async def health(self) -> dict[str, str]:
        """The contract's three keys ("store", "vector", "embedding"), plus any readiness
        fields the record store adds (Qdrant: `ready`, `store_latency_ms`)."""
        fields = await self.store.readiness()
        vector, embedding = "off", "off"
        if self.vector_index is not None:
            try:
                vector = self.vector_index.health()
                embedding = self.vector_index.embedding()
            except Exception as exc:  # noqa: BLE001
                vector = f"error: {type(exc).__name__}"
        elif self.vector_error:
            vector = "unavailable"
        return {
            "store": fields.pop("store"),
            "vector": vector,
            "embedding": embedding,
            **fields,
        }

    # -- vector write path (fail-open) -------------------------------------------------------
    async def _vector_upsert(self, items: Sequence[Memory]) -> None:
        if self.vector_index is None or not items:
            return
        try:
            async with asyncio.timeout(VECTOR_WRITE_TIMEOUT_S):
                await self.vector_index.upsert(items)
        except Exception as exc:  # noqa: BLE001 - rows keep needs_reindex = 1; the backfill catches up
            self.metrics.memory_fallbacks.inc("vector_write")
            log.warning(
                "memory.vector_upsert_failed",
                extra={
                    "fields": {
                        "error": describe_error(exc, VECTOR_WRITE_TIMEOUT_S),
                        "count": len(items),
                    }
                },
            )
            if self.backfill is not None:
                self.backfill.wake()

    async def _vector_delete(self, ids: Sequence[str]) -> None:
        if self.vector_index is None or not ids:
            return
        try:
            async with asyncio.timeout(VECTOR_WRITE_TIMEOUT_S):
                await self.vector_index.delete(ids)
        except Exception as exc:  # noqa: BLE001 - a dangling vector is filtered out at read time
            self.metrics.memory_fallbacks.inc("vector_write")
            log.warning(
                "memory.vector_delete_failed",
                extra={
                    "fields": {
                        "error": describe_error(exc, VECTOR_WRITE_TIMEOUT_S),
                        "count": len(ids),
                    }
                },
            )


def _subject(claim: Claim | None) -> str | None:
    return claim.subject if claim is not None else None


def memory_status(cfg: MemoryConfig) -> dict[str, Any]:
    """The memory settings engine-status reports, for every store."""
    return {
        "enabled": cfg.enabled,
        "strategy": cfg.strategy,
        "scope": cfg.scope,
        "max_tokens": cfg.max_tokens,
        "retention_days": cfg.retention_days,
    }
