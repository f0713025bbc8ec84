"""Interception of a CONNECT to a host in `intercept.hosts`: `200`, TLS terminated with a leaf
certificate for the host (`loop.start_tls`), and the decrypted transport handed to the same
aiohttp protocol, wrapped so handlers can ask where it goes:
`request.get_extra_info(INTERCEPT_EXTRA)` → `InterceptTarget` (read by `proxy/routing.py`).

An intercepted CONNECT is not reported as a `ConnectDone` once handed over: each request
inside it logs its own line. Every way out before the hand-over is reported once.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable

from memtap.proxy.modes.certs import LeafCertStore
from memtap.proxy.modes.connect_outcome import ESTABLISHED
from memtap.proxy.modes.raw_answer import json_answer
from memtap.proxy.modes.sniffer import ConnectRequest

log = logging.getLogger("memtap.connect")


class Interceptor:
    """Terminates TLS for intercepted CONNECTs.

    `prepare` is blocking set-up an intercepted tunnel needs (the onward SSL context reads CA
    files): run in a thread, only when `needs_prepare()` says so (a cheap check on the loop).
    """

    def __init__(
        self,
        certs: LeafCertStore,
        handshake_timeout_s: float,
        needs_prepare: Callable[[], bool] | None = None,
        prepare: Callable[[], None] | None = None,
    ) -> None:
        self.certs = certs
        self.handshake_timeout_s = handshake_timeout_s
        self.needs_prepare = needs_prepare
        self.prepare = prepare

    async def intercept(self, connect: ConnectRequest) -> None:
        pending = connect.pending
        await self._terminate_tls(connect)
        # A return before the hand-over that did not report already: the client went away
        # (or the connection was closed) before requests could flow. An exception is not
        # the client's doing: the CONNECT handler reports it as memtap's (`proxy`).
        pending.done(
            "tls_failed",
            200 if pending.established is not None else None,
            error="connection closed before the hand-over",
            error_kind="client",
        )

    async def _terminate_tls(self, connect: ConnectRequest) -> None:
        sniffer, transport, target = connect.sniffer, connect.transport, connect.target
        pending = connect.pending
        if connect.rest:
            # The client spoke before our 200: those bytes cannot be fed into start_tls.
            transport.write(
                json_answer(
                    400,
                    "Bad Request",
                    "bad_connect",
                    "data sent before 200 Connection Established",
                )
            )
            transport.close()
            pending.done(
                "bad_request", 400, error="data before 200", error_kind="client"
            )
            return
        server_ctx = await self.certs.context_for(target.host)
        if self.prepare is not None and (
            self.needs_prepare is None or self.needs_prepare()
        ):
            await asyncio.to_thread(self.prepare)
        if sniffer.closed:
            return
        if sniffer.buffer:  # same as `rest`: bytes that raced pause_reading
            transport.close()
            pending.done(
                "bad_request", None, error="data before 200", error_kind="client"
            )
            return
        transport.write(ESTABLISHED)
        pending.mark_established()
        sniffer.expect_tls()
        loop = asyncio.get_running_loop()
        try:
            tls_transport = await loop.start_tls(
                transport,
                sniffer,
                server_ctx,
                server_side=True,
                ssl_handshake_timeout=self.handshake_timeout_s,
            )
        except (
            TimeoutError,
            OSError,
            ssl.SSLError,
            ConnectionError,
            RuntimeError,
        ) as exc:
            # Typical: the client does not trust memtap's CA, or dropped mid-handshake.
            log.info(
                "connect.tls_failed",
                extra={"fields": {"target": target.authority, "error": repr(exc)}},
            )
            transport.abort()
            pending.done("tls_failed", 200, error=repr(exc)[:200], error_kind="client")
            return
        if tls_transport is None or sniffer.closed:
            return
        log.debug("connect.intercepted", extra={"fields": {"target": target.authority}})
        pending.on_done = None  # from here on, each request inside logs its own line
        sniffer.hand_over(tls_transport, target)
