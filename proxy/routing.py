"""Where a request goes. Reverse mode resolves by path prefix; forward and intercept modes
by the absolute URI or the CONNECT target. Every mode produces the same `Route`."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import Literal

from memtap.config.schema import ApiFormat

Mode = Literal["reverse", "forward", "intercept"]


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
