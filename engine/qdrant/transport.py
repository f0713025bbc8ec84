"""Every call memtap makes to Qdrant: timeouts, retries with backoff, errors as EngineError.

`QdrantTransport.call(op, fn)` runs `fn(client)` with a per-attempt deadline
(`vector_store.qdrant.timeout_s`), retries transient failures (connection refused or reset,
timeouts, 429/5xx) with exponential backoff and jitter, and raises `QdrantUnavailable` when
Qdrant cannot answer, so the proxy fails open and the outbox worker leaves its rows for later.

Local mode (`path` / `:memory:`) is qdrant-client's pure-Python engine: its "async" methods do
all their numpy work synchronously. It therefore lives on its own event loop in one dedicated
thread (which also owns its SQLite persistence connection), and memtap's loop only awaits the
result. A remote client uses httpx on the caller's loop directly.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from qdrant_client import AsyncQdrantClient
from qdrant_client.common.client_exceptions import ResourceExhaustedResponse
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from memtap.config.schema import QdrantConfig
from memtap.engine.api import EngineError, StoreUnavailable
from memtap.engine.fallbacks import describe_error

log = logging.getLogger("memtap.store.qdrant")

T = TypeVar("T")

TRANSIENT_STATUS = frozenset({408, 429, 500, 502, 503, 504})


class QdrantUnavailable(StoreUnavailable):
    """Qdrant did not answer (down, unreachable, overloaded, timed out) after the retries."""

    code = "store_unavailable"


class QdrantConfigError(EngineError):
    """The Qdrant store cannot be used as configured (e.g. a vector size mismatch)."""

    code = "config_error"


class QdrantRequestError(EngineError):
    """Qdrant rejected a request (a 4xx that retrying cannot fix)."""

    code = "store_error"


def is_transient(exc: BaseException) -> bool:
    """True for failures that may succeed when retried a moment later."""
    if isinstance(exc, UnexpectedResponse):
        return exc.status_code in TRANSIENT_STATUS
    return isinstance(
        exc,
        ResponseHandlingException
        | ResourceExhaustedResponse
        | TimeoutError
        | ConnectionError,
    )


class _LoopThread:
    """One event loop in one daemon thread, for local mode's blocking 'async' client."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="memtap-qdrant-local", daemon=True
        )
        self._thread.start()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return await asyncio.wrap_future(future)

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


class QdrantTransport:
    """A Qdrant client plus the policy for calling it. One per process; engines share it."""

    def __init__(
        self,
        client: AsyncQdrantClient,
        *,
        timeout_s: float,
        local: bool,
        retries: int = 2,
        backoff_s: float = 0.05,
        loop_thread: _LoopThread | None = None,
    ) -> None:
        self.client = client
        self.timeout_s = timeout_s
        self.local = local
        self.retries = retries
        self.backoff_s = backoff_s
        self._loop_thread = loop_thread
        self.last_error: str | None = None
        """Why the latest call failed; None once a call succeeds again (health reads it)."""

    @property
    def mode(self) -> str:
        return "local" if self.local else "server"

    async def call(self, op: str, fn: Callable[[AsyncQdrantClient], Awaitable[T]]) -> T:
        """Run `fn(client)` under the timeout/retry policy; raise an EngineError subclass on failure."""
        attempt = 0
        while True:
            started = time.perf_counter()
            try:
                # A timeout scope, not wait_for: Python 3.11's wait_for can swallow a
                # cancel that arrives as its inner task ends.
                async with asyncio.timeout(self.timeout_s):
                    result = await self._run(fn)
            except (EngineError, asyncio.CancelledError):
                raise
            except Exception as exc:  # classified below, re-raised as an EngineError
                elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
                if is_transient(exc) and attempt < self.retries:
                    delay = self.backoff_s * (2**attempt) * (0.5 + random.random())
                    log.info(
                        "qdrant.retry",
                        extra={
                            "fields": {
                                "op": op,
                                "attempt": attempt + 1,
                                "error": describe_error(exc),
                                "elapsed_ms": elapsed_ms,
                                "delay_ms": round(delay * 1000, 1),
                            }
                        },
                    )
                    attempt += 1
                    await asyncio.sleep(delay)
                    continue
                error = self._translate(op, exc)
                if isinstance(error, QdrantUnavailable):
                    self.last_error = "unavailable"
                raise error from exc
            self.last_error = None
            return result

    async def _run(self, fn: Callable[[AsyncQdrantClient], Awaitable[T]]) -> T:
        if self._loop_thread is None:
            return await fn(self.client)

        async def on_local_loop() -> T:
            return await fn(self.client)

        return await self._loop_thread.run(on_local_loop())

    def _translate(self, op: str, exc: Exception) -> EngineError:
        if is_transient(exc):
            log.warning(
                "qdrant.unavailable",
                extra={"fields": {"op": op, "error": describe_error(exc)}},
            )
            detail = (
                "timed out" if isinstance(exc, TimeoutError) else type(exc).__name__
            )
            return QdrantUnavailable(f"qdrant {op}: {detail}")
        if isinstance(exc, UnexpectedResponse):
            return QdrantRequestError(
                f"qdrant {op}: HTTP {exc.status_code} {exc.reason_phrase}"
            )
        return QdrantRequestError(f"qdrant {op}: {type(exc).__name__}: {exc}")

    async def close(self) -> None:
        try:
            await self._run(lambda client: client.close())
        except Exception as exc:  # noqa: BLE001 - closing must not mask shutdown
            log.warning(
                "qdrant.close_failed", extra={"fields": {"error": describe_error(exc)}}
            )
        if self._loop_thread is not None:
            await asyncio.to_thread(self._loop_thread.stop)


async def open_transport(
    config: QdrantConfig, *, location: str | None = None
) -> QdrantTransport:
    """Connect as configured: `url` → a server (or cluster); `path` → local mode on disk;
    `location=":memory:"` (tests) → local mode in memory. No network I/O happens here."""
    if config.url:
        client = AsyncQdrantClient(
            url=config.url,
            api_key=config.api_key,
            timeout=max(1, int(config.timeout_s + 0.999)),
            # The compatibility probe is a blocking request in a thread that warns on failure;
            # memtap reports reachability through health instead.
            check_compatibility=False,
        )
        return QdrantTransport(client, timeout_s=config.timeout_s, local=False)
    target = location or config.path
    if not target:
        raise QdrantConfigError(
            "vector_store.qdrant: set url (a server) or path (local mode)"
        )
    loop_thread = _LoopThread()

    async def build() -> AsyncQdrantClient:
        # Created on the local loop's thread: the client's SQLite connection belongs to it.
        if target == ":memory:":
            return AsyncQdrantClient(location=":memory:")
        return AsyncQdrantClient(path=target)

    try:
        client = await loop_thread.run(build())
    except Exception as exc:
        await asyncio.to_thread(loop_thread.stop)
        # Local mode locks its directory: a second process on the same path lands here.
        raise QdrantConfigError(f"vector_store.qdrant.path {target!r}: {exc}") from exc
    # Local mode computes in-process: its own timeout still applies, but it never "goes down".
    return QdrantTransport(
        client,
        timeout_s=max(config.timeout_s, 30.0),
        local=True,
        loop_thread=loop_thread,
    )
