"""A stored episode as the snippet hit `with_partners` takes, for tests over a real store."""

from __future__ import annotations

from memtap.engine.episode_types import NewEpisode
from memtap.engine.types import Hit, Memory


def snippet_of(episode: NewEpisode) -> Hit:
    """`episode`, whole, as a snippet ranked by keyword (score 1, one token)."""
    memory = Memory(
        id=episode.id,
        owner=episode.owner,
        session=episode.session,
        type="episodic",
        key=None,
        content=episode.content,
        metadata={"kind": "episode", "episode": {"role": episode.role}},
        created_at=episode.said_at,
        updated_at=episode.said_at,
    )
    return Hit(memory=memory, score=1.0, tier="keyword", tokens=1, kind="episode")
