"""Small helpers every admin handler uses: the engine (or 503) and orjson responses."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from memtap.engine.api import MemoryEngine
from memtap.proxy.appkeys import RUNTIME, Runtime


class EngineUnavailable(Exception):
    """Memory is disabled or failed to start; mapped to 503 `engine_unavailable`."""


def runtime_of(request: web.Request) -> Runtime:
    return request.config_dict[RUNTIME]


def engine_of(request: web.Request) -> MemoryEngine:
    runtime = runtime_of(request)
    if runtime.engine is None:
        reason = runtime.engine_error or "memory is disabled (memory.enabled: false)"
        raise EngineUnavailable(f"memory engine unavailable: {reason}")
    return runtime.engine


def json_response(body: Any, *, status: int = 200) -> web.Response:
    # orjson: memory content can be large and non-ASCII; stdlib json is slower and escapes it.
    return web.Response(
        body=orjson.dumps(body), status=status, content_type="application/json"
    )
