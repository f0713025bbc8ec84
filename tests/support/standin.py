"""An in-process stand-in for LLM providers (aiohttp on 127.0.0.1, port 0).

Start it with the `standin` fixture (tests/conftest.py) or `async with Standin() as s:`.
Every request is recorded (`standin.requests`: method, raw path, headers, body) before it is
answered, so tests can assert what memtap sent upstream.

Options (keyword arguments), one stand-in for every test and benchmark:
- `tls=make_pki(dir)` (tests/support/pki.py) serves HTTPS with that PKI's 127.0.0.1 leaf;
  `standin.url` says https and `standin.ca_file` is the CA to trust
- `fallback=lambda recorded: {...}` the JSON answer for paths with no endpoint below
  (default: a description of the request)
- `canned=CannedChat(json, sse)` answers `POST /v1/chat/completions` with these exact bytes
  without parsing the request (the benchmarks' minimal, fast upstream)
- `record=False` keeps nothing (`standin.requests` stays empty: long benchmark runs)
- `port=` a fixed port instead of a free one

Endpoints
- `POST /v1/chat/completions` OpenAI chat: JSON, or SSE when the body has `"stream": true`
  (also Azure OpenAI's `/openai/deployments/{d}/chat/completions` and `/openai/v1/chat/completions`)
- `POST /v1/messages`         Anthropic messages: JSON, or SSE when `"stream": true`
  Both answer `standin.reply_text`, split into word chunks; per request the headers
  `x-standin-delay-ms` (pause between SSE chunks) and `x-standin-text` override the defaults.
  Chat with `x-standin-sse-bytes: N` streams a generated answer of about N bytes instead
  (`big_chat_sse`, made as it is sent, so N may be far larger than RAM); what was sent is
  recorded in `standin.big_sent` (bytes, sha256, content characters).
- `GET  /fixture/{family}/{name}` replay `tests/fixtures/llm-traffic/{family}/{name}.response.*`
  byte-exact with the status and Content-Type of its expect.json (`?chunk=N` bytes per write,
  default: one write per `split_at` piece or the whole body)
- `ANY  /echo`                 the request body back, same Content-Type (Content-Length set)
- `GET  /bytes/{n}`            n deterministic bytes (`pattern_bytes`), Content-Length, 64 KiB writes
- `GET  /gzip`                 a gzip-encoded JSON body with Content-Encoding: gzip
                               (`?chunked=1`: chunked transfer instead of Content-Length)
- `GET  /chunked?count=&size=&delay_ms=`  chunked body of `count` pieces
- `GET  /sse-timed?count=&interval_ms=`   SSE events; send times go to `standin.sent_at`
- `ANY  /slow?delay_ms=`       waits before sending headers
- `GET  /close-mid-body`       promises 1000 bytes, sends 10, closes the connection
- `GET  /close-before-headers` closes the connection without answering
- anything else                200 JSON describing the request (method, path, query, body size)

Extraction model: a chat completion whose `response_format` names the schema
`memtap_extraction` (memtap's own call with `extraction.kind: model`) is recorded in
`standin.extraction_requests` and answered with the next of `standin.extraction_answers`
(`tests/support/extraction_answers.py`: good, malformed JSON, wrong schema, slow, a status).

Scripted replies: `standin.enqueue(Reply(...))` or `standin.enqueue_fixture(family, name)`
answers the NEXT request (any path) with that reply instead; FIFO, one reply per request.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import itertools
import json
import random
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy

from tests.support.extraction_answers import ExtractionAnswer, is_extraction
from tests.support.pki import Pki

FIXTURES = Path(__file__).parent.parent / "fixtures" / "llm-traffic"
BLOCK = 65536
_PATTERN_BASE = random.Random(20261202).randbytes(BLOCK)


def pattern_block(index: int) -> bytes:
    """64 KiB block `index` of the deterministic pattern (index in the first 8 bytes, so a
    dropped, repeated or reordered block changes the digest)."""
    return index.to_bytes(8, "big") + _PATTERN_BASE[8:]


def pattern_bytes(n: int) -> list[bytes]:
    """The blocks `GET /bytes/{n}` sends, in order (last one truncated)."""
    blocks = []
    for index in range((n + BLOCK - 1) // BLOCK):
        size = min(BLOCK, n - index * BLOCK)
        blocks.append(pattern_block(index)[:size])
    return blocks


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    method: str
    path: str
    """Raw request target as received (path and query, percent-encoding untouched)."""
    headers: CIMultiDictProxy[str]
    body: bytes
    received_at: float
    peer: tuple[str, int] | None = None
    """Client address of the connection (tells pooled connections apart)."""

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(slots=True)
class Reply:
    """A scripted response. `chunks` are written one by one (with `delay_s` between them);
    `content_length=True` sends a Content-Length, else the body is chunked."""

    status: int = 200
    headers: dict[str, str] | list[tuple[str, str]] = field(default_factory=dict)
    """A list of pairs may repeat a name (Set-Cookie)."""
    chunks: Sequence[bytes] = ()
    delay_s: float = 0.0
    headers_delay_s: float = 0.0
    content_length: bool = True


@dataclass(frozen=True, slots=True)
class CannedChat:
    """Fixed chat answers sent byte for byte, the request never parsed: `sse` (one write per
    event) when the body contains `"stream": true`, else `json`."""

    json: bytes
    sse: Sequence[bytes] = ()


@dataclass(frozen=True, slots=True)
class FixtureCase:
    family: str
    name: str
    body: bytes
    status: int
    content_type: str
    split_at: tuple[int, ...]
    expect: dict[str, Any]

    def pieces(self, chunk: int | None = None) -> list[bytes]:
        if chunk:
            return [
                self.body[i : i + chunk] for i in range(0, len(self.body), chunk)
            ] or [b""]
        cuts = [
            0,
            *[c for c in self.split_at if 0 < c < len(self.body)],
            len(self.body),
        ]
        return [self.body[a:b] for a, b in itertools.pairwise(cuts) if b > a] or [b""]


def load_fixture(family: str, name: str) -> FixtureCase:
    folder = FIXTURES / family
    expect = json.loads((folder / f"{name}.expect.json").read_bytes())
    for suffix in (".response.sse", ".response.json"):
        path = folder / f"{name}{suffix}"
        if path.exists():
            body = path.read_bytes()
            break
    else:
        raise FileNotFoundError(f"no response file for {family}/{name}")
    content_type = expect.get("content_type") or (
        "text/event-stream" if path.suffix == ".sse" else "application/json"
    )
    return FixtureCase(
        family=family,
        name=name,
        body=body,
        status=int(expect.get("status", 200)),
        content_type=content_type,
        split_at=tuple(expect.get("split_at") or ()),
        expect=expect,
    )


# -- response bodies ---------------------------------------------------------------------


def _words(text: str) -> list[str]:
    parts = text.split(" ")
    return [p if i == len(parts) - 1 else p + " " for i, p in enumerate(parts)]


def openai_chat_json(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-standin",
        "object": "chat.completion",
        "created": 1764700000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": 12,
            "completion_tokens": len(_words(text)),
            "total_tokens": 12 + len(_words(text)),
        },
    }


BIG_DELTA_CHARS = 32 * 1024


def big_chat_sse(total_bytes: int, model: str) -> Iterator[tuple[bytes, int]]:
    """Chat SSE events of about `total_bytes` in all, with the content characters of each:
    deltas of `BIG_DELTA_CHARS` numbered text (`"<index> answer sentence ... "`), then the
    finish chunk and `[DONE]`."""

    def event(delta: dict[str, Any], finish: str | None) -> bytes:
        body = {
            "id": "chatcmpl-standin-big",
            "object": "chat.completion.chunk",
            "created": 1764700000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\n\n"

    filler = ("I like long answers. " * (BIG_DELTA_CHARS // 21 + 1))[:BIG_DELTA_CHARS]
    sent = 0
    index = 0
    while sent < total_bytes:
        content = f"{index:08d} " + filler[9:]
        data = event({"content": content}, None)
        sent += len(data)
        index += 1
        yield data, len(content)
    yield event({}, "stop"), 0
    yield b"data: [DONE]\n\n", 0


def openai_chat_sse(text: str, model: str) -> list[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None) -> bytes:
        body = {
            "id": "chatcmpl-standin",
            "object": "chat.completion.chunk",
            "created": 1764700000,
            "model": model,
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            ],
        }
        return b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\n\n"

    events = [chunk({"role": "assistant", "content": ""}, None)]
    events += [chunk({"content": word}, None) for word in _words(text)]
    events.append(chunk({}, "stop"))
    events.append(b"data: [DONE]\n\n")
    return events


def anthropic_json(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": len(_words(text))},
    }


def anthropic_sse(text: str, model: str) -> list[bytes]:
    def event(name: str, data: dict[str, Any]) -> bytes:
        return (
            f"event: {name}\ndata: ".encode()
            + json.dumps(data, separators=(",", ":")).encode()
            + b"\n\n"
        )

    message = anthropic_json("", model) | {"content": [], "stop_reason": None}
    message["usage"] = {"input_tokens": 12, "output_tokens": 1}
    events = [
        event("message_start", {"type": "message_start", "message": message}),
        event(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        b'event: ping\ndata: {"type": "ping"}\n\n',
    ]
    for word in _words(text):
        delta = {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": word},
        }
        events.append(event("content_block_delta", delta))
    events.append(
        event("content_block_stop", {"type": "content_block_stop", "index": 0})
    )
    events.append(
        event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": len(_words(text))},
            },
        )
    )
    events.append(event("message_stop", {"type": "message_stop"}))
    return events


# -- the server --------------------------------------------------------------------------


class Standin:
    """The stand-in upstream. Attributes tests may change: `reply_text`, `chunk_delay_s`."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        *,
        port: int = 0,
        tls: Pki | None = None,
        fallback: Callable[[RecordedRequest], Any] | None = None,
        canned: CannedChat | None = None,
        record: bool = True,
    ) -> None:
        self.host = host
        self.port = port
        self.tls = tls
        self.fallback = fallback
        self.canned = canned
        self.record = record
        self.reply_text = "Hello from the stand-in upstream."
        self.chunk_delay_s = 0.0
        self.requests: list[RecordedRequest] = []
        self.replies: deque[Reply] = deque()
        self.extraction_answers: deque[ExtractionAnswer] = deque()
        self.extraction_requests: list[RecordedRequest] = []
        self.sent_at: list[tuple[int, float]] = []
        """(event index, time.monotonic() right after the write) for /sse-timed."""
        self.disconnects = 0
        self.big_sent: tuple[int, str, int] | None = None
        """(bytes, sha256 hex, content characters) of the last `x-standin-sse-bytes` answer."""
        """Streaming responses the client (memtap) abandoned before the end."""
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{self.host}:{self.port}"

    @property
    def ca_file(self) -> Path:
        """The CA a client trusts to reach this stand-in over TLS."""
        if self.tls is None:
            raise ValueError("a plain-HTTP stand-in has no CA")
        return self.tls.ca_file

    def last(self) -> RecordedRequest:
        return self.requests[-1]

    def enqueue(self, reply: Reply) -> None:
        self.replies.append(reply)

    def enqueue_fixture(
        self, family: str, name: str, *, chunk: int | None = None, delay_s: float = 0.0
    ) -> FixtureCase:
        """The next request gets this fixture's response bytes (status, Content-Type) byte-exact."""
        case = load_fixture(family, name)
        self.enqueue(
            Reply(
                status=case.status,
                headers={"Content-Type": case.content_type},
                chunks=case.pieces(chunk),
                delay_s=delay_s,
                content_length=not case.expect.get("stream", False),
            )
        )
        return case

    async def start(self) -> None:
        app = web.Application(client_max_size=1024**3)
        app.router.add_route("*", "/{tail:(?s:.*)}", self._dispatch)
        # Bodies are recorded as they arrived (a gzip upload stays gzip), read decompressed.
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, auto_decompress=False
        )
        await self._runner.setup()
        context = self.tls.server_context() if self.tls else None
        site = web.TCPSite(self._runner, self.host, self.port, ssl_context=context)
        await site.start()
        self.port = site.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # -- dispatch ------------------------------------------------------------------------

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        body = _readable(raw, request.headers.get("Content-Encoding"))
        if request.path.endswith("/chat/completions") and is_extraction(body):
            return await self._extraction(request, body)
        if self.record:
            self.requests.append(_recorded(request, raw))
        if self.replies:
            return await self._scripted(request, self.replies.popleft())
        path = request.path
        if path == "/v1/chat/completions" and self.canned is not None:
            return await self._canned(request, body, self.canned)
        # Azure OpenAI's `/openai/deployments/{d}/chat/completions` and `/openai/v1/...` too.
        if (
            path == "/v1/chat/completions"
            or path.endswith("/openai/v1/chat/completions")
            or (
                path.startswith("/openai/deployments/")
                and path.endswith("/chat/completions")
            )
        ):
            return await self._llm(request, body, openai_chat_json, openai_chat_sse)
        if path == "/v1/messages":
            return await self._llm(request, body, anthropic_json, anthropic_sse)
        if path.startswith("/fixture/"):
            _, _, family, name = path.split("/", 3)
            chunk = int(request.query.get("chunk", "0")) or None
            case = load_fixture(family, name)
            reply = Reply(
                case.status,
                {"Content-Type": case.content_type},
                case.pieces(chunk),
                content_length=False,
            )
            return await self._scripted(request, reply)
        if path == "/echo":
            content_type = request.headers.get(
                "Content-Type", "application/octet-stream"
            )
            return web.Response(body=body, headers={"Content-Type": content_type})
        if path.startswith("/bytes/"):
            return await self._bytes(request, int(path.rsplit("/", 1)[1]))
        if path == "/gzip":
            return await self._gzip(request)
        if path == "/chunked":
            count, size = (
                int(request.query.get("count", "10")),
                int(request.query.get("size", "100")),
            )
            delay = float(request.query.get("delay_ms", "0")) / 1000
            chunks = [bytes([65 + i % 26]) * size for i in range(count)]
            return await self._scripted(
                request, Reply(chunks=chunks, delay_s=delay, content_length=False)
            )
        if path == "/sse-timed":
            return await self._sse_timed(request)
        if path == "/slow":
            await asyncio.sleep(float(request.query.get("delay_ms", "1000")) / 1000)
            return web.json_response({"slow": True})
        if path == "/close-mid-body":
            response = web.StreamResponse(
                headers={"Content-Length": "1000", "Content-Type": "text/plain"}
            )
            await response.prepare(request)
            await response.write(b"0123456789")
            await asyncio.sleep(0.05)
            assert request.transport is not None
            request.transport.close()
            return response
        if path == "/close-before-headers":
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if self.fallback is not None:
            return web.json_response(self.fallback(_recorded(request, body)))
        return web.json_response(
            {
                "method": request.method,
                "path": path,
                "query": request.query_string,
                "body_bytes": len(body),
            }
        )

    async def _extraction(
        self, request: web.Request, body: bytes
    ) -> web.StreamResponse:
        self.extraction_requests.append(_recorded(request, body))
        answer = (
            self.extraction_answers.popleft()
            if self.extraction_answers
            else ExtractionAnswer()
        )
        if answer.delay_s:
            await asyncio.sleep(answer.delay_s)
        status, payload = answer.response(body)
        return web.Response(
            status=status, body=payload, headers={"Content-Type": "application/json"}
        )

    async def _write_all(
        self,
        request: web.Request,
        response: web.StreamResponse,
        chunks: Sequence[bytes],
        delay_s: float,
    ) -> None:
        await response.prepare(request)
        if request.method == "HEAD":
            chunks = ()  # headers only (aiohttp would write a body we hand it)
        try:
            for index, chunk in enumerate(chunks):
                if index and delay_s:
                    await asyncio.sleep(delay_s)
                await response.write(chunk)
            await response.write_eof()
        except (ConnectionError, asyncio.CancelledError):
            self.disconnects += 1
            raise

    async def _scripted(self, request: web.Request, reply: Reply) -> web.StreamResponse:
        if reply.headers_delay_s:
            await asyncio.sleep(reply.headers_delay_s)
        response = web.StreamResponse(
            status=reply.status, headers=CIMultiDict(reply.headers)
        )
        if reply.content_length:
            response.content_length = sum(len(c) for c in reply.chunks)
        await self._write_all(request, response, reply.chunks, reply.delay_s)
        return response

    async def _llm(
        self, request: web.Request, body: bytes, as_json: Any, as_sse: Any
    ) -> web.StreamResponse:
        try:
            parsed = json.loads(body)
        except ValueError:
            return web.json_response(
                {"error": {"message": "invalid JSON", "type": "invalid_request_error"}},
                status=400,
            )
        text = request.headers.get("x-standin-text", self.reply_text)
        model = (
            parsed.get("model", "standin-model")
            if isinstance(parsed, dict)
            else "standin-model"
        )
        big = request.headers.get("x-standin-sse-bytes")
        if big is not None and isinstance(parsed, dict) and parsed.get("stream"):
            return await self._big_sse(request, int(big), str(model))
        if isinstance(parsed, dict) and parsed.get("stream"):
            delay = (
                float(
                    request.headers.get("x-standin-delay-ms", self.chunk_delay_s * 1000)
                )
                / 1000
            )
            reply = Reply(
                headers={
                    "Content-Type": "text/event-stream; charset=utf-8",
                    "Cache-Control": "no-cache",
                },
                chunks=as_sse(text, model),
                delay_s=delay,
                content_length=False,
            )
            return await self._scripted(request, reply)
        return web.json_response(
            as_json(text, model), headers={"x-request-id": "req_standin"}
        )

    async def _big_sse(
        self, request: web.Request, total_bytes: int, model: str
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream; charset=utf-8"}
        )
        await response.prepare(request)
        digest = hashlib.sha256()
        sent = chars = 0
        for data, content_chars in big_chat_sse(total_bytes, model):
            await response.write(data)
            digest.update(data)
            sent += len(data)
            chars += content_chars
        await response.write_eof()
        self.big_sent = (sent, digest.hexdigest(), chars)
        return response

    async def _canned(
        self, request: web.Request, body: bytes, canned: CannedChat
    ) -> web.StreamResponse:
        if b'"stream": true' not in body:
            return web.Response(body=canned.json, content_type="application/json")
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in canned.sse:
            await response.write(event)
        await response.write_eof()
        return response

    async def _bytes(self, request: web.Request, n: int) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "application/octet-stream"}
        )
        response.content_length = n
        await self._write_all(request, response, pattern_bytes(n), 0.0)
        return response

    async def _gzip(self, request: web.Request) -> web.StreamResponse:
        payload = gzip_payload()
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        chunks = [payload[i : i + 700] for i in range(0, len(payload), 700)]
        reply = Reply(
            headers=headers,
            chunks=chunks,
            content_length=request.query.get("chunked") != "1",
        )
        return await self._scripted(request, reply)

    async def _sse_timed(self, request: web.Request) -> web.StreamResponse:
        count = int(request.query.get("count", "5"))
        interval = float(request.query.get("interval_ms", "100")) / 1000
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        try:
            for index in range(count):
                if index:
                    await asyncio.sleep(interval)
                await response.write(f"data: {index}\n\n".encode())
                self.sent_at.append((index, time.monotonic()))
            await response.write_eof()
        except (ConnectionError, asyncio.CancelledError):
            self.disconnects += 1
            raise
        return response


def _recorded(request: web.Request, body: bytes) -> RecordedRequest:
    peer = request.transport.get_extra_info("peername") if request.transport else None
    return RecordedRequest(
        request.method,
        request.raw_path,
        CIMultiDictProxy(CIMultiDict(request.headers)),
        body,
        time.monotonic(),
        tuple(peer) if peer else None,
    )


def _readable(raw: bytes, encoding: str | None) -> bytes:
    """What a gzip-encoded upload says (the recorded body keeps the bytes as sent)."""
    if (encoding or "").strip().lower() in ("gzip", "x-gzip"):
        return gzip.decompress(raw)
    return raw


def gzip_payload() -> bytes:
    """The exact compressed bytes `GET /gzip` sends."""
    filler = (
        random.Random(7).randbytes(4000).hex()
    )  # incompressible: several 700-byte writes
    return gzip.compress(
        json.dumps({"compressed": True, "filler": filler}).encode(), mtime=0
    )
