"""Whether memory takes part in a request, decided once, from its headers alone.

Called by the inject addon's `request_headers` hook, before the body is read: the answer
sets `flow.codec` (which API format the body is in) and `flow.read_body` (the handler then
buffers the body for the `request` hooks). Every later memory step (inject, capture) acts
on what was decided here and checks nothing of it again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memtap.proxy.addons.end_user import NO_END_USER, must_name_one
from memtap.proxy.codecs.registry import detect

if TYPE_CHECKING:
    from memtap.config.schema import Config
    from memtap.proxy.codecs.base import Codec
    from memtap.proxy.flow import Flow

log = logging.getLogger("memtap.memory")


@dataclass(frozen=True, slots=True)
class MemoryDecision:
    codec: Codec | None
    """The request's API format; None: memory stays out of this request."""
    skipped_reason: str | None = None
    """Why memory stays out (diagnostics on `flow.memory`); None when it takes part."""
    endpoint: Codec | None = None
    """The memory endpoint of the request whether or not memory takes part (detected once,
    for the request log)."""

    @property
    def read_body(self) -> bool:
        return self.codec is not None


def decide(flow: Flow, config: Config, engine_ready: bool) -> MemoryDecision:
    """Memory takes part when: an engine is open, `memory.enabled`, the client sent an API
    key (the owner), X-Memtap-Memory is not `off`, the path is a memory endpoint of the
    route's format, and the declared body fits `server.max_rewrite_body_bytes` (a chunked
    body of unknown size is read up to that size; past it, the `request` hook keeps memory
    out). Under `memory.users: required` the request must name an end user: by a header
    here, else by the body, read in the `request` hook (`proxy/addons/end_user.py`)."""
    endpoint = endpoint_of(flow)
    if not engine_ready:
        return MemoryDecision(None, "engine_unavailable", endpoint)
    if not config.memory.enabled:
        return MemoryDecision(None, "memory_disabled", endpoint)
    if flow.owner_id is None:
        return MemoryDecision(None, "no_api_key", endpoint)
    if flow.memory_mode == "off":
        return MemoryDecision(None, "memory_header_off", endpoint)
    length = flow.request_length
    if length is not None and length > config.server.max_rewrite_body_bytes:
        return MemoryDecision(None, "body_not_buffered", endpoint)
    if endpoint is None:
        return MemoryDecision(None, "not_a_memory_endpoint")
    if must_name_one(flow, config.memory) and "body" not in config.memory.user_from:
        # The body cannot name the end user: no need to read it.
        return MemoryDecision(None, NO_END_USER, endpoint)
    return MemoryDecision(endpoint, None, endpoint)


def endpoint_of(flow: Flow) -> Codec | None:
    """The memory endpoint the request is for, whether or not memory takes part (None:
    not one): only POSTs to a generation endpoint of the route's format are."""
    return _codec_for(flow) if flow.method == "POST" else None


def _codec_for(flow: Flow) -> Codec | None:
    try:
        return detect(flow.route.format, flow.method, flow.route.path)
    except Exception as exc:  # noqa: BLE001 - detection failing means "not a memory endpoint"
        log.error(
            "codecs.detect_failed",
            extra={"fields": {"request_id": flow.request_id, "error": repr(exc)}},
        )
        return None
