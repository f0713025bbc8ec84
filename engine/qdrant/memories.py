"""`QdrantMemoryStore`: the record store when Qdrant is memtap's shared memory.

One collection, one point per memory (layout in `payload.py`), shared by every memtap replica
pointed at it. Every `RecordStore` operation has the SQLite store's semantics (upsert on
`(owner, key)`, `Live` visibility, supersession, listing, sweep, erase, export); each point
carries its sparse keyword vector and its dense vector, so `keyword` runs inside Qdrant and
`qdrant.vectors.QdrantDenseIndex` searches the dense arm of the same points.

Every call goes through `QdrantTransport` (timeouts, retries, `EngineError`s), so a Qdrant
outage surfaces as `QdrantUnavailable` and callers fail open.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from qdrant_client import AsyncQdrantClient, models

from memtap.config.schema import Config
from memtap.engine.api import EngineError, InvalidInput, NotFound
from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.limits import MAX_CONTENT_CHARS
from memtap.engine.memory_rules import Live, merge_patch, normalise_ts, validate_new
from memtap.engine.metrics import Metrics
from memtap.engine.ports import InvalidItem, Outbox, PlannedTurn, WrittenTurn
from memtap.engine.qdrant import search
from memtap.engine.qdrant.collection import Collection, Probe
from memtap.engine.qdrant.counts import collection_counts
from memtap.engine.qdrant.filters import (
    list_filter,
    live_conditions,
    match,
    memory_ids_filter,
    owner_filter,
)
from memtap.engine.qdrant.payload import (
    iso_to_ts,
    memory_to_payload,
    payload_to_memory,
    point_id,
)
from memtap.engine.qdrant.points import QdrantPoints, collection_status
from memtap.engine.qdrant.supersession import mark_superseded, summary_candidates
from memtap.engine.qdrant.transport import (
    QdrantTransport,
    QdrantUnavailable,
    open_transport,
)
from memtap.engine.types import (
    MEMORY_TYPES,
    ListQuery,
    Memory,
    MemoryPatch,
    NewMemory,
    Page,
)

log = logging.getLogger("memtap.store.qdrant")

PAGE = 256
REINDEX_BATCH = 64


_SUPERSEDE_PAGE = 1000


class QdrantMemoryStore:
    """One collection; safe to share between Engine instances (and replicas) in one process."""

    name = "qdrant"
    in_local_file = False

    def __init__(
        self,
        transport: QdrantTransport,
        collection: str,
        embedder: EmbeddingSource | None,
        metrics: Metrics | None = None,
        *,
        owns_transport: bool = True,
    ) -> None:
        self.metrics = metrics
        self.points = QdrantPoints(
            transport,
            Collection(
                transport,
                collection,
                embedder.dim if embedder else None,
                embedder.signature if embedder else None,
            ),
            embedder,
            metrics,
        )
        self._owns_transport = owns_transport

    def replace_transport(
        self, transport: QdrantTransport, *, owns_transport: bool = False
    ) -> None:
        """Talk to Qdrant through another client from now on; the collection is re-checked
        on next use. Nothing reconnects by itself on a settings change (docs/qdrant.md: a
        restart applies new `vector_store.qdrant` settings); tests use it to end an outage."""
        old = self.points.collection
        collection = Collection(transport, old.name, old.dim, old.signature)
        self.points = QdrantPoints(transport, collection, self.embedder, self.metrics)
        self._owns_transport = owns_transport

    @property
    def transport(self) -> QdrantTransport:
        return self.points.transport

    @property
    def collection(self) -> Collection:
        return self.points.collection

    @property
    def embedder(self) -> EmbeddingSource | None:
        return self.points.embedder

    @property
    def signature(self) -> str | None:
        return self.points.signature

    async def _key_free(self, owner: str, key: str | None, memory_id: str) -> None:
        if key is None:
            return
        holder = await self.points.at_key(owner, key)
        if holder is not None and (holder.payload or {}).get("memory_id") != memory_id:
            raise InvalidInput(
                "another memory of this owner already has that key", "key"
            )

    # -- system of record ---------------------------------------------------------------
    async def upsert_memory(
        self, new: NewMemory, now: str, subject: str | None = None
    ) -> tuple[Memory, bool]:
        """Insert, or update the memory with the same id or the same (owner, key); a re-stated
        superseded memory becomes live again. Returns (memory, created)."""
        validate_new(new)
        expires = normalise_ts(new.expires_at, "expires_at") if new.expires_at else None
        created_at = (
            normalise_ts(new.created_at, "created_at") if new.created_at else now
        )
        updated_at = (
            normalise_ts(new.updated_at, "updated_at") if new.updated_at else now
        )
        # As in SQLite: a given end of validity is kept (an import's history stays history).
        valid_to = normalise_ts(new.valid_to, "valid_to") if new.valid_to else None
        existing = await self.points.find(new.id) if new.id else None
        if existing is None and new.key is not None:
            existing = await self.points.at_key(new.owner, new.key)
        if existing is None:
            memory = Memory(
                id=new.id or str(uuid.uuid4()),
                owner=new.owner,
                session=new.session,
                type=new.type,
                key=new.key,
                content=new.content,
                metadata=dict(new.metadata),
                created_at=created_at,
                updated_at=updated_at,
                expires_at=expires,
                superseded_by=new.superseded_by,
                valid_to=valid_to,
            )
            pid = point_id(memory.owner, memory.key, memory.id)
            if new.key is None:
                await self.points.write([(pid, memory, subject)])
                return memory, True
            # Insert-only on the key's point: when another replica inserted the same key
            # between our read and this write, theirs stays and we merge into it below, so
            # both replicas end up with one memory and one id.
            await self.points.write([(pid, memory, subject)], insert_only=True)
            existing = await self.points.at_key(new.owner, new.key)
            if (
                existing is None
                or (existing.payload or {}).get("memory_id") == memory.id
            ):
                return memory, True
        payload = existing.payload or {}
        old = payload_to_memory(payload)
        key = new.key if new.id is not None and old.id == new.id else old.key
        if key != old.key:
            await self._key_free(old.owner, key, old.id)
        memory = replace(
            old,
            session=new.session,
            type=new.type,
            key=key,
            content=new.content,
            metadata=merge_patch(old.metadata, new.metadata),
            updated_at=updated_at,
            expires_at=expires,
            superseded_by=new.superseded_by,
            valid_to=valid_to,
        )
        pid = point_id(memory.owner, memory.key, memory.id)
        await self.points.write(
            [(pid, memory, subject or payload.get("subject"))],
            moved=pid != str(existing.id),
        )
        return memory, False

    async def get_memory(self, memory_id: str) -> Memory | None:
        record = await self.points.find(memory_id)
        return payload_to_memory(record.payload or {}) if record else None

    async def update_memory(
        self, memory_id: str, patch: MemoryPatch, now: str, subject: str | None = None
    ) -> Memory | None:
        record = await self.points.find(memory_id)
        if record is None:
            return None
        payload = record.payload or {}
        old = payload_to_memory(payload)
        memory = old
        if patch.content is not None:
            if not patch.content.strip() or len(patch.content) > MAX_CONTENT_CHARS:
                raise InvalidInput(
                    f"content must be 1..{MAX_CONTENT_CHARS} characters", "content"
                )
            memory = replace(memory, content=patch.content)
        if patch.type is not None:
            if patch.type not in MEMORY_TYPES:
                raise InvalidInput(
                    f"type must be one of {', '.join(MEMORY_TYPES)}", "type"
                )
            memory = replace(memory, type=patch.type)
        if patch.key is not None:
            memory = replace(memory, key=patch.key or None)
            await self._key_free(memory.owner, memory.key, memory.id)
        if patch.session is not None:
            memory = replace(memory, session=patch.session or None)
        if patch.metadata is not None:
            memory = replace(memory, metadata=dict(patch.metadata))
        if patch.clear_expires_at:
            memory = replace(memory, expires_at=None)
        elif patch.expires_at is not None:
            memory = replace(
                memory, expires_at=normalise_ts(patch.expires_at, "expires_at")
            )
        memory = replace(memory, updated_at=now)
        pid = point_id(memory.owner, memory.key, memory.id)
        if patch.content is not None:
            payload = {**payload, "subject": subject}
        if memory.content == old.content and pid == str(record.id):
            await self._overwrite_payload(record.id, memory, payload)
        else:
            await self.points.write(
                [(pid, memory, payload.get("subject"))], moved=pid != str(record.id)
            )
        return memory

    async def _overwrite_payload(
        self, pid: models.ExtendedPointId, memory: Memory, old: dict[str, Any]
    ) -> None:
        payload = memory_to_payload(memory, old.get("vec_sig"))
        payload["subject"] = old.get("subject")
        name = self.collection.name
        await self.points.call(
            "overwrite_payload",
            lambda c: c.overwrite_payload(
                name,
                payload=payload,
                points=[pid],
                wait=True,
                ordering=models.WriteOrdering.STRONG,
            ),
        )

    async def delete_memory(self, memory_id: str) -> bool:
        if await self.points.find(memory_id) is None:
            return False
        await self.delete([memory_id])
        return True

    async def supersede(
        self, owner: str, subject: str, new_id: str, now: str
    ) -> list[str]:
        """Mark the owner's other live memories about `subject` as superseded by `new_id`,
        unless one was said later (as in SQLite: then `new_id` is late history)."""
        said = await self.points.find(new_id)
        if said is not None:
            later = models.Filter(
                must=[
                    match("owner", owner),
                    match("subject", subject),
                    match("superseded", False),
                    models.FieldCondition(
                        key="updated_at_ts",
                        range=models.Range(
                            gt=float((said.payload or {}).get("updated_at_ts") or 0.0)
                        ),
                    ),
                ],
                must_not=[match("memory_id", new_id)],
            )
            newer = [
                payload_to_memory(r.payload or {})
                for r in await self.points.scroll(later, _SUPERSEDE_PAGE)
            ]
            if newer:
                newest = max(newer, key=lambda m: m.updated_at)
                await self.mark_superseded([new_id], newest.id, newest.updated_at)
                return []
        flt = models.Filter(
            must=[
                match("owner", owner),
                match("subject", subject),
                match("superseded", False),
            ],
            must_not=[match("memory_id", new_id)],
        )
        superseded: list[str] = []
        while True:  # marked points leave the filter: scroll again until none is left
            ids = [
                str((r.payload or {})["memory_id"])
                for r in await self.points.scroll(flt, _SUPERSEDE_PAGE)
            ]
            await self.mark_superseded(ids, new_id, now)
            superseded += ids
            if len(ids) < _SUPERSEDE_PAGE:
                return superseded

    async def mark_superseded(self, ids: Sequence[str], by: str, now: str) -> None:
        """`ids` are history from now on, replaced by memory `by`."""
        await mark_superseded(self.points, list(ids), by, now)

    async def live_about(self, owner: str, subject: str) -> list[Memory]:
        flt = models.Filter(
            must=[
                match("owner", owner),
                match("subject", subject),
                match("superseded", False),
            ]
        )
        return [
            payload_to_memory(r.payload or {})
            for r in await self.points.scroll(flt, 1000)
        ]

    async def summary_candidates(
        self, cutoff: str, owner: str | None, limit: int = 1000
    ) -> list[Memory]:
        return await summary_candidates(self.points, cutoff, owner, limit)

    async def make_live(self, memory_id: str) -> Memory | None:
        """Clear a memory's supersession (undoing a compaction); None when it is gone."""
        record = await self.points.find(memory_id)
        if record is None:
            return None
        payload = record.payload or {}
        memory = replace(payload_to_memory(payload), superseded_by=None, valid_to=None)
        await self._overwrite_payload(record.id, memory, payload)
        return memory

    async def recent(self, live: Live, limit: int) -> list[Memory]:
        return await search.recent(self.points, live, limit)

    async def keyword(
        self, query: str, live: Live, limit: int
    ) -> list[tuple[Memory, float]]:
        """Sparse (BM25-style) matches, best first, with Qdrant's score (higher is better)."""
        return await search.keyword(self.points, query, live, limit)

    async def keyword_and_recent(
        self, query: str, live: Live, limit: int
    ) -> tuple[list[tuple[Memory, float]], list[Memory]]:
        found = await self.keyword(query, live, limit)
        return found, (await self.recent(live, limit) if found else [])

    async def live_many(self, ids: Sequence[str], live: Live) -> dict[str, Memory]:
        if not ids:
            return {}
        flt = models.Filter(
            must=[
                *live_conditions(live),
                models.FieldCondition(
                    key="memory_id", match=models.MatchAny(any=list(ids))
                ),
            ]
        )
        return {
            m.id: m
            for m in (
                payload_to_memory(r.payload or {})
                for r in await self.points.scroll(flt, len(ids))
            )
        }

    async def import_memories(
        self,
        items: Sequence[NewMemory],
        now: str,
        subjects: Sequence[str | None] | None = None,
    ) -> list[tuple[Memory | InvalidItem, bool]]:
        out: list[tuple[Memory | InvalidItem, bool]] = []
        for i, item in enumerate(items):
            subject = subjects[i] if subjects is not None else None
            try:
                out.append(await self.upsert_memory(item, now, subject))
            except InvalidInput as exc:
                out.append((InvalidItem(str(exc)), False))
        return out

    async def write_facts(
        self, turns: Sequence[PlannedTurn], outbox: Outbox, now: str
    ) -> list[WrittenTurn]:
        """Turn by turn: upsert each fact and supersede older ones, THEN ack the turn's
        outbox row. Qdrant down: `QdrantUnavailable` propagates and the rows wait; a crash
        between the write and the ack replays the turn, which updates the same points."""
        results = []
        for item in turns:
            written: list[Memory] = []
            superseded: list[str] = []
            for (new, subject), (fact, _) in zip(
                item.new_memories(), item.facts, strict=True
            ):
                memory, _ = await self.upsert_memory(new, now, subject=subject)
                written.append(memory)
                superseded += await self.supersede(new.owner, subject, memory.id, now)
                if fact.replaces:
                    superseded += await self._replace_ids(
                        new.owner, fact.replaces, memory.id, now
                    )
            await outbox.ack([item.row.seq])
            results.append(WrittenTurn(item.row, written, superseded))
        return results

    async def _replace_ids(
        self, owner: str, ids: Sequence[str], new_id: str, now: str
    ) -> list[str]:
        """Mark `ids` superseded by `new_id`: only those that are `owner`'s and live."""
        mine: list[str] = []
        for memory_id in dict.fromkeys(ids):
            found = await self.get_memory(memory_id) if memory_id != new_id else None
            if (
                found is not None
                and found.owner == owner
                and found.superseded_by is None
            ):
                mine.append(memory_id)
        if mine:
            await self.mark_superseded(mine, new_id, now)
        return mine

    async def compact(
        self, pairs: Sequence[tuple[Memory, NewMemory]], now: str
    ) -> list[Memory]:
        """Each summary is written, then its original marked superseded by it. Qdrant has no
        transactions across points: a failure in between leaves an original live next to its
        summary (both found; nothing lost), and a new run skips memories that are summaries."""
        written: list[Memory] = []
        for original, new in pairs:
            summary, _ = await self.upsert_memory(new, now)
            await self.mark_superseded([original.id], summary.id, now)
            written.append(summary)
        return written

    async def restore_summary(self, summary_id: str) -> Memory | None:
        summary = await self.get_memory(summary_id)
        original_id = summary.metadata.get("summary_of") if summary else None
        if not isinstance(original_id, str):
            return None
        original = await self.make_live(original_id)
        if original is None:
            raise NotFound(f"the original of {summary_id!r} is gone")
        await self.delete([summary_id])
        return original

    async def list_page(self, query: ListQuery) -> Page:
        """Admin listing: newest first, with total (offset paging, as the admin API uses)."""
        flt = list_filter(query)
        name = self.collection.name
        total = await self.points.call(
            "count", lambda c: c.count(name, count_filter=flt, exact=True)
        )
        records = await self.points.scroll(
            flt, query.offset + query.limit, order_desc="created_at_ts"
        )
        items = tuple(
            payload_to_memory(r.payload or {}) for r in records[query.offset :]
        )
        return Page(items=items, total=int(total.count))

    async def export_owner(self, owner: str) -> AsyncIterator[Memory]:
        name, flt = self.collection.name, owner_filter(owner)
        offset: models.ExtendedPointId | None = None
        while True:

            async def page(
                c: AsyncQdrantClient, start: models.ExtendedPointId | None = offset
            ) -> tuple[list[models.Record], models.ExtendedPointId | None]:
                return await c.scroll(
                    name, scroll_filter=flt, limit=PAGE, offset=start, with_payload=True
                )

            records, offset = await self.points.call("scroll", page)
            for record in records:
                yield payload_to_memory(record.payload or {})
            if offset is None:
                return

    async def sweep(self, now: str, cutoff: str | None, limit: int = 5000) -> list[str]:
        """Really delete expired and out-of-retention memories; returns their ids."""
        should: list[models.Condition] = [
            models.FieldCondition(
                key="expires_at_ts", range=models.Range(lte=iso_to_ts(now))
            )
        ]
        if cutoff is not None:
            should.append(
                models.FieldCondition(
                    key="updated_at_ts", range=models.Range(lt=iso_to_ts(cutoff))
                )
            )
        ids = [
            str((r.payload or {})["memory_id"])
            for r in await self.points.scroll(models.Filter(should=should), limit)
        ]
        if ids:
            await self.delete(ids)
        return ids

    async def count(self, flt: models.Filter | None = None) -> int:
        return await self.points.count(flt)

    async def counts(self, now: str) -> dict[str, Any] | None:
        """None while Qdrant does not answer (engine-status still reports the rest)."""
        if not (await self.probe()).ok:
            return None
        try:
            return await collection_counts(self.points, now)
        except EngineError:
            return None

    async def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        await self.points.delete_where("delete", memory_ids_filter(list(ids)))

    async def erase_owner(self, owner: str) -> int:
        """Delete every point of `owner`; returns how many there were (counted first)."""
        flt = owner_filter(owner)
        removed = await self.count(flt)
        if removed:
            await self.points.delete_where("erase_owner", flt)
        log.info(
            "qdrant.owner_erased", extra={"fields": {"owner": owner, "points": removed}}
        )
        return removed

    async def probe(self) -> Probe:
        """Reachability and round-trip latency (for /readyz, health and engine-status)."""
        return await self.collection.probe()

    async def status(self) -> dict[str, Any]:
        return {"kind": "qdrant", **await collection_status(self.points)}

    def text_index(self) -> dict[str, Any]:
        return {
            "available": True,
            "tokenizer": "memtap sparse vectors (hashed words, BM25 tf, Qdrant idf)",
        }

    async def readiness(self) -> dict[str, str]:
        """The contract's "store", plus `ready` ("true"/"false": Qdrant answered the probe)
        and `store_latency_ms` (that probe's round trip) for a readiness check."""
        probe = await self.probe()
        store = f"qdrant:{self.transport.mode}"
        if not probe.ok:
            store += " (unavailable)"
        return {
            "store": store,
            "ready": "true" if probe.ok else "false",
            "store_latency_ms": f"{probe.latency_ms:.2f}",
        }

    def health(self) -> str:
        """The collection's state for /_memtap/health "vector"."""
        if self.transport.last_error is not None:
            return f"degraded: qdrant {self.transport.last_error}"
        return "qdrant"

    def embedding(self) -> str:
        return self.signature or "none"

    async def close(self) -> None:
        if self._owns_transport:
            await self.transport.close()


async def open_qdrant_store(
    config: Config,
    embedder: EmbeddingSource | None,
    metrics: Metrics | None = None,
    *,
    transport: QdrantTransport | None = None,
) -> QdrantMemoryStore:
    """Build the store from `vector_store.qdrant` and try to prepare the collection.

    A vector-size mismatch raises (`QdrantCollectionMismatch`, a ConfigError naming
    `vector_store.qdrant.collection`); Qdrant being down does not: memtap starts, fails open,
    and creates the collection on the first call that reaches Qdrant. Pass `transport` to
    share one client between engines (they then share the collection)."""
    owns = transport is None
    if transport is None:
        transport = await open_transport(config.vector_store.qdrant)
    store = QdrantMemoryStore(
        transport,
        config.vector_store.qdrant.collection,
        embedder,
        metrics,
        owns_transport=owns,
    )
    try:
        await store.collection.ensure()
    except QdrantUnavailable as exc:
        log.warning("qdrant.start_unavailable", extra={"fields": {"error": str(exc)}})
    except BaseException:
        if owns:
            await transport.close()
        raise
    return store
