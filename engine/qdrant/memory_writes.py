"""How a memory's point is written in the record collection: the upsert on `(owner, key)`
(insert-only on the key's point, so two replicas inserting the same key end with one memory),
the admin patch, and the payload overwrite that keeps a point's vectors. Functions over
`QdrantPoints`, run by `memories.QdrantMemoryStore`; the SQLite store's semantics, point for row.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from qdrant_client import models

from memtap.engine.api import InvalidInput
from memtap.engine.limits import MAX_CONTENT_CHARS
from memtap.engine.memory_rules import merge_patch, normalise_ts, validate_new
from memtap.engine.qdrant.payload import memory_to_payload, payload_to_memory, point_id
from memtap.engine.qdrant.points import QdrantPoints
from memtap.engine.types import MEMORY_TYPES, Memory, MemoryPatch, NewMemory


async def key_free(
    points: QdrantPoints, owner: str, key: str | None, memory_id: str
) -> None:
    """Raise `InvalidInput` when another memory of `owner` holds `key`."""
    if key is None:
        return
    holder = await points.at_key(owner, key)
    if holder is not None and (holder.payload or {}).get("memory_id") != memory_id:
        raise InvalidInput("another memory of this owner already has that key", "key")


async def upsert(
    points: QdrantPoints, new: NewMemory, now: str, subject: str | None = None
) -> tuple[Memory, bool]:
    """Insert, or update the memory with the same id or the same (owner, key); a re-stated
    superseded memory becomes live again. Returns (memory, created)."""
    validate_new(new)
    expires = normalise_ts(new.expires_at, "expires_at") if new.expires_at else None
    created_at = normalise_ts(new.created_at, "created_at") if new.created_at else now
    updated_at = normalise_ts(new.updated_at, "updated_at") if new.updated_at else now
    # As in SQLite: a given end of validity is kept (an import's history stays history).
    valid_to = normalise_ts(new.valid_to, "valid_to") if new.valid_to else None
    existing = await points.find(new.id) if new.id else None
    if existing is None and new.key is not None:
        existing = await points.at_key(new.owner, new.key)
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
            await points.write([(pid, memory, subject)])
            return memory, True
        # Insert-only on the key's point: when another replica inserted the same key
        # between our read and this write, theirs stays and we merge into it below, so
        # both replicas end up with one memory and one id.
        await points.write([(pid, memory, subject)], insert_only=True)
        existing = await points.at_key(new.owner, new.key)
        if existing is None or (existing.payload or {}).get("memory_id") == memory.id:
            return memory, True
    payload = existing.payload or {}
    old = payload_to_memory(payload)
    key = new.key if new.id is not None and old.id == new.id else old.key
    if key != old.key:
        await key_free(points, old.owner, key, old.id)
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
    await points.write(
        [(pid, memory, subject or payload.get("subject"))],
        moved=pid != str(existing.id),
    )
    return memory, False


async def update(
    points: QdrantPoints,
    memory_id: str,
    patch: MemoryPatch,
    now: str,
    subject: str | None = None,
) -> Memory | None:
    """Apply an admin patch; None when the memory is gone."""
    record = await points.find(memory_id)
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
            raise InvalidInput(f"type must be one of {', '.join(MEMORY_TYPES)}", "type")
        memory = replace(memory, type=patch.type)
    if patch.key is not None:
        memory = replace(memory, key=patch.key or None)
        await key_free(points, memory.owner, memory.key, memory.id)
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
        await overwrite_payload(points, record.id, memory, payload)
    else:
        await points.write(
            [(pid, memory, payload.get("subject"))], moved=pid != str(record.id)
        )
    return memory


async def overwrite_payload(
    points: QdrantPoints,
    pid: models.ExtendedPointId,
    memory: Memory,
    old: dict[str, Any],
) -> None:
    """Replace a point's payload with `memory`'s, keeping its subject and vectors."""
    payload = memory_to_payload(memory, old.get("vec_sig"))
    payload["subject"] = old.get("subject")
    name = points.collection.name
    await points.call(
        "overwrite_payload",
        lambda c: c.overwrite_payload(
            name,
            payload=payload,
            points=[pid],
            wait=True,
            ordering=models.WriteOrdering.STRONG,
        ),
    )
