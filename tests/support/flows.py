"""A flow factory for logic tests, in the spirit of mitmproxy's `tflow()`.

`tflow()` builds the `Flow` memtap's handler builds for a request (`proxy/handler.py:new_flow`
on a request object that never touched a socket): X-Memtap-* headers read, owner derived
from the API key, upstream headers prepared, the body not read yet. Tests then call addon
hooks on it directly, no network needed:

    body = chat_body("hi")
    flow = tflow(body=body)
    await inject.request_headers(flow)
    if flow.read_body:
        give_body(flow, body)               # what the handler does next
    await inject.request(flow)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from aiohttp.test_utils import make_mocked_request
from multidict import CIMultiDict

from memtap.config.schema import ApiFormat, EndUserSource
from memtap.proxy.flow import Flow
from memtap.proxy.handler import new_flow
from memtap.proxy.routing import Route

API_KEY = "sk-tflow-0123456789"
UPSTREAM_URL = "http://upstream.test"

Body = Mapping[str, Any] | bytes


def body_bytes(body: Body) -> bytes:
    """The bytes a client sends for `body` (a JSON object is encoded as memtap reads it)."""
    return orjson.dumps(body) if isinstance(body, Mapping) else body


def chat_body(
    text: str, *, model: str = "gpt-test", stream: bool = False
) -> dict[str, Any]:
    """An OpenAI chat completions request with one user message."""
    return {
        "model": model,
        "stream": stream,
        "messages": [{"role": "user", "content": text}],
    }


def tflow(
    path: str = "/v1/chat/completions",
    *,
    method: str = "POST",
    body: Body | None = None,
    api_key: str | None = API_KEY,
    headers: Mapping[str, str] | None = None,
    format: ApiFormat = "auto",
    chunked: bool = False,
    user_from: Sequence[EndUserSource] = ("header", "body"),
) -> Flow:
    """A reverse-mode flow to `path` (query allowed) as the handler has it before any hook.

    `body` (a JSON object or raw bytes) is declared with a Content-Length, or as chunked
    (`chunked=True`: no declared size); it is not read: `give_body` does that. `headers` are
    the client's (X-Memtap-Memory, X-Memtap-Session, X-Memtap-User, Accept-Encoding...);
    `user_from` is `memory.user_from` as the handler passes it.
    """
    client_headers: CIMultiDict[str] = CIMultiDict(headers or {})
    if api_key is not None and "Authorization" not in client_headers:
        client_headers["Authorization"] = f"Bearer {api_key}"
    raw = body_bytes(body) if body is not None else None
    if raw is not None:
        client_headers.setdefault("Content-Type", "application/json")
        if chunked:
            client_headers["Transfer-Encoding"] = "chunked"
        else:
            client_headers["Content-Length"] = str(len(raw))
    request = make_mocked_request(method, path, headers=client_headers)
    path_only, _, query = path.partition("?")
    route = Route("upstream", UPSTREAM_URL, path_only, query, format, 30.0, 10.0)
    flow = new_flow(request, route, user_from)
    flow.client_ip = "127.0.0.1"
    return flow


def give_body(flow: Flow, body: Body) -> None:
    """What the handler does when a request_headers hook set `flow.read_body`: the whole
    body (the one given to `tflow`) becomes `flow.body`."""
    flow.body = body_bytes(body)
