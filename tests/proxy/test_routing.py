"""Route resolution (proxy/routing.py) as pure logic: one request-target, read once, to the
same `Route` whatever the mode. Requests are aiohttp's test requests (no socket); the
connection facts routing asks for (the listening address, an intercepted tunnel) come from
a minimal transport."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from memtap.config.schema import Config, UpstreamConfig
from memtap.proxy.modes.relay import InterceptedTransport
from memtap.proxy.modes.targets import InterceptTarget
from memtap.proxy.routing import addressed_elsewhere, resolve_route

LISTEN = ("127.0.0.1", 8080)

CONFIG = dataclasses.replace(
    Config(),
    upstreams=(
        UpstreamConfig(name="all", url="http://fallback.test", prefix="/"),
        UpstreamConfig(
            name="openai", url="https://api.openai.test/v1/", prefix="/openai"
        ),
        UpstreamConfig(name="known", url="https://known.test", format="anthropic"),
    ),
)


class _Connection(asyncio.Transport):
    """What the listener's transport tells about its socket."""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": LISTEN, "peername": ("127.0.0.1", 50000)}.get(name, default)


def _request(target: str, transport: asyncio.Transport | None = None) -> web.Request:
    return make_mocked_request("POST", target, transport=transport or _Connection())


def _tunnel(host: str, port: int = 443) -> asyncio.Transport:
    return InterceptedTransport(_Connection(), InterceptTarget(host, port))


def test_origin_form_takes_the_longest_prefix_and_keeps_the_raw_query() -> None:
    route = resolve_route(_request("/openai/chat/completions?a=%2F&b"), CONFIG)
    assert route is not None
    assert (route.upstream_name, route.mode) == ("openai", "reverse")
    assert route.url == "https://api.openai.test/v1/chat/completions?a=%2F&b"
    fallback = resolve_route(_request("/openaiX/y"), CONFIG)
    assert fallback is not None and fallback.upstream_name == "all"


def test_absolute_uri_goes_to_the_named_host() -> None:
    route = resolve_route(_request("http://elsewhere.test:8081/v1/x?q=1"), CONFIG)
    assert route is not None
    assert (route.mode, route.upstream_name) == ("forward", "elsewhere.test:8081")
    assert route.url == "http://elsewhere.test:8081/v1/x?q=1"
    assert route.format == "auto"
    assert addressed_elsewhere(_request("http://elsewhere.test:8081/v1/x"))


def test_absolute_uri_naming_memtap_itself_is_reverse_mode() -> None:
    for own in ("http://127.0.0.1:8080", "http://localhost:8080"):
        route = resolve_route(_request(f"{own}/openai/models?x=1"), CONFIG)
        assert route is not None
        assert (route.mode, route.upstream_name) == ("reverse", "openai")
        assert route.url == "https://api.openai.test/v1/models?x=1"
        assert not addressed_elsewhere(_request(f"{own}/_memtap/health"))


def test_an_intercepted_tunnel_routes_to_its_connect_target() -> None:
    route = resolve_route(_request("/v1/messages", _tunnel("known.test")), CONFIG)
    assert route is not None
    # A configured upstream at exactly that origin lends its name and format.
    assert (route.mode, route.upstream_name, route.format) == (
        "intercept",
        "known",
        "anthropic",
    )
    assert route.url == "https://known.test/v1/messages"
    other = resolve_route(_request("/x", _tunnel("other.test", 8443)), CONFIG)
    assert other is not None and other.url == "https://other.test:8443/x"
    assert addressed_elsewhere(_request("/_memtap/health", _tunnel("other.test")))


def test_targets_that_name_no_http_origin_have_no_route() -> None:
    for target in ("*", "ftp://files.test/x", "http:///nohost"):
        assert resolve_route(_request(target), CONFIG) is None, target
    assert not addressed_elsewhere(_request("*"))


def test_remembered_routes_follow_a_reloaded_upstream_list() -> None:
    """Reverse routes are remembered per upstream list: a reload (a new config) must route
    the same path by the new list, and an equal-looking list is never mistaken for it."""
    before = resolve_route(_request("/openai/chat?x=1"), CONFIG)
    assert before is not None and before.base_url == "https://api.openai.test/v1"
    assert resolve_route(_request("/openai/chat?x=1"), CONFIG) is before
    reloaded = dataclasses.replace(
        CONFIG,
        upstreams=(
            UpstreamConfig(name="all", url="http://fallback.test", prefix="/"),
            UpstreamConfig(name="openai", url="https://moved.test", prefix="/openai"),
        ),
    )
    after = resolve_route(_request("/openai/chat?x=1"), reloaded)
    assert after is not None and after.url == "https://moved.test/chat?x=1"
    other_query = resolve_route(_request("/openai/chat?x=2"), reloaded)
    assert other_query is not None and other_query.query == "x=2"
    none_left = dataclasses.replace(CONFIG, upstreams=())
    assert resolve_route(_request("/openai/chat?x=1"), none_left) is None


def test_remembered_routes_are_bounded() -> None:
    from memtap.proxy import routing

    config = dataclasses.replace(CONFIG, upstreams=CONFIG.upstreams[:1])
    for i in range(routing.MAX_CACHED_ROUTES * 2 + 3):
        route = routing._reverse_route(config, f"/p{i}", "")
        assert route is not None and route.path == f"/p{i}"
    table = routing._reverse_table(config.upstreams)
    assert 0 < len(table.routes) <= routing.MAX_CACHED_ROUTES
