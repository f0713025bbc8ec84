"""The request log's hooks: each request to a memory endpoint becomes one entry of the
runtime's `RequestLog` (proxy/request_log/ring.py), and its response says which one
(`X-Memtap-Request-Id`). Runs after the memory addons, so it sees what they decided; the
outbox worker fills in `extracted` later through the engine's events."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtap.engine.clock import now_iso
from memtap.proxy.addons.memory_policy import endpoint_of
from memtap.proxy.flow import Flow
from memtap.proxy.headers import MEMORIES_HEADER, REQUEST_ID_HEADER
from memtap.proxy.pipeline import Addon
from memtap.proxy.request_log.ring import RequestRecord

if TYPE_CHECKING:
    from memtap.proxy.appkeys import Runtime


class RequestLogAddon(Addon):
    name = "request_log"

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        runtime.engine_events.on_turn_extracted(runtime.request_log.turn_extracted)

    async def request(self, flow: Flow) -> None:
        # Same condition as X-Memtap-Memories: the request went through memory.
        if MEMORIES_HEADER in flow.extra_response_headers:
            flow.extra_response_headers[REQUEST_ID_HEADER] = flow.request_id

    async def finished(self, flow: Flow) -> None:
        # Also when memory stayed out (no key, `off`, memory down): still a memory
        # endpoint's request, logged with the reason.
        codec = flow.codec or flow.endpoint
        if codec is None and flow.memory.skipped_reason is None:
            # The memory addons are out of the pipeline (memory off or no engine): nobody
            # looked at the endpoint yet (they always give a reason when they did).
            codec = endpoint_of(flow)
        if codec is None:
            return  # not a memory endpoint: not in the request log
        view = flow.memory.conversation
        record = RequestRecord(
            request_id=flow.request_id,
            ts=now_iso(),
            owner=flow.owner_id,
            format=codec.format,
            model=view.model if view is not None else None,
            status=flow.status,
            injected=flow.memory.injected_ids,
            extracted=None,
            skipped_reason=skipped_reason(flow, self.runtime),
            captured=flow.memory.captured,
        )
        size = self.runtime.config.current.admin.request_log_size
        self.runtime.request_log.add(record, size)


def skipped_reason(flow: Flow, runtime: Runtime) -> str | None:
    """Why nothing was injected or nothing will be extracted; None when both happened
    (or extraction is still to come)."""
    if flow.memory.skipped_reason is not None:
        return flow.memory.skipped_reason  # decided by the memory addons
    if flow.codec is None:
        # The memory addons are not in the pipeline (memory switched off, or no engine).
        if not runtime.config.current.memory.enabled:
            return "memory_disabled"
        return "engine_unavailable"
    if not flow.memory.captured and not flow.completed:
        return f"not_completed: {flow.error_kind or 'incomplete'}"
    if flow.memory_mode == "read":
        return "memory_header_read"
    if not flow.memory.injected_ids:
        return "nothing_above_floor"
    return None
