"""Which forward-proxy destinations a client that is not on this host may reach.

Why: a forward proxy reachable from other machines would otherwise hand them this host's
network position: its loopback services (memtap's admin API trusts loopback callers), the
private networks it sits in, and the cloud metadata service (169.254.169.254). So, for a
client that is not on this host (does not connect from a loopback address):

* `private_networks: deny` (default): every address that is not public unicast is refused:
  private (10/8, 172.16/12, 192.168/16), shared (100.64/10), loopback, link-local
  (169.254/16, fe80::/10), unique-local (fc00::/7), unspecified, documentation and reserved
  ranges; an IPv4-mapped or NAT64 address counts as the IPv4 address inside it.
* `private_networks: allow`: only loopback and unspecified addresses are refused (the rule
  memtap always had, `proxy/modes/loopback_guard.py`).
* `intercept.allow` lists destinations reachable anyway: host patterns (matched on the name
  the client asked for) or IP networks (matched on each address). Hosts in `intercept.hosts`
  are the operator's choice too and never refused.

The check runs on the addresses the caller will connect to (resolved once, by the caller):
a name that resolves anew between check and connect cannot slip through.

Pure functions over the live `intercept` section; cheap enough to run per CONNECT.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from functools import lru_cache

from memtap.config.schema import InterceptConfig
from memtap.proxy.modes.loopback_guard import LOCAL_NAMES, peer_is_loopback
from memtap.proxy.modes.targets import InterceptTarget, host_matches

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")

__all__ = ["Refusal", "address_category", "client_on_this_host", "destination_refusal"]


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a destination is refused: `category` of the address (or name), and which address."""

    category: str
    """loopback | private | link-local | unique-local | non-public"""
    address: str

    @property
    def message(self) -> str:
        return (
            f"{self.address} is a {self.category} address; the forward proxy does not reach "
            "it for clients on other hosts (intercept.private_networks, intercept.allow)"
        )


def client_on_this_host(peername: object) -> bool:
    """A client connecting from a loopback address (or a unix socket) is on this host."""
    return peer_is_loopback(peername)


def _plain(address: IPAddress) -> IPAddress:
    """The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address (routed to it)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def address_category(address: IPAddress) -> str | None:
    """The category that makes `address` non-public, or None for a public unicast address."""
    address = _plain(address)
    if address.is_loopback or address.is_unspecified:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if isinstance(address, ipaddress.IPv6Address) and address in _UNIQUE_LOCAL:
        return "unique-local"
    if address.is_private:
        return "private"
    if not address.is_global or address.is_multicast:
        return "non-public"  # shared 100.64/10, reserved, multicast
    return None


_UNIQUE_LOCAL = ipaddress.IPv6Network("fc00::/7")


@dataclass(frozen=True, slots=True)
class _AllowList:
    patterns: tuple[str, ...]
    networks: tuple[IPNetwork, ...]


@lru_cache(maxsize=8)
def _allow_list(entries: tuple[str, ...]) -> _AllowList:
    patterns: list[str] = []
    networks: list[IPNetwork] = []
    for entry in entries:
        text = entry.strip()
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            patterns.append(text)  # validated by config/validate.py
    return _AllowList(tuple(patterns), tuple(networks))


def _parse(address: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None


def destination_refusal(
    config: InterceptConfig, host: str, port: int, addresses: list[str]
) -> Refusal | None:
    """Whether a client on another host may reach `host:port`, resolved to `addresses`
    (the ones that will be connected to). None: allowed. Callers skip this for clients on
    this host (`client_on_this_host`)."""
    target = InterceptTarget(host=host.strip("[]").lower().rstrip("."), port=port)
    allow = _allow_list(config.allow)
    if host_matches(target, allow.patterns) or host_matches(target, config.hosts):
        return None
    if target.host in LOCAL_NAMES or target.host.endswith(".localhost"):
        return Refusal("loopback", target.host)
    deny_private = config.private_networks == "deny"
    for text in addresses:
        address = _parse(text)
        if address is None:
            return Refusal("non-public", text)  # not an address: never connect to it
        category = address_category(address)
        if category is None or (category != "loopback" and not deny_private):
            continue
        if any(
            _plain(address) in network or address in network
            for network in allow.networks
        ):
            continue
        return Refusal(category, text)
    return None
