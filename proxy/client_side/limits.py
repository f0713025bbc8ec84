"""How many client connections one listener holds, in all and per client address.

`ConnectionLimiter.admit(transport)` is asked once per accepted connection, before any
protocol sees it. A connection counts until its transport is closing, whoever owns it by then
(aiohttp's protocol, a blind tunnel, a TLS interception): the limiter keeps the transports
and forgets the closing ones when `purge()` runs (the listener's sweep, about once a second)
or when a cap is reached (so a client that closes and reopens is not refused by stale counts).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Caps:
    total: int
    """0 = no limit."""
    per_address: int
    """0 = no limit."""


def peer_address(transport: asyncio.BaseTransport) -> str:
    """The client's IP (no port); "local" for a unix socket or an unknown peer."""
    peername = transport.get_extra_info("peername")
    if isinstance(peername, tuple) and peername:
        return str(peername[0])
    return "local"


class ConnectionLimiter:
    __slots__ = ("_by_address", "_count")

    def __init__(self) -> None:
        self._by_address: dict[str, set[asyncio.BaseTransport]] = {}
        self._count = 0

    @property
    def open_connections(self) -> int:
        return self._count

    def admit(self, transport: asyncio.BaseTransport, caps: Caps) -> str | None:
        """Count `transport` in, or say which cap refuses it ("total" | "per_address")."""
        address = peer_address(transport)
        held = self._by_address.get(address)
        if caps.total and self._count >= caps.total:
            self.purge()
            held = self._by_address.get(address)
            if self._count >= caps.total:
                return "total"
        if caps.per_address and held is not None and len(held) >= caps.per_address:
            self._purge_address(address, held)
            held = self._by_address.get(address)
            if held is not None and len(held) >= caps.per_address:
                return "per_address"
        if held is None:
            held = self._by_address[address] = set()
        held.add(transport)
        self._count += 1
        return None

    def purge(self) -> None:
        """Forget the connections that are closed or closing."""
        for address, held in list(self._by_address.items()):
            self._purge_address(address, held)

    def _purge_address(self, address: str, held: set[asyncio.BaseTransport]) -> None:
        gone = [t for t in held if t.is_closing()]
        if gone:
            held.difference_update(gone)
            self._count -= len(gone)
        if not held:
            del self._by_address[address]
