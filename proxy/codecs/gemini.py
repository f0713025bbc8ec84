"""Gemini `models/{model}:generateContent` and `:streamGenerateContent` (SSE with
`?alt=sse`, else one incrementally written JSON array).

Injection goes into `systemInstruction.parts` (or `system_instruction`, when the request is
written with the snake_case proto names, as Google's own curl examples are): `after_prefix`
appends a part after the existing ones, `prepend` puts it first. `last_user` appends a part
to the person's last turn (the last user content with text: the `functionResponse` turns of
a tool loop come after it and never get one, so each step of the loop extends the previous
step's request), which is also where memory goes in a request with `cachedContent`: the API
rejects a `systemInstruction` next to a cache (400 INVALID_ARGUMENT).
"""

from __future__ import annotations

import re
from typing import Any

from memtap.engine.memory_block import (
    is_memory_block,
    remove_joined_blocks,
    strip_memory_block,
)
from memtap.engine.turn_bounds import TailText
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
from memtap.proxy.codecs.common import assistant_before, error_of, turn_key
from memtap.proxy.codecs.followers import SseFollower
from memtap.proxy.codecs.json_body import JsonArrayFollower
from memtap.proxy.codecs.own_block import join, without_own_parts

_PATH = re.compile(
    r"/(?:models|tunedModels)/([^/:]+):(generateContent|streamGenerateContent)$"
)
_SNAKE_HINTS = (
    "system_instruction",
    "generation_config",
    "safety_settings",
    "tool_config",
    "cached_content",
)


def model_from_path(path: str) -> str | None:
    match = _PATH.search(path)
    return match.group(1) if match else None


def _parts_text(content: Any) -> str:
    if not isinstance(content, dict):
        return ""
    return "\n".join(
        part["text"]
        for part in content.get("parts") or ()
        if isinstance(part, dict)
        and isinstance(part.get("text"), str)
        and not part.get("thought")
    )


def _is_own_part(part: Any) -> bool:
    return (
        isinstance(part, dict) and len(part) == 1 and is_memory_block(part.get("text"))
    )


def _is_user(content: Any) -> bool:
    return isinstance(content, dict) and content.get("role", "user") == "user"


def _has_function_response(content: Any) -> bool:
    parts = content.get("parts") if isinstance(content, dict) else None
    return isinstance(parts, list) and any(
        isinstance(part, dict)
        and ("functionResponse" in part or "function_response" in part)
        for part in parts
    )


def _user_text(content: Any) -> str:
    return strip_memory_block(_parts_text(content))


def _last_user(contents: list[Any]) -> int:
    """The person's last turn: the last user content with a text part, else the last one
    without a `functionResponse` (a tool loop's results are user contents too; memory never
    joins them), -1 if none."""
    users = [i for i, c in enumerate(contents) if _is_user(c)]
    with_text = [i for i in users if _user_text(contents[i]).strip()]
    if with_text:
        return with_text[-1]
    return ([i for i in users if not _has_function_response(contents[i])] or [-1])[-1]


def _continues(contents: list[Any], user: int) -> bool:
    """A `functionResponse` after the person's turn: a step of its tool loop."""
    return any(_has_function_response(c) for c in contents[user + 1 :])


def _without_own_instruction(instruction: Any) -> tuple[Any, int]:
    """A system instruction (a Content, or a bare string) without memtap's parts or joined
    blocks; None when nothing but memtap's block was in it."""
    if isinstance(instruction, str):
        text, n = remove_joined_blocks(instruction)
        return (text or None), n
    if isinstance(instruction, dict) and isinstance(instruction.get("parts"), list):
        parts, n = without_own_parts(instruction["parts"], _is_own_part, None)
        if not n:
            return instruction, 0
        if parts or len(instruction) > 1:
            return {**instruction, "parts": parts}, n
        return None, n  # memtap created it
    return instruction, 0


def _strip_own(body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """`body` without memtap's parts and joined blocks (in the system instruction or a user
    turn)."""
    stripped = 0
    out = dict(body)
    for key in ("systemInstruction", "system_instruction"):
        if key not in body:
            continue
        instruction, n = _without_own_instruction(body[key])
        if n:
            stripped += n
            if instruction is None:
                del out[key]
            else:
                out[key] = instruction
    contents: list[Any] = list(body.get("contents") or [])
    for i, content in enumerate(contents):
        if _is_user(content) and isinstance(content.get("parts"), list):
            parts, n = without_own_parts(content["parts"], _is_own_part, None)
            if n:
                stripped += n
                contents[i] = {**content, "parts": parts}
    if stripped:
        out["contents"] = contents
    return (out if stripped else body), stripped


class GeminiStreamState:
    """Folds GenerateContentResponse objects (SSE events, array elements or one body)."""

    __slots__ = ("_body", "_calls", "_error", "_finish", "_terminal", "_text", "_usage")

    def __init__(self) -> None:
        self._text = TailText()
        self._finish: str | None = None
        self._terminal = False
        self._body = False
        self._error: str | None = None
        self._usage: dict[str, int] = {}
        self._calls: list[dict[str, Any]] = []

    def on_event(self, event: str, payload: Any) -> None:
        if event == "body":
            self._body = True
        if not isinstance(payload, dict):
            return
        if payload.get("error"):
            self._error = error_of(payload["error"])
            return
        usage = payload.get("usageMetadata")
        if isinstance(usage, dict):
            for src, dst in (
                ("promptTokenCount", "input_tokens"),
                ("candidatesTokenCount", "output_tokens"),
            ):
                if isinstance(usage.get(src), int):
                    self._usage[dst] = usage[src]
        feedback = payload.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            self._finish = f"BLOCKED:{feedback['blockReason']}"
            self._terminal = True
        for candidate in payload.get("candidates") or ():
            if not isinstance(candidate, dict) or candidate.get("index", 0) != 0:
                continue
            content = candidate.get("content")
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else ():
                if not isinstance(part, dict):
                    continue
                # Text parts of a response are fragments of one answer: joined without a
                # separator. Thought summaries are not part of the visible answer.
                if isinstance(part.get("text"), str) and not part.get("thought"):
                    self._text.append(part["text"])
                call = part.get("functionCall")
                if isinstance(call, dict):
                    self._calls.append(
                        {
                            "id": call.get("id"),
                            "name": call.get("name"),
                            "arguments": call.get("args", {}),
                        }
                    )
            if candidate.get("finishReason"):
                self._finish = candidate["finishReason"]
                self._terminal = True

    def completion(self, eof_clean: bool) -> Completion:
        # SSE: the chunk with finishReason/blockReason, then a clean EOF. Array: the closing
        # bracket (eof_clean). A non-stream body is complete by definition.
        clean = self._body or (
            eof_clean and (self._terminal or self._error is not None)
        )
        if self._error is not None:
            finish: str | None = "error"
        elif self._finish:
            finish = self._finish
        else:
            finish = None if clean else "truncated"
        return Completion(
            assistant_text=self._text.text(),
            finish=finish,
            clean_end=clean,
            tool_calls=tuple(self._calls),
            error=self._error,
            usage=self._usage,
            dropped_chars=self._text.dropped,
        )


class GeminiCodec:
    format: ApiFormat = "gemini"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and _PATH.search(path) is not None

    def read_request(self, body: Any, path: str, query: str) -> ConversationView:
        if not isinstance(body, dict) or not isinstance(body.get("contents"), list):
            raise ValueError("not a generateContent body: no contents list")  # noqa: TRY004 - the Codec protocol promises ValueError
        contents = body["contents"]
        user = _last_user(contents)
        last_user = ""
        if user >= 0 and _user_text(contents[user]).strip():
            last_user = _user_text(contents[user])
        instruction = body.get("systemInstruction", body.get("system_instruction"))
        match = _PATH.search(path)
        return ConversationView(
            model=match.group(1) if match else None,
            stream=match is not None and match.group(2) == "streamGenerateContent",
            last_user_text=last_user,
            system_text=strip_memory_block(_parts_text(instruction)),
            turn_key=turn_key(self.format, contents[: user + 1]) if last_user else "",
            continues_turn=_continues(contents, user),
            previous_assistant_text=assistant_before(
                contents,
                user,
                lambda c: (
                    "assistant" if c.get("role") == "model" else c.get("role", "user")
                ),
                _parts_text,
            ),
        )

    def inject(
        self, body: Any, memory_text: str, placement: Placement, model: str | None
    ) -> Injection:
        body, stripped = _strip_own(body)
        if "cachedContent" in body or "cached_content" in body:
            # The API refuses a systemInstruction next to cachedContent (400
            # INVALID_ARGUMENT): memory goes with the last user turn, after the cache.
            placement = "last_user"
        if placement == "last_user":
            contents: list[Any] = list(body["contents"])
            user = _last_user(contents)
            if user >= 0:
                content = contents[user]
                parts = content.get("parts")
                contents[user] = {
                    **content,
                    "parts": [
                        *(parts if isinstance(parts, list) else []),
                        {"text": memory_text},
                    ],
                }
                return Placed({**body, "contents": contents}, placement, stripped)
            if "cachedContent" in body or "cached_content" in body:
                return NotPlaced("cachedContent request without a user turn")
            placement = "after_prefix"  # no user turn to go with
        if "systemInstruction" in body:
            key = "systemInstruction"
        elif any(hint in body for hint in _SNAKE_HINTS):
            key = "system_instruction"
        else:
            key = "systemInstruction"
        existing = body.get(key)
        part = {"text": memory_text}
        if isinstance(existing, dict):
            parts = (
                [p for p in existing.get("parts") or ()]
                if isinstance(existing.get("parts"), list)
                else []
            )
            if placement == "prepend":
                parts.insert(0, part)
            else:
                parts.append(part)
            instruction: Any = {**existing, "parts": parts}
        elif isinstance(existing, str) and existing:
            instruction = {
                "parts": [
                    {"text": join(existing, memory_text, first=placement == "prepend")}
                ]
            }
        else:
            instruction = {"parts": [part]}
        return Placed({**body, key: instruction}, placement, stripped)

    def follower(self, content_type: str, path: str, query: str) -> ResponseFollower:
        if "event-stream" in content_type.lower():
            return SseFollower(GeminiStreamState())
        return JsonArrayFollower(GeminiStreamState())
