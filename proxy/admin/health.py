"""GET /_memtap/health and /_memtap/readyz (no auth), GET /_memtap/metrics."""

from __future__ import annotations

import time

from aiohttp import web

from memtap.proxy import __version__
from memtap.proxy.appkeys import RUNTIME

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


@routes.get("/readyz")
async def readyz(request: web.Request) -> web.Response:
    """Readiness for load balancers. 503 only while this replica drains on shutdown: a store
    outage does not take a replica out of rotation, because the proxy fails open without
    memory. The body says whether memory's store answered and how fast."""
    runtime = request.config_dict[RUNTIME]
    body: dict[str, object] = {"ready": not runtime.draining, "memory": "off"}
    if runtime.engine is not None:
        started = time.perf_counter()
        try:
            details = await runtime.engine.health()
            body["memory"] = (
                "ready" if details.get("ready", "true") == "true" else "unavailable"
            )
            body["store"] = details.get("store")
        except Exception as exc:  # noqa: BLE001 - readiness must answer even when memory is broken
            body["memory"] = f"error: {type(exc).__name__}"
        body["store_latency_ms"] = round((time.perf_counter() - started) * 1000, 2)
    elif runtime.engine_error:
        body["memory"] = "error"
    return web.json_response(body, status=200 if body["ready"] else 503)


@routes.get("/metrics")
async def metrics(request: web.Request) -> web.Response:
    runtime = request.config_dict[RUNTIME]
    return web.Response(
        body=runtime.metrics.render().encode("utf-8"),
        # Prometheus's text exposition format, version 0.0.4, named as scrapers expect it.
        headers={
            "Content-Type": "text/plain; version=0.0.4; charset=utf-8",
            "X-Content-Type-Options": "nosniff",
        },
    )
