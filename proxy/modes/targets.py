"""CONNECT targets: parsing `CONNECT host:port`, and matching them against `intercept.hosts`.

Pure functions, no I/O; `proxy/modes/connect.py` uses them per CONNECT, `proxy/routing.py`
reads `InterceptTarget` from an intercepted connection (`INTERCEPT_EXTRA`).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase

from memtap.config.hostpatterns import intercept_pattern_error

__all__ = ["intercept_pattern_error"]

INTERCEPT_EXTRA = "memtap.intercept"
"""`transport.get_extra_info(INTERCEPT_EXTRA)` → the `InterceptTarget` of a decrypted CONNECT tunnel."""

_REQUEST_LINE = re.compile(rb"CONNECT ([^\s]+) HTTP/1\.[01]\Z")
_HOSTNAME = re.compile(
    r"(?=.{1,253}\Z)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?\Z"
)


@dataclass(frozen=True, slots=True)
class InterceptTarget:
    """Where an intercepted CONNECT tunnel was going: the real upstream for its requests."""

    host: str
    """Lowercase hostname or IP literal (IPv6 without brackets)."""
    port: int

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == 443 else f"{host}:{self.port}"

    @property
    def hostport(self) -> str:
        """host:port, port always given (a CONNECT's target as logged)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


class BadConnect(ValueError):
    """The CONNECT request line is malformed."""


def parse_connect_head(head: bytes) -> InterceptTarget:
    """Parse the request line of a CONNECT head (`CONNECT host:port HTTP/1.1`); headers are ignored."""
    line = head.split(b"\n", 1)[0].rstrip(b"\r")
    match = _REQUEST_LINE.match(line)
    if match is None:
        raise BadConnect("expected 'CONNECT host:port HTTP/1.1'")
    try:
        authority = match.group(1).decode("ascii")
    except UnicodeDecodeError as exc:
        raise BadConnect("non-ASCII CONNECT target") from exc
    return parse_authority(authority)


def parse_authority(authority: str) -> InterceptTarget:
    if authority.startswith("["):
        host, sep, port_text = authority[1:].partition("]:")
        if not sep:
            raise BadConnect("CONNECT target needs a port")
        try:
            ipaddress.IPv6Address(host)
        except ValueError as exc:
            raise BadConnect("bad IPv6 literal") from exc
    else:
        host, sep, port_text = authority.rpartition(":")
        if not sep or not host:
            raise BadConnect("CONNECT target needs host:port")
        if not _HOSTNAME.match(host):
            raise BadConnect("bad host name")
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise BadConnect("bad port")
    return InterceptTarget(host=host.lower().rstrip("."), port=int(port_text))


def host_matches(target: InterceptTarget, patterns: tuple[str, ...]) -> bool:
    """True if some pattern names the target: `host`, `host:port`, `[v6]:port`, wildcards (`*.x.com`)."""
    for pattern in patterns:
        pattern = pattern.strip().lower()
        port: int | None = None
        if pattern.startswith("["):
            host_pattern, _, rest = pattern[1:].partition("]")
            if rest.startswith(":") and rest[1:].isdigit():
                port = int(rest[1:])
        elif pattern.count(":") == 1:
            host_pattern, _, port_text = pattern.partition(":")
            if port_text.isdigit():
                port = int(port_text)
            elif port_text != "*":
                continue
        else:
            host_pattern = pattern
        if port is not None and port != target.port:
            continue
        if host_pattern == target.host or (
            "*" in host_pattern and fnmatchcase(target.host, host_pattern)
        ):
            return True
    return False
