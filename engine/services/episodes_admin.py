"""The admin side of episodes (what was said): list, read, delete, export and import. The
recall side is `RetrievalService`'s, the worker's side `EpisodeService.store_turns`."""

from __future__ import annotations

from collections.abc import AsyncIterator

from memtap.engine.episode_types import (
    Episode,
    EpisodeListQuery,
    EpisodePage,
    NewEpisode,
)
from memtap.engine.episodes.service import EpisodeService


class EpisodesAdmin:
    def __init__(self, episodes: EpisodeService) -> None:
        self.episodes = episodes

    async def list_page(self, query: EpisodeListQuery) -> EpisodePage:
        return await self.episodes.list_page(query)

    async def get(self, episode_id: str) -> Episode:
        return await self.episodes.get(episode_id)

    async def delete(self, episode_id: str) -> None:
        await self.episodes.delete(episode_id)

    async def export_owner(self, owner: str) -> AsyncIterator[Episode]:
        async for episode in self.episodes.export_owner(owner):
            yield episode

    async def import_episodes(self, items: list[NewEpisode]) -> tuple[int, int]:
        return await self.episodes.import_episodes(items)
