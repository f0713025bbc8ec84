"""Validation of `intercept.hosts` entries (host, host:port, [v6]:port, `*` wildcards).

Lives in config/ so the YAML validator and the CONNECT matcher share one rule.
"""

from __future__ import annotations

import ipaddress
import re

_HOSTNAME = re.compile(
    r"(?=.{1,253}\Z)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?\Z"
)


def intercept_pattern_error(pattern: str) -> str | None:
    """None when `pattern` is a valid `intercept.hosts` entry, else what is wrong with it.

    Accepted: `host`, `host:port`, `[v6]`, `[v6]:port`, IPv4 literals, and `*` wildcards in
    the host (`*.openai.azure.com`). For the config validator: the same rules `host_matches` uses.
    """
    text = pattern.strip()
    if "/" in text or "@" in text:
        return "not a host name (write api.example.com or *.example.com, no scheme or path)"
    port_text: str | None = None
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep:
            return "unclosed [ in IPv6 address"
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return f"{host!r} is not an IPv6 address"
        if rest:
            if not rest.startswith(":"):
                return "expected [v6]:port"
            port_text = rest[1:]
    else:
        if text.count(":") > 1:
            return "IPv6 addresses must be in brackets, e.g. [::1]:443"
        host, sep, port_text_or_empty = text.partition(":")
        port_text = port_text_or_empty if sep else None
        if not host or not _HOSTNAME.match(host.replace("*", "x")):
            return "not a host name (write api.example.com or *.example.com, no scheme or path)"
    if port_text is None or port_text == "*":
        return None
    if not (port_text.isdigit() and 0 < int(port_text) < 65536):
        return "port must be a number from 1 to 65535 (or *)"
    return None
