"""Transport plumbing of CONNECT tunnels: the blind relay (`Tunnel`) for hosts memtap does
not intercept, and `InterceptedTransport`, which tells handlers where a decrypted tunnel goes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, cast

from memtap.proxy.modes.targets import INTERCEPT_EXTRA, InterceptTarget


class InterceptedTransport(asyncio.Transport):
    """The TLS transport of an intercepted tunnel, plus `INTERCEPT_EXTRA` in its extra info.

    A thin delegate: aiohttp's protocol writes through it; reads never pass through it (the
    TLS transport calls aiohttp's protocol directly).
    """

    __slots__ = ("_inner", "target")

    def __init__(self, inner: asyncio.Transport, target: InterceptTarget) -> None:
        super().__init__()
        self._inner = inner
        self.target = target

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        if name == INTERCEPT_EXTRA:
            return self.target
        return self._inner.get_extra_info(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._inner.write(data)

    def writelines(self, list_of_data: Any) -> None:
        self._inner.writelines(list_of_data)

    def write_eof(self) -> None:
        self._inner.write_eof()

    def can_write_eof(self) -> bool:
        return self._inner.can_write_eof()

    def is_closing(self) -> bool:
        return self._inner.is_closing()

    def close(self) -> None:
        self._inner.close()

    def abort(self) -> None:
        self._inner.abort()

    def is_reading(self) -> bool:
        return self._inner.is_reading()

    def pause_reading(self) -> None:
        self._inner.pause_reading()

    def resume_reading(self) -> None:
        self._inner.resume_reading()

    def set_write_buffer_limits(
        self, high: int | None = None, low: int | None = None
    ) -> None:
        self._inner.set_write_buffer_limits(high, low)

    def get_write_buffer_size(self) -> int:
        return self._inner.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._inner.get_write_buffer_limits()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._inner.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._inner.get_protocol()


class Tunnel:
    """A blind relay between two transports with flow control and half-close."""

    __slots__ = ("eofs", "sides")

    def __init__(self) -> None:
        self.sides: list[TunnelSide] = []
        self.eofs = 0

    def close(self) -> None:
        for side in self.sides:
            if side.transport is not None:
                side.transport.close()


class TunnelSide(asyncio.Protocol):
    """One end of a `Tunnel`: what it reads is written to the other end's transport."""

    __slots__ = (
        "_stall_timer",
        "early",
        "on_lost",
        "peer",
        "received",
        "stalled",
        "transport",
        "tunnel",
        "write_timeout_s",
    )

    def __init__(
        self,
        tunnel: Tunnel,
        on_lost: Callable[[Tunnel], None] | None = None,
        write_timeout_s: float | None = None,
    ) -> None:
        self.tunnel = tunnel
        self.transport: asyncio.Transport | None = None
        self.peer: TunnelSide | None = None
        self.on_lost = on_lost
        self.early = b""
        """Bytes that arrived before the other side was attached (server-speaks-first protocols)."""
        self.received = 0
        self.write_timeout_s = write_timeout_s
        """How long this side's peer may leave our writes blocked (not reading) before the
        tunnel is dropped; None: no limit (TCP's own)."""
        self.stalled = False
        """The tunnel was dropped because this side did not read."""
        self._stall_timer: asyncio.TimerHandle | None = None
        tunnel.sides.append(self)

    def attach(self, peer: TunnelSide) -> None:
        self.peer = peer
        if self.early and peer.transport is not None:
            peer.transport.write(self.early)
        self.early = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses: duck-typed, hence the cast.
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.write(data)
        elif self.peer is None:
            self.early += data

    def eof_received(self) -> bool:
        peer = self.peer.transport if self.peer is not None else None
        self.tunnel.eofs += 1
        if peer is None or self.tunnel.eofs >= 2 or not peer.can_write_eof():
            self.tunnel.close()
            return False
        peer.write_eof()
        return True  # keep our write side open: the peer may still answer (half-close)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_stall_timer()
        self.transport = None
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.close()
        if self.on_lost is not None:
            self.on_lost(self.tunnel)

    def pause_writing(self) -> None:
        # Our outgoing buffer is full: stop reading what would be written into it.
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.pause_reading()
        if self.write_timeout_s is not None and self._stall_timer is None:
            self._stall_timer = asyncio.get_running_loop().call_later(
                self.write_timeout_s, self._stalled_too_long
            )

    def resume_writing(self) -> None:
        self._cancel_stall_timer()
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.resume_reading()

    def _stalled_too_long(self) -> None:
        self._stall_timer = None
        self.stalled = True
        self.tunnel.close()

    def _cancel_stall_timer(self) -> None:
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
