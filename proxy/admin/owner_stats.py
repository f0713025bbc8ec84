"""/api/owners: every owner with counts and last activity (the Studio's Owners tab and the
per-owner stats of its Memories tab).

Computed from the memories API (no store-specific query), paging through at most
`MAX_SCANNED` memories; past that the answer says `"truncated": true`. Last activity is the
newest memory change or request in the request log, whichever is later. `episodes` counts
the owner's episodes (for the first `MAX_EPISODE_COUNTS` owners). An end user behind a key
(`KEYOWNER:USERTAG`) is an owner like any other, with `key_owner` naming its key's owner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from aiohttp import web

from memtap.engine.episode_types import EpisodeListQuery
from memtap.engine.text.tokens import estimate_tokens
from memtap.engine.types import ListQuery, Memory
from memtap.proxy.admin import query_params
from memtap.proxy.admin.common import engine_of, json_response, runtime_of
from memtap.proxy.owners import key_owner_of

routes = web.RouteTableDef()

PAGE: Final = 1000
MAX_SCANNED: Final = 100_000
MAX_EPISODE_COUNTS: Final = 1000
"""Owners whose episodes are counted (one count query each); the rest show 0."""


@dataclass(slots=True)
class OwnerStats:
    owner: str
    live: int = 0
    superseded: int = 0
    tokens: int = 0
    """Estimated tokens of the live memories (what retrieval could inject at most)."""
    last_activity: str = ""
    requests: int = 0
    episodes: int = 0
    """What the owner said, kept verbatim (episodes are not memories: counted apart)."""

    def count(self, memory: Memory) -> None:
        if memory.superseded_by is not None:
            self.superseded += 1
        else:
            self.live += 1
            self.tokens += estimate_tokens(memory.content)
        self.last_activity = max(self.last_activity, memory.updated_at)

    def as_json(self) -> dict[str, Any]:
        return {
            "owner": self.owner,
            # An end user's owner names the key's owner it belongs to (the Studio groups
            # the users of a key under it); null for any other owner.
            "key_owner": key_owner_of(self.owner),
            "live": self.live,
            "superseded": self.superseded,
            "tokens": self.tokens,
            "last_activity": self.last_activity or None,
            "requests": self.requests,
            "episodes": self.episodes,
        }


@routes.get("/api/owners")
async def list_owners(request: web.Request) -> web.Response:
    only = query_params.owners_query(request.query)
    engine = engine_of(request)
    stats: dict[str, OwnerStats] = {}
    scanned, truncated = 0, False
    while True:
        page = await engine.list_memories(
            ListQuery(owner=only, limit=PAGE, offset=scanned, include_superseded=True)
        )
        for memory in page.items:
            stats.setdefault(memory.owner, OwnerStats(memory.owner)).count(memory)
        scanned += len(page.items)
        if not page.items or scanned >= page.total:
            break
        if scanned >= MAX_SCANNED:
            truncated = True
            break
    for record in runtime_of(request).request_log.recent(only, limit=1_000_000):
        if record.owner is None:
            continue
        entry = stats.setdefault(record.owner, OwnerStats(record.owner))
        entry.requests += 1
        entry.last_activity = max(entry.last_activity, record.ts)
    if only is not None:
        stats.setdefault(only, OwnerStats(only))
    for entry in list(stats.values())[:MAX_EPISODE_COUNTS]:
        said = await engine.list_episodes(EpisodeListQuery(owner=entry.owner, limit=1))
        entry.episodes = said.total
    stats = {
        o: s
        for o, s in stats.items()
        if s.live or s.superseded or s.requests or s.episodes
    }
    owners = sorted(stats.values(), key=lambda s: s.last_activity, reverse=True)
    return json_response(
        {"items": [s.as_json() for s in owners], "truncated": truncated}
    )
