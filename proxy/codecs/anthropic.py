"""Anthropic Messages (`POST /v1/messages`).

Injection goes into the top-level `system` (Anthropic has no system role in `messages`):
a string stays a string; a block list stays a block list and gets a new text block. With
`after_prefix` that block goes after the existing blocks and carries no `cache_control`, so
every cached prefix (tools -> system blocks up to a marker) stays byte-identical.

`last_user` appends a text block at the end of the person's last turn: the last user
message with text. In a tool loop the newer user messages hold `tool_result` blocks; the
block stays with the person's turn, so every step of the loop is the previous step's request
plus the new `tool_use` / `tool_result` messages, byte for byte (a prompt cache keeps
hitting), and no text ever goes ahead of a `tool_result` block.

A request with any `cache_control` marker always gets `last_user`: everything up to and
including the last marked block reaches the upstream unchanged (a memtap block inside that
prefix is left alone and no second one is added). When the person's turn is inside that
prefix, the block goes at the end of the last user message (after its `tool_result` blocks,
where text is allowed), so it is never part of a cached prefix; a marker after the last user
message means no memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memtap.engine.memory_block import remove_joined_blocks, strip_memory_block
from memtap.engine.types import ApiFormat
from memtap.proxy.codecs.base import (
    Completion,
    ConversationView,
    Injection,
    NotPlaced,
    Placed,
    Placement,
    ResponseFollower,
)
from memtap.proxy.codecs.common import (
    TurnState,
    assistant_before,
    capped,
    error_of,
    parse_arguments,
    turn_key,
)
from memtap.proxy.codecs.followers import SseFollower
from memtap.proxy.codecs.json_body import JsonBodyFollower
from memtap.proxy.codecs.own_block import (
    carries_own,
    join,
    text_part_is_own,
    with_block_appended,
    without_own_content,
    without_own_parts,
)

_PATH = re.compile(r"(?:^|/)v1/messages$|^/messages$")


def _blocks_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block["text"]
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        )
    return ""


@dataclass(frozen=True, slots=True)
class _Frozen:
    """The cached prefix: tools, then system, then messages, up to and including the last
    block carrying `cache_control` (Anthropic caches by prefix in that order)."""

    marked: bool
    system: int
    """System blocks [0, system) are cached (all of them once a message is marked)."""
    message: int
    """Messages [0, message) are cached; in message `message`, blocks [0, block) are."""
    block: int


def _marked(block: Any) -> bool:
    return isinstance(block, dict) and "cache_control" in block


def _frozen(body: dict[str, Any]) -> _Frozen:
    messages = body.get("messages") or []
    for i in range(len(messages) - 1, -1, -1):
        content = messages[i].get("content") if isinstance(messages[i], dict) else None
        if isinstance(content, list):
            marks = [j for j, block in enumerate(content) if _marked(block)]
            if marks:
                system = body.get("system")
                n_system = len(system) if isinstance(system, list) else 1
                return _Frozen(True, n_system, i, marks[-1] + 1)
    system = body.get("system")
    if isinstance(system, list):
        marks = [j for j, block in enumerate(system) if _marked(block)]
        if marks:
            return _Frozen(True, marks[-1] + 1, 0, 0)
    tools = body.get("tools")
    marked = isinstance(tools, list) and any(_marked(t) for t in tools)
    return _Frozen(marked, 0, 0, 0)


def _is_own_block(block: Any) -> bool:
    return text_part_is_own(block)


def _strip_own(body: dict[str, Any], frozen: _Frozen) -> tuple[dict[str, Any], int]:
    """`body` without memtap's blocks outside the cached prefix, and how many there were."""
    stripped = 0
    out = dict(body)
    system = body.get("system")
    if isinstance(system, str) and frozen.system == 0:
        text, n = remove_joined_blocks(system)
        if n:
            stripped += n
            if text:
                out["system"] = text
            else:
                del out["system"]  # memtap created it
    elif isinstance(system, list):
        tail, n = without_own_parts(system[frozen.system :], _is_own_block)
        if n:
            stripped += n
            out["system"] = system[: frozen.system] + tail
    messages: list[Any] = list(body.get("messages") or [])
    for i in range(frozen.message, len(messages)):
        message = messages[i]
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        keep = frozen.block if i == frozen.message else 0
        if isinstance(content, list):
            tail, n = without_own_parts(content[keep:], _is_own_block)
            content = content[:keep] + tail
        elif keep == 0:
            content, n = without_own_content(content)
        else:
            n = 0
        if n:
            stripped += n
            messages[i] = {**message, "content": content}
    if stripped:
        out["messages"] = messages
    return (out if stripped else body), stripped


def _carries_own_before(body: dict[str, Any], frozen: _Frozen) -> bool:
    """Is a memtap block left inside the cached prefix (where nothing may change)?"""
    system = body.get("system")
    if frozen.system:
        if isinstance(system, str) and remove_joined_blocks(system)[1]:
            return True
        if (
            isinstance(system, list)
            and without_own_parts(system[: frozen.system], _is_own_block)[1]
        ):
            return True
    messages = body.get("messages") or []
    for i in range(min(frozen.message + 1, len(messages)) if frozen.marked else 0):
        message = messages[i]
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if i == frozen.message:
            content = content[: frozen.block] if isinstance(content, list) else ""
        if carries_own(content):
            return True
    return False


def _last_user(messages: list[Any]) -> int:
    users = [
        i
        for i, m in enumerate(messages)
        if isinstance(m, dict) and m.get("role") == "user"
    ]
    return (users or [-1])[-1]


def _has_tool_result(message: Any) -> bool:
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_result"
        for block in content
    )


def _user_text(message: dict[str, Any]) -> str:
    return strip_memory_block(_blocks_text(message.get("content")))


def _human_turn(messages: list[Any]) -> int:
    """The person's last turn: the last user message with text, else the last one that is
    not only tool results; -1 if none. In a tool loop the newest user messages carry
    `tool_result` blocks: the person's turn (and memory with it) stays where it was."""
    users = [
        i
        for i, m in enumerate(messages)
        if isinstance(m, dict) and m.get("role") == "user"
    ]
    with_text = [i for i in users if _user_text(messages[i]).strip()]
    if with_text:
        return with_text[-1]
    return ([i for i in users if not _has_tool_result(messages[i])] or [-1])[-1]


def _continues(messages: list[Any], human: int) -> bool:
    """A `tool_result` after the person's turn: this request is a step of its tool loop."""
    return any(_has_tool_result(m) for m in messages[human + 1 :])


def _usage(usage: Any, into: dict[str, int]) -> None:
    if isinstance(usage, dict):
        for key in ("input_tokens", "output_tokens"):
            if isinstance(usage.get(key), int):
                into[key] = usage[key]


class AnthropicStreamState(TurnState):
    __slots__ = ("_blocks",)

    def __init__(self) -> None:
        super().__init__()
        # content block index -> tool_use {"id", "name", "json"}
        self._blocks: dict[int, dict[str, Any]] = {}

    def on_event(self, event: str, payload: Any) -> None:
        if not isinstance(payload, dict):
            return
        if event == "body":
            self._on_body(payload)
            return
        kind = payload.get("type", event)
        if kind == "content_block_delta":
            delta = payload.get("delta") or {}
            if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                self._text.append(delta["text"])
            elif delta.get("type") == "input_json_delta":
                block = self._blocks.get(int(payload.get("index", -1)))
                if block is not None:
                    block["json"] = capped(
                        block["json"], delta.get("partial_json") or ""
                    )
        elif kind == "content_block_start":
            block = payload.get("content_block") or {}
            if block.get("type") == "tool_use":
                self._blocks[int(payload.get("index", len(self._blocks)))] = {
                    "id": block.get("id"),
                    "name": block.get("name"),
                    "json": "",
                    "input": block.get("input"),
                }
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                self._text.append(block["text"])
        elif kind == "message_start":
            _usage((payload.get("message") or {}).get("usage"), self._usage)
        elif kind == "message_delta":
            delta = payload.get("delta") or {}
            if delta.get("stop_reason"):
                self._finish = delta["stop_reason"]
            _usage(payload.get("usage"), self._usage)  # cumulative: later values win
        elif kind == "message_stop":
            self._done = True
        elif kind == "error":
            self._error = error_of(payload.get("error") or payload)

    def _on_body(self, body: dict[str, Any]) -> None:
        self._done = True
        if body.get("type") == "error" or "error" in body and "content" not in body:
            self._error = error_of(body.get("error"))
            return
        for i, block in enumerate(body.get("content") or ()):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                self._text.append(block["text"])
            elif block.get("type") == "tool_use":
                self._blocks[i] = {
                    "id": block.get("id"),
                    "name": block.get("name"),
                    "json": "",
                    "input": block.get("input"),
                }
        self._finish = body.get("stop_reason")
        _usage(body.get("usage"), self._usage)

    def completion(self, eof_clean: bool) -> Completion:
        finish = "error" if self._error is not None else self._finish
        calls = tuple(
            {
                "id": b["id"],
                "name": b["name"],
                "arguments": parse_arguments(b["json"])
                if b["json"]
                else (b["input"] if b["input"] is not None else {}),
            }
            for _, b in sorted(self._blocks.items())
        )
        return self._completion(eof_clean, finish, calls)


class AnthropicCodec:
    format: ApiFormat = "anthropic"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and _PATH.search(path) is not None

    def read_request(self, body: Any, path: str, query: str) -> ConversationView:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise ValueError("not a messages body: no messages list")  # noqa: TRY004 - the Codec protocol promises ValueError
        messages = body["messages"]
        human = _human_turn(messages)
        last_user = ""
        if human >= 0 and _user_text(messages[human]).strip():
            last_user = _user_text(messages[human])
        model = body.get("model")
        return ConversationView(
            model=model if isinstance(model, str) else None,
            stream=bool(body.get("stream")),
            last_user_text=last_user,
            system_text=strip_memory_block(_blocks_text(body.get("system"))),
            turn_key=turn_key(self.format, messages[: human + 1]) if last_user else "",
            continues_turn=_continues(messages, human),
            previous_assistant_text=assistant_before(
                messages,
                human,
                lambda m: m.get("role"),
                lambda m: _blocks_text(m.get("content")),
            ),
        )

    def inject(
        self, body: Any, memory_text: str, placement: Placement, model: str | None
    ) -> Injection:
        frozen = _frozen(body)
        body, stripped = _strip_own(body, frozen)
        if _carries_own_before(body, frozen):
            return NotPlaced("a memtap block is inside the cached prefix")
        if frozen.marked:
            placement = "last_user"
        messages: list[Any] = list(body["messages"])
        if placement == "last_user":
            user = _human_turn(messages)
            if frozen.marked and user < frozen.message:
                # The person's turn is inside the cached prefix (a client that marks its
                # newest message, tool results included): the block goes after the last
                # breakpoint, at the end of the last user message. Text after `tool_result`
                # blocks is allowed there, and no cached prefix ever holds the block.
                user = _last_user(messages)
            if user >= 0 and user >= frozen.message:
                message = messages[user]
                messages[user] = {
                    **message,
                    "content": with_block_appended(message.get("content"), memory_text),
                }
                return Placed({**body, "messages": messages}, placement, stripped)
            if frozen.marked:
                return NotPlaced("no user turn after the last cache breakpoint")
            placement = "after_prefix"  # no user turn to go with
        existing = body.get("system")
        system: Any
        if isinstance(existing, list):
            blocks = list(existing)
            block = {"type": "text", "text": memory_text}
            if placement == "prepend":
                blocks.insert(0, block)
            else:
                blocks.append(block)
            system = blocks
        elif isinstance(existing, str) and existing:
            system = join(existing, memory_text, first=placement == "prepend")
        else:
            system = memory_text
        return Placed({**body, "system": system}, placement, stripped)

    def follower(self, content_type: str, path: str, query: str) -> ResponseFollower:
        if "event-stream" in content_type.lower():
            return SseFollower(AnthropicStreamState())
        return JsonBodyFollower(AnthropicStreamState())
