"""Where a request goes: every mode resolves here, to the same `Route`.

The request-target is read once:
* origin-form (`/v1/...`) on a plain connection → reverse mode: the longest matching upstream
  `prefix` picks the upstream and the rest of the path is forwarded;
* origin-form inside an intercepted `CONNECT host:port` tunnel (the transport carries the
  tunnel's `InterceptTarget`, see `proxy/modes/intercept.py`) → intercept mode, to that host;
* absolute-form (`GET http://host/path`, what clients with `HTTP_PROXY` send) → forward mode,
  or reverse mode when it names memtap's own listening address (a client whose base URL is
  memtap itself must not loop through it).

Forward and intercept routes use format "auto" (the codec is chosen by path, so the same
memory endpoints as reverse mode get memory) unless a configured upstream sits at exactly
that origin. Onward TLS always verifies: system roots plus `intercept.upstream_ca_file`; a
failure surfaces as 502 `upstream_tls` (`proxy/upstream.py`).
"""

from __future__ import annotations

import ipaddress
import logging
import ssl
from dataclasses import dataclass
from typing import Any, Literal

from aiohttp import web
from yarl import URL

from memtap.config.schema import ApiFormat, Config, UpstreamConfig
from memtap.proxy.modes.targets import INTERCEPT_EXTRA, InterceptTarget
from memtap.proxy.tls import ssl_context_for

log = logging.getLogger("memtap.forward")

Mode = Literal["reverse", "forward", "intercept"]

_FORWARD_DEFAULTS = UpstreamConfig(name="forward", url="")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Route:
    upstream_name: str
    base_url: str
    """scheme://host[:port][/base-path] with no trailing slash."""
    path: str
    """The path sent upstream after `base_url`'s path (starts with "/"), no query."""
    query: str
    """Raw query string without "?" ("" when none)."""
    format: ApiFormat
    timeout_s: float
    connect_timeout_s: float
    ssl_context: ssl.SSLContext | None = None
    mode: Mode = "reverse"
    server_hostname: str | None = None
    """TLS server name when `base_url` names a pinned IP address (proxy/modes/access/)."""

    @property
    def url(self) -> str:
        return f"{self.base_url}{self.path}" + (f"?{self.query}" if self.query else "")


# -- the request-target --------------------------------------------------------------------


def intercept_target(request: web.BaseRequest) -> InterceptTarget | None:
    """The CONNECT target if `request` arrived through an intercepted tunnel, else None."""
    target = request.get_extra_info(INTERCEPT_EXTRA)
    return target if isinstance(target, InterceptTarget) else None


def _absolute_uri(raw_target: str) -> URL | None:
    """An absolute-form request-target, parsed; None for `*` and anything unparsable."""
    try:
        url = URL(raw_target, encoded=True)
    except ValueError:
        return None
    return url if url.absolute else None


def _http_origin(url: URL) -> tuple[str, int] | None:
    """(lowercase host, port) of an http(s) URL; None for other schemes."""
    if url.scheme not in _DEFAULT_PORTS or not url.raw_host:
        return None
    return url.raw_host.lower(), url.port or _DEFAULT_PORTS[url.scheme]


def resolve_route(request: web.BaseRequest, config: Config) -> Route | None:
    """The Route for a request, or None (404 `no_route`) when nothing matches.

    The path and query are taken raw (as the client encoded them) so that they reach the
    upstream byte for byte.
    """
    tunnel = intercept_target(request)
    raw_target = request.raw_path  # the request-target exactly as sent
    if raw_target.startswith("/"):
        # Origin-form: the common case, decided without parsing a URL.
        path, _, query = raw_target.partition("?")
        if tunnel is not None:
            return _forward_route(
                config, "https", tunnel.host, tunnel.port, path, query, "intercept"
            )
        return _reverse_route(config, path, query)
    url = _absolute_uri(raw_target)
    if url is None:
        return None
    path, query = url.raw_path or "/", url.raw_query_string
    if tunnel is not None:
        return _forward_route(
            config, "https", tunnel.host, tunnel.port, path, query, "intercept"
        )
    origin = _http_origin(url)
    if origin is None:
        return None
    host, port = origin
    if _is_own_address(request, host, port):
        return _reverse_route(config, path, query)
    return _forward_route(config, url.scheme, host, port, path, query, "forward")


def addressed_elsewhere(request: web.BaseRequest) -> bool:
    """True for a request memtap forwards to another host: it came through an intercepted
    tunnel, or its request-target is an absolute URI naming someone other than memtap.
    Such a request is never memtap's own (e.g. `/_memtap/*` is the target's path then)."""
    if intercept_target(request) is not None:
        return True
    raw_target = request.raw_path
    if raw_target.startswith("/"):
        return False
    url = _absolute_uri(raw_target)
    origin = _http_origin(url) if url is not None else None
    if origin is None:
        return False
    return not _is_own_address(request, *origin)


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


# -- reverse mode: by path prefix ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _PrefixEntry:
    prefix: str
    """Without trailing slash; "" matches every path."""
    upstream: UpstreamConfig
    base_url: str


MAX_CACHED_ROUTES = 512
"""Reverse routes remembered per upstream list (then it starts over: bounded whatever paths
clients send)."""


@dataclass(slots=True)
class _ReverseTable:
    """The upstream list of one config, longest prefix first, and the routes it gave."""

    upstreams: tuple[UpstreamConfig, ...]
    entries: tuple[_PrefixEntry, ...]
    routes: dict[tuple[str, str], Route | None]


_tables: list[_ReverseTable] = []
"""The tables of the configs in use, newest first (a reload brings a new upstream tuple)."""
_MAX_TABLES = 8


def _reverse_table(upstreams: tuple[UpstreamConfig, ...]) -> _ReverseTable:
    # By identity: a config is frozen and a reload makes a new one, so the same tuple object
    # always has the same table (hashing it would hash every UpstreamConfig field instead).
    for table in _tables:
        if table.upstreams is upstreams:
            return table
    entries = [
        _PrefixEntry(u.prefix.rstrip("/"), u, u.url.rstrip("/")) for u in upstreams
    ]
    # Longest prefix first; ties keep the configured order (sort is stable).
    entries.sort(key=lambda e: len(e.prefix), reverse=True)
    table = _ReverseTable(upstreams, tuple(entries), {})
    _tables.insert(0, table)
    del _tables[_MAX_TABLES:]
    return table


def _reverse_route(config: Config, path: str, query: str) -> Route | None:
    table = _reverse_table(config.upstreams)
    key = (path, query)
    # A Route is immutable: the same one serves every request (None, "no route", is cached too).
    if key in table.routes:
        return table.routes[key]
    route = _match_prefix(table.entries, path, query)
    if len(table.routes) >= MAX_CACHED_ROUTES:
        table.routes.clear()
    table.routes[key] = route
    return route


def _match_prefix(
    entries: tuple[_PrefixEntry, ...], path: str, query: str
) -> Route | None:
    for entry in entries:
        prefix = entry.prefix
        if prefix and path != prefix and not path.startswith(prefix + "/"):
            continue
        upstream = entry.upstream
        return Route(
            upstream_name=upstream.name,
            base_url=entry.base_url,
            path=path[len(prefix) :] or "/",
            query=query,
            format=upstream.format,
            timeout_s=upstream.timeout_s,
            connect_timeout_s=upstream.connect_timeout_s,
            ssl_context=ssl_context_for(upstream.ca_file) if upstream.ca_file else None,
            mode="reverse",
        )
    return None


# -- forward and intercept modes: to the named host ----------------------------------------


def _forward_route(
    config: Config, scheme: str, host: str, port: int, path: str, query: str, mode: Mode
) -> Route:
    netloc = f"[{host}]" if ":" in host else host
    if port != _DEFAULT_PORTS[scheme]:
        netloc = f"{netloc}:{port}"
    known = _configured_upstream(config, scheme, host, port)
    settings = known or _FORWARD_DEFAULTS
    return Route(
        upstream_name=known.name if known else netloc,
        base_url=f"{scheme}://{netloc}",
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
