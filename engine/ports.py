"""The engine's ports: what `engine.engine.Engine`, the outbox worker, retrieval and
maintenance call. Every storage backend is an adapter behind one of these; a new backend is
a new adapter, never a second engine.

| port          | adapters (a port's SQLite and Qdrant files have the same name)      |
|---------------|---------------------------------------------------------------------|
| RecordStore   | `sqlite.memories.SqliteRecordStore`, `qdrant.memories.QdrantMemoryStore` |
| VectorIndex   | `sqlite.vectors.SqliteVecIndex`, `qdrant.vectors.QdrantDenseIndex`   |
|               | (dense arm of the Qdrant record collection), `qdrant.vectors.QdrantVectorIndex` |
|               | (vectors only, rows in SQLite), or none                             |
| Outbox        | `sqlite.outbox.SqliteOutbox` (always the local SQLite file)          |
| FactWriter    | `sqlite.fact_writer.SqliteFactWriter` (one transaction),              |
|               | `qdrant.fact_writer.QdrantFactWriter` (write, then ack)               |
| SettingsStore | `sqlite.settings.SqliteSettings` (always the local SQLite file)      |
| ReindexFlags  | `sqlite.reindex_flags.SqliteReindexFlags` (`memories.needs_reindex`) |
| EpisodeStore  | `sqlite.episodes.SqliteEpisodeStore`, `qdrant.episodes.QdrantEpisodeStore` |
| Extractor     | `extractors.rules.RulesExtractor`, `extractors.model.ModelExtractor`   |
|               | (chosen per page by `extractors.choice.ConfiguredExtractor`)         |

The local file's own ports (`LocalFile`, `TurnLedger`) are in `engine/local_file.py`.

`tests/engine/test_store_contract.py` runs one suite against both record stores,
`tests/engine/test_vector_index_contract.py` one against sqlite-vec and Qdrant.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from memtap.engine.episode_types import (
    ChunkHit,
    Episode,
    EpisodeListQuery,
    EpisodePage,
    EpisodeWrite,
    KeywordWindows,
    NewEpisode,
    VectorWindows,
)
from memtap.engine.memory_rules import Live
from memtap.engine.types import (
    ExtractedFact,
    ListQuery,
    Memory,
    MemoryPatch,
    NewMemory,
    Page,
    Turn,
)

if TYPE_CHECKING:
    from memtap.engine.embeddings.base import EmbeddingSource


@dataclass(frozen=True, slots=True)
class OutboxRow:
    seq: int
    turn: Turn
    attempts: int


@dataclass(frozen=True, slots=True)
class PlannedTurn:
    """One outbox row and the facts extracted from it (with their provenance metadata)."""

    row: OutboxRow
    facts: tuple[tuple[ExtractedFact, dict[str, Any]], ...]

    def new_memories(self) -> list[tuple[NewMemory, str]]:
        """Each fact as the memory to upsert, with the subject it supersedes others on."""
        turn = self.row.turn
        # Dated at the turn's time, not the write's: an imported conversation's facts keep
        # when they were said (a live turn's time is its capture, just before the write).
        said_at = turn.created_at or None
        return [
            (
                NewMemory(
                    owner=turn.owner,
                    content=fact.content,
                    type=fact.type,
                    key=fact.key,
                    session=turn.session,
                    metadata=meta,
                    created_at=said_at,
                    updated_at=said_at,
                ),
                fact.subject,
            )
            for fact, meta in self.facts
        ]


@dataclass(frozen=True, slots=True)
class WrittenTurn:
    row: OutboxRow
    written: list[Memory]
    superseded: list[str]


ExtractorName = Literal["rules", "model"]


@dataclass(frozen=True, slots=True)
class TurnBatch:
    """One owner's turns of an outbox page, oldest first: what an `Extractor` reads at once.
    Each row's turn carries its time (`turn.created_at`), the time its relative dates mean."""

    owner: str
    rows: tuple[OutboxRow, ...]
    extract_from: tuple[str, ...]
    """Whose words to read: `memory.extract_from` ("user", "assistant")."""


@dataclass(frozen=True, slots=True)
class TurnFacts:
    """The facts one extractor kept from one outbox row, each with its claim (family, slot,
    subject, polarity): the worker dates them, drops restatements and writes them."""

    row: OutboxRow
    facts: tuple[ExtractedFact, ...]
    extractor: ExtractorName
    """Which extractor kept these facts (memory metadata `extractor`, the request log)."""
    fallback: str | None = None
    """Why the configured extractor did not keep them (the rules did instead); None when
    it did."""
    model: str | None = None
    """The extraction model's name, when `extractor` is "model"."""


class Extractor(Protocol):
    """Turns in, facts with claims out (`engine/extractors/`). The outbox worker calls it
    once per page with the page's turns grouped by owner."""

    @property
    def name(self) -> ExtractorName: ...

    async def extract(self, batches: Sequence[TurnBatch]) -> list[TurnFacts]:
        """One `TurnFacts` per row of `batches`, every row accounted for: an extractor that
        cannot read a batch hands it to the rules, never drops it. Raises only what the
        page must be retried for (`StoreError`, `StoreUnavailable`, a bug in the rules)."""
        ...


class Outbox(Protocol):
    """Turns waiting for extraction, durable on local disk, oldest first."""

    async def insert(self, turn: Turn, now: str) -> int:
        """Commit the turn's row; returns its sequence number."""
        ...

    async def pending_rows(self) -> list[tuple[int, str]]:
        """(seq, owner) of every row waiting, oldest first (read-your-own-writes after a
        restart)."""
        ...

    async def page(self, after_seq: int, limit: int) -> list[OutboxRow]: ...

    async def ack(self, seqs: Sequence[int]) -> None:
        """The turns took effect: remove their rows."""
        ...

    async def record_failure(self, seq: int, error: str) -> int:
        """Count one failed attempt; returns the attempts so far."""
        ...

    async def depth(self) -> int: ...

    async def erase_owner(self, owner: str) -> int: ...


class FactWriter(Protocol):
    """One unit of work of the outbox worker: store these turns' facts (upsert on (owner,
    key), supersession, the memories a fact names as replaced) AND ack their outbox rows.
    The factory builds it over the record store and the outbox, so neither port takes the
    other. Rows in the outbox's SQLite file: ONE transaction (each turn takes effect exactly
    once). Rows elsewhere (Qdrant): turn by turn, write then ack; a replay after a crash in
    between is harmless (facts are keyed, so they update the same memories)."""

    async def write(self, turns: Sequence[PlannedTurn], now: str) -> list[WrittenTurn]:
        """Each turn's memories written and the ids it superseded, its row acked."""
        ...


class SettingsStore(Protocol):
    """Runtime settings overrides (name -> JSON value), local to each replica."""

    async def load_all(self) -> dict[str, Any]: ...

    async def save(self, name: str, value: Any, now: str) -> None: ...

    async def delete(self, name: str) -> bool: ...


class RequestLogStore(Protocol):
    """The proxy's request log entries (JSON records, never prompt text), local to each
    replica, bounded to the newest `keep`."""

    async def save(
        self, request_id: str, owner: str | None, record: dict[str, Any], keep: int
    ) -> None: ...

    async def load(self, limit: int) -> list[dict[str, Any]]:
        """The newest `limit` records, oldest first."""
        ...

    async def erase_owner(self, owner: str) -> int: ...


class RecordStore(Protocol):
    """Where memory rows live, with the same semantics in every adapter: upsert on
    (owner, key), `Live` visibility (owner, session scope, expiry, retention, supersession),
    listing, sweep, erase, export."""

    name: str
    """"sqlite" | "qdrant"."""
    in_local_file: bool
    """Whether the rows live in this replica's SQLite file (else only outbox and settings do)."""

    async def upsert_memory(
        self, new: NewMemory, now: str, subject: str | None = None
    ) -> tuple[Memory, bool]:
        """Insert, or update the memory with the same id or the same (owner, key); a re-stated
        superseded memory becomes live again; metadata is merge-patched. (memory, created)."""
        ...

    async def import_memories(
        self,
        items: Sequence[NewMemory],
        now: str,
        subjects: Sequence[str | None] | None = None,
    ) -> list[tuple[Memory | InvalidItem, bool]]:
        """Upsert each item (with `subjects[i]`, the subject it supersedes others on); a
        refused one comes back as `InvalidItem` (the others stay)."""
        ...

    async def get_memory(self, memory_id: str) -> Memory | None: ...

    async def update_memory(
        self, memory_id: str, patch: MemoryPatch, now: str, subject: str | None = None
    ) -> Memory | None:
        """None when missing; `InvalidInput` (field `key`) when the owner has that key already.
        With new content, `subject` becomes the memory's subject (None: it has none)."""
        ...

    async def delete_memory(self, memory_id: str) -> bool: ...

    async def supersede(
        self, owner: str, subject: str, new_id: str, now: str
    ) -> list[str]:
        """Mark the owner's other live memories about `subject` superseded by `new_id`."""
        ...

    async def live_about(self, owner: str, subject: str) -> list[Memory]:
        """The owner's memories about `subject` that no other memory superseded (expired or
        not: supersession is about what is true, expiry about what is kept)."""
        ...

    async def mark_superseded(self, ids: Sequence[str], by: str, now: str) -> None:
        """`ids` are history from `now` on, replaced by memory `by`."""
        ...

    async def recent(self, live: Live, limit: int) -> list[Memory]:
        """Newest live memories first (by `updated_at`)."""
        ...

    async def keyword(
        self, query: str, live: Live, limit: int
    ) -> list[tuple[Memory, float]]:
        """Live memories sharing a topical word with `query`, best first, relevance > 0.
        On the request path: a store that can read at once on the event loop, briefly,
        does (SQLite), since a hop through a thread costs ~100 ms a wake-up on a saturated
        loop."""
        ...

    async def keyword_and_recent(
        self, query: str, live: Live, limit: int
    ) -> tuple[list[tuple[Memory, float]], list[Memory]]:
        """`keyword` and `recent` together (the no-vector hybrid); `recent` is [] when
        nothing matched (the relevance floor returns nothing then anyway)."""
        ...

    async def live_many(self, ids: Sequence[str], live: Live) -> dict[str, Memory]:
        """The rows of `ids` that pass `live` (a vector index's hits re-read)."""
        ...

    async def list_page(self, query: ListQuery) -> Page:
        """Admin listing, newest `created_at` first, with the total."""
        ...

    def export_owner(self, owner: str) -> AsyncIterator[Memory]: ...

    async def erase_owner(self, owner: str) -> int:
        """Delete the owner's memories and their text from every index the store keeps."""
        ...

    async def sweep(self, now: str, cutoff: str | None, limit: int = 5000) -> list[str]:
        """Delete expired and out-of-retention memories; returns their ids."""
        ...

    async def summary_candidates(
        self, cutoff: str, owner: str | None, limit: int = 1000
    ) -> list[Memory]:
        """Live memories last written before `cutoff` that `summarize` would compact."""
        ...

    async def compact(
        self, pairs: Sequence[tuple[Memory, NewMemory]], now: str
    ) -> list[Memory]:
        """Write each summary and mark its original superseded by it; returns the summaries."""
        ...

    async def restore_summary(self, summary_id: str) -> Memory | None:
        """Undo one compaction (original live again, summary gone); None when `summary_id`
        is not a summary."""
        ...

    async def counts(self, now: str) -> dict[str, Any] | None:
        """engine-status "counts" (None when the store cannot answer right now)."""
        ...

    async def status(self) -> dict[str, Any]:
        """engine-status "store" (kind first)."""
        ...

    def text_index(self) -> dict[str, Any]:
        """engine-status "fts": the keyword index."""
        ...

    async def readiness(self) -> dict[str, str]:
        """/_memtap/health "store" (and any readiness fields the store adds)."""
        ...

    async def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class InvalidItem:
    """An import line a record store refused, and why."""

    message: str


@dataclass(frozen=True, slots=True)
class VectorHits:
    """A vector search's answer: (memory id, cosine) best first. `rows` holds the live rows
    when the index applied the `Live` filter itself; None means "re-read them through the
    record store" (`RecordStore.live_many`)."""

    ranked: list[tuple[str, float]]
    rows: Mapping[str, Memory] | None = field(default=None)


class VectorIndex(Protocol):
    """Nearest-neighbour search over memory embeddings, beside a record store.

    The engine calls `upsert` after every content write it made, `delete` after deletes and
    the retention sweep, `erase_owner` on GDPR erase; all fail-open (logged, counted, the
    rows keep `needs_reindex = 1` and `reindex` catches up)."""

    name: str
    """"sqlite-vec" | "qdrant": the health/status kind and the resolution tier."""

    async def search(
        self, live: Live, query: str, limit: int, *, backfill: bool = True
    ) -> VectorHits:
        """Nearest memories to `query` for `live`'s owner (None = every owner) and session.
        `backfill=False` (retrieve-preview) must make no writes."""
        ...

    async def upsert(self, memories: Sequence[Memory]) -> None: ...

    async def delete(self, ids: Sequence[str]) -> None: ...

    async def erase_owner(self, owner: str) -> int:
        """Vectors of `owner` removed (called before the record store erases the rows)."""
        ...

    async def reindex(self, limit: int | None, force: bool) -> dict[str, Any]:
        """Embed what waits for a vector (all with `force`), at most `limit`; progress."""
        ...

    async def backfill(self, owner: str | None, max_items: int) -> int:
        """Embed up to `max_items` live memories that wait for a vector; how many were
        handled (0: none waits, or no embedding could be made)."""
        ...

    async def pending_count(self) -> int:
        """Memories waiting for a vector of the current signature."""
        ...

    async def status(self) -> dict[str, Any]:
        """engine-status "vector" details (dimension, count, embedding source...)."""
        ...

    def health(self) -> str:
        """/_memtap/health "vector" (e.g. "sqlite-vec", "qdrant", "degraded: ...")."""
        ...

    def embedding(self) -> str:
        """/_memtap/health "embedding" (e.g. "onnx:all-MiniLM-L6-v2")."""
        ...

    def embedding_source(self) -> EmbeddingSource | None:
        """The source this index embeds with now (it can switch at runtime): episode
        windows use the same one, so facts and episodes share one model, cache and queue."""
        ...

    async def close(self) -> None: ...


class ReindexFlags(Protocol):
    """Which SQLite rows still wait for their vector (`memories.needs_reindex`), for an index
    whose vectors live elsewhere (Qdrant beside SQLite rows)."""

    async def pending(self, owner: str | None, limit: int) -> list[Memory]: ...

    async def clear(self, ids: Sequence[str]) -> None: ...

    async def mark_all(self) -> int: ...

    async def count(self) -> int: ...


class EpisodeStore(Protocol):
    """What was said, kept verbatim (`engine/episodes/`), with the same rules in every
    adapter: ids derived from (owner, session, role, content) so a re-sent message is stored
    once; sentence windows indexed for keyword and vector search; `Live` visibility (owner,
    session scope, retention counted from `said_at`); a per-owner cap that evicts the oldest;
    erase, sweep and export. `tests/engine/test_episode_store_contract.py` runs one suite
    against every adapter."""

    name: str
    """"sqlite" | "qdrant"."""

    async def add(
        self, episodes: Sequence[NewEpisode], now: str, max_per_owner: int
    ) -> list[EpisodeWrite]:
        """Store each episode not stored yet (known ids change nothing), index its windows,
        then evict the owner's oldest past `max_per_owner`. One write per call."""
        ...

    async def keyword(self, query: str, live: Live, limit: int) -> list[ChunkHit]:
        """Live windows sharing a topical word with `query`, best first (score: relevance > 0)."""
        ...

    async def vector(
        self, query: str, live: Live, limit: int, depth: int = 0
    ) -> VectorWindows:
        """The `limit` live windows nearest to `query` by meaning, read, and the ranking
        `depth` deep (at least `limit`) they came from. Raises `NoVectors` when there is no
        embedding source or no window has a vector yet."""
        ...

    async def embed_pending(self, max_items: int, *, load_second: bool = True) -> int:
        """Embed up to `max_items` windows that wait for a vector (batched); how many.
        `load_second=False` (the worker's own pass): windows for a second model not loaded
        yet wait for the background pass, which loads it (~1.3 s of CPU) off the turn's
        path; a turn is never held up by the load."""
        ...

    async def term_rows(self, owner: str, query: str) -> tuple[int, dict[str, int]]:
        """(the owner's windows, each topical word of `query` -> how many of the owner's
        windows hold it): the owner's own word statistics, for ranking by them."""
        ...

    async def keyword_and_terms(
        self, query: str, live: Live, limit: int
    ) -> KeywordWindows:
        """`keyword` and, when `live` names an owner and something matched, `term_rows`
        of that owner, in one go (the keyword arm's read: one read in SQLite, both
        requests at once to Qdrant)."""
        ...

    async def neighbours(
        self, episode_ids: Sequence[str], live: Live
    ) -> dict[str, tuple[Episode | None, Episode | None]]:
        """For each live episode among `episode_ids`: (the live episode said just before
        it, the one said just after it) in the same owner and session; ids not found are
        left out."""
        ...

    async def pending_vectors(self) -> int: ...

    async def get(self, episode_id: str) -> Episode | None: ...

    async def list_page(self, query: EpisodeListQuery) -> EpisodePage:
        """Admin listing, newest `said_at` first, with the total."""
        ...

    async def delete(self, episode_id: str) -> bool: ...

    async def erase_owner(self, owner: str) -> int:
        """Delete the owner's episodes, their windows, text index entries and vectors."""
        ...

    async def sweep(self, cutoff: str, limit: int = 5000) -> int:
        """Delete episodes said before `cutoff`; how many."""
        ...

    def export_owner(self, owner: str) -> AsyncIterator[Episode]: ...

    async def counts(self) -> dict[str, int]:
        """engine-status "episodes": episodes, windows, windows waiting for a vector; with
        the multilingual route on, `second_vectors` and `second_pending` too."""
        ...

    async def close(self) -> None: ...
