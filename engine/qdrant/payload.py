"""How a memory is laid out as a Qdrant point: deterministic ids, payload fields, timestamps.

The payload carries every field of `engine.types.Memory` (so a point alone can be exported),
plus numeric twins of the timestamps (`*_ts`, unix seconds) for range filters, a
`superseded` flag, `live_until_ts` (0 when superseded, else the expiry), the extraction
`subject` (what supersession matches on), and `vec_sig`, the embedding signature of the
point's dense vector (None when it has none yet: the reindex fills it).
"""

from __future__ import annotations

import uuid
from typing import Any, cast

from memtap.engine.clock import parse_iso
from memtap.engine.types import MEMORY_TYPES, Memory, MemoryType

POINT_NAMESPACE = uuid.UUID("6b1f7c52-3f0e-5a34-9a55-6d656d746170")
"""Fixed forever: changing it would give every keyed memory a new point id."""

NEVER_TS = 253402300799.0
"""9999-12-31T23:59:59Z: `expires_at_ts` of a memory that never expires, so one range filter works."""

# Payload fields with an index (server mode) and their Qdrant schema kind.
INDEXED_FIELDS: tuple[tuple[str, str], ...] = (
    ("owner", "keyword"),
    ("session", "keyword"),
    ("type", "keyword"),
    ("key", "keyword"),
    ("memory_id", "keyword"),
    ("superseded", "bool"),
    ("expires_at_ts", "float"),
    ("live_until_ts", "float"),
    ("subject", "keyword"),
    ("vec_sig", "keyword"),
    ("created_at_ts", "float"),
    ("updated_at_ts", "float"),
)


def point_id(owner: str, key: str | None, memory_id: str) -> str:
    """One point per (owner, key): every replica computes the same id, so concurrent upserts of
    a key land on one point. Keyless memories live at their own id (see `id_point`)."""
    if key is None:
        return id_point(memory_id)
    return str(uuid.uuid5(POINT_NAMESPACE, owner + "\x00" + key))


def id_point(memory_id: str) -> str:
    """The point of a memory addressed by id: the id itself when it is a uuid (memtap's own
    ids), else a uuid derived from it (ids imported from elsewhere)."""
    try:
        return str(uuid.UUID(memory_id))
    except ValueError:
        return str(uuid.uuid5(POINT_NAMESPACE, "id\x00" + memory_id))


def iso_to_ts(value: str | None) -> float | None:
    return None if value is None else parse_iso(value).timestamp()


def memory_to_payload(memory: Memory, vec_sig: str | None) -> dict[str, Any]:
    expires_ts = iso_to_ts(memory.expires_at)
    return {
        **memory.to_json(),
        "memory_id": memory.id,
        "superseded": memory.superseded_by is not None,
        "created_at_ts": iso_to_ts(memory.created_at),
        "updated_at_ts": iso_to_ts(memory.updated_at),
        "expires_at_ts": NEVER_TS if expires_ts is None else expires_ts,
        # Live until: superseded → 0, else the expiry. One range condition instead of two
        # (local mode evaluates every condition per point).
        "live_until_ts": 0.0
        if memory.superseded_by is not None
        else (NEVER_TS if expires_ts is None else expires_ts),
        "valid_to_ts": iso_to_ts(memory.valid_to),
        "vec_sig": vec_sig,
    }


def payload_to_memory(payload: dict[str, Any]) -> Memory:
    kind = payload.get("type")
    memory_type: MemoryType = (
        cast(MemoryType, kind) if kind in MEMORY_TYPES else "factual"
    )
    metadata = payload.get("metadata")
    return Memory(
        id=str(payload["id"]),
        owner=str(payload["owner"]),
        session=payload.get("session"),
        type=memory_type,
        key=payload.get("key"),
        content=str(payload.get("content", "")),
        metadata=dict(metadata) if isinstance(metadata, dict) else {},
        created_at=str(payload["created_at"]),
        updated_at=str(payload["updated_at"]),
        expires_at=payload.get("expires_at"),
        superseded_by=payload.get("superseded_by"),
        valid_to=payload.get("valid_to"),
    )
