"""Admin sub-app auth and error shape, through a real memtap server."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp.web_urldispatcher import PrefixedSubAppResource

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config
from memtap.proxy.admin.app import is_loopback
from memtap.proxy.server import build_app
from tests.conftest import MemtapServer
from tests.support.admin import TOKEN, Admin, admin_config, start_admin
from tests.support.standin import Standin

API_ROUTES = [
    ("GET", "/api/memories"),
    ("POST", "/api/memories"),
    ("GET", "/api/memories/abc"),
    ("PUT", "/api/memories/abc"),
    ("DELETE", "/api/memories/abc"),
    ("POST", "/api/retrieve-preview"),
    ("GET", "/api/engine-status"),
    ("POST", "/api/reindex"),
    ("POST", "/api/summarize"),
    ("POST", "/api/summarize/restore"),
    ("DELETE", "/api/owners/abc"),
    ("GET", "/api/owners/abc/export"),
    ("POST", "/api/import"),
    ("GET", "/api/settings"),
    ("PUT", "/api/settings"),
    ("DELETE", "/api/settings/memory.max_tokens"),
    ("GET", "/metrics"),
    ("POST", "/mcp"),
    ("GET", "/mcp"),
    ("GET", "/api/no-such-route"),
]


@pytest.mark.parametrize(("method", "path"), API_ROUTES)
async def test_every_route_needs_the_token(
    admin: Admin, method: str, path: str
) -> None:
    for token in (None, "wrong-token", TOKEN + "x", TOKEN[:-1], ""):
        reply = await admin.call(method, path, token=token)
        assert reply.status == 401, (method, path, token, reply.status)
        assert reply.body["error"]["code"] == "unauthorized"
        assert reply.headers["WWW-Authenticate"].startswith("Bearer")


async def test_other_auth_schemes_and_spacing(admin: Admin) -> None:
    basic = await admin.call(
        "GET", "/api/memories", token=None, headers={"Authorization": f"Basic {TOKEN}"}
    )
    assert basic.status == 401
    lower = await admin.call(
        "GET", "/api/memories", token=None, headers={"Authorization": f"bearer {TOKEN}"}
    )
    assert lower.status == 200
    raw_token = await admin.call(
        "GET", "/api/memories", token=None, headers={"Authorization": TOKEN}
    )
    assert raw_token.status == 401


async def test_health_and_page_need_no_token(admin: Admin) -> None:
    health = await admin.call("GET", "/health", token=None)
    assert health.status == 200 and health.body["status"] == "ok"
    assert health.body["store"].startswith("sqlite")
    page = await admin.call("GET", "/", token=None)
    assert (
        page.status == 200
        and b"<title>memtap \xc2\xb7 Memory Studio</title>" in page.raw
    )
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    script = await admin.call("GET", "/static/main.js", token=None)
    assert script.status == 200 and b"textContent" in script.raw
    missing = await admin.call("GET", "/static/..%2Fapp.py", token=None)
    assert missing.status == 404 and missing.body["error"]["code"] == "not_found"


async def test_metrics_with_token(admin: Admin) -> None:
    reply = await admin.call("GET", "/metrics")
    assert reply.status == 200 and b"memtap_requests_total" in reply.raw
    # the exposition format's own content type, as Prometheus scrapers expect it
    assert reply.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"


async def test_unknown_route_and_method_are_json(admin: Admin) -> None:
    missing = await admin.call("GET", "/api/nothing-here")
    assert missing.status == 404 and missing.body["error"]["code"] == "not_found"
    wrong_method = await admin.call("PATCH", "/api/memories")
    assert (
        wrong_method.status == 405
        and wrong_method.body["error"]["code"] == "method_not_allowed"
    )
    assert set(wrong_method.headers["Allow"].split(",")) >= {"GET", "POST"}
    for path in ("/api/a%0Ab", "/%0A"):  # a decoded newline in the path
        newline = await admin.call("GET", path)
        assert newline.status == 404 and newline.body["error"]["code"] == "not_found"
    bare_prefix = await admin.call("GET", "")  # /_memtap itself, no slash
    assert (
        bare_prefix.status == 404 and bare_prefix.body["error"]["code"] == "not_found"
    )
    unauthorised = await admin.call("PATCH", "/api/memories", token=None)
    assert (
        unauthorised.status == 401
    )  # the token is asked for before the method is checked


def test_a_proxied_request_runs_no_middleware_chain(
    memtap_config: Callable[..., Config],
) -> None:
    """A sub-app with middlewares makes aiohttp run a middleware chain for every request of
    the app it is mounted on (~10 µs a proxied request): the admin sub-app has none."""
    app = build_app(ConfigHolder(admin_config(memtap_config)), watch_config=False)
    mounted = [
        resource
        for resource in app.router.resources()
        if isinstance(resource, PrefixedSubAppResource)
    ]
    assert mounted, "the admin sub-app is mounted on the proxy listener"
    apps = [app] + [resource._app for resource in mounted]
    assert all(len(each.middlewares) == 0 for each in apps)


async def test_engine_unavailable_is_503(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> None:
    from memtap.config.schema import AdminConfig

    server = await memtap_server(
        memtap_config(admin=AdminConfig(token=TOKEN))
    )  # memory off
    admin = Admin(server, http, TOKEN)
    for method, path, body in (
        ("GET", "/api/memories", None),
        ("POST", "/api/memories", {"owner": "abc", "content": "x"}),
        ("GET", "/api/engine-status", None),
        ("DELETE", "/api/owners/abc", None),
    ):
        reply = (
            await admin.call(method, path, json=body)
            if body
            else await admin.call(method, path)
        )
        assert reply.status == 503, (path, reply.body)
        assert reply.body["error"]["code"] == "engine_unavailable"
    # Validation still answers first: a bad request is a 400 even without an engine.
    bad = await admin.call("GET", "/api/memories", params={"limit": "-1"})
    assert bad.status == 400


# -- no token: loopback only -------------------------------------------------------------


@pytest.fixture
async def open_admin(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
    caplog: pytest.LogCaptureFixture,
) -> Admin:
    caplog.set_level(logging.WARNING, logger="memtap.admin")
    return await start_admin(memtap_server, memtap_config, http, token=None)


async def test_no_token_loopback_answers_and_warns(
    open_admin: Admin, caplog: pytest.LogCaptureFixture
) -> None:
    reply = await open_admin.call("GET", "/api/memories")
    assert reply.status == 200
    assert any(r.getMessage() == "admin.no_token" for r in caplog.get_records("setup"))


async def test_no_token_refuses_foreign_host_and_origin(open_admin: Admin) -> None:
    rebinding = await open_admin.call(
        "GET", "/api/memories", headers={"Host": "evil.example:8080"}
    )
    assert rebinding.status == 403 and rebinding.body["error"]["code"] == "forbidden"
    cross_site: dict[str, Any] = {"Origin": "https://evil.example"}
    post = await open_admin.call(
        "POST", "/api/memories", json={"owner": "a", "content": "x"}, headers=cross_site
    )
    assert post.status == 403
    same_origin = {"Origin": open_admin.server.url}
    ok = await open_admin.call(
        "POST",
        "/api/memories",
        json={"owner": "a", "content": "x"},
        headers=same_origin,
    )
    assert ok.status == 201
    # A token sent anyway is ignored when none is configured.
    assert (
        await open_admin.call("GET", "/api/memories", token="whatever")
    ).status == 200


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("127.8.9.1") and is_loopback("::1")
    assert is_loopback("::ffff:127.0.0.1")
    for remote in (
        "10.0.0.1",
        "192.168.1.2",
        "::ffff:10.0.0.1",
        "fe80::1",
        "",
        None,
        "localhost",
        "garbage",
    ):
        assert not is_loopback(remote), remote


async def test_readyz_needs_no_token_and_turns_503_while_draining(admin: Admin) -> None:
    ready = await admin.call("GET", "/readyz", token=None)
    assert ready.status == 200
    assert ready.body["ready"] is True and ready.body["memory"] == "ready"
    assert (
        ready.body["store"].startswith("sqlite") and ready.body["store_latency_ms"] >= 0
    )
    admin.server.runtime.draining = True
    try:
        draining = await admin.call("GET", "/readyz", token=None)
    finally:
        admin.server.runtime.draining = False
    assert draining.status == 503 and draining.body["ready"] is False


async def test_a_store_condition_is_503_with_its_code(admin: Admin) -> None:
    """A store that cannot answer right now (here its file deleted under a running memtap)
    is a 503 a client may retry, with the store's own code; the engine reopens the file and
    the next call succeeds."""
    import asyncio
    from pathlib import Path

    from memtap.engine.sqlite.local import DB_FILENAME

    await admin.create(content="Lives in Lisbon")
    db_file = Path(admin.server.runtime.config.current.data_dir) / DB_FILENAME
    db_file.unlink()
    gone = await admin.call(
        "POST", "/api/memories", json={"owner": "abc", "content": "x"}
    )
    assert gone.status == 503, gone.body
    assert gone.error_code == "store_gone"
    for _ in range(100):  # the reopen runs in the background
        again = await admin.call(
            "POST", "/api/memories", json={"owner": "abc", "content": "y"}
        )
        if again.status == 201:
            break
        await asyncio.sleep(0.05)
    assert again.status == 201, again.body


def test_only_conditions_that_pass_are_retryable() -> None:
    """503 for what passes (busy, down, a replaced file, a full outbox); a plain
    `StoreError` (a constraint, a malformed statement) or a request Qdrant rejects would
    fail again on retry: 500."""
    from memtap.engine.api import OutboxFull, StoreError, StoreUnavailable
    from memtap.engine.qdrant.transport import QdrantRequestError, QdrantUnavailable
    from memtap.engine.store_errors import (
        StoreBusy,
        StoreClosed,
        StoreGone,
        StoreTimeout,
    )

    passing = (StoreUnavailable, StoreBusy, StoreTimeout, StoreClosed, StoreGone)
    assert all(cls.retryable for cls in (*passing, OutboxFull, QdrantUnavailable))
    assert not StoreError.retryable and not QdrantRequestError.retryable
