"""The memory addon: the only place memory touches a request.

On the way in it reads the conversation, retrieves the owner's memories and injects them at
the system level; on the way out it follows the response and, once the exchange completed,
commits the turn to the engine's durable outbox (awaited before the client sees the end of
the body: see `proxy/tee.py`).

Every step fails open: any exception is logged (`memory.failed`), counted
(`memtap_memory_fallbacks_total{cause}`) and the request goes on with its original bytes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

import orjson

from memtap.engine.clock import now_iso
from memtap.engine.memory_block import MemoryLine, build_memory_block
from memtap.engine.types import Retrieval, RetrievalRequest, Turn
from memtap.proxy.addons.memory_notes import log_skipped, log_surrogates_replaced
from memtap.proxy.codecs.followers import decoding
from memtap.proxy.codecs.surrogates import parse_request_body
from memtap.proxy.headers import MEMORIES_HEADER
from memtap.proxy.pipeline import Addon

if TYPE_CHECKING:
    from multidict import CIMultiDict

    from memtap.proxy.appkeys import Runtime
    from memtap.proxy.codecs.base import Completion
    from memtap.proxy.flow import Flow

log = logging.getLogger("memtap.memory")

MAX_QUERY_CHARS = 4000

# Terminal reasons after which the turn is not learned from: the provider refused, failed or
# blocked it, so the user's text may be exactly what memory must not keep.
_UNLEARNABLE_FINISH = frozenset(
    {"error", "failed", "refusal", "truncated", "SAFETY", "content_filter"}
)


_REQUEST_STEPS = frozenset({"inject", "retrieval", "retrieval_timeout"})
# Content-Encodings the response follower can decode (zlib); see proxy/codecs/followers.py.
_DECODABLE = frozenset({"gzip", "x-gzip", "deflate", "identity"})


def limit_accept_encoding(headers: CIMultiDict[str]) -> None:
    """Drop encodings memtap cannot observe (`br`, `zstd`...) from Accept-Encoding, so the
    answer comes back in one it can follow; the client still gets an encoding it asked for."""
    offered = headers.get("Accept-Encoding")
    if offered is None:
        return
    kept = [
        token.strip()
        for token in offered.split(",")
        if token.split(";")[0].strip().lower() in _DECODABLE
    ]
    if len(kept) == len([t for t in offered.split(",") if t.strip()]):
        return
    headers["Accept-Encoding"] = ", ".join(kept) if kept else "identity"


def _learnable(completion: Completion) -> bool:
    finish = completion.finish or ""
    return (
        completion.clean_end
        and completion.error is None
        and finish not in _UNLEARNABLE_FINISH
        and not finish.startswith("BLOCKED:")
    )


class MemoryAddon(Addon):
    name = "memory"

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    # -- request: retrieve + inject ---------------------------------------------------
    async def request(self, flow: Flow) -> None:
        reason = self._skip_reason(flow)
        if reason is not None:
            flow.memory.skipped_reason = reason
            return
        try:
            await self._inject(flow)
        except Exception as exc:  # noqa: BLE001 - memory must never fail the request
            self._failed(flow, "inject", exc)

    def _skip_reason(self, flow: Flow) -> str | None:
        if flow.codec is None:
            return "not_a_memory_endpoint"
        if flow.owner_id is None:
            return "no_api_key"
        if flow.memory_mode == "off":
            return "memory_header_off"
        if self.runtime.engine is None:
            return "engine_unavailable"
        if not self.runtime.config.current.memory.enabled:
            return "memory_disabled"
        if flow.body is None:
            return "body_not_buffered"
        return None

    async def _inject(self, flow: Flow) -> None:
        codec, engine, owner = flow.codec, self.runtime.engine, flow.owner_id
        assert (
            codec is not None
            and engine is not None
            and owner is not None
            and flow.body is not None
        )
        config = self.runtime.config.current.memory
        try:
            # Lone surrogates: memory reads a replaced copy (proxy/codecs/surrogates.py).
            parsed = parse_request_body(flow.body)
            body = parsed.original
            view = codec.read_request(
                parsed.readable, flow.route.path, flow.route.query
            )
        except (orjson.JSONDecodeError, ValueError, TypeError, KeyError) as exc:
            # Not a body this codec understands: pass it through untouched, no memory.
            flow.memory.skipped_reason = f"unreadable_body: {type(exc).__name__}"
            log_skipped(flow, exc)
            return
        if parsed.had_surrogates:
            log_surrogates_replaced(flow)
        flow.memory.conversation = view
        flow.extra_response_headers[MEMORIES_HEADER] = "0"
        if flow.memory_mode == "on":
            limit_accept_encoding(flow.request_headers)
        # A pasted document can make the last user turn huge; its end (where the question
        # usually is) is what retrieval needs, and a bounded query keeps retrieval fast.
        query = view.last_user_text[-MAX_QUERY_CHARS:]
        retrieval = await self._retrieve(
            flow, owner, query, config.retrieval_timeout_ms
        )
        if retrieval is None:
            return
        if not retrieval.hits:
            self.runtime.metrics.memory_requests.inc("empty")
            return
        block = build_memory_block(
            [
                MemoryLine(
                    hit.memory.content,
                    (hit.memory.updated_at or hit.memory.created_at)[:10] or None,
                )
                for hit in retrieval.hits
            ]
        )
        rewritten = parsed.dumps(
            codec.inject(body, block, config.placement, view.model)
        )
        # Commit the rewrite only once everything above succeeded (fail-open = original bytes).
        flow.body = rewritten
        flow.body_rewritten = True
        flow.memory.injected_ids = tuple(hit.memory.id for hit in retrieval.hits)
        flow.memory.injected_tokens = retrieval.tokens
        flow.extra_response_headers[MEMORIES_HEADER] = str(len(retrieval.hits))
        self.runtime.metrics.memories_injected.inc(amount=len(retrieval.hits))
        self.runtime.metrics.memory_requests.inc("injected")
        log.info(
            "memory.injected",
            extra={
                "fields": {
                    "request_id": flow.request_id,
                    "owner": owner,
                    "format": codec.format,
                    "ids": list(flow.memory.injected_ids),
                    "scores": [round(hit.score, 4) for hit in retrieval.hits],
                    "tiers": [hit.tier for hit in retrieval.hits],
                    "tokens": retrieval.tokens,
                    "strategy": retrieval.resolution.get("strategy", config.strategy),
                    "placement": config.placement,
                }
            },
        )

    async def _retrieve(
        self, flow: Flow, owner: str, query: str, timeout_ms: int
    ) -> Retrieval | None:
        engine = self.runtime.engine
        assert engine is not None
        request = RetrievalRequest(owner=owner, query=query, session=flow.session_id)
        started = time.monotonic()
        try:
            async with asyncio.timeout(timeout_ms / 1000.0):
                retrieval = await engine.retrieve(request)
        except TimeoutError as exc:
            self._failed(flow, "retrieval_timeout", exc)
            return None
        except Exception as exc:  # noqa: BLE001 - fail-open
            self._failed(flow, "retrieval", exc)
            return None
        strategy = str(
            retrieval.resolution.get(
                "strategy", self.runtime.config.current.memory.strategy
            )
        )
        self.runtime.metrics.retrieval_duration.observe(
            (time.monotonic() - started) * 1000.0, strategy
        )
        return retrieval

    # -- response: follow + capture ---------------------------------------------------
    async def response_headers(self, flow: Flow) -> None:
        if (
            flow.memory_mode != "on"
            or flow.codec is None
            or flow.memory.conversation is None
        ):
            return
        if flow.status is None or not 200 <= flow.status < 300:
            flow.memory.skipped_reason = f"status_{flow.status}"
            return
        try:
            headers = flow.response_headers
            content_type = (
                headers.get("Content-Type", "") if headers is not None else ""
            )
            encoding = headers.get("Content-Encoding") if headers is not None else None
            follower = decoding(
                flow.codec.follower(content_type, flow.route.path, flow.route.query),
                encoding,
            )
            if follower is None:
                flow.memory.skipped_reason = f"content_encoding_{encoding}"
                return
            flow.memory.follower = follower
        except Exception as exc:  # noqa: BLE001 - fail-open
            self._failed(flow, "follow", exc)

    def response_chunk(self, flow: Flow, chunk: bytes) -> None:
        follower = flow.memory.follower
        if follower is None or follower.failed:
            return
        try:
            follower.feed(chunk)
        except Exception:  # noqa: BLE001 - capture fails for this response only
            follower.failed = True

    async def response_done(self, flow: Flow) -> None:
        follower, view, engine, owner = (
            flow.memory.follower,
            flow.memory.conversation,
            self.runtime.engine,
            flow.owner_id,
        )
        if (
            follower is None
            or view is None
            or engine is None
            or owner is None
            or flow.codec is None
        ):
            return
        if follower.failed:
            self._failed(
                flow, "capture_decode", ValueError("the response could not be decoded")
            )
            return
        try:
            completion = follower.finish()
            if follower.failed:
                self._failed(
                    flow,
                    "capture_decode",
                    ValueError(completion.error or "finish failed"),
                )
                return
            if not _learnable(completion):
                flow.memory.skipped_reason = f"not_learnable: finish={completion.finish} clean_end={completion.clean_end}"
                return
            if (
                not view.last_user_text.strip()
                and not completion.assistant_text.strip()
            ):
                flow.memory.skipped_reason = "empty_turn"
                return
            turn = Turn(
                request_id=flow.request_id,
                owner=owner,
                session=flow.session_id,
                format=flow.codec.format,
                user_text=view.last_user_text,
                assistant_text=completion.assistant_text,
                model=view.model,
                created_at=now_iso(),
            )
            await engine.enqueue_turn(turn)
        except Exception as exc:  # noqa: BLE001 - fail-open: the client still gets its answer
            self._failed(flow, "capture", exc)
            return
        flow.memory.captured = True
        log.info(
            "memory.captured",
            extra={
                "fields": {
                    "request_id": flow.request_id,
                    "owner": owner,
                    "session": flow.session_id,
                    "format": flow.codec.format,
                    "finish": completion.finish,
                    "user_chars": len(turn.user_text),
                    "assistant_chars": len(turn.assistant_text),
                }
            },
        )

    # -- failures -----------------------------------------------------------------------
    def _failed(self, flow: Flow, step: str, exc: BaseException) -> None:
        self.runtime.metrics.memory_fallbacks.inc(step)
        if step in _REQUEST_STEPS:
            self.runtime.metrics.memory_requests.inc("failed")
        flow.memory.skipped_reason = f"{step}_failed"
        log.warning(
            "memory.failed",
            extra={
                "fields": {
                    "request_id": flow.request_id,
                    "owner": flow.owner_id,
                    "step": step,
                    "reason": f"{type(exc).__name__}: {exc}"[:300],
                }
            },
        )
