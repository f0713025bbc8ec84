"""The admin side of episodes (what was said): list, read, delete, export and import, or
`NotFound` from an engine that keeps none. The recall side is `RetrievalService`'s, the
worker's side `EpisodeService.store_turns`."""

from __future__ import annotations

from collections.abc import AsyncIterator

from memtap.engine.api import NotFound
from memtap.engine.episode_types import (
    Episode,
    EpisodeListQuery,
    EpisodePage,
    NewEpisode,
)
from memtap.engine.episodes.service import EpisodeService


class EpisodesAdmin:
    def __init__(self, episodes: EpisodeService | None) -> None:
        self.episodes = episodes

    def _service(self) -> EpisodeService:
        if self.episodes is None:
            raise NotFound("this engine keeps no episodes")
        return self.episodes

    async def list_page(self, query: EpisodeListQuery) -> EpisodePage:
        return await self._service().list_page(query)

    async def get(self, episode_id: str) -> Episode:
        return await self._service().get(episode_id)

    async def delete(self, episode_id: str) -> None:
        await self._service().delete(episode_id)

    async def export_owner(self, owner: str) -> AsyncIterator[Episode]:
        if self.episodes is None:
            return
        async for episode in self.episodes.export_owner(owner):
            yield episode

    async def import_episodes(self, items: list[NewEpisode]) -> tuple[int, int]:
        return await self._service().import_episodes(items)
