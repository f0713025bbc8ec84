"""/api/episodes: what was said, kept verbatim beside the memories (facts). List (owner,
session, full text, newest `said_at` first, total) and delete one."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Final

from aiohttp import web

from memtap.engine.api import InvalidInput
from memtap.engine.episode_types import EpisodeListQuery
from memtap.proxy.admin import validation
from memtap.proxy.admin.common import engine_of, json_response

routes = web.RouteTableDef()

_PARAMS: Final = frozenset({"owner", "session", "q", "limit", "offset"})
DEFAULT_LIMIT: Final = 50


def list_query(params: Mapping[str, str]) -> EpisodeListQuery:
    unknown = sorted(set(params) - _PARAMS)
    if unknown:
        raise InvalidInput(
            f"unknown query parameter {unknown[0]!r} (allowed: {', '.join(sorted(_PARAMS))})",
            unknown[0],
        )

    def number(name: str, default: int, maximum: int) -> int:
        raw = params.get(name)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            raise InvalidInput(f"{name} must be an integer", name) from None
        if not 0 <= value <= maximum:
            raise InvalidInput(f"{name} must be from 0 to {maximum}", name)
        return value

    return EpisodeListQuery(
        owner=validation.owner_id(params["owner"]) if params.get("owner") else None,
        session=params.get("session") or None,
        q=(params.get("q") or "").strip() or None,
        limit=number("limit", DEFAULT_LIMIT, validation.MAX_LIST_LIMIT),
        offset=number("offset", 0, 10**9),
    )


@routes.get("/api/episodes")
async def list_episodes(request: web.Request) -> web.Response:
    query = list_query(request.query)
    # limit=0 asks only for the total.
    fetch = query if query.limit > 0 else dataclasses.replace(query, limit=1)
    page = await engine_of(request).list_episodes(fetch)
    items = page.items if query.limit > 0 else ()
    return json_response(
        {
            "items": [episode.to_json() for episode in items],
            "total": page.total,
            "limit": query.limit,
            "offset": query.offset,
        }
    )


@routes.get("/api/episodes/{id}")
async def get_episode(request: web.Request) -> web.Response:
    episode_id = validation.memory_id(request.match_info["id"])
    return json_response((await engine_of(request).get_episode(episode_id)).to_json())


@routes.delete("/api/episodes/{id}")
async def delete_episode(request: web.Request) -> web.Response:
    episode_id = validation.memory_id(request.match_info["id"])
    await engine_of(request).delete_episode(episode_id)
    return json_response({"deleted": episode_id})
