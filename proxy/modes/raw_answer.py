"""A whole HTTP/1.1 JSON error written straight to a transport, for the places that answer
before (or without) aiohttp's response machinery: a CONNECT memtap refuses, a connection
over the caps, a request head that never completes, a malformed body."""

from __future__ import annotations

from collections.abc import Mapping

import orjson


def json_answer(
    status: int,
    reason: str,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> bytes:
    """The response bytes: a JSON `{"error": {code, message}}` body, connection closed after."""
    body = orjson.dumps({"error": {"code": code, "message": message}})
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    head = (
        f"HTTP/1.1 {status} {reason}\r\n{extra}Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body
