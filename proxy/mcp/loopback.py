"""The admin API called over HTTP from inside memtap, for the MCP endpoint's tools: the same
validation, auth and answers as any client gets, with no second implementation of them."""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import Any, Self

import aiohttp

from memtap.proxy.cli.client import ADMIN_PREFIX, ApiError, Unreachable, query_params


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
