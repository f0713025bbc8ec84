"""The CONNECT front: the protocol factory in front of aiohttp's HTTP server that gives memtap
a forward-proxy mode (aiohttp never routes `CONNECT` to handlers).

Every accepted connection starts with a `FirstLineSniffer` (`proxy/modes/sniffer.py`); plain
HTTP goes straight to aiohttp. For each CONNECT this front decides, from the live
`intercept` settings:

* a host in `intercept.hosts` → interception (`proxy/modes/intercept.py`);
* any other host → blind tunnel (`proxy/modes/tunnel.py`, `intercept.others: tunnel`) or
  `403` (`deny`); a malformed CONNECT → `400`.

Each CONNECT that is not intercepted (tunnel, deny, error) is reported once through
`on_done` as a `ConnectDone` (the access log writes it as `request.done`); an intercepted
one is not: each request inside it logs its own line.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from memtap.config.schema import InterceptConfig
from memtap.proxy.modes.access.connect_gate import deny_connect
from memtap.proxy.modes.access.gate import (
    AUTH_REQUIRED,
    ForwardAccess,
    proxy_authorization_in_head,
)
from memtap.proxy.modes.certs import LeafCertStore
from memtap.proxy.modes.connect_outcome import (
    ConnectDone,
    PendingConnect,
    target_text,
)
from memtap.proxy.modes.intercept import Interceptor
from memtap.proxy.modes.raw_answer import json_answer
from memtap.proxy.modes.sniffer import ConnectRequest, FirstLineSniffer
from memtap.proxy.modes.targets import (
    INTERCEPT_EXTRA,
    BadConnect,
    InterceptTarget,
    host_matches,
    parse_connect_head,
)
from memtap.proxy.modes.tunnel import BlindTunnels

__all__ = [
    "INTERCEPT_EXTRA",
    "ConnectDone",
    "FirstLineSniffer",
    "ForwardProxy",
    "InterceptTarget",
    "ProtocolFactory",
]

log = logging.getLogger("memtap.connect")

ProtocolFactory = Callable[[], asyncio.Protocol]
"""aiohttp's `web.Server` (its RequestHandler is a plain `asyncio.Protocol`)."""


class ForwardProxy:
    """Protocol factory for the listening socket: one `FirstLineSniffer` per connection.

    `http_factory` is aiohttp's protocol factory (`runner.server`, a `web.Server`);
    `intercept_config` returns the live `intercept` section (read per CONNECT, so reloads apply).
    `before_intercept` / `prepare_intercept`: see `Interceptor`.
    Call `close()` on shutdown: tunnels and handshakes in flight are not aiohttp's to close.
    """

    def __init__(
        self,
        http_factory: ProtocolFactory,
        intercept_config: Callable[[], InterceptConfig],
        certs: LeafCertStore,
        *,
        handshake_timeout_s: float = 10.0,
        connect_timeout_s: float = 10.0,
        first_bytes_timeout_s: float = 75.0,
        head_timeout: Callable[[], float] | None = None,
        write_timeout: Callable[[], float] | None = None,
        before_intercept: Callable[[], bool] | None = None,
        prepare_intercept: Callable[[], None] | None = None,
        on_done: Callable[[ConnectDone], None] | None = None,
        access: ForwardAccess | None = None,
    ) -> None:
        self.http_factory = http_factory
        self.access = access if access is not None else ForwardAccess()
        """Proxy auth and destination policy (proxy/modes/access/)."""
        self.intercept_config = intercept_config
        self.first_bytes_timeout_s = first_bytes_timeout_s
        """A connection that has not shown its first request line by then is closed (aiohttp's
        default keep-alive timeout is 75 s too)."""
        self._head_timeout = head_timeout
        self.on_done = on_done
        self.interceptor = Interceptor(
            certs, handshake_timeout_s, before_intercept, prepare_intercept
        )
        self.tunnels = BlindTunnels(
            connect_timeout_s, self.access, intercept_config, write_timeout
        )
        self._tasks: set[asyncio.Task[None]] = set()
        self.undecided: set[FirstLineSniffer] = set()
        """Connections that have not sent their first line yet: nobody else would close them."""

    @property
    def head_timeout_s(self) -> float:
        """How long a CONNECT head may take once its first byte arrived
        (`server.client.head_timeout_s`, read live)."""
        return self._head_timeout() if self._head_timeout is not None else 30.0

    def __call__(self) -> asyncio.Protocol:
        return FirstLineSniffer(self)

    async def close(self) -> None:
        for sniffer in list(self.undecided):
            if sniffer.transport is not None:
                sniffer.transport.close()
        for task in list(self._tasks):
            task.cancel()
        self.tunnels.close_all()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def start_connect(
        self, sniffer: FirstLineSniffer, head: bytes, rest: bytes
    ) -> None:
        task = asyncio.get_running_loop().create_task(
            self._handle_connect(sniffer, head, rest)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        sniffer.task = task

    async def _handle_connect(
        self, sniffer: FirstLineSniffer, head: bytes, rest: bytes
    ) -> None:
        transport = sniffer.transport
        assert transport is not None
        try:
            target = parse_connect_head(head)
        except BadConnect as exc:
            log.info(
                "connect.bad_request",
                extra={
                    "fields": {"error": str(exc), "line": head[:120].decode("latin-1")}
                },
            )
            transport.write(json_answer(400, "Bad Request", "bad_connect", str(exc)))
            transport.close()
            PendingConnect(target_text(head), self.on_done).done(
                "bad_request", 400, error=str(exc), error_kind="client"
            )
            return
        config = self.intercept_config()
        pending = PendingConnect(target.hostport, self.on_done)
        try:
            # access: proxy authentication (407) before anything else is decided.
            if not await self.access.authorized(
                config, proxy_authorization_in_head(head)
            ):
                return deny_connect(transport, target, pending, AUTH_REQUIRED)
            connect = ConnectRequest(sniffer, transport, target, rest, pending)
            if host_matches(target, config.hosts):
                await self.interceptor.intercept(connect)
            elif config.others == "tunnel":
                await self.tunnels.open(connect)
            else:
                log.info(
                    "connect.denied", extra={"fields": {"target": target.authority}}
                )
                message = f"CONNECT to {target.authority} is not allowed (intercept.others: deny)"
                transport.write(
                    json_answer(403, "Forbidden", "connect_denied", message)
                )
                transport.close()
                pending.done("denied", 403, error="connect_denied", error_kind="client")
        except asyncio.CancelledError:
            transport.abort()
            pending.done("error", None, error="cancelled", error_kind="client")
            raise
        except Exception as exc:
            log.error(
                "connect.error",
                extra={"fields": {"target": target.authority, "error": repr(exc)}},
                exc_info=exc,
            )
            transport.abort()
            pending.done("error", None, error=repr(exc)[:200], error_kind="proxy")
