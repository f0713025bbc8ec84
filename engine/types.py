"""Dataclasses at the engine's boundary: what the proxy and the admin API hand in and get back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

MemoryType = Literal["factual", "episodic", "procedural", "semantic"]
MEMORY_TYPES: tuple[MemoryType, ...] = ("factual", "episodic", "procedural", "semantic")
Strategy = Literal["recent", "keyword", "semantic", "hybrid"]


def reads_vectors(strategy: str) -> bool:
    """Whether a retrieval of this strategy reads vectors (so may wait for them)."""
    return strategy in ("hybrid", "semantic")


Scope = Literal["session", "owner", "global"]
Tier = Literal["recent", "keyword", "vector", "hybrid", "qdrant"]
ApiFormat = Literal["openai-chat", "openai-responses", "anthropic", "gemini"]


@dataclass(frozen=True, slots=True)
class Memory:
    """One stored memory. Timestamps are ISO 8601 UTC strings (`2026-12-02T17:20:00.123Z`)."""

    id: str
    owner: str
    session: str | None
    type: MemoryType
    key: str | None
    content: str
    metadata: dict[str, Any]
    created_at: str
    updated_at: str
    expires_at: str | None = None
    superseded_by: str | None = None
    valid_to: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "owner": self.owner,
            "session": self.session,
            "type": self.type,
            "key": self.key,
            "content": self.content,
            "metadata": self.metadata,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "expires_at": self.expires_at,
            "superseded_by": self.superseded_by,
            "valid_to": self.valid_to,
        }


@dataclass(frozen=True, slots=True)
class NewMemory:
    """A memory to create or upsert (on `(owner, key)` when `key` is set)."""

    owner: str
    content: str
    type: MemoryType = "factual"
    key: str | None = None
    session: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    expires_at: str | None = None
    id: str | None = None
    """Set by import to keep ids stable across export/import; None = a new uuid4."""
    created_at: str | None = None
    updated_at: str | None = None
    superseded_by: str | None = None
    """Set by import only: keeps superseded history superseded across export/import."""
    valid_to: str | None = None


@dataclass(frozen=True, slots=True)
class MemoryPatch:
    """Fields to change on an existing memory; None = leave as is."""

    content: str | None = None
    type: MemoryType | None = None
    key: str | None = None
    session: str | None = None
    metadata: dict[str, Any] | None = None
    expires_at: str | None = None
    clear_expires_at: bool = False


@dataclass(frozen=True, slots=True)
class Turn:
    """One completed request/response exchange, as the capture addon hands it to the outbox."""

    request_id: str
    owner: str
    session: str | None
    format: ApiFormat
    user_text: str
    """Text of the last user turn of the request (memtap's injected block never included)."""
    assistant_text: str
    model: str | None = None
    created_at: str = ""
    truncated_chars: int = 0
    """Characters cut from the head of `user_text` and `assistant_text` by bounded capture
    (`engine/turn_bounds.py`); 0 when the turn was kept whole."""
    previous_assistant_text: str = ""
    """The assistant message the user turn answers (the one before it in the request), kept
    as an episode beside it so a recalled "Yes, last week!" comes with its question."""


@dataclass(frozen=True, slots=True)
class ExtractedFact:
    type: MemoryType
    category: str
    """The fact family (same value as `family`; kept under its first name)."""
    content: str
    key: str
    subject: str
    """Normalised thing the fact is about, used to detect that a newer fact supersedes an older:
    `slot:<slot>` / `choice:<domain>` for single-valued slots, else the fact's own object."""
    polarity: Literal["positive", "negative"]
    role: Literal["user", "assistant"]
    family: str = "preference"
    """identity | location | work | family | constraint | instruction | stack | goal | event |
    preference | decision | habit"""
    slot: str | None = None
    """The single-valued slot the fact fills (`location.home`, `work.employer`,
    `choice.editor`, …); None for multi-valued facts."""
    clause: str = ""
    """The clause the fact was read from, trimmed (provenance)."""
    lang: str = "en"
    """Language of the rule that matched: en | es | pt | fr | de (a model's facts: the
    language the user wrote in, as the model names it)."""
    replaces: tuple[str, ...] = ()
    """Ids of the owner's live memories this fact replaces, beyond what its subject
    supersedes: set by the model extractor only, and only to ids it showed the model for
    that owner (`engine/extractors/answer.py`); the store checks the owner again."""


@dataclass(frozen=True, slots=True)
class RetrievalRequest:
    owner: str
    query: str
    session: str | None = None
    strategy: Strategy | None = None
    """None = the configured strategy."""
    scope: Scope | None = None
    max_tokens: int | None = None
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class Hit:
    memory: Memory
    score: float
    tier: Tier
    tokens: int
    fts_rank: int | None = None
    vec_rank: int | None = None
    similarity: float | None = None
    kind: Literal["fact", "episode"] = "fact"
    """An episode hit is a snippet of what was said: `memory` then carries the episode's id,
    owner, session, the snippet as `content`, `said_at` as both timestamps and
    `metadata["episode"]` (role, request_id, window, matched words)."""
    why: tuple[str, ...] = ()
    """Why it was picked, in words retrieve-preview shows ("keyword", "meaning", ...)."""


@dataclass(frozen=True, slots=True)
class Retrieval:
    hits: tuple[Hit, ...]
    resolution: dict[str, Any]
    """Which tiers ran, which fell back and why, the embedding source, timings."""

    @property
    def tokens(self) -> int:
        return sum(h.tokens for h in self.hits)


@dataclass(frozen=True, slots=True)
class ListQuery:
    owner: str | None = None
    session: str | None = None
    type: MemoryType | None = None
    q: str | None = None
    limit: int = 50
    offset: int = 0
    include_superseded: bool = False


@dataclass(frozen=True, slots=True)
class Page:
    items: tuple[Memory, ...]
    total: int


@dataclass(frozen=True, slots=True)
class EraseReceipt:
    owner: str
    removed: dict[str, int]


@dataclass(frozen=True, slots=True)
class ImportReport:
    created: int
    updated: int
    skipped: int
    errors: tuple[str, ...] = ()


MAX_IMPORT_ERRORS = 100
"""Errors an import report lists (the count in `skipped` is exact)."""


@dataclass(slots=True)
class ImportTally:
    """Counts an import as it goes, whatever the store; `report()` at the end."""

    created: int = 0
    updated: int = 0
    errors: list[str] = field(default_factory=list)

    def stored(self, was_created: bool) -> None:
        if was_created:
            self.created += 1
        else:
            self.updated += 1

    def refused(self, message: str) -> None:
        self.errors.append(message)

    def report(self) -> ImportReport:
        return ImportReport(
            created=self.created,
            updated=self.updated,
            skipped=len(self.errors),
            errors=tuple(self.errors[:MAX_IMPORT_ERRORS]),
        )


@dataclass(slots=True)
class ConversationReport:
    """What a conversation import did (`engine/history/importer.py`)."""

    turns: int = 0
    """Turns queued by this import."""
    skipped: int = 0
    """Turns imported before (queued again: never)."""
    memories: set[str] = field(default_factory=set)
    """Ids of the memories the worker wrote from this import's turns."""
    episodes: set[str] = field(default_factory=set)
    pending: int = 0
    """Queued turns the worker had not applied when the import stopped waiting."""
    vectors_pending: int = 0
    """Episode windows still waiting for their vectors when the import stopped waiting
    (found by their words until the background embedder reaches them)."""
