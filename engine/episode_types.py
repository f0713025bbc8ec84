"""Episode dataclasses and the identity that makes re-sent histories harmless.

An episode's id is derived from (owner, session, role, content hash): the same message
said again in the same session — above all the history a chat client re-sends with every
request — maps to the same id, so every store dedupes by construction (an upsert of a known
id changes nothing), and a replayed outbox page yields the same ids.
"""

from __future__ import annotations

import hashlib
import unicodedata
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

EpisodeRole = Literal["user", "assistant"]
MAX_EPISODE_CHARS = 16_000
"""An episode keeps at most this much of a message (its start: the end of a pasted document
rarely matters later, and the message itself went upstream whole)."""

ASSISTANT_EPISODE_CHARS = 4_000
"""An assistant message keeps its head: what it said at first (the recipe, the answer) is
what a user asks back for, and a long reply should not crowd the user's own words."""

KEYWORD_ONLY = "keyword-only"
"""The vector signature of an assistant's window: found by its words (and beside the user
message it completes), never embedded. A reply is several windows, each a model run, and the
next turn of the owner waits for its turn's windows (read-your-own-writes): embedding them
made a memory request ~2.5x dearer (scripts/bench_memory.py, docs/performance.md)."""

_NAMESPACE = uuid.UUID("6f1d3c1e-3b0a-4a43-9c55-6d656d746170")


def normalise_text(text: str) -> str:
    """What two sayings of the same message have in common (case, spacing, Unicode form)."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def content_hash(text: str) -> str:
    return hashlib.sha256(normalise_text(text).encode("utf-8")).hexdigest()[:32]


def episode_id(owner: str, session: str | None, role: str, text: str) -> str:
    return str(
        uuid.uuid5(
            _NAMESPACE, "\x00".join((owner, session or "", role, content_hash(text)))
        )
    )


@dataclass(frozen=True, slots=True)
class NewEpisode:
    owner: str
    session: str | None
    role: EpisodeRole
    content: str
    said_at: str
    request_id: str | None = None
    format: str | None = None

    @property
    def id(self) -> str:
        return episode_id(self.owner, self.session, self.role, self.content)

    @property
    def hash(self) -> str:
        return content_hash(self.content)


@dataclass(frozen=True, slots=True)
class Episode:
    id: str
    owner: str
    session: str | None
    role: EpisodeRole
    content: str
    said_at: str
    request_id: str | None
    format: str | None
    created_at: str

    def to_json(self) -> dict[str, Any]:
        """The admin API's shape (`../shared/CONTRACT.md`), plus `format` and `created_at`."""
        return {
            "id": self.id,
            "owner": self.owner,
            "session": self.session,
            "role": self.role,
            "content": self.content,
            "said_at": self.said_at,
            "request_id": self.request_id,
            "format": self.format,
            "created_at": self.created_at,
        }

    def to_new(self) -> NewEpisode:
        return NewEpisode(
            self.owner,
            self.session,
            self.role,
            self.content,
            self.said_at,
            self.request_id,
            self.format,
        )


@dataclass(frozen=True, slots=True)
class EpisodeWrite:
    """One episode handed to `EpisodeStore.add`: its id and whether it was new."""

    id: str
    created: bool


@dataclass(frozen=True, slots=True)
class ChunkHit:
    """One sentence window of an episode that matched a query."""

    episode: Episode
    chunk: int
    """The window's position in the episode (0-based)."""
    text: str
    score: float
    """Keyword: bm25 relevance (higher is better); vector: cosine."""
    ref: int | str
    """The window's id in its store (SQLite: the chunk rowid; Qdrant: the point id)."""


@dataclass(frozen=True, slots=True)
class KeywordWindows:
    """What the keyword arm reads in one go: the matches and, for one owner, the owner's own
    word statistics it re-scores them with (`EpisodeStore.term_rows`)."""

    hits: list[ChunkHit]
    """Live windows sharing a topical word with the question, best first."""
    total: int = 0
    """The owner's windows (0: no owner, or nothing matched)."""
    term_rows: dict[str, int] = field(default_factory=dict)
    """Each topical word of the question -> the owner's windows holding it."""


@dataclass(frozen=True, slots=True)
class VectorWindows:
    """What the vector arm found: the windows it read and the ranking they came from.

    Reading a window (its episode, its text) costs more than ranking it, so a store ranks
    deeper than it reads: a keyword window finds its cosine and its rank by meaning in
    `ranked` without the vector arm reading it again."""

    hits: list[ChunkHit]
    """Live windows read, best first (score: cosine): at least the best `limit` asked for."""
    ranked: list[tuple[int | str, float]]
    """(ref, cosine), best first, `depth` deep: the hits and the windows ranked past them
    but not read (these may not be live: a keyword window, which is, looks itself up)."""


@dataclass(frozen=True, slots=True)
class EpisodeListQuery:
    owner: str | None = None
    session: str | None = None
    q: str | None = None
    limit: int = 50
    offset: int = 0


@dataclass(frozen=True, slots=True)
class EpisodePage:
    items: tuple[Episode, ...]
    total: int
