"""`QdrantFactWriter`: the outbox worker's unit of work when the memory rows live in Qdrant
and the outbox in this replica's SQLite file. Two stores, no transaction across them: each
turn's facts are written, THEN its row acked. Qdrant down: `QdrantUnavailable` propagates
and the rows wait. A crash between the write and the ack replays the turn, which updates the
same points (facts are keyed by (owner, key)): nothing is stored twice."""

from __future__ import annotations

from collections.abc import Sequence

from memtap.engine.ports import Outbox, PlannedTurn, WrittenTurn
from memtap.engine.qdrant import supersession
from memtap.engine.qdrant.memories import QdrantMemoryStore
from memtap.engine.types import Memory


class QdrantFactWriter:
    """`FactWriter` over a `QdrantMemoryStore` and the local `Outbox` (built by the
    factory, which holds both)."""

    def __init__(self, store: QdrantMemoryStore, outbox: Outbox) -> None:
        self.store = store
        self.outbox = outbox

    async def write(self, turns: Sequence[PlannedTurn], now: str) -> list[WrittenTurn]:
        """Turn by turn: upsert each fact and supersede older ones, then ack the row."""
        store = self.store
        results = []
        for item in turns:
            written: list[Memory] = []
            superseded: list[str] = []
            for (new, subject), (fact, _) in zip(
                item.new_memories(), item.facts, strict=True
            ):
                memory, _ = await store.upsert_memory(new, now, subject=subject)
                written.append(memory)
                superseded += await store.supersede(new.owner, subject, memory.id, now)
                if fact.replaces:
                    superseded += await supersession.replace_ids(
                        store.points, new.owner, fact.replaces, memory.id, now
                    )
            await self.outbox.ack([item.row.seq])
            results.append(WrittenTurn(item.row, written, superseded))
        return results
