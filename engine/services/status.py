"""What the engine says of itself: engine-status (every store, the worker, extraction,
retrieval's admission) and the health answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memtap.engine.clock import now_iso
from memtap.engine.episodes.service import EpisodeService
from memtap.engine.extractors.choice import ConfiguredExtractor
from memtap.engine.local_file import LocalFile
from memtap.engine.ports import Outbox, RecordStore
from memtap.engine.retrieval.admission.loop_lag import LoopLag
from memtap.engine.retrieval.admission.slots import RetrievalSlots
from memtap.engine.services.vectors import VectorUpkeep
from memtap.engine.worker.outbox_worker import OutboxWorker

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder
    from memtap.config.schema import MemoryConfig


class StatusReport:
    def __init__(
        self,
        *,
        holder: ConfigHolder,
        store: RecordStore,
        outbox: Outbox,
        local: LocalFile,
        vectors: VectorUpkeep,
        worker: OutboxWorker,
        extractor: ConfiguredExtractor,
        episodes: EpisodeService,
        slots: RetrievalSlots,
        lag: LoopLag,
    ) -> None:
        self.holder = holder
        self.store = store
        self.outbox = outbox
        self.local = local
        self.vectors = vectors
        self.worker = worker
        self.extractor = extractor
        self.episodes = episodes
        self.slots = slots
        self.lag = lag

    async def status(self) -> dict[str, Any]:
        memory = self.holder.current.memory
        counts = await self.store.counts(now_iso())
        depth = await self.outbox.depth()
        store = await self.store.status()
        if not self.store.in_local_file:
            store["local"] = {
                "path": self.local.path,
                "driver": self.local.driver,
                "holds": ["outbox", "settings_overrides"],
            }
        return {
            "store": store,
            "fts": self.store.text_index(),
            "vector": await self.vectors.status(),
            "embedding": self.vectors.embedding(),
            "outbox": {
                "depth": depth,
                "worker": "running" if self.worker.running else "stopped",
                "processed": self.worker.processed,
                "last_error": self.worker.last_error,
            },
            "extraction": self.extractor.status(),
            "counts": counts,
            "memory": memory_status(memory),
            "retrievals": {
                **self.slots.to_json(memory.max_concurrent_retrievals),
                # Retrievals shed to the facts' keyword leg from 3 % of the limit.
                "loop_lag_ms": round(self.lag.now_s() * 1000, 1),
            },
            "episodes": await self.episodes.status(),
        }

    async def health(self) -> dict[str, str]:
        """The contract's three keys ("store", "vector", "embedding"), plus any readiness
        fields the record store adds (Qdrant: `ready`, `store_latency_ms`)."""
        fields = await self.store.readiness()
        vector, embedding = self.vectors.health()
        return {
            "store": fields.pop("store"),
            "vector": vector,
            "embedding": embedding,
            **fields,
        }


def memory_status(cfg: MemoryConfig) -> dict[str, Any]:
    """The memory settings engine-status reports, for every store."""
    return {
        "enabled": cfg.enabled,
        "strategy": cfg.strategy,
        "scope": cfg.scope,
        "max_tokens": cfg.max_tokens,
        "retention_days": cfg.retention_days,
    }
