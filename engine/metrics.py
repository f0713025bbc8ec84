"""A small Prometheus registry (text exposition format 0.0.4).

One `Metrics` instance is created by the server and passed to the engine and the addons;
there is no module-level registry. Label values are escaped; metric names are fixed here
so every counter is declared once and documented by its help text.
"""

from __future__ import annotations

import bisect
import logging
import threading
from collections.abc import Callable, Sequence

LabelKey = tuple[str, ...]

log = logging.getLogger("memtap.metrics")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(names: Sequence[str], values: LabelKey, extra: str = "") -> str:
    parts = [f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True)]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


class Counter:
    def __init__(self, name: str, help_text: str, labels: Sequence[str] = ()) -> None:
        self.name, self.help, self.label_names = name, help_text, tuple(labels)
        self._values: dict[LabelKey, float] = {}
        self._lock = threading.Lock()

    def inc(self, *label_values: str, amount: float = 1.0) -> None:
        with self._lock:
            self._values[label_values] = self._values.get(label_values, 0.0) + amount

    def value(self, *label_values: str) -> float:
        return self._values.get(label_values, 0.0)

    def set_total(self, value: float, *label_values: str) -> None:
        """Copy a total that another component counts (collected at render time)."""
        with self._lock:
            self._values[label_values] = value

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} counter"]
        for key, val in sorted(self._values.items()):
            lines.append(f"{self.name}{_labels(self.label_names, key)} {val:g}")
        return lines


class Gauge(Counter):
    def set(self, value: float, *label_values: str) -> None:
        with self._lock:
            self._values[label_values] = value

    def dec(self, *label_values: str, amount: float = 1.0) -> None:
        with self._lock:
            self._values[label_values] = self._values.get(label_values, 0.0) - amount

    def render(self) -> list[str]:
        lines = super().render()
        lines[1] = f"# TYPE {self.name} gauge"
        if not self._values and not self.label_names:
            lines.append(f"{self.name} 0")
        return lines


DEFAULT_BUCKETS_MS = (
    1,
    2.5,
    5,
    10,
    25,
    50,
    100,
    250,
    500,
    1000,
    2500,
    5000,
    10000,
    30000,
    60000,
)


class Histogram:
    def __init__(
        self,
        name: str,
        help_text: str,
        labels: Sequence[str] = (),
        buckets: Sequence[float] = DEFAULT_BUCKETS_MS,
    ) -> None:
        self.name, self.help, self.label_names = name, help_text, tuple(labels)
        self.buckets = tuple(sorted(buckets))
        self._counts: dict[LabelKey, list[int]] = {}
        self._sums: dict[LabelKey, float] = {}
        self._lock = threading.Lock()

    def observe(self, value: float, *label_values: str) -> None:
        index = bisect.bisect_left(self.buckets, value)
        with self._lock:
            counts = self._counts.get(label_values)
            if counts is None:  # a new label set (not a list per observation)
                counts = self._counts[label_values] = [0] * (len(self.buckets) + 1)
                self._sums[label_values] = 0.0
            counts[index] += 1
            self._sums[label_values] += value

    def count(self, *label_values: str) -> int:
        return sum(self._counts.get(label_values, ()))

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        for key, counts in sorted(self._counts.items()):
            running = 0
            for bound, n in zip(self.buckets, counts, strict=False):
                running += n
                le = 'le="' + f"{bound:g}" + '"'
                lines.append(
                    f"{self.name}_bucket{_labels(self.label_names, key, le)} {running}"
                )
            running += counts[-1]
            inf = 'le="+Inf"'
            lines.append(
                f"{self.name}_bucket{_labels(self.label_names, key, inf)} {running}"
            )
            lines.append(
                f"{self.name}_sum{_labels(self.label_names, key)} {self._sums[key]:g}"
            )
            lines.append(f"{self.name}_count{_labels(self.label_names, key)} {running}")
        return lines


class Metrics:
    """Every metric memtap exports, declared once."""

    def __init__(self) -> None:
        self.requests = Counter(
            "memtap_requests_total",
            "Proxied requests by upstream and status.",
            ["upstream", "status"],
        )
        self.request_duration = Histogram(
            "memtap_request_duration_ms",
            "Total request duration in milliseconds.",
            ["upstream"],
        )
        self.ttfb = Histogram(
            "memtap_ttfb_ms",
            "Time to the first response byte in milliseconds.",
            ["upstream"],
        )
        self.inflight = Gauge(
            "memtap_inflight_requests", "Requests being proxied right now."
        )
        self.inflight_streams = Gauge(
            "memtap_inflight_streams", "Streaming responses being relayed right now."
        )
        self.bytes_relayed = Counter(
            "memtap_bytes_relayed_total",
            "Body bytes relayed, by direction (upstream|downstream).",
            ["direction"],
        )
        self.upstream_errors = Counter(
            "memtap_upstream_errors_total",
            "Upstream failures by kind (connect|timeout|tls|protocol).",
            ["kind"],
        )
        self.client_errors = Counter(  # the client side (proxy/client_side/edges.py)
            "memtap_client_errors_total",
            "Client-side failures memtap ended, by kind (bad_request|head_timeout|"
            "body_timeout|keepalive_timeout|write_timeout|too_many_connections).",
            ["kind"],
        )
        self.memories_injected = Counter(
            "memtap_memories_injected_total", "Memories injected into requests."
        )
        self.memory_requests = Counter(
            "memtap_memory_requests_total",
            "Requests that went through memory, by outcome.",
            ["outcome"],
        )
        self.memory_skipped = Counter(
            "memtap_memory_skipped_total",
            "Requests to a memory endpoint that memory stayed out of, by reason "
            "(no_end_user: memory.users is required and the request names none).",
            ["reason"],
        )
        self.memories_extracted = Counter(
            "memtap_memories_extracted_total", "Memories written by extraction."
        )
        self.extraction_batches = Counter(
            "memtap_extraction_batches_total",
            "Batches of one owner's turns extracted, by the extractor that kept their "
            "facts (rules|model).",
            ["extractor"],
        )
        self.extraction_model_calls = Counter(
            "memtap_extraction_model_calls_total",
            "Calls to the extraction model, by outcome (ok|failed).",
            ["outcome"],
        )
        self.extraction_model_tokens = Counter(
            "memtap_extraction_model_tokens_total",
            "Tokens of extraction model calls, by direction (in|out): the answer's usage, "
            "estimated when it gives none.",
            ["direction"],
        )
        self.extraction_model_failures = Counter(
            "memtap_extraction_model_failures_total",
            "Failed extraction model calls, by reason (timeout|connection|status_429|"
            "status_5xx|status_4xx|malformed_json|wrong_schema|foreign_id|error).",
            ["reason"],
        )
        self.extraction_fallbacks = Counter(
            "memtap_extraction_fallbacks_total",
            "Batches the model did not extract (the rules did), by reason: a failed "
            "call's reason, or budget|rate_global|rate_owner|store.",
            ["reason"],
        )
        self.extraction_model_duration = Histogram(
            "memtap_extraction_model_duration_ms",
            "Extraction model call latency in milliseconds (answered calls).",
        )
        self.retrieval_duration = Histogram(
            "memtap_retrieval_duration_ms",
            "Retrieval latency in milliseconds, by strategy.",
            ["strategy"],
        )
        self.memory_fallbacks = Counter(
            "memtap_memory_fallbacks_total",
            "Memory tier fallbacks and fail-open events, by cause.",
            ["cause"],
        )
        self.outbox_depth = Gauge(
            "memtap_outbox_depth", "Turns waiting in the extraction outbox."
        )
        self.turns_truncated = Counter(
            "memtap_turns_truncated_total",
            "Captured turns cut to the tail extraction reads (memory.capture bound).",
        )
        self.turn_chars_truncated = Counter(
            "memtap_turn_chars_truncated_total",
            "Characters cut from the head of captured turns by the capture bound.",
        )
        self.config_reloads = Counter(
            "memtap_config_reloads_total", "Config reloads by result.", ["result"]
        )
        self.vector_cache_bytes = Gauge(
            "memtap_vector_cache_bytes", "Bytes held by the in-process KNN cache."
        )
        self.vector_cache_owners = Gauge(
            "memtap_vector_cache_owners", "Owners whose vectors the KNN cache holds."
        )
        self.vector_cache_events = Counter(
            "memtap_vector_cache_events_total",
            "KNN cache hits, owner loads, evictions and invalidations.",
            ["event"],
        )
        self.embedding_runs = Counter(
            "memtap_embedding_runs_total",
            "Local model runs; concurrent requests share one run.",
            ["source"],
        )
        self.embedding_texts = Counter(
            "memtap_embedding_texts_total",
            "Texts embedded by local model runs.",
            ["source"],
        )
        self._collectors: list[Callable[[], None]] = []

    def add_collector(self, collect: Callable[[], None]) -> Callable[[], None]:
        """`collect()` runs before each render (it copies figures other components keep);
        returns the function that removes it."""
        self._collectors.append(collect)
        return lambda: self._collectors.remove(collect)

    def render(self) -> str:
        for collect in list(self._collectors):
            try:
                collect()
            except Exception:
                log.exception("metrics.collector_failed")
        lines: list[str] = []
        for metric in vars(self).values():
            if isinstance(metric, Counter | Histogram):
                lines.extend(metric.render())
        return "\n".join(lines) + "\n"
