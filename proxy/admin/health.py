"""GET /_memtap/health (no auth) and GET /_memtap/metrics."""

from __future__ import annotations

from aiohttp import web

from proxy import __version__
from proxy.appkeys import RUNTIME

routes = web.RouteTableDef()


@routes.get("/health")
async def health(request: web.Request) -> web.Response:
    runtime = request.config_dict[RUNTIME]
    body: dict[str, str] = {
        "status": "ok",
        "version": __version__,
        "store": "off",
        "vector": "off",
        "embedding": "off",
    }
    if runtime.engine is not None:
        try:
            body.update(await runtime.engine.health())
        except Exception as exc:  # noqa: BLE001 - health must answer even when memory is broken
            body["store"] = f"error: {type(exc).__name__}"
    elif runtime.engine_error:
        body["store"] = "error"
    return web.json_response(body)


@routes.get("/metrics")
async def metrics(request: web.Request) -> web.Response:
    runtime = request.config_dict[RUNTIME]
    return web.Response(
        text=runtime.metrics.render(),
        content_type="text/plain",
        charset="utf-8",
        headers={"X-Content-Type-Options": "nosniff"},
    )
