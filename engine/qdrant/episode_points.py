"""How an episode is laid out in its Qdrant collection (`<collection>_episodes`): one point
per sentence window, ids derived from the episode id (a re-sent message lands on the same
points), the episode's text on its first window only (`seq` 0, the "head", which stands for
the episode in listings, counts, export, sweep and eviction), and the filters that read them
as `Live` says. Used by `episodes.QdrantEpisodeStore`; `payload.py` is the same for memories.
"""

from __future__ import annotations

import uuid
from typing import Any

from qdrant_client import models

from memtap.engine.episode_types import MAX_EPISODE_CHARS, Episode, NewEpisode
from memtap.engine.episodes.chunks import ASSISTANT_WINDOWS
from memtap.engine.memory_rules import Live
from memtap.engine.qdrant.filters import match, session_condition
from memtap.engine.qdrant.payload import iso_to_ts
from memtap.engine.qdrant.points import point_vectors

_NS = uuid.UUID("0c6c0a52-8f0e-4b7e-9d1c-657069736f64")
INDEXED = (
    ("owner", "keyword"),
    ("session", "keyword"),
    ("episode_id", "keyword"),
    ("seq", "integer"),
    ("said_at_ts", "float"),
    ("vec_pending", "bool"),
    ("text", "text"),
    ("role", "keyword"),
    ("ml", "keyword"),
)
"""The payload indexes of the window points (the collection adds the head's `content`);
`role` and `ml` are what the multilingual route counts (`episode_second.py`)."""


def window_point(episode_id: str, seq: int) -> str:
    return str(uuid.uuid5(_NS, f"{episode_id}:{seq}"))


def to_episode(payload: dict[str, Any], content: str | None = None) -> Episode:
    return Episode(
        id=str(payload["episode_id"]),
        owner=str(payload["owner"]),
        session=payload.get("session"),
        role=payload["role"],
        content=content if content is not None else str(payload.get("content") or ""),
        said_at=str(payload["said_at"]),
        request_id=payload.get("request_id"),
        format=payload.get("format"),
        created_at=str(payload["created_at"]),
    )


def assistant_tails() -> models.Filter:
    """An assistant message's windows past its opening (`chunks.ASSISTANT_WINDOWS`), which a
    collection written before held: each process drops them once (SQLite: migration m010)."""
    return models.Filter(
        must=[
            match("role", "assistant"),
            models.FieldCondition(key="seq", range=models.Range(gte=ASSISTANT_WINDOWS)),
        ]
    )


def window_points(
    rows: list[tuple[str, NewEpisode, int, str]],
    now: str,
    dense: dict[int, list[float]] | None,
    *,
    embedded_later: bool,
) -> list[models.PointStruct]:
    """The points of `rows` (episode id, episode, window seq, window text), with the dense
    vectors `dense` holds by row index (None: the embedding failed; `embedded_later` then
    marks the windows `vec_pending` for `embed_pending`). An assistant's windows are found by
    their words only, never embedded."""
    points = []
    for i, (eid, new, seq, text) in enumerate(rows):
        keyword_only = new.role == "assistant"
        vector = point_vectors(text, dense.get(i) if dense is not None else None)
        payload = {
            "episode_id": eid,
            "owner": new.owner,
            "session": new.session,
            "role": new.role,
            "said_at": new.said_at,
            "said_at_ts": iso_to_ts(new.said_at),
            "request_id": new.request_id,
            "format": new.format,
            "created_at": now,
            "seq": seq,
            "text": text,
            "vec_pending": dense is None and embedded_later and not keyword_only,
        }
        if seq == 0:
            payload["content"] = new.content[:MAX_EPISODE_CHARS].strip()
        points.append(
            models.PointStruct(
                id=window_point(eid, seq), vector=vector, payload=payload
            )
        )
    return points


def live_filter(live: Live, *, current_vectors: bool = False) -> models.Filter:
    """`live` as a filter over window points; `current_vectors`: not those waiting for a
    vector (they may hold one of another model)."""
    must: list[models.Condition] = []
    if live.cutoff is not None:
        must.append(
            models.FieldCondition(
                key="said_at_ts", range=models.Range(gte=iso_to_ts(live.cutoff))
            )
        )
    if live.owner is not None:
        must.append(match("owner", live.owner))
    if live.match_session:
        must.append(session_condition(live.session))
    if current_vectors:
        return models.Filter(must=must, must_not=[match("vec_pending", True)])
    return models.Filter(must=must)


def visible(episode: Episode, live: Live) -> bool:
    """`live` over one episode read by id (what `live_filter` says as a filter)."""
    if live.owner is not None and episode.owner != live.owner:
        return False
    if live.match_session and episode.session != live.session:
        return False
    return (
        live.cutoff is None or episode.said_at >= live.cutoff
    )  # canonical ISO strings


def head_conditions(
    owner: str | None = None, session: str | None = None
) -> list[models.Condition]:
    """The heads (one point per episode), of `owner` and `session` when given."""
    must: list[models.Condition] = [
        models.FieldCondition(key="seq", match=models.MatchValue(value=0))
    ]
    if owner is not None:
        must.append(match("owner", owner))
    if session is not None:
        must.append(match("session", session))
    return must
