"""Explain what memory does: retrieve-preview (the proxy's own retrieval, without side effects)
and engine-status."""

from __future__ import annotations

import dataclasses
from typing import Any

from aiohttp import web

from memtap.engine.types import Hit, Retrieval
from memtap.proxy.addons.inject import injected_block
from memtap.proxy.admin import validation
from memtap.proxy.admin.common import engine_of, json_response, runtime_of
from memtap.proxy.owners import scope_for

routes = web.RouteTableDef()


def hit_json(hit: Hit) -> dict[str, Any]:
    memory = hit.memory
    return {
        "id": memory.id,
        "content": memory.content,
        "score": hit.score,
        "tier": hit.tier,
        "tokens": hit.tokens,
        "fts_rank": hit.fts_rank,
        "vec_rank": hit.vec_rank,
        "similarity": hit.similarity,
        "kind": hit.kind,
        "why": list(hit.why) or _why_fact(hit),
        "type": memory.type,
        "key": memory.key,
        "session": memory.session,
        "updated_at": memory.updated_at,
        **(
            {"said_at": memory.created_at, "episode": memory.metadata.get("episode")}
            if hit.kind == "episode"
            else {}
        ),
    }


def _why_fact(hit: Hit) -> list[str]:
    why = []
    if hit.fts_rank is not None:
        why.append("keyword")
    if hit.vec_rank is not None:
        why.append("meaning")
    return why or [hit.tier]


def retrieval_json(retrieval: Retrieval) -> dict[str, Any]:
    return {
        "results": [hit_json(hit) for hit in retrieval.hits],
        "tokens": retrieval.tokens,
        "block": injected_block(retrieval),
        "resolution": retrieval.resolution,
    }


@routes.post("/api/retrieve-preview")
async def retrieve_preview(request: web.Request) -> web.Response:
    retrieval_request = validation.retrieval_request(
        await validation.read_json_object(request)
    )
    # As the proxy does: an end user's owner never reads across owners (proxy/owners.py).
    configured = runtime_of(request).config.current.memory.scope
    scope = scope_for(retrieval_request.owner, retrieval_request.scope or configured)
    if scope != (retrieval_request.scope or configured):
        retrieval_request = dataclasses.replace(retrieval_request, scope=scope)
    # The proxy's inject addon calls this same method; side_effects=False only skips lazy
    # backfill writes and counters, never changes ranking, floor or budget.
    retrieval = await engine_of(request).retrieve(retrieval_request, side_effects=False)
    return json_response(retrieval_json(retrieval))


@routes.get("/api/engine-status")
async def engine_status(request: web.Request) -> web.Response:
    return json_response(await engine_of(request).status())
