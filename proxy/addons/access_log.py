"""The `request.done` log line and the per-request metrics: one place that sees every request
at its end (`finished` is the last hook, also after errors and client disconnects)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from proxy.flow import Flow
from proxy.pipeline import Addon

if TYPE_CHECKING:
    from proxy.appkeys import Runtime

log = logging.getLogger("memtap.access")

# Provider request ids, so a memtap line can be matched with the provider's own logs.
_UPSTREAM_ID_HEADERS = ("x-request-id", "request-id")


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


class AccessLog(Addon):
    name = "access_log"

    def __init__(self, runtime: Runtime) -> None:
        self.metrics = runtime.metrics

    async def finished(self, flow: Flow) -> None:
        duration_ms = flow.elapsed_ms()
        upstream = flow.route.upstream_name
        status = flow.status if flow.status is not None else 0
        fields: dict[str, Any] = {
            "request_id": flow.request_id,
            "method": flow.method,
            "path": flow.path,
            "upstream": upstream,
            "status": flow.status,
            "duration_ms": _round(duration_ms),
            "ttfb_ms": _round(flow.ttfb_ms),
            "owner": flow.owner_id,
            "memories_injected": flow.memories_injected,
            "stream": flow.stream,
            "bytes_in": flow.bytes_in,
            "bytes_out": flow.bytes_out,
        }
        if flow.session_id is not None:
            fields["session"] = flow.session_id
        if flow.response_headers is not None:
            for name in _UPSTREAM_ID_HEADERS:
                if name in flow.response_headers:
                    fields["upstream_request_id"] = flow.response_headers[name]
                    break
        if flow.error is not None:
            fields["error"] = flow.error
            fields["error_kind"] = flow.error_kind
        level = (
            logging.WARNING
            if flow.error is not None and flow.error_kind != "client"
            else logging.INFO
        )
        log.log(level, "request.done", extra={"fields": fields})

        metrics = self.metrics
        metrics.requests.inc(upstream, str(status))
        metrics.request_duration.observe(duration_ms, upstream)
        if flow.ttfb_ms is not None:
            metrics.ttfb.observe(flow.ttfb_ms, upstream)
        if flow.bytes_in:
            metrics.bytes_relayed.inc("upstream", amount=flow.bytes_in)
        if flow.bytes_out:
            metrics.bytes_relayed.inc("downstream", amount=flow.bytes_out)
