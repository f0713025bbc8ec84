"""The blind tunnel: a CONNECT to a host memtap does not intercept (`intercept.others:
tunnel`) is relayed byte for byte to that host (`proxy/modes/relay.py`), never decrypted.

Where a client from another machine may tunnel is the destination policy's
(`proxy/modes/access/`); the addresses checked are the ones connected to.
Each tunnel is reported once, when its first side goes (`ConnectDone`, outcome `tunnel`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from memtap.config.schema import InterceptConfig
from memtap.proxy.modes.access.connect_gate import deny_connect, tunnel_refusal
from memtap.proxy.modes.access.gate import ForwardAccess
from memtap.proxy.modes.connect_outcome import ESTABLISHED, PendingConnect
from memtap.proxy.modes.loopback_guard import resolve
from memtap.proxy.modes.raw_answer import json_answer
from memtap.proxy.modes.relay import Tunnel, TunnelSide
from memtap.proxy.modes.sniffer import ConnectRequest

log = logging.getLogger("memtap.connect")


async def _connect_first(
    loop: asyncio.AbstractEventLoop,
    factory: Callable[[], asyncio.Protocol],
    addresses: list[str],
    port: int,
) -> None:
    """Connect to the first of `addresses` that answers (the last error if none does)."""
    failure: OSError = OSError(f"no address to connect to on port {port}")
    for address in addresses:
        try:
            await loop.create_connection(factory, address, port)
            return
        except OSError as exc:
            failure = exc
    raise failure


class BlindTunnels:
    """Opens blind tunnels and keeps the established ones until they end (or `close_all`)."""

    def __init__(
        self,
        connect_timeout_s: float,
        access: ForwardAccess,
        intercept_config: Callable[[], InterceptConfig],
        write_timeout: Callable[[], float] | None = None,
    ) -> None:
        self.connect_timeout_s = connect_timeout_s
        self.write_timeout = write_timeout
        """`server.client.write_timeout_s`, read live: a client that stops reading a tunnel's
        bytes for longer is dropped (`error_kind: client`)."""
        self.access = access
        self.intercept_config = intercept_config
        self._open: dict[Tunnel, tuple[PendingConnect, TunnelSide, TunnelSide]] = {}
        """Established tunnels: their report, client side and upstream side."""

    def close_all(self) -> None:
        for tunnel in list(self._open):
            tunnel.close()

    async def open(self, connect: ConnectRequest) -> None:
        sniffer, transport, target = connect.sniffer, connect.transport, connect.target
        pending = connect.pending
        loop = asyncio.get_running_loop()
        tunnel = Tunnel()
        upstream_side = TunnelSide(tunnel, self._lost)
        try:
            async with asyncio.timeout(self.connect_timeout_s):
                addresses = await resolve(target.host, target.port)
                # access: the destination policy, on the addresses connected to below.
                denied = tunnel_refusal(
                    self.access, self.intercept_config(), transport, target, addresses
                )
                if denied is not None:
                    return deny_connect(transport, target, pending, denied)
                # The addresses just checked, not the name again (it could resolve anew).
                await _connect_first(
                    loop, lambda: upstream_side, addresses, target.port
                )
        except (TimeoutError, OSError) as exc:
            log.info(
                "connect.upstream_unreachable",
                extra={"fields": {"target": target.authority, "error": repr(exc)}},
            )
            message = f"cannot connect to {target.authority}: {exc.__class__.__name__}"
            transport.write(
                json_answer(502, "Bad Gateway", "upstream_unreachable", message)
            )
            transport.close()
            pending.done(
                "unreachable", 502, error=repr(exc)[:200], error_kind="upstream"
            )
            return
        client_side = TunnelSide(
            tunnel,
            self._lost,
            self.write_timeout() if self.write_timeout is not None else None,
        )
        transport.set_protocol(client_side)
        client_side.connection_made(transport)
        if transport.is_closing():  # the client left while we were connecting
            tunnel.close()
            pending.done("tunnel", None, error="client gone", error_kind="client")
            return
        if (
            upstream_side.transport is None
        ):  # the upstream hung up before we could relay
            transport.close()
            pending.done("tunnel", None, error="upstream closed", error_kind="upstream")
            return
        self._open[tunnel] = (pending, client_side, upstream_side)
        transport.write(ESTABLISHED)
        pending.mark_established()
        # Bytes that raced pause_reading, if any.
        client_side.early = connect.rest + sniffer.buffer
        sniffer.buffer = b""
        client_side.received += len(client_side.early)
        client_side.attach(upstream_side)
        upstream_side.attach(client_side)
        transport.resume_reading()
        log.debug("connect.tunnel", extra={"fields": {"target": target.authority}})

    def _lost(self, tunnel: Tunnel) -> None:
        # The first side to go closes the other; the tunnel is over.
        entry = self._open.pop(tunnel, None)
        if entry is not None:
            pending, client_side, upstream_side = entry
            stalled = (
                f"client did not read for {client_side.write_timeout_s:g}s "
                "(server.client.write_timeout_s)"
                if client_side.stalled
                else None
            )
            pending.done(
                "tunnel",
                200,
                bytes_in=client_side.received,
                bytes_out=upstream_side.received,
                error=stalled,
                error_kind="client" if stalled else None,
            )
