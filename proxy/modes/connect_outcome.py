"""How a CONNECT ends: the answers memtap writes on the raw connection and the one report
(`ConnectDone`) of each CONNECT that is not intercepted (tunnel, deny, error).

Shared by the sniffer, the CONNECT front and the blind tunnel; no I/O beyond building bytes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

CONNECT = b"CONNECT "
ESTABLISHED = b"HTTP/1.1 200 Connection Established\r\n\r\n"


def target_text(head: bytes) -> str:
    """The target as the client wrote it on a CONNECT line memtap could not use (for logs)."""
    first = head.split(b"\n", 1)[0][len(CONNECT) :]
    return first.split(b" ", 1)[0][:200].decode("latin-1").strip()


@dataclass(frozen=True, slots=True)
class ConnectDone:
    """How one CONNECT that memtap did not intercept ended."""

    target: str
    """host:port as the client asked."""
    outcome: str
    """tunnel | denied | bad_request | unreachable | tls_failed | error"""
    status: int | None
    """What memtap answered (200 once a tunnel was established); None: no answer."""
    duration_ms: float
    established_ms: float | None
    """When the client got `200 Connection Established` (a blind tunnel's time to ready)."""
    bytes_in: int = 0
    """Client → upstream bytes relayed."""
    bytes_out: int = 0
    """Upstream → client bytes relayed."""
    error: str | None = None
    error_kind: str | None = None
    """upstream | client | proxy, as for `request.done` lines of other requests."""


class PendingConnect:
    """The clock and the report of one CONNECT on its way to a `ConnectDone`."""

    __slots__ = ("established", "on_done", "started", "target")

    def __init__(
        self, target: str, on_done: Callable[[ConnectDone], None] | None
    ) -> None:
        self.target = target
        self.on_done = on_done
        self.started = time.perf_counter()
        self.established: float | None = None

    def mark_established(self) -> None:
        self.established = (time.perf_counter() - self.started) * 1000

    def done(
        self,
        outcome: str,
        status: int | None,
        *,
        error: str | None = None,
        error_kind: str | None = None,
        bytes_in: int = 0,
        bytes_out: int = 0,
    ) -> None:
        on_done, self.on_done = self.on_done, None  # at most once
        if on_done is None:
            return
        on_done(
            ConnectDone(
                target=self.target,
                outcome=outcome,
                status=status,
                duration_ms=(time.perf_counter() - self.started) * 1000,
                established_ms=self.established,
                bytes_in=bytes_in,
                bytes_out=bytes_out,
                error=error,
                error_kind=error_kind,
            )
        )
