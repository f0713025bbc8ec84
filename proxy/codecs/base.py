"""What every API-format codec provides: detect, read the conversation, inject memory,
follow the response stream, finish into a turn.

A codec is stateless; per-response state lives in the `ResponseFollower` it creates.
Codecs never raise into the proxy: the addons that call them are guarded, and a follower
that meets bytes it cannot decode disables itself (`failed`) for that response only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from memtap.engine.types import ApiFormat

Placement = Literal["prepend", "after_prefix", "last_user"]
"""Where memory goes (config `memory.placement`): first at the system level, after the
application's own instructions, or with the last user turn (near the end, so the cached
conversation prefix stays byte-identical)."""


@dataclass(frozen=True, slots=True)
class Placed:
    """Memory was placed: `body` is the request to send."""

    body: Any
    placement: Placement
    """Where it went: the configured placement, or `last_user` when the request marks cache
    breakpoints (Anthropic/compatible `cache_control`, Gemini `cachedContent`), or
    `after_prefix` where the configured place does not exist (no user turn; a Responses
    request continuing stored state)."""
    stripped: int = 0
    """memtap blocks the request already carried (echoed `instructions`, replayed history)
    that were removed first, so the block never arrives twice."""


@dataclass(frozen=True, slots=True)
class NotPlaced:
    """Memory cannot go into this request without changing what must stay unchanged (a
    cached prefix) or turning it into an error (Gemini `cachedContent` with a
    `systemInstruction`): the request goes on with its original bytes."""

    reason: str


Injection = Placed | NotPlaced


@dataclass(frozen=True, slots=True)
class ConversationView:
    """What memory needs from a request body."""

    model: str | None
    stream: bool
    last_user_text: str
    """Text parts of the last user turn that has text (tool-result-only turns skipped),
    with any memtap-injected block removed."""
    system_text: str
    """All system-level text joined with "\\n" (informational; used by tests and logs)."""
    turn_key: str = ""
    """Names the user turn this request belongs to: a digest of the conversation up to and
    including its last user turn with text (and the stored state it continues). Every step
    of that turn's tool loop has the same key; "" when the request holds no user text."""
    continues_turn: bool = False
    """The request continues a user turn through tool results (a `tool` message, a
    `function_call_output` item, a `tool_result` block, a `functionResponse` part after the
    last user text): its user text came with an earlier step, which read it already."""
    continues_response: str | None = None
    """The stored state this request continues (Responses `previous_response_id`, or
    `conversation:<id>`): with no user text of its own, the turn that state last belonged
    to is this one's."""
    stored_as: str | None = None
    """The stored state this request's turn will be found under besides its response's id
    (`conversation:<id>`: the conversation's next request names the conversation)."""
    previous_assistant_text: str = ""
    """Text of the assistant message just before that user turn (what the user answers:
    "Yes, the red one" needs the question before it), memtap's block removed; "" when the
    user turn opens the conversation or follows another user turn."""


@dataclass(frozen=True, slots=True)
class Completion:
    """What a follower extracted from a response."""

    assistant_text: str
    finish: str | None
    """Provider-native terminal reason (`stop`, `end_turn`, `STOP`, `completed`...),
    `error` for an in-band error, `truncated` when the bytes just stop."""
    clean_end: bool
    """The protocol's normal terminator arrived."""
    tool_calls: tuple[dict[str, Any], ...] = ()
    error: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    dropped_chars: int = 0
    """Characters cut from the head of `assistant_text`: a follower keeps only the tail the
    extractor reads (`engine.limits.MAX_TURN_TEXT_CHARS`), in constant memory."""
    response_id: str | None = None
    """The id the provider stored the response under (Responses), for a later request's
    `previous_response_id`."""


class ResponseFollower(Protocol):
    """Incremental, boundary-safe reader of one response body.

    `feed` may be called with any split of the bytes (inside a UTF-8 sequence, between CR
    and LF, inside a JSON string); the result never depends on the split.
    """

    failed: bool

    def feed(self, chunk: bytes) -> None: ...

    def finish(self) -> Completion: ...


class Codec(Protocol):
    format: ApiFormat

    def matches(self, method: str, path: str) -> bool:
        """Is `path` (the upstream path, no query) a memory-capable endpoint of this format?"""
        ...

    def read_request(self, body: Any, path: str, query: str) -> ConversationView:
        """Read a parsed JSON body (dict). Raises ValueError when the shape is not this API's."""
        ...

    def inject(
        self, body: Any, memory_text: str, placement: Placement, model: str | None
    ) -> Injection:
        """Place `memory_text` (a block from `build_memory_block`) into a parsed body. The
        result's body is a new object (the input is not mutated); memtap blocks the body
        already carried are removed first, except inside a cached prefix, where any change
        is refused (`NotPlaced`). Everything up to and including the last block carrying
        `cache_control` stays unchanged."""
        ...

    def follower(self, content_type: str, path: str, query: str) -> ResponseFollower:
        """A follower for a response with this Content-Type (SSE, JSON, Gemini JSON array)."""
        ...
