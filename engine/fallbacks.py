"""Why the vector path could not answer: `SemanticUnavailable` (an EngineError retrieval falls
back from) and `FallbackLog` (each cause logged once, counted every time in
`memtap_memory_fallbacks_total{cause}`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from memtap.config.holder import Subscriber
from memtap.config.schema import Config
from memtap.engine.api import EngineError
from memtap.engine.metrics import Metrics

log = logging.getLogger("memtap.vector")


class SemanticUnavailable(EngineError):
    """The vector path cannot answer this request; `cause` names why (metrics label)."""

    code = "semantic_unavailable"

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


class NoVectors(SemanticUnavailable):
    """The index holds no vectors to search (Qdrant without an embedding source): retrieval
    answers from keywords alone (no recent ranking fused in)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "no_embedding_source")


class ConfigSource(Protocol):
    """What the vector indexes read the configuration through (`config.holder.ConfigHolder`)."""

    @property
    def current(self) -> Config: ...

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(old, new, changed_keys)` after each swap; returns the unsubscribe."""
        ...


def describe_error(exc: BaseException, timeout_s: float | None = None) -> str:
    """`Type: message` of an exception; a TimeoutError (whose `str()` is empty) says how
    long it was given when `timeout_s` is known, else just `Type`: log fields never carry
    an empty `error`."""
    text = str(exc)
    kind = type(exc).__name__
    if not text and timeout_s is not None and isinstance(exc, TimeoutError):
        text = f"no answer within {timeout_s:g} s"
    return f"{kind}: {text}"[:200] if text else kind


class FallbackLog:
    """Log a fallback cause the first time it happens; count it every time."""

    def __init__(self, metrics: Metrics | None) -> None:
        self._metrics = metrics
        self._seen: set[str] = set()

    def record(self, cause: str, message: str) -> None:
        if self._metrics is not None:
            self._metrics.memory_fallbacks.inc(cause)
        if cause not in self._seen:
            self._seen.add(cause)
            log.warning(
                "vector.fallback",
                extra={"fields": {"cause": cause, "error": (message or cause)[:200]}},
            )
