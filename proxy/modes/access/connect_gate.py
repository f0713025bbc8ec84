"""Access control at a CONNECT: answering a refused one (407 / 403) and the destination check
of a blind tunnel, on the addresses it is about to connect to."""

from __future__ import annotations

import asyncio
import logging

from memtap.config.schema import InterceptConfig
from memtap.proxy.modes.access.gate import (
    Denied,
    ForwardAccess,
    denied_response,
    refused_destination,
)
from memtap.proxy.modes.connect_outcome import PendingConnect
from memtap.proxy.modes.targets import InterceptTarget

log = logging.getLogger("memtap.connect")


def deny_connect(
    transport: asyncio.Transport,
    target: InterceptTarget,
    pending: PendingConnect,
    denied: Denied,
) -> None:
    """Answer a refused CONNECT and report it (`request.done`, connect: denied)."""
    log.info(
        "connect.denied",
        extra={"fields": {"target": target.authority, "reason": denied.error}},
    )
    transport.write(denied_response(denied))
    transport.close()
    pending.done("denied", denied.status, error=denied.error, error_kind="client")


def tunnel_refusal(
    access: ForwardAccess,
    config: InterceptConfig,
    transport: asyncio.Transport,
    target: InterceptTarget,
    addresses: list[str],
) -> Denied | None:
    """Why this client may not tunnel to `addresses` (None: it may)."""
    refusal = access.refusal(
        config,
        transport.get_extra_info("peername"),
        target.host,
        target.port,
        addresses,
    )
    return refused_destination(refusal, "connect_denied") if refusal else None
