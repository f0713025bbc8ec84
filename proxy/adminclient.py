"""The admin API client: one module for every caller of memtap's admin API over HTTP.

* `AdminClient`: blocking (urllib), for the CLI commands (`proxy/cli/`);
* `ThreadedAdminClient`: that client called from an event loop (`memtap mcp` on stdio);
* `LoopbackAdminApi`: asynchronous (aiohttp), for the MCP endpoint inside memtap
  (`proxy/admin/mcp.py`), so its tools get the same validation, auth and answers as any
  client, with no second implementation of them.

The two asynchronous ones are an `AdminApi` (what the MCP tools call). Errors are the same
for all: `ApiError` (the API answered an error) and `Unreachable` (no answer).
Where the CLI finds the URL and token (`--url`, env, config file) is `proxy/cli/client.py`.
"""

from __future__ import annotations

import asyncio
import functools
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, Protocol, Self

import aiohttp

ADMIN_PREFIX: Final = "/_memtap"
"""Where the admin API lives on memtap's listeners (the contract's path; the admin sub-app
is mounted here too)."""


# Never through HTTP(S)_PROXY: the admin token must go to memtap itself, not to a proxy the
# environment names for outbound traffic (memtap is usually on this host or this network).
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class ApiError(Exception):
    """The admin API answered with an error (`{"error": {"code", "message"}}`)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


class Unreachable(Exception):
    """No memtap answered at the URL."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where the admin API is (`http://host:port`, no trailing slash) and its token."""

    base_url: str
    token: str | None


class AdminApi(Protocol):
    """The admin API as the tools call it: `ThreadedAdminClient` (the CLI's client, for
    `memtap mcp` on stdio) or `LoopbackAdminApi` (the HTTP endpoint inside memtap)."""

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> Any: ...


def query_params(params: Mapping[str, Any] | None) -> dict[str, str]:
    """Admin API query parameters as strings: None dropped, booleans as true/false."""
    return {
        k: str(v).lower() if isinstance(v, bool) else str(v)
        for k, v in (params or {}).items()
        if v is not None
    }


class AdminClient:
    def __init__(self, target: Target, timeout_s: float = 300.0) -> None:
        self.target = target
        self.timeout_s = timeout_s

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        kept = query_params(params)
        query = "?" + urllib.parse.urlencode(kept) if kept else ""
        return f"{self.target.base_url}{ADMIN_PREFIX}{path}{query}"

    def _open(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        data: bytes | Iterable[bytes] | None = None,
        content_type: str = "application/json",
        length: int | None = None,
    ) -> Any:
        headers = {"Accept": "application/json"}
        if self.target.token:
            headers["Authorization"] = f"Bearer {self.target.token}"
        if body is not None:
            data = json.dumps(body).encode()
        if data is not None:
            headers["Content-Type"] = content_type
            if length is not None:
                headers["Content-Length"] = str(length)
        request = urllib.request.Request(
            self.url(path, params), data=data, method=method, headers=headers
        )
        try:
            return _DIRECT.open(request, timeout=self.timeout_s)
        except urllib.error.HTTPError as exc:
            raise _api_error(exc) from None
        except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            raise Unreachable(
                f"cannot reach memtap at {self.target.base_url}: {reason}"
            ) from None

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> Any:
        with self._open(method, path, params=params, body=body) as response:
            return json.loads(response.read() or b"null")

    def upload_lines(
        self,
        path: str,
        chunks: Iterable[bytes],
        length: int,
        *,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        with self._open(
            "POST",
            path,
            params=params,
            data=chunks,
            content_type="application/x-ndjson",
            length=length,
        ) as response:
            return json.loads(response.read())

    def stream_lines(self, path: str) -> Iterator[bytes]:
        with self._open("GET", path) as response:
            yield from response


def _api_error(exc: urllib.error.HTTPError) -> ApiError:
    raw = exc.read()
    try:
        error = json.loads(raw)["error"]
        return ApiError(exc.code, str(error["code"]), str(error["message"]))
    except (ValueError, KeyError, TypeError):
        return ApiError(
            exc.code,
            "http_error",
            raw[:200].decode("utf-8", "replace") or str(exc.reason),
        )


class ThreadedAdminClient:
    """The CLI's blocking admin client, called from the MCP server's event loop."""

    def __init__(self, client: AdminClient) -> None:
        self.client = client

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> Any:
        return await asyncio.to_thread(
            functools.partial(
                self.client.request, method, path, params=params, body=body
            )
        )


class LoopbackAdminApi:
    def __init__(
        self, base_url: str, authorization: str | None, timeout_s: float = 30.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": authorization} if authorization else {}
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Self:
        self._session = aiohttp.ClientSession(timeout=self._timeout)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._session is not None:
            await self._session.close()

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> Any:
        assert self._session is not None, "use `async with LoopbackAdminApi(...)`"
        try:
            async with self._session.request(
                method,
                f"{self.base_url}{ADMIN_PREFIX}{path}",
                params=query_params(params),
                json=body,
                headers=self._headers,
            ) as response:
                data = (
                    await response.json(content_type=None)
                    if response.status != 204
                    else None
                )
                if response.status >= 400:
                    error = data.get("error", {}) if isinstance(data, dict) else {}
                    raise ApiError(
                        response.status,
                        str(error.get("code", "http_error")),
                        str(error.get("message", response.reason)),
                    )
                return data
        except (aiohttp.ClientError, TimeoutError, ValueError, RecursionError) as exc:
            # ValueError/RecursionError: an answer that is not JSON, or arguments too
            # deeply nested to send as JSON.
            raise Unreachable(f"admin API call failed: {type(exc).__name__}") from None
