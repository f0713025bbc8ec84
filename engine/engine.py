"""`Engine`: the one MemoryEngine, a thin facade that wires the services and orchestrates.

The work is done by the services of `engine/services/` over the ports of `engine/ports.py`:
retrieval (`retrieval.py`, `own_writes.py`), turns in (`intake.py`), memory writes
(`memories.py`, `vectors.py`), erase (`erase.py`), episodes admin (`episodes_admin.py`),
background tasks (`tasks.py`), the local file's recovery (`recovery.py`), status
(`status.py`) and what the replica keeps locally (`local_records.py`). `engine.factory.
open_engine` picks the adapters; the engine names none of them. The config is read from
`holder.current` at every call, never cached, so reloads and overrides apply at once.

Fail-open: every public method raises only `EngineError` subclasses (`services/guard.py`).
Retrieval reads carry time limits, `enqueue_turn` waits at most `intake.ENQUEUE_TIMEOUT_S`; other
writes queue behind the one writer (docs/engine.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from memtap.engine.episode_types import (
    Episode,
    EpisodeListQuery,
    EpisodePage,
    NewEpisode,
)
from memtap.engine.episodes.service import EpisodeService
from memtap.engine.events import EngineEvents
from memtap.engine.extractors.choice import ConfiguredExtractor
from memtap.engine.history.importer import DEFAULT_WAIT_S, ConversationImport
from memtap.engine.local_file import LocalFile
from memtap.engine.metrics import Metrics
from memtap.engine.ports import (
    EpisodeStore,
    FactWriter,
    Outbox,
    RecordStore,
    RequestLogStore,
    SettingsStore,
    VectorIndex,
)
from memtap.engine.retrieval.admission.loop_lag import LoopLag
from memtap.engine.retrieval.admission.pending import PendingTurns
from memtap.engine.retrieval.admission.slots import RetrievalSlots
from memtap.engine.services.episodes_admin import EpisodesAdmin
from memtap.engine.services.erase import OwnerErase
from memtap.engine.services.guard import guarded, guarded_iter
from memtap.engine.services.intake import TurnIntake
from memtap.engine.services.local_records import LocalRecords
from memtap.engine.services.memories import MemoryWrites
from memtap.engine.services.outbox_depth import OutboxDepth
from memtap.engine.services.own_writes import OwnWrites
from memtap.engine.services.recovery import LocalFileRecovery
from memtap.engine.services.retrieval import RetrievalService
from memtap.engine.services.status import StatusReport
from memtap.engine.services.tasks import BackgroundTasks
from memtap.engine.services.vectors import VectorUpkeep
from memtap.engine.types import (
    EraseReceipt,
    ImportReport,
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
    from memtap.config.schema import Config
    from memtap.engine.maintenance.backfill import VectorBackfill

DRAIN_S = 5.0
"""At close, how long the worker may go on applying what the outbox holds."""


class Engine:
    def __init__(
        self,
        holder: ConfigHolder,
        metrics: Metrics,
        local: LocalFile,
        store: RecordStore,
        outbox: Outbox,
        settings: SettingsStore,
        facts: FactWriter,
        vector_index: VectorIndex | None = None,
        vector_error: str | None = None,
        *,
        request_log: RequestLogStore,
        episodes: EpisodeStore,
        events: EngineEvents | None = None,
    ) -> None:
        self.holder = holder
        self.metrics = metrics
        self.local = local
        """This replica's local file: outbox and settings always, the rows too with SQLite."""
        self.store = store
        self.outbox = outbox
        self.events = events if events is not None else EngineEvents()
        """Where the engine tells listeners (the proxy's request log) what it did."""
        self.episodes = EpisodeService(episodes, holder, metrics)
        """What was said (`engine/episodes/`)."""
        self.pending = PendingTurns()
        self.depth = OutboxDepth(metrics.outbox_depth)
        """Turns waiting in the outbox: the enqueue capacity check reads it."""
        self.retrieval_slots = RetrievalSlots()
        self.loop_lag = LoopLag()
        self.vectors = VectorUpkeep(vector_index, vector_error, store, holder, metrics)
        self.extractor = ConfiguredExtractor(lambda: holder.current, store, metrics)
        """The rules, or a model falling back to them (`extraction.kind`)."""
        self.worker = OutboxWorker(
            outbox,
            store,
            holder,
            metrics,
            extractor=self.extractor,
            facts=facts,
            on_written=self.vectors.upsert,
            events=self.events,
            pending=self.pending,
            store_episodes=self.episodes.store_turns,
            on_acked=self.depth.removed,
        )
        self.tasks = BackgroundTasks(
            holder=holder,
            store=store,
            outbox=outbox,
            worker=self.worker,
            vectors=self.vectors,
            episodes=self.episodes,
            lag=self.loop_lag,
            pending=self.pending,
            depth=self.depth,
            guarded_sweep=self.sweep,
        )
        self.recovery = LocalFileRecovery(local, metrics, self.tasks.file_replaced)
        self.retrieval = RetrievalService(
            holder=holder,
            metrics=metrics,
            store=store,
            vectors=self.vectors,
            episodes=self.episodes,
            own_writes=OwnWrites(self.pending, self.worker, holder, metrics),
            slots=self.retrieval_slots,
            lag=self.loop_lag,
        )
        self.intake = TurnIntake(
            holder=holder,
            metrics=metrics,
            outbox=outbox,
            ledger=local.imported_turns,
            events=self.events,
            pending=self.pending,
            depth=self.depth,
            wake_worker=self.worker.wake,
            settle_vectors=self.episodes.vectors_settled,
        )
        self.memories = MemoryWrites(store, self.vectors)
        self.erase = OwnerErase(
            store=store,
            vectors=self.vectors,
            episodes=self.episodes,
            outbox=outbox,
            local=local,
            request_log=request_log,
            pending=self.pending,
            depth=self.depth,
            page_lock=self.worker.page_lock,
        )
        self.episodes_admin = EpisodesAdmin(self.episodes)
        self.records = LocalRecords(settings, request_log)
        self.report = StatusReport(
            holder=holder,
            store=store,
            outbox=outbox,
            local=local,
            vectors=self.vectors,
            worker=self.worker,
            extractor=self.extractor,
            episodes=self.episodes,
            slots=self.retrieval_slots,
            lag=self.loop_lag,
        )
        self._closed = False

    @property
    def config(self) -> Config:
        return self.holder.current

    @property
    def vector_index(self) -> VectorIndex | None:
        """The vector index beside the record store (None: `vector_error` says why)."""
        return self.vectors.index

    @vector_index.setter
    def vector_index(self, index: VectorIndex | None) -> None:
        self.vectors.index = index

    @property
    def backfill(self) -> VectorBackfill | None:
        return self.vectors.backfill

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self, *, worker: bool = True) -> None:
        await self.tasks.start(worker=worker)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self.recovery.close()
        await self.tasks.stop(min(DRAIN_S, self.config.server.shutdown_grace_s))
        with contextlib.suppress(Exception):
            await self.extractor.close()
        with contextlib.suppress(Exception):
            await self.episodes.stop()
        if self.vectors.index is not None:
            with contextlib.suppress(Exception):
                await self.vectors.index.close()
        with contextlib.suppress(Exception):
            await self.store.close()
        await self.local.close()

    # -- the proxy's path ---------------------------------------------------------------------
    @guarded
    async def retrieve(
        self,
        request: RetrievalRequest,
        *,
        side_effects: bool = True,
        limit_ms: int | None = None,
    ) -> Retrieval:
        return await self.retrieval.retrieve(request, side_effects, limit_ms)

    @guarded
    async def enqueue_turn(self, turn: Turn) -> None:
        await self.intake.enqueue(turn)

    def conversation_import(self, wait_s: float = DEFAULT_WAIT_S) -> ConversationImport:
        """Past turns in through the outbox, as live turns go (`engine/history/importer.py`)."""
        return self.intake.conversation_import(wait_s)

    # -- the request log (admin.request_log_store: database) -------------------------------
    @guarded
    async def save_request_record(
        self, request_id: str, owner: str | None, record: dict[str, Any], keep: int
    ) -> None:
        await self.records.save_request_record(request_id, owner, record, keep)

    @guarded
    async def load_request_records(self, limit: int) -> list[dict[str, Any]]:
        return await self.records.load_request_records(limit)

    # -- admin: memories --------------------------------------------------------------------
    @guarded
    async def list_memories(self, query: ListQuery) -> Page:
        return await self.memories.list_page(query)

    @guarded
    async def get_memory(self, memory_id: str) -> Memory:
        return await self.memories.get(memory_id)

    @guarded
    async def create_memory(self, new: NewMemory) -> Memory:
        return await self.memories.create(new)

    @guarded
    async def update_memory(self, memory_id: str, patch: MemoryPatch) -> Memory:
        return await self.memories.update(memory_id, patch)

    @guarded
    async def restore_summary(self, summary_id: str) -> Memory:
        """Undo one compaction by `summarize`: the original is live again, the summary is
        gone. NotFound when `summary_id` is not a summary."""
        return await self.memories.restore_summary(summary_id)

    @guarded
    async def delete_memory(self, memory_id: str) -> None:
        await self.memories.delete(memory_id)

    @guarded
    async def erase_owner(self, owner: str) -> EraseReceipt:
        """GDPR erase (`services/erase.py`): vectors, rows and their keyword index, episodes,
        this replica's outbox rows and imported turns, then a checkpoint of the local file."""
        return await self.erase.erase(owner)

    @guarded
    async def checkpoint(self) -> None:
        """Fold the local write-ahead log into the main file and truncate it."""
        await self.local.checkpoint()

    def export_owner(self, owner: str) -> AsyncIterator[Memory]:
        return guarded_iter(self.memories.export_owner(owner))

    @guarded
    async def import_memories(self, items: list[NewMemory]) -> ImportReport:
        return await self.memories.import_memories(items)

    # -- admin: episodes ----------------------------------------------------------------------
    @guarded
    async def list_episodes(self, query: EpisodeListQuery) -> EpisodePage:
        return await self.episodes_admin.list_page(query)

    @guarded
    async def get_episode(self, episode_id: str) -> Episode:
        return await self.episodes_admin.get(episode_id)

    @guarded
    async def delete_episode(self, episode_id: str) -> None:
        await self.episodes_admin.delete(episode_id)

    def export_episodes(self, owner: str) -> AsyncIterator[Episode]:
        return guarded_iter(self.episodes_admin.export_owner(owner))

    @guarded
    async def import_episodes(self, items: list[NewEpisode]) -> tuple[int, int]:
        return await self.episodes_admin.import_episodes(items)

    async def episode_vectors_settled(self, wait_s: float) -> int:
        return await self.episodes.vectors_settled(wait_s)

    # -- maintenance ------------------------------------------------------------------------
    @guarded
    async def summarize(
        self, older_than_days: int, owner: str | None, dry_run: bool
    ) -> dict[str, Any]:
        return await self.memories.summarize(older_than_days, owner, dry_run)

    @guarded
    async def reindex(
        self, limit: int | None = None, force: bool = False
    ) -> dict[str, Any]:
        return await self.vectors.reindex(limit, force)

    @guarded
    async def sweep(self) -> int:
        """Really delete expired and out-of-retention memories (also their vectors), and
        episodes said before their retention."""
        return await self.tasks.sweep()

    # -- settings overrides -----------------------------------------------------------------
    @guarded
    async def load_overrides(self) -> dict[str, Any]:
        return await self.records.load_overrides()

    @guarded
    async def save_override(self, name: str, value: Any) -> None:
        await self.records.save_override(name, value)

    @guarded
    async def delete_override(self, name: str) -> bool:
        return await self.records.delete_override(name)

    # -- status ------------------------------------------------------------------------------
    @guarded
    async def status(self) -> dict[str, Any]:
        return await self.report.status()

    @guarded
    async def health(self) -> dict[str, str]:
        """The contract's three keys ("store", "vector", "embedding"), plus any readiness
        fields the record store adds (Qdrant: `ready`, `store_latency_ms`)."""
        return await self.report.health()
