"""/api/memories: list (filters, full text, stable order, total), create, get, update, delete."""

from __future__ import annotations

import dataclasses

from aiohttp import web

from memtap.proxy.admin import fields, query_params, validation
from memtap.proxy.admin.common import engine_of, json_response

routes = web.RouteTableDef()


@routes.get("/api/memories")
async def list_memories(request: web.Request) -> web.Response:
    query = query_params.list_query(request.query)
    # limit=0 asks only for the total; the engine always wants a positive page size.
    fetch = query if query.limit > 0 else dataclasses.replace(query, limit=1)
    page = await engine_of(request).list_memories(fetch)
    items = page.items if query.limit > 0 else ()
    return json_response(
        {
            "items": [memory.to_json() for memory in items],
            "total": page.total,
            "limit": query.limit,
            "offset": query.offset,
        }
    )


@routes.post("/api/memories")
async def create_memory(request: web.Request) -> web.Response:
    new = validation.new_memory(await validation.read_json_object(request))
    memory = await engine_of(request).create_memory(new)
    response = json_response(memory.to_json(), status=201)
    response.headers["Location"] = f"{request.path.rstrip('/')}/{memory.id}"
    return response


@routes.get("/api/memories/{id}")
async def get_memory(request: web.Request) -> web.Response:
    memory_id = fields.memory_id(request.match_info["id"])
    return json_response((await engine_of(request).get_memory(memory_id)).to_json())


@routes.put("/api/memories/{id}")
async def update_memory(request: web.Request) -> web.Response:
    memory_id = fields.memory_id(request.match_info["id"])
    patch = validation.memory_patch(await validation.read_json_object(request))
    return json_response(
        (await engine_of(request).update_memory(memory_id, patch)).to_json()
    )


@routes.delete("/api/memories/{id}")
async def delete_memory(request: web.Request) -> web.Response:
    memory_id = fields.memory_id(request.match_info["id"])
    await engine_of(request).delete_memory(memory_id)
    return json_response({"deleted": memory_id})
