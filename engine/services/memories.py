"""Writes of memories outside the worker (admin API, MCP, CLI, imports) and their reads: the
CRUD, the conflict settling an extracted fact gets too, import/export, summarize and the
restore of a summary, each followed by its vector upkeep."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from memtap.engine.api import InvalidInput, NotFound
from memtap.engine.clock import now_iso
from memtap.engine.maintenance import summarize
from memtap.engine.ports import InvalidItem, RecordStore
from memtap.engine.services.vectors import VectorUpkeep
from memtap.engine.supersession.conflict import Claim, claim_of, resolve
from memtap.engine.types import (
    ImportReport,
    ImportTally,
    ListQuery,
    Memory,
    MemoryPatch,
    NewMemory,
    Page,
)

IMPORT_CHUNK = 500


class MemoryWrites:
    def __init__(self, store: RecordStore, vectors: VectorUpkeep) -> None:
        self.store = store
        self.vectors = vectors

    async def list_page(self, query: ListQuery) -> Page:
        if not (1 <= query.limit <= 1000) or query.offset < 0:
            raise InvalidInput("limit must be 1..1000 and offset >= 0", "limit")
        return await self.store.list_page(query)

    async def get(self, memory_id: str) -> Memory:
        found = await self.store.get_memory(memory_id)
        if found is None:
            raise NotFound(f"memory {memory_id!r} not found")
        return found

    async def create(self, new: NewMemory) -> Memory:
        claim = claim_of(new.content)
        memory, _ = await self.store.upsert_memory(new, now_iso(), _subject(claim))
        memory = await self.settle(memory, claim)
        await self.vectors.upsert([memory])
        return memory

    async def update(self, memory_id: str, patch: MemoryPatch) -> Memory:
        claim = claim_of(patch.content) if patch.content is not None else None
        updated = await self.store.update_memory(
            memory_id, patch, now_iso(), _subject(claim)
        )
        if updated is None:
            raise NotFound(f"memory {memory_id!r} not found")
        updated = await self.settle(updated, claim)
        await self.vectors.upsert([updated])
        return updated

    async def delete(self, memory_id: str) -> None:
        if not await self.store.delete_memory(memory_id):
            raise NotFound(f"memory {memory_id!r} not found")
        await self.vectors.delete([memory_id])

    async def settle(self, memory: Memory, claim: Claim | None) -> Memory:
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
                    written.append(await self.settle(result, claim))
                    tally.stored(was_created)
            await self.vectors.upsert(written)
        return tally.report()

    def export_owner(self, owner: str) -> AsyncIterator[Memory]:
        return self.store.export_owner(owner)

    async def summarize(
        self, older_than_days: int, owner: str | None, dry_run: bool
    ) -> dict[str, Any]:
        if older_than_days < 0:
            raise InvalidInput("older_than_days must be >= 0", "older_than_days")
        report, written = await summarize.run(
            self.store, older_than_days, owner, dry_run
        )
        await self.vectors.upsert(written)
        return report

    async def restore_summary(self, summary_id: str) -> Memory:
        """Undo one compaction by `summarize`: the original is live again, the summary is
        gone. NotFound when `summary_id` is not a summary."""
        original = await self.store.restore_summary(summary_id)
        if original is None:
            raise NotFound(f"memory {summary_id!r} is not a summary")
        await self.vectors.delete([summary_id])
        await self.vectors.upsert([original])
        return original


def _subject(claim: Claim | None) -> str | None:
    return claim.subject if claim is not None else None
