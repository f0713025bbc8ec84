"""The forward proxy's door: `ForwardAccess` answers "may this client use the proxy?" and
"may it go there?" for both ways in (a CONNECT, an absolute-URI request).

One `ForwardAccess` lives in the application under `FORWARD_ACCESS` (its authenticator
holds caches); each call reads
the live `intercept` section, so a reload applies to the next request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from aiohttp import web

from memtap.config.schema import InterceptConfig
from memtap.proxy.modes.access.destinations import (
    Refusal,
    client_on_this_host,
    destination_refusal,
)
from memtap.proxy.modes.access.proxy_auth import REALM_HEADER, ProxyAuthenticator
from memtap.proxy.modes.raw_answer import json_answer

_PROXY_AUTHORIZATION = re.compile(
    rb"^proxy-authorization[ \t]*:[ \t]*([^\r\n]*)", re.IGNORECASE | re.MULTILINE
)


@dataclass(frozen=True, slots=True)
class Denied:
    """How memtap answers a forward request it does not carry out."""

    status: int
    code: str
    message: str
    error: str
    """The `request.done` error field (no secret in it)."""
    headers: dict[str, str] = field(default_factory=dict)


AUTH_REQUIRED = Denied(
    status=407,
    code="proxy_auth_required",
    message="this proxy needs Proxy-Authorization: Basic (intercept.proxy_auth)",
    error="proxy authentication required",
    headers={"Proxy-Authenticate": REALM_HEADER},
)


def refused_destination(refusal: Refusal, code: str) -> Denied:
    return Denied(
        status=403,
        code=code,
        message=refusal.message,
        error=f"{refusal.category} target",
    )


_REASONS = {403: "Forbidden", 407: "Proxy Authentication Required"}


def denied_response(denied: Denied) -> bytes:
    """`denied` as a whole raw HTTP/1.1 response that closes the connection (for CONNECT)."""
    return json_answer(
        denied.status,
        _REASONS.get(denied.status, "Error"),
        denied.code,
        denied.message,
        denied.headers,
    )


def proxy_authorization_in_head(head: bytes) -> str | None:
    """The Proxy-Authorization value of a raw request head (a CONNECT's), if any."""
    match = _PROXY_AUTHORIZATION.search(head)
    return match.group(1).strip().decode("latin-1") if match else None


class ForwardAccess:
    """Proxy authentication and the destination policy, for every forward request."""

    __slots__ = ("authenticator",)

    def __init__(self) -> None:
        self.authenticator = ProxyAuthenticator()

    async def authorized(self, config: InterceptConfig, header: str | None) -> bool:
        """True when no `proxy_auth` is set, or `header` carries accepted credentials."""
        if config.proxy_auth is None:
            return True
        return await self.authenticator.check(config.proxy_auth, header)

    def refusal(
        self,
        config: InterceptConfig,
        peername: object,
        host: str,
        port: int,
        addresses: list[str],
    ) -> Refusal | None:
        """Why a client at `peername` may not reach `host:port` at `addresses` (None: it may)."""
        if client_on_this_host(peername):
            return None
        return destination_refusal(config, host, port, addresses)

    def checks_destinations(self, peername: object) -> bool:
        """Whether destinations are checked for this client (they are not for this host's)."""
        return not client_on_this_host(peername)


FORWARD_ACCESS = web.AppKey("forward_access", ForwardAccess)
"""The application's `ForwardAccess` (set by `proxy/server.py`'s `build_app`)."""
