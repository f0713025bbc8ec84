"""/api/requests: the request log (proxy/request_log/ring.py), newest first, never prompt text."""

from __future__ import annotations

from aiohttp import web

from memtap.proxy.admin import query_params
from memtap.proxy.admin.common import json_response, runtime_of

routes = web.RouteTableDef()


@routes.get("/api/requests")
async def list_requests(request: web.Request) -> web.Response:
    owner, limit = query_params.requests_query(request.query)
    runtime = runtime_of(request)
    records = runtime.request_log.recent(owner, limit)
    return json_response(
        {
            "items": [record.as_json() for record in records],
            "size": runtime.config.current.admin.request_log_size,
        }
    )
