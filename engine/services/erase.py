"""GDPR erase of one owner across every store that holds something of theirs: vectors,
memory rows (and their keyword index), episodes, this replica's outbox rows and ledger of
imported turns, the request log; then a checkpoint of the local file so no old page of
theirs survives in its write-ahead log."""

from __future__ import annotations

import asyncio
import logging

from memtap.engine.api import InvalidInput
from memtap.engine.episodes.service import EpisodeService
from memtap.engine.local_file import LocalFile
from memtap.engine.ports import Outbox, RecordStore, RequestLogStore
from memtap.engine.retrieval.admission.pending import PendingTurns
from memtap.engine.services.outbox_depth import OutboxDepth
from memtap.engine.services.vectors import VectorUpkeep
from memtap.engine.types import EraseReceipt

log = logging.getLogger("memtap.engine")


class OwnerErase:
    def __init__(
        self,
        *,
        store: RecordStore,
        vectors: VectorUpkeep,
        episodes: EpisodeService,
        outbox: Outbox,
        local: LocalFile,
        request_log: RequestLogStore,
        pending: PendingTurns,
        depth: OutboxDepth,
        page_lock: asyncio.Lock,
    ) -> None:
        self.store = store
        self.vectors = vectors
        self.episodes = episodes
        self.outbox = outbox
        self.local = local
        self.request_log = request_log
        self.pending = pending
        self.depth = depth
        self.page_lock = page_lock
        """The worker's: held from reading a page to storing it."""

    async def erase(self, owner: str) -> EraseReceipt:
        """With Qdrant as the record store other replicas' outboxes are theirs to erase:
        run the erase on each replica, or stop extraction first."""
        if not owner:
            raise InvalidInput("owner is required", "owner")
        async with self.page_lock:  # no page in flight writes the owner back
            return await self._erase(owner)

    async def _erase(self, owner: str) -> EraseReceipt:
        vectors = await self.vectors.erase_owner(owner)  # raises: nothing erased yet
        rows = await self.store.erase_owner(owner)
        episodes = await self.episodes.erase_owner(owner)
        queued = await self.outbox.erase_owner(owner)
        imported = await self.local.imported_turns.erase_owner(owner)
        await self.request_log.erase_owner(owner)
        self.pending.forget_owner(owner)
        self.depth.removed(queued)
        await self.local.checkpoint()
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
