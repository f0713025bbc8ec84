"""How a memory step fails: open. The request goes on with its original bytes; the failure
is logged (`memory.failed`) and counted (`memtap_memory_fallbacks_total{cause}`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtap.proxy.appkeys import Runtime
    from memtap.proxy.flow import Flow

log = logging.getLogger("memtap.memory")

_REQUEST_STEPS = frozenset({"inject", "retrieval", "retrieval_timeout"})
"""Steps of the way in: their failure also counts as a failed memory request."""


def memory_failed(runtime: Runtime, flow: Flow, step: str, exc: BaseException) -> None:
    runtime.metrics.memory_fallbacks.inc(step)
    if step in _REQUEST_STEPS:
        runtime.metrics.memory_requests.inc("failed")
    flow.memory.skipped_reason = f"{step}_failed"
    log.warning(
        "memory.failed",
        extra={
            "fields": {
                "request_id": flow.request_id,
                "owner": flow.owner_id,
                "step": step,
                "reason": f"{type(exc).__name__}: {exc}"[:300],
            }
        },
    )
