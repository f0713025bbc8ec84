"""/api/episodes: what was said, kept verbatim beside the memories (facts). List (owner,
session, full text, newest `said_at` first, total) and delete one."""

from __future__ import annotations

import dataclasses

from aiohttp import web

from memtap.proxy.admin import fields, query_params
from memtap.proxy.admin.common import engine_of, json_response

routes = web.RouteTableDef()


@routes.get("/api/episodes")
async def list_episodes(request: web.Request) -> web.Response:
    query = query_params.episode_list_query(request.query)
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
    episode_id = fields.memory_id(request.match_info["id"])
    return json_response((await engine_of(request).get_episode(episode_id)).to_json())


@routes.delete("/api/episodes/{id}")
async def delete_episode(request: web.Request) -> web.Response:
    episode_id = fields.memory_id(request.match_info["id"])
    await engine_of(request).delete_episode(episode_id)
    return json_response({"deleted": episode_id})
