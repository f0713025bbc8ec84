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
import dataclasses
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
from memtap.proxy.codecs.followers import plain_encoding
from memtap.proxy.codecs.request_encoding import decoded_body
from memtap.proxy.codecs.surrogates import parse_request_body
from memtap.proxy.headers import MEMORIES_HEADER
from memtap.proxy.owners import scope_for
from memtap.proxy.pipeline import Addon
from memtap.proxy.turn_memory import Shown, TurnRef, content_digest

if TYPE_CHECKING:
    from memtap.engine.api import MemoryEngine
    from memtap.proxy.appkeys import Runtime
    from memtap.proxy.codecs.base import ConversationView
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


WIDEN = 2
"""How much wider a tool step's retrieval walks than the first step's (tokens and items)."""


def _shown(hit: Hit, line: MemoryLine) -> Shown:
    return Shown.of(hit.memory.id, hit.memory.content, line)


def as_first_step_showed(
    first: tuple[Shown, ...], retrieval: Retrieval
) -> tuple[Retrieval, list[MemoryLine]]:
    """Of a tool step's hits, those its turn's first step showed, in that order and with
    the dates it showed them with (a memory edited since shows its new text and date); a
    memory no longer found is gone, one the turn taught is not added."""
    found = {hit.memory.id: hit for hit in retrieval.hits}
    hits: list[Hit] = []
    lines: list[MemoryLine] = []
    for shown in first:
        hit = found.get(shown.memory_id)
        if hit is None:
            continue
        hits.append(hit)
        line = _line(hit)
        if content_digest(hit.memory.content) == shown.digest:
            line = dataclasses.replace(line, date=shown.date)
        lines.append(line)
    return Retrieval(tuple(hits), retrieval.resolution), lines


DECOMPRESS_ON_LOOP_BYTES = 64 * 1024
"""A compressed body larger than this is decompressed off the event loop (a few MB take
milliseconds; the cap, 32 MiB, ~0.1 s)."""


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
        if flow.read_body:
            self._hold_body(flow)

    async def _decompressed(
        self, flow: Flow, body: bytes, encoding: str | None
    ) -> bytes | None:
        """A compressed body as it reads, its bytes past the wire size taken from the
        body budget too; None (and why) when memtap cannot decompress it or it does not fit."""
        server = self.runtime.config.current.server
        limit = server.max_rewrite_body_bytes
        readable = (
            await asyncio.to_thread(decoded_body, body, encoding, limit)
            if len(body) > DECOMPRESS_ON_LOOP_BYTES
            else decoded_body(body, encoding, limit)
        )
        if readable is None:
            # br, zstd, a chain of encodings, a broken stream, past the per-request cap.
            flow.memory.skipped_reason = f"encoded_body: {encoding}"
            log_skipped(flow, ValueError(f"Content-Encoding {encoding}"))
            return None
        extra = len(readable) - len(body)
        if extra > 0:
            if not self.runtime.body_budget.take(
                extra, server.max_rewrite_inflight_bytes
            ):
                self._busy(flow)
                return None
            flow.held_body_bytes += extra
        return readable

    def _hold_body(self, flow: Flow) -> None:
        """The body's bytes out of the runtime's budget (the handler gives them back when
        the request ends); past it, the body streams upstream untouched, without memory."""
        server = self.runtime.config.current.server
        size = (
            flow.request_length
            if flow.request_length is not None
            else server.max_rewrite_body_bytes  # chunked: at most this is read
        )
        if self.runtime.body_budget.take(size, server.max_rewrite_inflight_bytes):
            flow.held_body_bytes = size
            return
        flow.codec = None
        flow.read_body = False
        self._busy(flow)

    def _busy(self, flow: Flow) -> None:
        """No memory for this request: its body does not fit in the body budget."""
        flow.memory.skipped_reason = "memory_busy"
        self.runtime.metrics.memory_skipped.inc("memory_busy")

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
        encoding = flow.request_headers.get("Content-Encoding")
        readable = (
            flow.body
            if plain_encoding(encoding)
            else await self._decompressed(flow, flow.body, encoding)
        )
        if readable is None:
            return  # untouched, no memory (flow.memory.skipped_reason says why)
        try:
            # Lone surrogates: memory reads a replaced copy (proxy/codecs/surrogates.py).
            parsed = parse_request_body(readable)
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
        turn = self._turn_of(view, owner)
        flow.memory.turn = turn
        query = (
            turn.query if turn is not None else view.last_user_text[-MAX_QUERY_CHARS:]
        )
        first = (
            self.runtime.turn_memory.first_step(owner, turn.key)
            if turn is not None and view.continues_turn
            else None
        )
        retrieval = await self._retrieve(
            flow,
            engine,
            owner,
            query,
            config.retrieval_timeout_ms,
            widen=first is not None,
        )
        if retrieval is None:
            return
        if first is not None:
            # A step of a tool loop: the first step's memories, as it showed them.
            retrieval, lines = as_first_step_showed(first, retrieval)
        else:
            lines = [_line(hit) for hit in retrieval.hits]
            if turn is not None:
                self.runtime.turn_memory.shown(
                    owner, turn.key, tuple(map(_shown, retrieval.hits, lines))
                )
        if not retrieval.hits:
            self.runtime.metrics.memory_requests.inc("empty")
            return
        block = build_memory_block(lines)
        injection = codec.inject(body, block, config.placement, view.model)
        if isinstance(injection, NotPlaced):
            self._not_placed(flow, injection.reason)
            return
        rewritten = parsed.dumps(injection.body)
        # Commit the rewrite only once everything above succeeded (fail-open = original bytes).
        flow.body = rewritten
        flow.body_rewritten = True
        if not plain_encoding(encoding):
            # What goes up now is plain JSON.
            del flow.request_headers["Content-Encoding"]
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

    def _turn_of(self, view: ConversationView, owner: str) -> TurnRef | None:
        """The user turn the request is a step of: its own last user text, or (a stateful
        Responses tool step, which holds none) the turn of the response it continues."""
        if view.turn_key:
            return TurnRef(view.turn_key, view.last_user_text[-MAX_QUERY_CHARS:])
        if view.continues_response:
            return self.runtime.turn_memory.turn_after(owner, view.continues_response)
        return None

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
        self,
        flow: Flow,
        engine: MemoryEngine,
        owner: str,
        query: str,
        timeout_ms: int,
        *,
        widen: bool = False,
    ) -> Retrieval | None:
        # An end user never reads another's memory, `global` or not (proxy/owners.py).
        scope = scope_for(owner, self.runtime.config.current.memory.scope)
        request = RetrievalRequest(
            owner=owner, query=query, session=flow.session_id, scope=scope
        )
        if widen:
            # A tool step looks for its first step's memories, which a memory learned
            # since (from the person's own words) may now outrank: a wider walk keeps them.
            config = self.runtime.config.current.memory
            request = dataclasses.replace(
                request,
                max_tokens=config.max_tokens * WIDEN,
                limit=config.max_items * WIDEN,
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
