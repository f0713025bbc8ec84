"""The store-level seam the engine uses for vectors: one narrow Protocol, two backends.

Memories, their FTS5 index, the extraction outbox and the settings overrides ALWAYS live in
the local SQLite file (`engine/store/database.py`); only the vector index is pluggable:

- `engine/store/vectors.py` (sqlite-vec, inside the same SQLite file) — helper E;
- a Qdrant backend (`vector_store.kind: qdrant`) — helper H.

Both implement `VectorTier`. `engine.engine.open_engine` builds the tier by calling
`engine.retrieval.semantic.build_vector_tier(holder, database, metrics)` when that function
exists (it picks sqlite-vec or Qdrant from `config.vector_store.kind` and may return None),
and stores it on `Engine.vector_tier`. Every call into a tier is guarded by the engine:
an exception or a timeout is logged, counted in `memtap_memory_fallbacks_total{cause}` and
retrieval falls back to the keyword tier (fail-open). A tier never needs to filter on
expiry, retention or supersession: it returns candidate ids and the engine re-reads those
rows from SQLite and applies every filter there. A tier that lives in the same SQLite file
may also offer `search_live(live, query, limit, *, backfill)` returning the live rows
themselves, (Memory, similarity) best first: retrieval then skips its own re-read (one
reader hop instead of two; see `SqliteVecTier.search_live`).

Write path contract (what the engine calls, after the SQLite commit):
- `upsert(memories)` after create / update / import / extraction (new or changed content);
  the engine marks rows `needs_reindex = 1` on every content write, a tier clears the flag
  (`UPDATE memories SET needs_reindex = 0 WHERE id IN (...)`, through `Database.write`)
  once the vector is stored, so `reindex()` can resume whatever an upsert missed;
- `delete(ids)` after delete (and for rows removed by the retention sweep);
- `erase_owner(owner)` for GDPR erase; returns how many vectors were removed (receipt
  field `vectors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from memtap.engine.types import Memory


class VectorTier(Protocol):
    name: str
    """"sqlite-vec" | "qdrant" — reported in health/status and as the hit tier."""

    async def search(
        self,
        owner: str | None,
        query: str,
        session: str | None,
        limit: int,
        *,
        backfill: bool = True,
    ) -> list[tuple[str, float]]:
        """Nearest memories to `query`: (memory id, cosine similarity in [-1, 1]), best first.
        `owner=None` means every owner (scope `global`); `session` not None restricts to it.
        `backfill=False` (retrieve-preview, `side_effects=False`) must make no writes."""
        ...

    async def upsert(self, memories: Sequence[Memory]) -> None: ...

    async def delete(self, ids: Sequence[str]) -> None: ...

    async def erase_owner(self, owner: str) -> int: ...

    async def reindex(self, limit: int | None, force: bool) -> dict[str, Any]:
        """Embed rows with `needs_reindex = 1` (all rows when `force`), at most `limit`;
        returns progress, e.g. {"started": True, "done": n, "pending": m}."""
        ...

    async def status(self) -> dict[str, Any]:
        """Free-form details for engine-status (dimension, count, embedding source...)."""
        ...

    def health(self) -> str:
        """Short string for /_memtap/health "vector" (e.g. "sqlite-vec", "qdrant", "degraded: ...")."""
        ...

    def embedding(self) -> str:
        """Short string for /_memtap/health "embedding" (e.g. "onnx:all-MiniLM-L6-v2")."""
        ...

    async def close(self) -> None: ...
