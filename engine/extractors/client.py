"""memtap's own call to the extraction model: one POST to `{url}/chat/completions` on a
session of its own, never through memtap's proxy.

- The session ignores `HTTP(S)_PROXY` (`trust_env=False`): a memtap that is also the
  machine's forward proxy does not see its own calls.
- Every call carries `X-Memtap-Memory: off`: when `url` is memtap itself (a reverse-proxied
  upstream), that request is proxied without memory, so it is neither retrieved for nor
  extracted (no loop).
- No redirects, no cookies, a bounded answer, one time limit for the whole call.

A failure is a `CallFailed` with a bounded reason (the metrics label)."""

from __future__ import annotations

import asyncio

import aiohttp
import orjson

MAX_ANSWER_BYTES = 1024 * 1024
USER_AGENT = "memtap-extraction"


class CallFailed(Exception):
    def __init__(self, reason: str, detail: str, body: bytes = b"") -> None:
        super().__init__(detail)
        self.reason = reason
        self.body = body


def endpoint_of(url: str) -> str:
    """`{url}/chat/completions` (`url` is a base URL as in `OPENAI_BASE_URL`)."""
    return url.rstrip("/") + "/chat/completions"


def status_reason(status: int) -> str:
    if status == 429:
        return "status_429"
    if 500 <= status <= 599:
        return "status_5xx"
    return "status_4xx"


def new_session() -> aiohttp.ClientSession:
    return aiohttp.ClientSession(
        trust_env=False,
        cookie_jar=aiohttp.DummyCookieJar(),
        connector=aiohttp.TCPConnector(limit=32),
    )


async def post_chat(
    session: aiohttp.ClientSession,
    url: str,
    api_key: str | None,
    body: dict[str, object],
    timeout_s: float,
) -> bytes:
    """The answer's body (2xx); raises `CallFailed` (timeout, connection, status_*)."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": USER_AGENT,
        "X-Memtap-Memory": "off",
    }
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    try:
        async with asyncio.timeout(timeout_s):
            async with session.post(
                endpoint_of(url),
                data=orjson.dumps(body),
                headers=headers,
                allow_redirects=False,
            ) as response:
                answer = await _read_bounded(response)
                status = response.status
    except TimeoutError:
        raise CallFailed("timeout", f"no answer within {timeout_s:g} s") from None
    except (aiohttp.ClientError, OSError) as exc:
        raise CallFailed("connection", f"{type(exc).__name__}: {exc}"[:200]) from None
    if not 200 <= status <= 299:
        raise CallFailed(status_reason(status), f"status {status}", answer)
    return answer


async def _read_bounded(response: aiohttp.ClientResponse) -> bytes:
    parts: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_chunked(65536):
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise CallFailed("wrong_schema", "the answer is larger than 1 MiB")
        parts.append(chunk)
    return b"".join(parts)
