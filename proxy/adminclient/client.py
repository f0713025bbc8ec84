"""`AdminClient`: memtap's admin API over HTTP, asynchronous (aiohttp).

    async with AdminClient(Target("http://127.0.0.1:8080", token)) as client:
        page = await client.request("GET", "/api/memories", params={"owner": owner})

`timeout_s` bounds connecting and each wait for data (not the whole call: an export or an
import that keeps moving may take as long as it needs), read at every call, so a command can
raise it for a call that waits on the server (`memtap conversations import --wait`).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, Self
from urllib.parse import urlencode

import aiohttp
from yarl import URL

from memtap.proxy.adminclient.errors import ApiError, Incomplete, Unreachable

ADMIN_PREFIX: Final = "/_memtap"
"""Where the admin API lives on memtap's listeners (the contract's path; the admin sub-app
is mounted here too)."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where the admin API is (`http://host:port`, no trailing slash) and its token."""

    base_url: str
    token: str | None


def query_params(params: Mapping[str, Any] | None) -> dict[str, str]:
    """Admin API query parameters as strings: None dropped, booleans as true/false."""
    return {
        k: str(v).lower() if isinstance(v, bool) else str(v)
        for k, v in (params or {}).items()
        if v is not None
    }


class AdminClient:
    def __init__(
        self,
        target: Target,
        timeout_s: float = 300.0,
        *,
        authorization: str | None = None,
    ) -> None:
        """`authorization` is sent as it is instead of `Bearer {target.token}` (the MCP
        endpoint passes on its caller's own credentials)."""
        self.target = target
        self.timeout_s = timeout_s
        if authorization is None and target.token:
            authorization = f"Bearer {target.token}"
        self._headers = {"Accept": "application/json"}
        if authorization:
            self._headers["Authorization"] = authorization
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Self:
        # trust_env=False: never through HTTP(S)_PROXY. The admin token must go to memtap
        # itself, not to a proxy the environment names for outbound traffic.
        self._session = aiohttp.ClientSession(trust_env=False)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        kept = query_params(params)
        query = "?" + urlencode(kept) if kept else ""
        return f"{self.target.base_url}{ADMIN_PREFIX}{path}{query}"

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> Any:
        """The answer's JSON (None for an empty answer)."""
        async with self._open(method, path, params=params, body=body) as response:
            return await _json(response)

    async def upload_lines(
        self,
        path: str,
        chunks: Iterable[bytes] | AsyncIterable[bytes],
        length: int,
        *,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """POST `length` bytes of JSON lines, streamed from `chunks`; the answer's JSON."""
        async with self._open(
            "POST",
            path,
            params=params,
            data=_streamed(chunks),
            content_type="application/x-ndjson",
            length=length,
        ) as response:
            return await _json(response)

    async def stream_lines(self, path: str) -> AsyncIterator[bytes]:
        """A streamed answer's lines (each with its `\\n`) as they arrive."""
        async with self._open("GET", path) as response:
            buffer = bytearray()
            try:
                async for chunk in response.content.iter_any():
                    buffer += chunk
                    start = 0
                    while (end := buffer.find(b"\n", start)) >= 0:
                        yield bytes(buffer[start : end + 1])
                        start = end + 1
                    del buffer[:start]
            except (aiohttp.ClientError, TimeoutError, ConnectionError) as exc:
                raise _incomplete(exc) from None
            if buffer:
                yield bytes(buffer)

    @contextlib.asynccontextmanager
    async def _open(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        data: Any = None,
        content_type: str = "application/json",
        length: int | None = None,
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        assert self._session is not None, "use `async with AdminClient(...)`"
        headers = dict(self._headers)
        if body is not None:
            try:
                data = json.dumps(body).encode()
            except (ValueError, TypeError, RecursionError) as exc:
                # Arguments that cannot be sent as JSON (nested past the encoder's depth).
                raise Unreachable(
                    f"admin API call failed: {type(exc).__name__}"
                ) from None
        if data is not None:
            headers["Content-Type"] = content_type
            if length is not None:
                headers["Content-Length"] = str(length)
        timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=self.timeout_s, sock_read=self.timeout_s
        )
        try:
            response = await self._session.request(
                method,
                # As built: path segments and the query are quoted once, here.
                URL(self.url(path, params), encoded=True),
                data=data,
                headers=headers,
                timeout=timeout,
                allow_redirects=False,
            )
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise Unreachable(
                f"cannot reach memtap at {self.target.base_url}: {_reason(exc)}"
            ) from None
        async with response:
            if response.status >= 400:
                raise await _api_error(response)
            yield response


async def _streamed(
    chunks: Iterable[bytes] | AsyncIterable[bytes],
) -> AsyncIterator[bytes]:
    if isinstance(chunks, AsyncIterable):
        async for chunk in chunks:
            yield chunk
    else:
        for chunk in chunks:
            yield chunk


async def _json(response: aiohttp.ClientResponse) -> Any:
    try:
        raw = await response.read()
    except (aiohttp.ClientError, TimeoutError, ConnectionError) as exc:
        raise _incomplete(exc) from None
    try:
        return json.loads(raw or b"null")
    except (ValueError, RecursionError) as exc:
        raise Unreachable(f"admin API call failed: {type(exc).__name__}") from None


async def _api_error(response: aiohttp.ClientResponse) -> ApiError:
    try:
        raw = await response.read()
    except (aiohttp.ClientError, TimeoutError, ConnectionError):
        raw = b""
    try:
        error = json.loads(raw)["error"]
        return ApiError(response.status, str(error["code"]), str(error["message"]))
    except (ValueError, KeyError, TypeError):
        return ApiError(
            response.status,
            "http_error",
            raw[:200].decode("utf-8", "replace") or str(response.reason),
        )


def _incomplete(exc: BaseException) -> Incomplete:
    # HTTP's own name for a body cut short (what the CLI always printed for it).
    cause = (
        "IncompleteRead"
        if isinstance(exc, aiohttp.ClientPayloadError)
        else type(exc).__name__
    )
    return Incomplete(f"incomplete answer from memtap: {cause}")


def _reason(exc: BaseException) -> str:
    """Why a connection failed, as the system words it (`[Errno 111] Connection refused`)."""
    if isinstance(exc, aiohttp.ClientConnectorError):
        error = exc.os_error
        if error.errno and error.errno > 0:
            return f"[Errno {error.errno}] {os.strerror(error.errno)}"
        return str(error)
    if isinstance(exc, TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__
