"""The outbox worker when Qdrant is the system of record.

The outbox stays in this replica's SQLite file (durable, local); the memories go to Qdrant.
A page is handled row by row: extract (off the loop), upsert each fact into Qdrant and
supersede older ones, THEN delete that row from the outbox. So:

- Qdrant down → `QdrantUnavailable` propagates, the base worker backs off and retries the page;
  the rows wait on disk (outbox depth grows) and drain once Qdrant answers again.
- A crash between the Qdrant write and the outbox delete replays the row at the next start:
  facts are keyed, so the replay updates the same points in place (no duplicates).
- A row that keeps failing for another reason is retried `MAX_ATTEMPTS` times, then dropped.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING

from memtap.engine.api import InvalidInput
from memtap.engine.clock import now_iso
from memtap.engine.events import EngineEvents, TurnExtracted
from memtap.engine.extraction.worker import OutboxWorker, ids_of, plan
from memtap.engine.metrics import Metrics
from memtap.engine.store import outbox
from memtap.engine.store.database import Database
from memtap.engine.store.outbox import MAX_ATTEMPTS, OutboxRow
from memtap.engine.store.qdrant_store import QdrantMemoryStore
from memtap.engine.types import Memory, NewMemory

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

log = logging.getLogger("memtap.extraction")


class QdrantOutboxWorker(OutboxWorker):
    def __init__(
        self,
        db: Database,
        holder: ConfigHolder,
        metrics: Metrics,
        store: QdrantMemoryStore,
        events: EngineEvents | None = None,
    ) -> None:
        super().__init__(db, holder, metrics, events=events)
        self.store = store

    async def process(self, rows: list[OutboxRow]) -> int:
        extract_from = tuple(self.holder.current.memory.extract_from)
        planned = await asyncio.to_thread(plan, rows, extract_from)
        total = 0
        for item in planned:
            turn = item.row.turn
            written: list[Memory] = []
            superseded: list[str] = []
            try:
                for fact, meta in item.facts:
                    now = now_iso()
                    memory, _ = await self.store.upsert_memory(
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
                    superseded += await self.store.supersede(
                        turn.owner, fact.subject, memory.id, now
                    )
            except InvalidInput as exc:
                await self._failed(item.row, f"{type(exc).__name__}: {exc}")
                continue
            # QdrantUnavailable (and any store error) propagates: the row stays for a retry.
            await self.db.write(functools.partial(outbox.delete, seqs=[item.row.seq]))
            self.processed += 1
            self.metrics.outbox_depth.dec()
            self.metrics.memories_extracted.inc(amount=len(written))
            total += len(written)
            self.events.turn_extracted(
                TurnExtracted(turn.request_id, turn.owner, ids_of(written))
            )
            if written:
                log.info(
                    "memory.extracted",
                    extra={
                        "fields": {
                            "request_id": turn.request_id,
                            "owner": turn.owner,
                            "memory_ids": [m.id for m in written],
                            "superseded": superseded,
                            "format": turn.format,
                            "store": "qdrant",
                        }
                    },
                )
        return total

    async def _failed(self, row: OutboxRow, error: str) -> None:
        attempts = await self.db.write(
            functools.partial(outbox.record_failure, seq=row.seq, error=error)
        )
        if attempts >= MAX_ATTEMPTS:
            await self.db.write(functools.partial(outbox.delete, seqs=[row.seq]))
            self.metrics.outbox_depth.dec()
            log.error(
                "memory.extract_dropped",
                extra={
                    "fields": {
                        "request_id": row.turn.request_id,
                        "attempts": attempts,
                        "error": error[:200],
                    }
                },
            )
