"""The first protocol of every accepted connection: it reads the first bytes only, decides
who serves the connection, then steps aside.

* anything but `CONNECT ` → the connection is handed to aiohttp's protocol with the bytes
  already read (`transport.set_protocol`; no copying after that: this is the normal
  reverse-mode path and must stay as cheap as possible);
* a whole `CONNECT` head → reading pauses and the front (`proxy/modes/connect.py`) decides
  what the CONNECT gets; bytes that race the pause are kept in `buffer`, in order.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, cast

from memtap.proxy.modes.connect_outcome import (
    CONNECT,
    ConnectDone,
    PendingConnect,
    target_text,
)
from memtap.proxy.modes.raw_answer import json_answer
from memtap.proxy.modes.relay import InterceptedTransport
from memtap.proxy.modes.targets import InterceptTarget

_MAX_HEAD = 16 * 1024
_HEAD_END = re.compile(rb"\r?\n\r?\n")

_SNIFF = 0
_BUSY = 1
_TLS = 2
_DONE = 3


class SnifferFront(Protocol):
    """What a sniffer needs from the front that made it (`ForwardProxy`)."""

    @property
    def first_bytes_timeout_s(self) -> float: ...

    @property
    def head_timeout_s(self) -> float: ...

    @property
    def undecided(self) -> set[FirstLineSniffer]: ...

    @property
    def on_done(self) -> Callable[[ConnectDone], None] | None: ...

    def http_factory(self) -> asyncio.Protocol: ...

    def start_connect(
        self, sniffer: FirstLineSniffer, head: bytes, rest: bytes
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class ConnectRequest:
    """One CONNECT on its way to interception or a blind tunnel."""

    sniffer: FirstLineSniffer
    transport: asyncio.Transport
    """The client connection, reading paused."""
    target: InterceptTarget
    rest: bytes
    """Bytes the client sent after the CONNECT head (before memtap's 200)."""
    pending: PendingConnect


class FirstLineSniffer(asyncio.Protocol):
    """Decides, from the first bytes of a connection, who serves it; then steps aside."""

    __slots__ = ("buffer", "closed", "front", "idle", "state", "task", "transport")

    def __init__(self, front: SnifferFront) -> None:
        self.front = front
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.state = _SNIFF
        self.closed = False
        self.task: asyncio.Task[None] | None = None
        self.idle: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses: duck-typed, hence the cast.
        self.transport = cast(asyncio.Transport, transport)
        self.front.undecided.add(self)
        # aiohttp closes a connection that never sends a request; until it owns this one, we do.
        self.idle = asyncio.get_running_loop().call_later(
            self.front.first_bytes_timeout_s, self._idle_timeout
        )

    def _idle_timeout(self) -> None:
        if self.state == _SNIFF and self.transport is not None:
            self.state = _DONE
            self.transport.close()

    def _rearm(self, delay_s: float, callback: Callable[[], None]) -> None:
        if self.idle is not None:
            self.idle.cancel()
        self.idle = asyncio.get_running_loop().call_later(delay_s, callback)

    def _head_timeout(self) -> None:
        if self.state != _SNIFF or self.transport is None:
            return
        limit = self.front.head_timeout_s
        message = f"CONNECT head not complete within {limit:g}s (server.client.head_timeout_s)"
        self.transport.write(
            json_answer(408, "Request Timeout", "head_timeout", message)
        )
        self.transport.close()
        self.state = _DONE
        self._decided()
        PendingConnect(target_text(self.buffer), self.front.on_done).done(
            "bad_request", 408, error=message, error_kind="client"
        )

    def _decided(self) -> None:
        self.front.undecided.discard(self)
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None

    def data_received(self, data: bytes) -> None:
        if self.state != _SNIFF:
            # _BUSY: bytes that raced our pause_reading; _TLS: decrypted bytes that arrived
            # between the end of the handshake and hand_over. Both are replayed in order.
            self.buffer += data
            return
        buf = self.buffer + data if self.buffer else data
        if not buf.startswith(CONNECT[: len(buf)]):
            self.buffer = b""
            self._to_http(buf)
            return
        if len(buf) < len(CONNECT):
            self.buffer = buf
            return
        end = _HEAD_END.search(buf)
        if end is None:
            if len(buf) > _MAX_HEAD:
                self._head_too_large(buf)
            else:
                if not self.buffer:
                    # A CONNECT head has begun: it gets the head timeout, not the idle one.
                    self._rearm(self.front.head_timeout_s, self._head_timeout)
                self.buffer = buf
            return
        self.buffer = b""
        self.state = _BUSY
        self._decided()
        assert self.transport is not None
        self.transport.pause_reading()
        self.front.start_connect(self, buf[: end.start()], buf[end.end() :])

    def _head_too_large(self, buf: bytes) -> None:
        assert self.transport is not None
        self.transport.write(
            json_answer(
                431,
                "Request Header Fields Too Large",
                "bad_connect",
                "CONNECT head too large",
            )
        )
        self.transport.close()
        self.state = _DONE
        PendingConnect(target_text(buf), self.front.on_done).done(
            "bad_request", 431, error="CONNECT head too large", error_kind="client"
        )

    def _to_http(self, first: bytes) -> None:
        transport = self.transport
        assert transport is not None
        self.state = _DONE
        self._decided()
        protocol = self.front.http_factory()
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        protocol.data_received(first)

    def expect_tls(self) -> None:
        """The TLS handshake starts: decrypted bytes arriving before `hand_over` are kept."""
        self.state = _TLS

    def hand_over(
        self, tls_transport: asyncio.Transport, target: InterceptTarget
    ) -> None:
        """Serve the decrypted stream with aiohttp, replaying what arrived before this call."""
        self.state = _DONE
        protocol = self.front.http_factory()
        wrapped = InterceptedTransport(tls_transport, target)
        tls_transport.set_protocol(protocol)
        protocol.connection_made(wrapped)
        pending, self.buffer = self.buffer, b""
        if pending:
            protocol.data_received(pending)

    def eof_received(self) -> bool | None:
        return None  # close: a half-closed client has nothing left for us

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.transport = None
        self._decided()
        # A CONNECT still being decided (cert, upstream connect) is for nobody now. During the
        # TLS handshake start_tls itself fails, so the task ends on its own.
        if self.task is not None and self.state == _BUSY:
            self.task.cancel()
