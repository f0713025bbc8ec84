"""GET /_memtap/ : the Memory Studio, static HTML + plain ES modules (no build step, no CDN)
that talk to the admin API with the token the operator types in. The page and its assets
hold no data, so they need no token (with none configured they answer loopback clients
only, like the API: `proxy/admin/app.py`); every asset is listed here (nothing else is
served)."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Final

from aiohttp import web

routes = web.RouteTableDef()

_MODULES: Final = (
    "main.js",
    "api.js",
    "dom.js",
    "tab_memories.js",
    "tab_playground.js",
    "tab_requests.js",
    "tab_engine.js",
    "tab_owners.js",
)
_ASSETS: Final = {
    "index.html": "text/html",
    "admin.css": "text/css",
    **dict.fromkeys(_MODULES, "text/javascript"),
}
# Scripts only from this origin, no inline code, no framing: memory content is rendered with
# textContent, and the CSP is the second line of defence against a stored-XSS memory.
_HEADERS: Final = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}


@cache
def _read(name: str) -> bytes:
    # A few KiB, read once per process.
    return resources.files("memtap.proxy.admin").joinpath("static", name).read_bytes()


@routes.get("/")
async def index(request: web.Request) -> web.Response:
    return web.Response(
        body=_read("index.html"),
        content_type="text/html",
        charset="utf-8",
        headers=_HEADERS,
    )


@routes.get("/static/{name}")
async def asset(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    content_type = _ASSETS.get(name)
    if content_type is None:
        raise web.HTTPNotFound(reason="no such asset")
    return web.Response(
        body=_read(name), content_type=content_type, charset="utf-8", headers=_HEADERS
    )
