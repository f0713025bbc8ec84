"""The inject addon: memory on the way in.

`request_headers` decides once whether memory takes part (`proxy/addons/memory_policy.py`:
owner, X-Memtap-Memory, engine, size, codec); `request` then reads the conversation,
retrieves the owner's memories and injects them where `memory.placement` says (beside the
last user turn by default). The capture addon (`proxy/addons/capture.py`) follows the
response of the same flow.

Every step fails open (`proxy/addons/fail_open.py`): the request goes on with its original
bytes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

import orjson

from memtap.engine.episodes.render import episode_line
from memtap.engine.memory_block import MemoryLine, build_memory_block
from memtap.engine.types import Hit, Retrieval, RetrievalRequest
from memtap.proxy.addons import memory_policy
from memtap.proxy.addons.end_user import (
    NO_END_USER,
    must_name_one,
    name_from_body,
    skip_unnamed,
)
from memtap.proxy.addons.fail_open import memory_failed
from memtap.proxy.addons.memory_notes import log_skipped, log_surrogates_replaced
from memtap.proxy.codecs.base import NotPlaced
from memtap.proxy.codecs.surrogates import parse_request_body
from memtap.proxy.headers import MEMORIES_HEADER
from memtap.proxy.owners import scope_for
from memtap.proxy.pipeline import Addon

if TYPE_CHECKING:
    from memtap.engine.api import MemoryEngine
    from memtap.proxy.appkeys import Runtime
    from memtap.proxy.flow import Flow

log = logging.getLogger("memtap.memory")

MAX_QUERY_CHARS = 4000


def _line(hit: Hit) -> MemoryLine:
    memory = hit.memory
    date = (memory.updated_at or memory.created_at)[:10] or None
    if hit.kind == "episode":
        # Who said it, on the day it was said: "when did I..." is answered by the date.
        said = memory.metadata.get("episode", {})
        return MemoryLine(
            episode_line(said.get("role", "user"), memory.content, said.get("partner")),
            date,
        )
    return MemoryLine(memory.content, date)


def injected_block(retrieval: Retrieval) -> str | None:
    """The memory block injected for these hits, one line per hit: a fact dated by its last
    update, an episode snippet by the day it was said (None: nothing is injected). The admin
    API's explain shows exactly this."""
    if not retrieval.hits:
        return None
    return build_memory_block([_line(hit) for hit in retrieval.hits])


ENGINE_LIMIT_GUARD = 4
"""The proxy's own timeout on a retrieval, in multiples of `memory.retrieval_timeout_ms`:
far enough past the engine's limit that one long iteration of a saturated loop does not
fire both together (a second cancel would take the engine's answer at its limit away)."""


def cut_at_limit(retrieval: Retrieval) -> dict[str, str]:
    """`{"cut_at_limit": "keyword" | "facts"}` when the time limit cut the retrieval and it
    answered with what it had read (the engine's `retrieval_partial`); else nothing."""
    for fallback in retrieval.resolution.get("fallbacks", ()):
        if (
            fallback.get("tier") == "retrieval"
            and fallback.get("reason") == "time_limit"
        ):
            return {"cut_at_limit": str(fallback.get("answered_with"))}
    return {}


class InjectAddon(Addon):
    name = "memory.inject"
    uses_memory = True

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def request_headers(self, flow: Flow) -> None:
        decision = memory_policy.decide(
            flow, self.runtime.config.current, self.runtime.engine is not None
        )
        flow.codec = decision.codec
        flow.endpoint = decision.endpoint
        flow.read_body = decision.read_body
        flow.memory.skipped_reason = decision.skipped_reason
        if decision.skipped_reason == NO_END_USER:
            skip_unnamed(flow, self.runtime.metrics)

    async def request(self, flow: Flow) -> None:
        engine, owner = self.runtime.engine, flow.owner_id
        if flow.codec is not None and flow.body is None:
            # Not read whole (a chunked upload past server.max_rewrite_body_bytes, or no
            # body at all): it goes upstream as it is.
            flow.codec = None
            flow.memory.skipped_reason = "body_not_buffered"
        if flow.codec is None or flow.body is None or engine is None or owner is None:
            return  # request_headers kept memory out (flow.memory.skipped_reason says why)
        try:
            await self._inject(flow, engine, owner)
        except Exception as exc:  # noqa: BLE001 - memory must never fail the request
            memory_failed(self.runtime, flow, "inject", exc)

    async def _inject(self, flow: Flow, engine: MemoryEngine, owner: str) -> None:
        codec = flow.codec
        assert codec is not None and flow.body is not None
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
        # Whose memory is decided here, once, before anything is read or learned.
        name_from_body(flow, config, codec.format, parsed.readable)
        if must_name_one(flow, config):
            flow.codec = None  # no extraction either; the request goes on unchanged
            skip_unnamed(flow, self.runtime.metrics)
            return
        owner = flow.owner_id or owner
        flow.memory.conversation = view
        flow.extra_response_headers[MEMORIES_HEADER] = "0"
        # A pasted document can make the last user turn huge; its end (where the question
        # usually is) is what retrieval needs, and a bounded query keeps retrieval fast.
        query = view.last_user_text[-MAX_QUERY_CHARS:]
        retrieval = await self._retrieve(
            flow, engine, owner, query, config.retrieval_timeout_ms
        )
        if retrieval is None:
            return
        if not retrieval.hits:
            self.runtime.metrics.memory_requests.inc("empty")
            return
        block = injected_block(retrieval)
        assert block is not None  # there are hits
        injection = codec.inject(body, block, config.placement, view.model)
        if isinstance(injection, NotPlaced):
            self._not_placed(flow, injection.reason)
            return
        rewritten = parsed.dumps(injection.body)
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
                    "placement": injection.placement,
                    "stripped": injection.stripped,
                    **cut_at_limit(retrieval),
                }
            },
        )

    def _not_placed(self, flow: Flow, reason: str) -> None:
        # Not a failure: this request has no place memory may go (a cached prefix, Gemini
        # cachedContent without a user turn); it goes on with its original bytes.
        self.runtime.metrics.memory_requests.inc("not_placed")
        flow.memory.skipped_reason = f"not_placed: {reason}"
        log.info(
            "memory.not_placed",
            extra={"fields": {"request_id": flow.request_id, "reason": reason}},
        )

    async def _retrieve(
        self, flow: Flow, engine: MemoryEngine, owner: str, query: str, timeout_ms: int
    ) -> Retrieval | None:
        # An end user never reads another's memory, `global` or not (proxy/owners.py).
        scope = scope_for(owner, self.runtime.config.current.memory.scope)
        request = RetrievalRequest(
            owner=owner, query=query, session=flow.session_id, scope=scope
        )
        started = time.monotonic()
        try:
            # The engine keeps the limit itself, answering then with what it read before
            # (RetrievalTimeout if nothing); this timeout only guards against an engine
            # that would not return.
            async with asyncio.timeout(timeout_ms * ENGINE_LIMIT_GUARD / 1000.0):
                retrieval = await engine.retrieve(request, limit_ms=timeout_ms)
        except TimeoutError as exc:
            memory_failed(self.runtime, flow, "retrieval_timeout", exc)
            return None
        except Exception as exc:  # noqa: BLE001 - fail-open
            memory_failed(self.runtime, flow, "retrieval", exc)
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
