"""Anthropic Messages (`POST /v1/messages`).

Injection goes into the top-level `system` (Anthropic has no system role in `messages`):
a string stays a string; a block list stays a block list and gets a new text block. With
`after_prefix` that block goes after the existing blocks and carries no `cache_control`, so
every cached prefix (tools -> system blocks up to a marker) stays byte-identical.
"""

from __future__ import annotations

import re
from typing import Any

from memtap.engine.memory_block import strip_memory_block
from memtap.engine.types import ApiFormat
from memtap.proxy.codecs.base import (
    Completion,
    ConversationView,
    Placement,
    ResponseFollower,
)
from memtap.proxy.codecs.common import TurnState, error_of, parse_arguments
from memtap.proxy.codecs.followers import SseFollower
from memtap.proxy.codecs.json_body import JsonBodyFollower

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
                    block["json"] += delta.get("partial_json") or ""
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
        last_user = ""
        for message in body["messages"]:
            if isinstance(message, dict) and message.get("role") == "user":
                text = strip_memory_block(_blocks_text(message.get("content")))
                if text.strip():
                    last_user = text
        model = body.get("model")
        return ConversationView(
            model=model if isinstance(model, str) else None,
            stream=bool(body.get("stream")),
            last_user_text=last_user,
            system_text=strip_memory_block(_blocks_text(body.get("system"))),
        )

    def inject(
        self, body: Any, memory_text: str, placement: Placement, model: str | None
    ) -> Any:
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
            system = (
                f"{memory_text}\n\n{existing}"
                if placement == "prepend"
                else f"{existing}\n\n{memory_text}"
            )
        else:
            system = memory_text
        return {**body, "system": system}

    def follower(self, content_type: str, path: str, query: str) -> ResponseFollower:
        if "event-stream" in content_type.lower():
            return SseFollower(AnthropicStreamState())
        return JsonBodyFollower(AnthropicStreamState())
