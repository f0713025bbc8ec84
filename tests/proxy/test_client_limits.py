"""ConnectionLimiter on its own: caps in all and per address, 0 = no limit, closed
connections forgotten by `purge()` and, at a cap, at once."""

from __future__ import annotations

from dataclasses import dataclass

from memtap.proxy.client_side.limits import Caps, ConnectionLimiter, peer_address


@dataclass(eq=False)
class Transport:
    """Just what the limiter reads of an asyncio transport."""

    peer: object
    closing: bool = False

    def get_extra_info(self, name: str) -> object:
        return self.peer if name == "peername" else None

    def is_closing(self) -> bool:
        return self.closing


def test_caps() -> None:
    limiter = ConnectionLimiter()
    caps = Caps(total=3, per_address=2)
    a1, a2, a3 = (Transport(("10.0.0.1", p)) for p in (1, 2, 3))
    b1, b2 = Transport(("10.0.0.2", 1)), Transport(("10.0.0.2", 2))
    assert limiter.admit(a1, caps) is None and limiter.admit(a2, caps) is None  # type: ignore[arg-type]
    assert limiter.admit(a3, caps) == "per_address"  # type: ignore[arg-type]
    assert limiter.admit(b1, caps) is None  # type: ignore[arg-type]
    assert limiter.admit(b2, caps) == "total"  # type: ignore[arg-type]
    assert limiter.open_connections == 3
    a1.closing = True  # forgotten at once when a cap is reached
    assert limiter.admit(a3, caps) is None  # type: ignore[arg-type]
    b1.closing = a2.closing = a3.closing = True
    limiter.purge()
    assert limiter.open_connections == 0


def test_zero_means_no_limit_and_addresses() -> None:
    limiter = ConnectionLimiter()
    for port in range(50):
        assert limiter.admit(Transport(("::1", port, 0, 0)), Caps(0, 0)) is None  # type: ignore[arg-type]
    assert limiter.open_connections == 50
    assert peer_address(Transport(("::1", 5, 0, 0))) == "::1"  # type: ignore[arg-type]
    assert peer_address(Transport("/tmp/sock")) == "local"  # type: ignore[arg-type]
