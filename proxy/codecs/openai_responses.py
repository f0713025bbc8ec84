"""OpenAI Responses (`POST /v1/responses`).

Injection goes into the top-level `instructions` string: `after_prefix` appends after the
application's instructions (their prefix stays byte-stable for prompt caching), `prepend`
puts memory first. When the application's prompt is a `developer`/`system` message at the
start of `input`, `after_prefix` inserts a message right after it instead (`instructions`
is read before `input`). `last_user` appends the block to the last user turn of `input`
(with text: `function_call_output` items of a tool loop come after it, so every step of the
loop carries the block in the same place).

A request that continues stored state (`previous_response_id`, `conversation`) gets memory
in `instructions` whatever the placement: the provider keeps every input item and replays
it in each later turn (a block in `input` would pile up, turn after turn), but does not
carry `instructions` over. The API echoes `instructions` back and apps replay them:
memtap's own block is removed from a request (`instructions`, input messages of any role)
before a new one is placed.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from memtap.engine.memory_block import (
    is_memory_block,
    remove_joined_blocks,
    strip_memory_block,
)
from memtap.engine.types import ApiFormat
from memtap.proxy.codecs.base import (
    Completion,
    ConversationView,
    Injection,
    Placed,
    Placement,
    ResponseFollower,
)
from memtap.proxy.codecs.common import (
    TurnState,
    assistant_before,
    capped,
    content_text,
    error_of,
    parse_arguments,
    turn_key,
)
from memtap.proxy.codecs.followers import SseFollower
from memtap.proxy.codecs.json_body import JsonBodyFollower
from memtap.proxy.codecs.own_block import join, with_block_appended, without_own_content

_PATH = re.compile(r"(?:^|/)responses$")
_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def _usage(usage: Any) -> dict[str, int]:
    if not isinstance(usage, dict):
        return {}
    return {
        k: usage[k]
        for k in ("input_tokens", "output_tokens")
        if isinstance(usage.get(k), int)
    }


class ResponsesStreamState(TurnState):
    __slots__ = ("_calls", "_response_id")

    def __init__(self) -> None:
        super().__init__()
        self._response_id: str | None = None
        # item id -> {"id": call_id, "name", "arguments"}, in output order
        self._calls: dict[str, dict[str, Any]] = {}

    def on_event(self, event: str, payload: Any) -> None:
        if not isinstance(payload, dict):
            return
        if event == "body":
            self._done = True
            if payload.get("error") and payload.get("object") != "response":
                self._error = error_of(payload["error"])
                return
            self._on_response(payload)
            for item in payload.get("output") or ():
                self._on_item(item, complete=True, body=True)
            return
        kind = payload.get("type", event)
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            if isinstance(payload.get("delta"), str):
                self._text.append(payload["delta"])
        elif kind == "response.function_call_arguments.delta":
            slot = self._calls.setdefault(
                str(payload.get("item_id")), {"id": None, "name": None, "arguments": ""}
            )
            slot["arguments"] = capped(slot["arguments"], payload.get("delta") or "")
        elif kind in ("response.output_item.added", "response.output_item.done"):
            self._on_item(
                payload.get("item"), complete=kind.endswith(".done"), body=False
            )
        elif kind == "error":
            self._error = error_of(payload.get("error") or payload)
        elif kind in ("response.created", "response.in_progress"):
            response = payload.get("response") or {}
            if isinstance(response, dict) and isinstance(response.get("id"), str):
                self._response_id = response["id"]
        elif kind in _TERMINAL:
            self._done = True
            self._on_response(payload.get("response") or {})

    def _on_response(self, response: dict[str, Any]) -> None:
        if isinstance(response.get("id"), str):
            self._response_id = response["id"]
        if isinstance(response.get("status"), str):
            self._finish = response["status"]
        if response.get("usage"):
            self._usage = _usage(response["usage"])
        if response.get("error") and self._error is None:
            self._error = error_of(response["error"])

    def _on_item(self, item: Any, *, complete: bool, body: bool) -> None:
        if not isinstance(item, dict):
            return
        if item.get("type") == "function_call":
            slot = self._calls.setdefault(
                str(item.get("id")), {"id": None, "name": None, "arguments": ""}
            )
            slot["id"] = item.get("call_id") or slot["id"]
            slot["name"] = item.get("name") or slot["name"]
            # The done event (and a non-stream body) carries the whole argument string.
            if complete and isinstance(item.get("arguments"), str):
                slot["arguments"] = item["arguments"]
        elif item.get("type", "message") == "message" and body:
            # A stream delivers the text as deltas; only a non-stream body takes it from items.
            for part in item.get("content") or ():
                if isinstance(part, dict) and part.get("type") in (
                    "output_text",
                    "refusal",
                ):
                    text = (
                        part.get("text")
                        if part.get("type") == "output_text"
                        else part.get("refusal")
                    )
                    if isinstance(text, str):
                        self._text.append(text)

    def completion(self, eof_clean: bool) -> Completion:
        # The terminal response status outranks an earlier `error` event (error_then_failed).
        if self._finish and self._finish != "in_progress":
            finish: str | None = self._finish
        else:
            finish = "error" if self._error is not None else None
        calls = tuple(
            {
                "id": c["id"],
                "name": c["name"],
                "arguments": parse_arguments(c["arguments"]),
            }
            for c in self._calls.values()
        )
        completion = self._completion(eof_clean, finish, calls)
        return dataclasses.replace(completion, response_id=self._response_id)


def _input_text(item: dict[str, Any]) -> str:
    return content_text(item.get("content"))


_SYSTEM_ROLES = ("system", "developer")
_OWN_KINDS = ("input_text", "text")


def _is_message(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type", "message") == "message"


def _leading_system(items: list[Any]) -> int:
    """How many items at the start of `input` are the application's system/developer prompt."""
    n = 0
    while (
        n < len(items)
        and _is_message(items[n])
        and items[n].get("role") in _SYSTEM_ROLES
    ):
        n += 1
    return n


def _last_user(items: list[Any]) -> int:
    users = [
        i
        for i, item in enumerate(items)
        if _is_message(item) and item.get("role") == "user"
    ]
    with_text = [i for i in users if _user_text(items[i]).strip()]
    return (with_text or users or [-1])[-1]


def _user_text(item: dict[str, Any]) -> str:
    return strip_memory_block(_input_text(item))


def _is_tool_output(item: Any) -> bool:
    """`function_call_output`, `custom_tool_call_output`, `computer_call_output`... items:
    what the application's tools answered."""
    return (
        isinstance(item, dict)
        and isinstance(item.get("type"), str)
        and item["type"].endswith("_output")
    )


def _stateful(body: dict[str, Any]) -> bool:
    """The provider keeps this conversation (`previous_response_id`, `conversation`): every
    input item is stored and comes back in every later turn, `instructions` do not."""
    return bool(body.get("previous_response_id") or body.get("conversation"))


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _conversation(body: dict[str, Any]) -> str | None:
    """`conversation:<id>` of a request that adds to a stored conversation (an id, or an
    object with one)."""
    conversation = body.get("conversation")
    if isinstance(conversation, dict):
        conversation = conversation.get("id")
    return f"conversation:{conversation}" if _string(conversation) else None


def _state_of(body: dict[str, Any]) -> Any:
    return [body.get("previous_response_id"), body.get("conversation")]


def _strip_own(body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """`body` without the memtap blocks it carries: `instructions` echoed back by the API and
    replayed, an input message memtap inserted, a block joined to a user, system or
    developer message."""
    stripped = 0
    out = dict(body)
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        text, n = remove_joined_blocks(instructions)
        if n:
            stripped += n
            if text:
                out["instructions"] = text
            else:
                del out["instructions"]  # memtap created it
    raw_input = body.get("input")
    if isinstance(raw_input, str):
        text, n = remove_joined_blocks(raw_input)
        if n:
            stripped += n
            out["input"] = text
    elif isinstance(raw_input, list):
        items: list[Any] = []
        for item in raw_input:
            if (
                _is_message(item)
                and item.get("role") in (*_SYSTEM_ROLES, "user")
                and is_memory_block(item.get("content"))
            ):
                stripped += 1
                continue
            if _is_message(item) and item.get("role") in (*_SYSTEM_ROLES, "user"):
                content, n = without_own_content(item.get("content"), _OWN_KINDS)
                if n:
                    stripped += n
                    item = {**item, "content": content}
            items.append(item)
        if stripped:
            out["input"] = items
    return (out if stripped else body), stripped


def _with_instructions(body: dict[str, Any], block: str, placement: Placement) -> str:
    existing = body.get("instructions")
    if not isinstance(existing, str) or not existing:
        return block
    return join(existing, block, first=placement == "prepend")


class OpenAIResponsesCodec:
    format: ApiFormat = "openai-responses"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and _PATH.search(path) is not None

    def read_request(self, body: Any, path: str, query: str) -> ConversationView:
        if (
            not isinstance(body, dict)
            or "input" not in body
            and "instructions" not in body
        ):
            raise ValueError("not a responses body: no input")
        system: list[str] = []
        instructions = body.get("instructions")
        if isinstance(instructions, str) and strip_memory_block(instructions):
            system.append(strip_memory_block(instructions))
        last_user = ""
        key = ""
        continues = False
        before = ""
        raw_input = body.get("input")
        if isinstance(raw_input, str):
            last_user = strip_memory_block(raw_input)
            if last_user.strip():
                key = turn_key(self.format, _state_of(body), raw_input)
        elif isinstance(raw_input, list):
            for item in raw_input:
                if _is_message(item) and item.get("role") in _SYSTEM_ROLES:
                    text = strip_memory_block(_input_text(item))
                    if text:
                        system.append(text)
            user = _last_user(raw_input)
            if user >= 0 and _user_text(raw_input[user]).strip():
                last_user = _user_text(raw_input[user])
                key = turn_key(self.format, _state_of(body), raw_input[: user + 1])
            continues = any(_is_tool_output(i) for i in raw_input[user + 1 :])
            before = assistant_before(
                raw_input, user, lambda i: i.get("role"), _input_text
            )
        model = body.get("model")
        return ConversationView(
            model=model if isinstance(model, str) else None,
            stream=bool(body.get("stream")),
            last_user_text=last_user,
            system_text="\n".join(system),
            turn_key=key,
            continues_turn=continues,
            continues_response=_string(body.get("previous_response_id"))
            or _conversation(body),
            stored_as=_conversation(body),
            previous_assistant_text=before,
        )

    def inject(
        self, body: Any, memory_text: str, placement: Placement, model: str | None
    ) -> Injection:
        body, stripped = _strip_own(body)
        raw_input = body.get("input")
        items: list[Any] = list(raw_input) if isinstance(raw_input, list) else []
        if _stateful(body):
            # The provider stores this input and replays it in every later turn, where
            # memtap could not remove it (a block per turn would pile up): the block goes
            # into `instructions`, which a continued response does not inherit.
            return Placed(
                {
                    **body,
                    "instructions": _with_instructions(body, memory_text, placement),
                },
                "prepend" if placement == "prepend" else "after_prefix",
                stripped,
            )
        if placement == "last_user":
            if isinstance(raw_input, str) and raw_input:
                body = {**body, "input": join(raw_input, memory_text, first=False)}
                return Placed(body, placement, stripped)
            user = _last_user(items)
            if user >= 0:
                item = items[user]
                items[user] = {
                    **item,
                    "content": with_block_appended(
                        item.get("content"), memory_text, "input_text"
                    ),
                }
                return Placed({**body, "input": items}, placement, stripped)
            placement = "after_prefix"  # no user turn to go with
        prefix = _leading_system(items)
        if placement == "after_prefix" and prefix:
            # The application's prompt is in `input`: memory goes right after it, as a
            # message of the same kind, never ahead of it in `instructions`.
            roles = {items[i].get("role") for i in range(prefix)}
            message: dict[str, Any] = {
                "role": "developer" if "developer" in roles else "system",
                "content": memory_text,
            }
            if "type" in items[prefix - 1]:
                message = {"type": "message", **message}
            items.insert(prefix, message)
            return Placed({**body, "input": items}, placement, stripped)
        instructions = _with_instructions(body, memory_text, placement)
        return Placed({**body, "instructions": instructions}, placement, stripped)

    def follower(self, content_type: str, path: str, query: str) -> ResponseFollower:
        if "event-stream" in content_type.lower():
            return SseFollower(ResponsesStreamState())
        return JsonBodyFollower(ResponsesStreamState())
