"""The `request.done` log line and the per-request metrics: one place that sees every request
at its end (`finished` is the last hook, also after errors and client disconnects)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from memtap.proxy.flow import Flow, new_request_id
from memtap.proxy.logs import log_fields
from memtap.proxy.pipeline import Addon

if TYPE_CHECKING:
    from memtap.engine.metrics import Metrics
    from memtap.proxy.appkeys import Runtime
    from memtap.proxy.modes.connect import ConnectDone

log = logging.getLogger("memtap.access")

# Provider request ids, so a memtap line can be matched with the provider's own logs.
_UPSTREAM_ID_HEADERS = ("x-request-id", "request-id")


def _round(value: float | None) -> float | None:
    if value is None:
        return None
    # Two per request line: half the time of round(value, 2). The same figures, except
    # that an exact half rounds up (0.125 -> 0.13, not 0.12) for a non-negative value.
    return int(value * 100 + 0.5) / 100 if value >= 0 else round(value, 2)


class AccessLog(Addon):
    name = "access_log"

    def __init__(self, runtime: Runtime) -> None:
        self.metrics = runtime.metrics

    async def finished(self, flow: Flow) -> None:
        duration_ms = flow.elapsed_ms()
        fields: dict[str, Any] = {
            "request_id": flow.request_id,
            "method": flow.method,
            "path": flow.path,
            "upstream": flow.route.upstream_name,
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
        if flow.endpoint is not None and flow.memory.skipped_reason is not None:
            # A memory endpoint's request that memory stayed out of (or stopped short in):
            # why, as in the request log (`no_end_user`, `memory_header_off`, ...).
            fields["skipped_reason"] = flow.memory.skipped_reason
        if flow.response_headers is not None:
            for name in _UPSTREAM_ID_HEADERS:
                if name in flow.response_headers:
                    fields["upstream_request_id"] = flow.response_headers[name]
                    break
        if flow.error is not None:
            fields["error"] = flow.error
            fields["error_kind"] = flow.error_kind
        _report(self.metrics, fields, duration_ms, flow.ttfb_ms)


def _report(
    metrics: Metrics,
    fields: dict[str, Any],
    duration_ms: float,
    ttfb_ms: float | None,
) -> None:
    """Write one `request.done` line and count it: every request and every CONNECT."""
    level = (
        logging.WARNING
        if fields.get("error") is not None and fields.get("error_kind") != "client"
        else logging.INFO
    )
    log_fields(log, level, "request.done", fields)
    upstream = fields["upstream"]
    metrics.requests.inc(upstream, str(fields["status"] or 0))
    metrics.request_duration.observe(duration_ms, upstream)
    if ttfb_ms is not None:
        metrics.ttfb.observe(ttfb_ms, upstream)
    if fields["bytes_in"]:
        metrics.bytes_relayed.inc("upstream", amount=fields["bytes_in"])
    if fields["bytes_out"]:
        metrics.bytes_relayed.inc("downstream", amount=fields["bytes_out"])


TUNNEL_UPSTREAM = "tunnel"
"""The `upstream` of a CONNECT line that was not intercepted (its label in the metrics)."""


def log_connect(done: ConnectDone, metrics: Metrics) -> None:
    """The `request.done` line and metrics of a CONNECT that was not intercepted (blind
    tunnel, denied, bad, failed): the same fields as every other request, `method` CONNECT
    and `path` host:port; `ttfb_ms` is when the tunnel was established."""
    fields: dict[str, Any] = {
        "request_id": new_request_id(),
        "method": "CONNECT",
        "path": done.target,
        "upstream": TUNNEL_UPSTREAM,
        "status": done.status,
        "duration_ms": _round(done.duration_ms),
        "ttfb_ms": _round(done.established_ms),
        "owner": None,
        "memories_injected": None,  # not through memory, as for any such request
        "stream": done.established_ms is not None,
        "bytes_in": done.bytes_in,
        "bytes_out": done.bytes_out,
        "connect": done.outcome,
    }
    if done.error is not None:
        fields["error"] = done.error
        fields["error_kind"] = done.error_kind
    _report(metrics, fields, done.duration_ms, done.established_ms)
    if done.outcome == "unreachable":
        metrics.upstream_errors.inc("connect")


NO_UPSTREAM = "none"
"""The `upstream` of a request memtap ended before it had a route (malformed, too slow)."""


def log_client_failure(
    metrics: Metrics,
    *,
    status: int | None,
    error: str,
    error_kind: str,
    duration_ms: float,
) -> None:
    """The `request.done` line of a request that never reached a mode: malformed (400), a
    head that did not arrive in time (408), a connection over the caps (503). Not a memtap
    fault: logged at warning at most, never with a traceback (`proxy/client_side/edges.py`)."""
    fields: dict[str, Any] = {
        "request_id": new_request_id(),
        "method": None,
        "path": None,
        "upstream": NO_UPSTREAM,
        "status": status,
        "duration_ms": _round(duration_ms),
        "ttfb_ms": None,
        "owner": None,
        "memories_injected": None,
        "stream": False,
        "bytes_in": 0,
        "bytes_out": 0,
        "error": error,
        "error_kind": error_kind,
    }
    _report(metrics, fields, duration_ms, None)
