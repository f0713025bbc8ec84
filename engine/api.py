"""The engine as the proxy and the admin API see it.

`engine.engine.Engine` implements this once, over the ports of `engine/ports.py` (SQLite or
Qdrant record store, sqlite-vec or Qdrant vector index); `engine.factory.open_engine` builds it. Callers hold a `MemoryEngine`; nothing outside `engine/` reaches into stores.
Every method may raise `EngineError` (or a subclass); the proxy treats any exception as
"memory unavailable for this request" (fail-open), the admin API maps them to JSON errors.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from types import TracebackType
from typing import Any, Protocol, Self

from memtap.engine.episode_types import (
    Episode,
    EpisodeListQuery,
    EpisodePage,
    NewEpisode,
)
from memtap.engine.types import (
    ConversationReport,
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


class EngineError(Exception):
    """A memory operation failed; `code` is stable and goes into admin API errors."""

    code = "engine_error"
    retryable = False
    """A condition that passes (the store busy, down, its file replaced): the admin API
    answers 503, a client may retry. Else a failure retrying would meet again: 500."""


class NotFound(EngineError):
    code = "not_found"


class InvalidInput(EngineError):
    code = "invalid"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class RetrievalTimeout(EngineError, TimeoutError):
    """A retrieval had nothing to answer with by its time limit."""

    code = "retrieval_timeout"


class StoreError(EngineError):
    """The record store failed an operation. This class itself is a failure retrying would
    meet again (a constraint, a malformed statement: HTTP 500); its subclasses for
    conditions that pass are `retryable` (HTTP 503)."""

    code = "store_error"


class StoreUnavailable(StoreError):
    """The store cannot answer right now (down, read-only, full, gone): back off and retry."""

    code = "store_unavailable"
    retryable = True


class OutboxFull(StoreUnavailable):
    """`memory.outbox_max_rows` turns are waiting already (the store is down or behind)."""

    code = "outbox_full"


class ConversationJob(Protocol):
    """One conversation import: `async with engine.conversation_import() as job`, then
    `await job.add(turns)` for each batch, then `await job.finish()`."""

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    async def add(self, turns: Sequence[Turn]) -> None:
        """Queue the turns not imported before (each recorded and queued, or neither)."""
        ...

    async def finish(self) -> ConversationReport:
        """Wait (bounded) for the worker to apply the queued turns; the counts."""
        ...


class MemoryEngine(Protocol):
    async def start(self) -> None: ...

    async def close(self) -> None:
        """Drain the extraction queue to disk and release every resource."""
        ...

    # -- the proxy's path -------------------------------------------------------------
    async def retrieve(
        self,
        request: RetrievalRequest,
        *,
        side_effects: bool = True,
        limit_ms: int | None = None,
    ) -> Retrieval:
        """Rank memories for a request. The same code serves the proxy and retrieve-preview
        (`side_effects=False`: no lazy backfill writes, no counters). With `limit_ms`, it
        answers by then with what it read before (the facts found by keyword, or the facts
        without the episodes' snippets), or raises RetrievalTimeout."""
        ...

    async def enqueue_turn(self, turn: Turn) -> None:
        """Persist the turn in the outbox; returns once the row is committed."""
        ...

    def conversation_import(self, wait_s: float = 30.0) -> ConversationJob:
        """Past turns in through the outbox, as if they had passed through the proxy."""
        ...

    # -- the request log's persistence (admin.request_log_store: database) ------------------
    async def save_request_record(
        self, request_id: str, owner: str | None, record: dict[str, Any], keep: int
    ) -> None:
        """Keep one request log entry (ids, counts, reasons; never prompt text) in the local
        store, bounded to the newest `keep`."""
        ...

    async def load_request_records(self, limit: int) -> list[dict[str, Any]]:
        """The newest `limit` entries kept, oldest first."""
        ...

    # -- the admin API's path ------------------------------------------------------------
    async def list_memories(self, query: ListQuery) -> Page: ...

    async def get_memory(self, memory_id: str) -> Memory: ...

    async def create_memory(self, new: NewMemory) -> Memory: ...

    async def update_memory(self, memory_id: str, patch: MemoryPatch) -> Memory: ...

    async def delete_memory(self, memory_id: str) -> None: ...

    async def erase_owner(self, owner: str) -> EraseReceipt: ...

    def export_owner(self, owner: str) -> AsyncIterator[Memory]: ...

    async def import_memories(self, items: list[NewMemory]) -> ImportReport: ...

    # -- episodes (what was said; the memories methods above are facts only) -------------
    async def list_episodes(self, query: EpisodeListQuery) -> EpisodePage: ...

    async def get_episode(self, episode_id: str) -> Episode: ...

    async def delete_episode(self, episode_id: str) -> None: ...

    def export_episodes(self, owner: str) -> AsyncIterator[Episode]: ...

    async def import_episodes(self, items: list[NewEpisode]) -> tuple[int, int]:
        """(created, already there): episodes are identified by what was said, so a
        re-import changes nothing."""
        ...

    async def episode_vectors_settled(self, wait_s: float) -> int:
        """Wait, bounded (`wait_s` with none fewer waiting, two minutes in all), until the
        episode windows written so far have their vectors; how many still wait (0 at once
        when retrieval reads no vectors). Never raises for the count."""
        ...

    async def summarize(
        self, older_than_days: int, owner: str | None, dry_run: bool
    ) -> dict[str, Any]: ...

    async def restore_summary(self, summary_id: str) -> Memory:
        """Undo one compaction: the original is live again, the summary gone; `NotFound`
        when `summary_id` is not a summary."""
        ...

    async def sweep(self) -> int:
        """Delete expired and out-of-retention memories now; returns how many."""
        ...

    async def reindex(
        self, limit: int | None = None, force: bool = False
    ) -> dict[str, Any]: ...

    async def load_overrides(self) -> dict[str, Any]:
        """Runtime settings overrides stored in the database (name -> JSON value)."""
        ...

    async def save_override(self, name: str, value: Any) -> None: ...

    async def delete_override(self, name: str) -> bool: ...

    async def status(self) -> dict[str, Any]:
        """engine-status: store driver, extensions, FTS, vector tier, embedding source,
        outbox depth, counts per type."""
        ...

    async def health(self) -> dict[str, str]:
        """Short strings for /_memtap/health: {"store", "vector", "embedding"}."""
        ...
