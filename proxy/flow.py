"""The per-request object every addon hook receives (mitmproxy's Flow, for memtap)."""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from multidict import CIMultiDict

if TYPE_CHECKING:
    from memtap.config.schema import EndUserSource
    from memtap.proxy.codecs.base import Codec, ConversationView, ResponseFollower
    from memtap.proxy.routing import Route
    from memtap.proxy.turn_memory import TurnRef

MemoryMode = Literal["on", "off", "read"]

# Request ids: 128 random bits as 32 hex digits (the uuid4().hex shape) from a generator
# seeded once from the OS, instead of a getrandom syscall per request. They identify log
# lines; they are not secrets.
_ids = random.Random(os.urandom(32))


def new_request_id() -> str:
    return f"{_ids.getrandbits(128):032x}"


@dataclass(slots=True)
class MemoryState:
    """What the memory addons decided and saw for one request."""

    conversation: ConversationView | None = None
    turn: TurnRef | None = None
    """The user turn this request is a step of, when known (`proxy/turn_memory.py`)."""
    injected_ids: tuple[str, ...] = ()
    injected_tokens: int = 0
    follower: ResponseFollower | None = None
    captured: bool = False
    skipped_reason: str | None = None


@dataclass(slots=True)
class Flow:
    request_id: str
    method: str
    route: Route
    """Where the request goes: upstream base URL, forwarded path, format, timeouts."""
    request_headers: CIMultiDict[str]
    """Headers as they will be sent upstream (hop-by-hop and X-Memtap-* already removed)."""
    client_ip: str | None = None
    request_length: int | None = None
    """The client's declared Content-Length; None: chunked or no body."""
    read_body: bool = False
    """Set by a `request_headers` hook: the handler reads the whole body into `body` before
    the `request` hooks run. False (the default): the body is streamed upstream untouched."""
    body: bytes | None = None
    """The whole request body when it was read (`read_body`); None = streamed through."""
    body_head: bytes = b""
    """A chunked body read for memory that outgrew the limit: what was read of it, sent
    upstream ahead of the rest (streamed)."""
    body_rewritten: bool = False
    held_body_bytes: int = 0
    """What this request holds of the runtime's body budget (`proxy/body_budget.py`), given
    back when it ends."""
    owner_id: str | None = None
    """Whose memory: the key's owner, or `KEYOWNER:USERTAG` when the request names an end
    user (`proxy/owners.py`)."""
    key_owner_id: str | None = None
    """The owner of the API key (None: no key); `owner_id` without the end user."""
    header_user_tag: str | None = None
    """The X-Memtap-User value hashed (`proxy/owners.py:user_tag`); the raw value is never
    kept."""
    end_user: EndUserSource | None = None
    """Where the end user of `owner_id` was named (header or body); None: none named."""
    session_id: str | None = None
    memory_mode: MemoryMode = "on"
    codec: Codec | None = None
    endpoint: Codec | None = None
    """The memory endpoint the request is for, also when memory stays out of it (request
    log); `codec` is set only when memory takes part."""
    memory: MemoryState = field(default_factory=MemoryState)
    status: int | None = None
    response_headers: CIMultiDict[str] | None = None
    extra_response_headers: dict[str, str] = field(default_factory=dict)
    """Headers memtap adds to the client's response (e.g. X-Memtap-Memories)."""
    stream: bool = False
    bytes_in: int = 0
    bytes_out: int = 0
    started: float = field(default_factory=time.monotonic)
    ttfb_ms: float | None = None
    completed: bool = False
    """The upstream body ended normally and the client received all of it."""
    error: str | None = None
    error_kind: str | None = None

    @property
    def path(self) -> str:
        return self.route.path

    @property
    def memories_injected(self) -> int | None:
        """None when the request did not go through memory (the log field stays null)."""
        return (
            None
            if self.codec is None or self.owner_id is None or self.memory_mode == "off"
            else len(self.memory.injected_ids)
        )

    def elapsed_ms(self) -> float:
        return (time.monotonic() - self.started) * 1000.0
