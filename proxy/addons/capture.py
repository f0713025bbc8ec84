"""The capture addon: memory on the way out.

It follows the response of a flow the inject addon read (`flow.memory.conversation`, with
X-Memtap-Memory `on`) and, once the exchange completed, commits the turn to the engine's
durable outbox (awaited before the client sees the end of the body: see `proxy/tee.py`).
Every step fails open (`proxy/addons/fail_open.py`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from memtap.engine.clock import now_iso
from memtap.engine.turn_bounds import bounded_turn
from memtap.engine.types import Turn
from memtap.proxy.addons.fail_open import memory_failed
from memtap.proxy.codecs.followers import ZLIB_WBITS, decoding
from memtap.proxy.pipeline import Addon

if TYPE_CHECKING:
    from multidict import CIMultiDict

    from memtap.proxy.appkeys import Runtime
    from memtap.proxy.codecs.base import Completion, ConversationView
    from memtap.proxy.flow import Flow

log = logging.getLogger("memtap.memory")

# Terminal reasons after which the turn is not learned from: the provider refused, failed or
# blocked it, so the user's text may be exactly what memory must not keep.
_UNLEARNABLE_FINISH = frozenset(
    {"error", "failed", "refusal", "truncated", "SAFETY", "content_filter"}
)

# Content-Encodings the response follower can decode (zlib): proxy/codecs/followers.py.
_DECODABLE = frozenset(ZLIB_WBITS) | {"identity"}


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


def spoken(view: ConversationView, completion: Completion) -> tuple[str, str]:
    """What a step of a user turn adds to memory: the person's words once, with the step
    that brought them (a step continuing the turn through tool results re-sends them), and
    the model's answer once, with the step that ends the turn (one that calls tools is not
    the answer yet). Tool calls and tool results are never read: a ten-step tool loop is one
    user message and one answer."""
    user_text = "" if view.continues_turn else view.last_user_text
    assistant_text = "" if completion.tool_calls else completion.assistant_text
    return user_text, assistant_text


class CaptureAddon(Addon):
    name = "memory.capture"
    uses_memory = True

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def request(self, flow: Flow) -> None:
        # After the inject addon read the conversation: ask only for encodings we can follow.
        if flow.memory_mode == "on" and flow.memory.conversation is not None:
            limit_accept_encoding(flow.request_headers)

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
            memory_failed(self.runtime, flow, "follow", exc)

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
            memory_failed(
                self.runtime,
                flow,
                "capture_decode",
                ValueError("the response could not be decoded"),
            )
            return
        try:
            completion = follower.finish()
            if follower.failed:
                memory_failed(
                    self.runtime,
                    flow,
                    "capture_decode",
                    ValueError(completion.error or "finish failed"),
                )
                return
            turn_ref = flow.memory.turn
            if turn_ref is not None:
                # A stateful conversation's next step names this response (or the
                # conversation), not the turn.
                for state in (completion.response_id, view.stored_as):
                    if state:
                        self.runtime.turn_memory.answered(owner, state, turn_ref)
            if not _learnable(completion):
                flow.memory.skipped_reason = f"not_learnable: finish={completion.finish} clean_end={completion.clean_end}"
                return
            user_text, assistant_text = spoken(view, completion)
            if not user_text.strip() and not assistant_text.strip():
                flow.memory.skipped_reason = (
                    "tool_step"
                    if view.continues_turn or completion.tool_calls
                    else "empty_turn"
                )
                return
            # Bounded: the answer's tail came from the follower, the user's is cut here;
            # both counts travel with the turn (never dropped silently).
            turn = bounded_turn(
                Turn(
                    request_id=flow.request_id,
                    owner=owner,
                    session=flow.session_id,
                    format=flow.codec.format,
                    user_text=user_text,
                    assistant_text=assistant_text,
                    # A step continuing a tool loop teaches no new user text: nor context.
                    previous_assistant_text=view.previous_assistant_text
                    if user_text
                    else "",
                    model=view.model,
                    created_at=now_iso(),
                    truncated_chars=completion.dropped_chars,
                )
            )
            await engine.enqueue_turn(turn)
        except Exception as exc:  # noqa: BLE001 - fail-open: the client still gets its answer
            memory_failed(self.runtime, flow, "capture", exc)
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
                    "truncated_chars": turn.truncated_chars,
                }
            },
        )
