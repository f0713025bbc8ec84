"""Forward mode must not hand a remote client this host's loopback services.

Why: memtap's admin API trusts loopback callers when no `admin.token` is set, and other local
services often do too. Through a blind `CONNECT 127.0.0.1:8080` tunnel, or an absolute-URI
request to `http://127.0.0.1:<admin port>/...`, a client on another machine would arrive at
them *from* 127.0.0.1. So a client that is not itself on loopback may not reach a target that
is (or resolves to) a loopback or unspecified address; a loopback client could reach it
directly anyway. Targets in `intercept.hosts` are the operator's choice and are not refused.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

LOCAL_NAMES = ("localhost", "localhost.", "ip6-localhost", "ip6-loopback")


def is_loopback_ip(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


def peer_is_loopback(peername: object) -> bool:
    """Whether a transport's `peername` is a loopback address (unix sockets count as local)."""
    if isinstance(peername, tuple) and peername:
        return is_loopback_ip(str(peername[0]))
    return isinstance(peername, str | bytes)  # AF_UNIX: same host


async def resolve(host: str, port: int) -> list[str]:
    """The addresses `host` stands for (an IP literal is its own)."""
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare.split("%", 1)[0])
        return [bare]
    except ValueError:
        pass
    infos = await asyncio.get_running_loop().getaddrinfo(
        bare, port, type=socket.SOCK_STREAM
    )
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def refused(host: str, addresses: list[str]) -> bool:
    """Whether a remote client's request for `host` (resolved to `addresses`) is refused."""
    name = host.strip("[]").lower()
    if name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    return any(is_loopback_ip(a) for a in addresses)
