"""The admin sub-app mounted at /_memtap: its routes, each answered through the JSON errors
and the auth below (`_answer`), and a JSON 404/405 for every other path.

Auth (checked per request against the live config, so a reload or override takes effect):
- `admin.token` set: every route but /health, /readyz and the web page needs
  `Authorization: Bearer <token>` (constant-time comparison), else 401.
- no token: the API and the web page answer only to loopback clients (403 otherwise;
  /health and /readyz answer anyone), the API only for a loopback
  `Host` (DNS rebinding) and, for writes, only without a foreign `Origin` (cross-site forms).
  /metrics then answers loopback clients only too (any Host, so a local scraper works).
Errors are always `{"error": {"code", "message"}}` with a stable code (see `_STATUS_CODES`).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
from collections.abc import Awaitable, Callable
from typing import Final
from urllib.parse import urlsplit

from aiohttp import web

from memtap.engine.api import EngineError, InvalidInput, NotFound
from memtap.proxy.admin import (
    conversations,
    episodes,
    explain,
    health,
    maintenance,
    mcp,
    memories,
    owner_stats,
    owners,
    page,
    requests,
    settings,
)
from memtap.proxy.admin.common import EngineUnavailable, json_response
from memtap.proxy.admin.validation import PayloadTooLarge
from memtap.proxy.adminclient import ADMIN_PREFIX
from memtap.proxy.appkeys import RUNTIME, Runtime
from memtap.proxy.codecs.followers import plain_encoding
from memtap.proxy.routing import addressed_elsewhere

log = logging.getLogger("memtap.admin")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# Reachable without credentials, from anywhere: liveness and readiness.
_PUBLIC_HANDLERS: Final = frozenset({health.health, health.readyz})
# The static page and its files: no token needed when one is configured (a browser cannot
# send it with the page; the page asks for it and sends it with every API call). With no
# token they are served where the API answers, on loopback: "with no token configured the
# admin API answers only on loopback", and the page is part of it.
_PAGE_HANDLERS: Final = frozenset({page.index, page.asset})
_LOOPBACK_HOSTS: Final = frozenset({"localhost"})
_SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})

_STATUS_CODES: Final = {
    400: "invalid",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    503: "engine_unavailable",
}


def error_response(
    status: int, code: str, message: str, field: str | None = None
) -> web.Response:
    error: dict[str, str] = {"code": code, "message": message}
    if field:
        error["field"] = field
    response = json_response({"error": error}, status=status)
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="memtap"'
    return response


async def _answer(request: web.Request, handler: Handler) -> web.StreamResponse:
    """`handler`'s answer to an authorised request; every failure in the JSON shape."""
    try:
        # `is None`, never `or`: an aiohttp Response without a body is falsy before 3.12,
        # and a refusal must never be skipped for the next check.
        refused = _refused(request, handler)
        if refused is None:
            refused = _encoded(request)
        response = refused if refused is not None else await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        response = error_response(
            exc.status, _STATUS_CODES.get(exc.status, "http_error"), exc.reason
        )
        if "Allow" in exc.headers:  # a 405 names the methods the resource has
            response.headers["Allow"] = exc.headers["Allow"]
    except asyncio.CancelledError:
        raise
    except InvalidInput as exc:
        response = error_response(400, "invalid", str(exc), exc.field)
    except NotFound as exc:
        response = error_response(404, "not_found", str(exc) or "not found")
    except PayloadTooLarge as exc:
        response = error_response(413, "payload_too_large", str(exc))
    except EngineUnavailable as exc:
        response = error_response(503, "engine_unavailable", str(exc))
    except EngineError as exc:
        log.warning(
            "admin.engine_error",
            extra={
                "fields": {"path": request.path, "code": exc.code, "error": str(exc)}
            },
        )
        # A condition that passes (the store busy, down, its file replaced, the outbox
        # full) is a 503 a client may retry; any other engine failure is a 500.
        status = 503 if exc.retryable else 500
        response = error_response(status, exc.code, str(exc) or type(exc).__name__)
    except Exception as exc:  # every failure must still answer in the JSON shape
        log.exception(
            "admin.error",
            extra={"fields": {"path": request.path, "error_type": type(exc).__name__}},
        )
        response = error_response(
            500, "internal", f"internal error ({type(exc).__name__})"
        )
    if not response.prepared:
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
    return response


def configured_token(runtime: Runtime) -> str | None:
    token = runtime.config.current.admin.token
    return token if token and token.strip() else None


def is_loopback(remote: str | None) -> bool:
    if not remote:
        return False
    try:
        address = ipaddress.ip_address(remote.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def _host_is_loopback(host: str) -> bool:
    try:
        name = urlsplit("//" + host).hostname or ""
    except ValueError:
        return False
    return name in _LOOPBACK_HOSTS or is_loopback(name)


def _foreign_origin(request: web.Request) -> bool:
    origin = request.headers.get("Origin")
    if origin is None:
        return False
    return urlsplit(origin).netloc.lower() != request.host.lower()


def _bearer_matches(request: web.Request, token: str) -> bool:
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(
        value.strip().encode("utf-8", "replace"), token.encode("utf-8")
    )


def _refused(request: web.Request, handler: Handler) -> web.Response | None:
    """The error answer when the request may not reach `handler`, None when it may."""
    if handler in _PUBLIC_HANDLERS:
        return None
    runtime = request.config_dict[RUNTIME]
    token = configured_token(runtime)
    if token is not None:
        if handler in _PAGE_HANDLERS:
            return None
        if not _bearer_matches(request, token):
            return error_response(
                401,
                "unauthorized",
                "missing or wrong admin token (Authorization: Bearer ...)",
            )
        return None
    if not is_loopback(request.remote):
        return error_response(
            403,
            "forbidden",
            "no admin.token configured: the admin API answers only on loopback",
        )
    if handler is health.metrics or handler in _PAGE_HANDLERS:
        # A scraper on this host may use any Host name; the page-facing checks guard the
        # API calls (the page itself is static).
        return None
    if not _host_is_loopback(request.host):
        return error_response(
            403, "forbidden", "no admin.token configured: Host must be a loopback name"
        )
    if request.method not in _SAFE_METHODS and _foreign_origin(request):
        return error_response(403, "forbidden", "cross-origin request refused")
    return None


def _encoded(request: web.Request) -> web.Response | None:
    """415 for a compressed request body: the server hands bodies on as they were sent
    (the proxy relays them untouched), and the admin API reads them plain."""
    encoding = request.headers.get("Content-Encoding")
    if plain_encoding(encoding):
        return None
    return error_response(
        415,
        "unsupported_media_type",
        f"Content-Encoding {encoding} is not accepted: send the body uncompressed",
    )


async def _unrouted(request: web.Request) -> web.StreamResponse:
    """Any other path under /_memtap: 405 with `Allow` when a route has the path (not the
    method), else 404 (raised: `_answer` gives both their JSON shape)."""
    allowed: set[str] = set()
    for resource in request.app.router.resources():
        if resource is request.match_info.route.resource:
            continue  # this catch-all (the other never has the path of this one)
        match, methods = await resource.resolve(request)
        if match is None:
            allowed |= methods
    if allowed:
        raise web.HTTPMethodNotAllowed(request.method, allowed)
    raise web.HTTPNotFound()


def _route(handler: Handler, forward: Handler | None) -> Handler:
    async def answer(request: web.Request) -> web.StreamResponse:
        if forward is not None and addressed_elsewhere(request):
            # The target host's /_memtap path, not ours: the proxy's request, in its app.
            request.match_info.current_app = request.match_info.apps[0]
            return await forward(request)
        return await _answer(request, handler)

    return answer


def warn_if_open(runtime: Runtime, where: str) -> None:
    """Log once at start when the admin API relies on loopback-only access."""
    if configured_token(runtime) is None:
        log.warning(
            "admin.no_token",
            extra={
                "fields": {
                    "listen": where,
                    "hint": "set admin.token to allow non-loopback admin access",
                }
            },
        )


def build_admin_app(forward: Handler | None = None) -> web.Application:
    """The admin routes. `forward` (on the proxy listener): the proxy's handler, which takes
    a request addressed to another host (through an intercepted tunnel, or by an absolute URI
    naming it), whose /_memtap path is that host's.

    No middlewares: a sub-app with middlewares makes aiohttp run a middleware chain for
    every request of the app it is mounted on, and every proxied request paid ~10 µs for it
    (8 % of a JSON request's CPU in scripts/bench_proxy.py)."""
    admin = web.Application()
    admin[settings.SETTINGS_LOCK] = asyncio.Lock()
    for module in (
        health,
        page,
        memories,
        episodes,
        owners,
        conversations,
        owner_stats,
        requests,
        explain,
        maintenance,
        settings,
        mcp,
    ):
        for route in module.routes:
            assert isinstance(route, web.RouteDef)
            web.RouteDef(
                route.method, route.path, _route(route.handler, forward), route.kwargs
            ).register(admin.router)
    # The prefix itself ("/_memtap", no slash) and any path under it no route has.
    # (?s): a decoded "%0A" in the path is a newline, which a bare ".*" does not match.
    for path in ("", "/{tail:(?s:.*)}"):
        admin.router.add_route("*", path, _route(_unrouted, forward))
    return admin


def mount_admin(
    app: web.Application, forward: Handler, where: str = "proxy listener"
) -> None:
    """Mount the admin sub-app on `app` (which holds the RUNTIME). At start (after the
    engine's cleanup_ctx opened it: aiohttp runs cleanup contexts before on_startup
    handlers) re-apply stored settings overrides and warn if the API is unprotected."""
    app.add_subapp(ADMIN_PREFIX, build_admin_app(forward))

    async def _started(started: web.Application) -> None:
        await admin_started(started[RUNTIME], where)

    app.on_startup.append(_started)


async def admin_started(runtime: Runtime, where: str) -> None:
    warn_if_open(runtime, where)
    try:
        await settings.restore_overrides(runtime)
    except Exception as exc:  # noqa: BLE001 - memtap must start even if overrides cannot load
        log.warning(
            "settings.restore_failed",
            extra={"fields": {"error_type": type(exc).__name__, "error": str(exc)}},
        )
