"""The forward-proxy front of a memtap listener, wired to the live configuration.

Connection-level only: CONNECT handling itself is `proxy/modes/connect.py`; where the
requests of an intercepted tunnel or an absolute-URI request go is `proxy/routing.py`.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable

from memtap.config.schema import Config
from memtap.proxy.modes.access.gate import ForwardAccess
from memtap.proxy.modes.certs import LeafCertStore
from memtap.proxy.modes.connect import ConnectDone, ForwardProxy, ProtocolFactory
from memtap.proxy.tls import ssl_context_for


def forward_front(
    http_factory: ProtocolFactory,
    current_config: Callable[[], Config],
    on_done: Callable[[ConnectDone], None] | None = None,
    access: ForwardAccess | None = None,
) -> ForwardProxy:
    """The forward-proxy front for a memtap listener: live `intercept` settings, leaf
    certificates under the configured `data_dir` (the CA is created on the first intercept),
    and the onward SSL context built off the event loop before the first request needs it."""
    certs = LeafCertStore(current_config().data_dir)
    warmed: set[str] = set()

    def needs_warm_up() -> bool:
        ca_file = current_config().intercept.upstream_ca_file
        return ca_file is not None and ca_file not in warmed

    def warm_up() -> None:
        ca_file = current_config().intercept.upstream_ca_file
        if ca_file is not None:
            try:
                ssl_context_for(ca_file)  # lru-cached: the request path finds it ready
            except (OSError, ssl.SSLError):
                return  # the request path raises it where it can become a 502
            warmed.add(ca_file)

    return ForwardProxy(
        http_factory,
        lambda: current_config().intercept,
        certs,
        before_intercept=needs_warm_up,
        prepare_intercept=warm_up,
        on_done=on_done,
        access=access,
        head_timeout=lambda: current_config().server.client.head_timeout_s,
        write_timeout=lambda: current_config().server.client.write_timeout_s,
    )
