"""The one shared upstream `ClientSession` and the mapping of its failures to HTTP errors.

The session is a transparent client: no cookie jar, no redirects followed, no decompression,
and none of aiohttp's automatic request headers (Accept, Accept-Encoding, User-Agent,
Content-Type), so the upstream sees the client's headers and nothing else.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from functools import lru_cache
from typing import Literal

import aiohttp
from aiohttp.payload import Payload
from multidict import CIMultiDict
from yarl import URL

from memtap.proxy.routing import Route

ErrorKind = Literal["connect", "timeout", "tls", "protocol"]

# aiohttp adds these unless told not to; a proxy must not invent request headers.
SKIP_AUTO_HEADERS = ("Accept", "Accept-Encoding", "User-Agent", "Content-Type")
# Provider headers can be long (signed URLs, large cookies); aiohttp's default is 8 KiB.
MAX_HEADER_BYTES = 65536


def create_session() -> aiohttp.ClientSession:
    """The process-wide upstream session (connection pooling across all requests)."""
    connector = aiohttp.TCPConnector(
        limit=0, limit_per_host=0, ttl_dns_cache=60, keepalive_timeout=30
    )
    return aiohttp.ClientSession(
        connector=connector,
        cookie_jar=aiohttp.DummyCookieJar(),
        auto_decompress=False,
        skip_auto_headers=SKIP_AUTO_HEADERS,
        timeout=aiohttp.ClientTimeout(total=None),
        max_line_size=MAX_HEADER_BYTES,
        max_field_size=MAX_HEADER_BYTES,
        trust_env=False,
    )


class UpstreamFailure(Exception):
    """The upstream could not give us response headers; maps to a 502/504 JSON error."""

    def __init__(self, kind: ErrorKind, status: int, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.kind = kind
        self.status = status
        self.code = code
        self.message = message


def classify(exc: BaseException, route: Route) -> UpstreamFailure:
    """Map a client-side exception (raised before response headers) to the error we answer."""
    where = f"{route.upstream_name} ({route.base_url})"
    if isinstance(
        exc,
        aiohttp.ClientConnectorCertificateError | aiohttp.ClientSSLError | ssl.SSLError,
    ):
        return UpstreamFailure(
            "tls",
            502,
            "upstream_tls",
            f"TLS handshake with upstream {where} failed: {exc}",
        )
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return UpstreamFailure(
            "timeout",
            504,
            "upstream_timeout",
            f"upstream {where} did not accept a connection within {route.connect_timeout_s:g}s",
        )
    # SocketTimeoutError (sock_read) and other timeouts subclass asyncio.TimeoutError.
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return UpstreamFailure(
            "timeout",
            504,
            "upstream_timeout",
            f"upstream {where} did not answer within {route.timeout_s:g}s",
        )
    if isinstance(exc, aiohttp.ClientConnectorError):
        return UpstreamFailure(
            "connect",
            502,
            "upstream_unreachable",
            f"cannot connect to upstream {where}: {exc}",
        )
    if isinstance(exc, aiohttp.ServerDisconnectedError | aiohttp.ClientOSError):
        return UpstreamFailure(
            "protocol",
            502,
            "upstream_unreachable",
            f"upstream {where} closed the connection: {exc}",
        )
    return UpstreamFailure(
        "protocol",
        502,
        "upstream_unreachable",
        f"bad response from upstream {where}: {exc}",
    )


@lru_cache(maxsize=512)
def _target(url: str) -> URL:
    # The same few upstream URLs again and again: parse each once.
    return URL(url, encoded=True)


@lru_cache(maxsize=32)
def _client_timeout(connect_s: float) -> aiohttp.ClientTimeout:
    # No sock_read: aiohttp would re-arm a timer on every read of a streaming body.
    return aiohttp.ClientTimeout(total=None, connect=connect_s)


async def open_response(
    session: aiohttp.ClientSession,
    route: Route,
    method: str,
    headers: CIMultiDict[str],
    body: bytes | Payload | None,
    watchdog: IdleWatchdog | None = None,
) -> aiohttp.ClientResponse:
    """Send the request; return once the upstream's status and headers arrived.

    `route.timeout_s` bounds the wait for the response headers (the body's idle limit is an
    `IdleWatchdog`); `route.connect_timeout_s` bounds getting a connection. Raises
    `UpstreamFailure`. With `watchdog` (armed with `route.timeout_s`, cancelling this task)
    the header wait uses it instead of a timeout of its own: the same timer then guards the
    body, one timer per request instead of two.
    """
    ssl_option: ssl.SSLContext | bool = (
        route.ssl_context if route.ssl_context is not None else True
    )
    request = session.request(
        method,
        _target(route.url),
        headers=headers,
        data=body,
        allow_redirects=False,
        timeout=_client_timeout(route.connect_timeout_s),
        ssl=ssl_option,
        compress=None,
        server_hostname=route.server_hostname,  # access: a pinned forward route
    )
    try:
        if watchdog is None:
            async with asyncio.timeout(route.timeout_s):
                return await request
        try:
            return await request
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if watchdog.fired and task is not None and task.uncancel() == 0:
                raise TimeoutError() from None
            raise
    except aiohttp.ClientError as exc:
        raise classify(exc, route) from exc
    except (TimeoutError, ssl.SSLError) as exc:
        raise classify(exc, route) from exc


WATCH_SWEEP_S = 1.0
"""How often far-off watchdog deadlines are looked at (`_FarDeadlines`)."""


class IdleWatchdog:
    """Calls `on_idle` once `timeout_s` pass without `touch()`.

    Activity is a timestamp and one timer re-arms itself only when it fires, so a stream of
    thousands of small chunks costs no timer operation per chunk. A deadline further away
    than the sweep's horizon gets no timer of its own yet: the loop's `_FarDeadlines` arms
    one once it comes near, so the usual request, answered long before `timeout_s`, costs a
    set insertion and removal instead of a timer created and cancelled.
    """

    __slots__ = (
        "_far",
        "_handle",
        "_last",
        "_loop",
        "_on_idle",
        "_timeout_s",
        "fired",
    )

    def __init__(self, timeout_s: float, on_idle: Callable[[], object]) -> None:
        self._loop = asyncio.get_running_loop()
        self._timeout_s = timeout_s
        self._on_idle = on_idle
        self._last = self._loop.time()
        self.fired = False
        self._handle: asyncio.TimerHandle | None = None
        self._far: _FarDeadlines | None = None
        """The sweep it waits in while its deadline is far off (then it has no timer)."""
        if timeout_s > 2 * WATCH_SWEEP_S:
            self._far = _far_deadlines(self._loop)
            self._far.add(self)
        else:
            self._arm()

    @property
    def deadline(self) -> float:
        """The earliest time it can fire (touches only move it later)."""
        return self._last + self._timeout_s

    def _arm(self) -> None:
        self._far = None
        self._handle = self._loop.call_at(self._last + self._timeout_s, self._check)

    def touch(self) -> None:
        self._last = self._loop.time()

    def _check(self) -> None:
        deadline = self._last + self._timeout_s
        if self._loop.time() < deadline:
            self._handle = self._loop.call_at(deadline, self._check)
            return
        self._handle = None
        self.fired = True
        self._on_idle()

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        elif self._far is not None:
            self._far.discard(self)
            self._far = None


class _FarDeadlines:
    """The watchdogs of one loop whose deadline is far off, looked at once a second by one
    timer (which runs only while there are any): those that come within two sweeps of their
    deadline get their own timer, armed for that deadline, so none fires later than it
    would with a timer from the start (a sweep is late only when the loop is, and then so
    is every timer)."""

    __slots__ = ("_handle", "_loop", "_waiting")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._waiting: set[IdleWatchdog] = set()
        self._handle: asyncio.TimerHandle | None = None

    def add(self, watchdog: IdleWatchdog) -> None:
        self._waiting.add(watchdog)
        if self._handle is None:
            self._handle = self._loop.call_later(WATCH_SWEEP_S, self._sweep)

    def discard(self, watchdog: IdleWatchdog) -> None:
        self._waiting.discard(watchdog)

    def __len__(self) -> int:
        return len(self._waiting)

    def _sweep(self) -> None:
        self._handle = None
        horizon = self._loop.time() + 2 * WATCH_SWEEP_S
        near = [w for w in self._waiting if w.deadline <= horizon]
        for watchdog in near:
            self._waiting.discard(watchdog)
            watchdog._arm()
        if self._waiting:
            self._handle = self._loop.call_later(WATCH_SWEEP_S, self._sweep)


_far: _FarDeadlines | None = None


def _far_deadlines(loop: asyncio.AbstractEventLoop) -> _FarDeadlines:
    """The running loop's sweep (a new loop gets a new one; an old loop's keeps its own
    timer and watchdogs until they are done)."""
    global _far
    if _far is None or _far._loop is not loop:
        _far = _FarDeadlines(loop)
    return _far
