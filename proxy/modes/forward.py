"""Route resolution for forward-proxy traffic.

Two kinds of request reach the normal handler without a reverse-mode prefix:
* absolute-URI requests (`GET http://host/path HTTP/1.1`), which clients with `HTTP_PROXY` send;
* requests decrypted from an intercepted `CONNECT host:port` tunnel (see `proxy/modes/connect.py`),
  whose transport carries the tunnel's `InterceptTarget`.

Both go to the real target with format "auto" (the codec is chosen by path, so the same
memory endpoints as reverse mode get memory). Onward TLS always verifies: system roots plus
`intercept.upstream_ca_file`; a failure surfaces as 502 `upstream_tls` (`proxy/upstream.py`).
"""

from __future__ import annotations

import ipaddress
import logging
import ssl
from collections.abc import Callable
from typing import Any

from aiohttp import web
from yarl import URL

from memtap.config.schema import Config, UpstreamConfig
from memtap.proxy.modes.access.gate import ForwardAccess
from memtap.proxy.modes.certs import LeafCertStore
from memtap.proxy.modes.connect import ConnectDone, ForwardProxy, ProtocolFactory
from memtap.proxy.modes.targets import INTERCEPT_EXTRA, InterceptTarget
from memtap.proxy.routing import Mode, Route
from memtap.proxy.upstream import ssl_context_for

log = logging.getLogger("memtap.forward")

_DEFAULTS = UpstreamConfig(name="forward", url="")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def intercept_target(request: web.BaseRequest) -> InterceptTarget | None:
    """The CONNECT target if `request` arrived through an intercepted tunnel, else None."""
    target = request.get_extra_info(INTERCEPT_EXTRA)
    return target if isinstance(target, InterceptTarget) else None


def addressed_elsewhere(request: web.BaseRequest) -> bool:
    """True for a request memtap forwards to another host: it came through an intercepted
    tunnel, or its request-target is an absolute URI naming someone other than memtap.
    Such a request is never memtap's own (e.g. `/_memtap/*` is the target's path then)."""
    if intercept_target(request) is not None:
        return True
    raw_target = request.raw_path
    if raw_target.startswith("/"):
        return False
    try:
        url = URL(raw_target, encoded=True)
    except ValueError:
        return False
    if not url.absolute or url.scheme not in _DEFAULT_PORTS or not url.raw_host:
        return False
    port = url.port or _DEFAULT_PORTS[url.scheme]
    return not _is_own_address(request, url.raw_host.lower(), port)


def resolve_forward_route(request: web.BaseRequest, config: Config) -> Route | None:
    """A Route for an intercepted or absolute-URI request; None for a reverse-mode request.

    An absolute URI naming memtap's own listening address resolves as reverse mode (a client
    with HTTP_PROXY set whose base URL also points at memtap must not loop through itself).
    """
    target = intercept_target(request)
    raw_target = request.raw_path  # the request-target exactly as sent
    if target is not None:
        if raw_target.startswith("/"):
            path, _, query = raw_target.partition("?")
        else:
            try:
                url = URL(raw_target, encoded=True)
            except ValueError:
                return None
            if not url.absolute:
                return None  # `*` and other oddities: no route (404)
            path, query = url.raw_path or "/", url.raw_query_string
        return _route(
            config, "https", target.host, target.port, path, query, "intercept"
        )
    # Origin-form is reverse mode: the common case, decided by the two checks above.
    if raw_target.startswith("/"):
        return None
    try:
        url = URL(raw_target, encoded=True)
    except ValueError:
        return None
    if not url.absolute or url.scheme not in _DEFAULT_PORTS or not url.raw_host:
        return None
    port = url.port or _DEFAULT_PORTS[url.scheme]
    host = url.raw_host.lower()
    if _is_own_address(request, host, port):
        return _reverse_route_for_own_address(request, config, url)
    path, query = url.raw_path or "/", url.raw_query_string
    return _route(config, url.scheme, host, port, path, query, "forward")


def _reverse_route_for_own_address(
    request: web.BaseRequest, config: Config, url: URL
) -> Route | None:
    """`GET http://<memtap>/v1/...`: a client with HTTP_PROXY whose base URL is memtap itself.
    Served as reverse mode (forwarding it would loop through memtap)."""
    from memtap.proxy.modes.reverse import resolve_route  # reverse imports this module

    rel_url = URL.build(
        path=url.raw_path or "/", query_string=url.raw_query_string, encoded=True
    )
    route: Route | None = resolve_route(request.clone(rel_url=rel_url), config)
    return route


def _route(
    config: Config, scheme: str, host: str, port: int, path: str, query: str, mode: Mode
) -> Route:
    netloc = f"[{host}]" if ":" in host else host
    if port != _DEFAULT_PORTS[scheme]:
        netloc = f"{netloc}:{port}"
    base_url = f"{scheme}://{netloc}"
    known = _configured_upstream(config, scheme, host, port)
    settings = known or _DEFAULTS
    return Route(
        upstream_name=known.name if known else netloc,
        base_url=base_url,
        path=path,
        query=query,
        format=settings.format,
        timeout_s=settings.timeout_s,
        connect_timeout_s=settings.connect_timeout_s,
        ssl_context=_onward_ssl(config, known) if scheme == "https" else None,
        mode=mode,
    )


def _configured_upstream(
    config: Config, scheme: str, host: str, port: int
) -> UpstreamConfig | None:
    """A configured upstream at exactly this origin lends its name, format and timeouts."""
    for upstream in config.upstreams:
        try:
            url = URL(upstream.url)
        except ValueError:
            continue
        if (
            url.scheme == scheme
            and (url.raw_host or "").lower() == host
            and (url.port or _DEFAULT_PORTS.get(url.scheme)) == port
            and url.raw_path in ("", "/")
        ):
            return upstream
    return None


def _onward_ssl(config: Config, known: UpstreamConfig | None) -> ssl.SSLContext | None:
    """System roots + the extra bundle, verifying (None = aiohttp's default verifying context).

    An unreadable bundle falls back to the system roots alone: stricter, never weaker, so a
    host that needed the bundle fails verification as a 502 `upstream_tls`.
    """
    ca_file = config.intercept.upstream_ca_file or (known.ca_file if known else None)
    if not ca_file:
        return None
    try:
        return ssl_context_for(ca_file)
    except (OSError, ssl.SSLError) as exc:
        log.error(
            "intercept.ca_file_unusable",
            extra={"fields": {"path": ca_file, "error": repr(exc)}},
        )
        return None


def _is_own_address(request: web.BaseRequest, host: str, port: int) -> bool:
    sockname: Any = request.get_extra_info("sockname")
    if not isinstance(sockname, tuple) or len(sockname) < 2 or sockname[1] != port:
        return False
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified or str(address) == sockname[0]


def forward_front(
    http_factory: ProtocolFactory,
    current_config: Callable[[], Config],
    on_done: Callable[[ConnectDone], None] | None = None,
    access: ForwardAccess | None = None,
) -> ForwardProxy:
    """The forward-proxy front for a memtap listener: live `intercept` settings, leaf
    certificates under the configured `data_dir` (the CA is created on the first intercept),
    and the onward SSL context built off the event loop before the first request needs it."""
    certs = LeafCertStore(current_config().data_dir)
    warmed: set[str] = set()

    def needs_warm_up() -> bool:
        ca_file = current_config().intercept.upstream_ca_file
        return ca_file is not None and ca_file not in warmed

    def warm_up() -> None:
        ca_file = current_config().intercept.upstream_ca_file
        if ca_file is not None:
            try:
                ssl_context_for(ca_file)  # lru-cached: the request path finds it ready
            except (OSError, ssl.SSLError):
                return  # the request path raises it where it can become a 502
            warmed.add(ca_file)

    return ForwardProxy(
        http_factory,
        lambda: current_config().intercept,
        certs,
        before_intercept=needs_warm_up,
        prepare_intercept=warm_up,
        on_done=on_done,
        access=access,
    )
