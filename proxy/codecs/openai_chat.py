"""OpenAI Chat Completions (`POST /v1/chat/completions`, also Azure OpenAI's
`/openai/deployments/{deployment}/chat/completions` and OpenAI-compatible providers).

Injection: a separate message at the system level, so the application's own messages stay
byte-identical. Models that reject the `system` role get a `user` message instead; a
conversation written with the `developer` role gets a `developer` message. `last_user`
appends the block to the last user message with text instead (a string stays a string; a
parts list gets a text part), which is also where it goes when parts carry `cache_control`.
The `tool` messages of a tool loop come after it: every step carries the block in the same
place, and nothing ever goes between an assistant's `tool_calls` and their results.
"""

from __future__ import annotations

import re
from typing import Any

from memtap.engine.memory_block import is_memory_block, strip_memory_block
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
    content_text,
    error_of,
    parse_arguments,
    turn_key,
)
from memtap.proxy.codecs.followers import SseFollower
from memtap.proxy.codecs.json_body import JsonBodyFollower
from memtap.proxy.codecs.own_block import (
    carries_own,
    with_block_appended,
    without_own_content,
)

_PATH = re.compile(r"(?:^|/)chat/completions$")

# Models that answer 400 to a `system` message (as the seed lists them); matched as a
# prefix of the lowercased model name, after any `provider/` namespace.
NO_SYSTEM_ROLE_PREFIXES: tuple[str, ...] = (
    "o1-mini",
    "o1-preview",
    "o1",
    "glm",
    "zai",
    "qianfan",
)
_SYSTEM_ROLES = ("system", "developer")


def rejects_system_role(model: str | None) -> bool:
    if not model:
        return False
    name = model.lower().rsplit("/", 1)[-1]
    return any(
        name == p or name.startswith(p + "-") or (p != "o1" and name.startswith(p))
        for p in NO_SYSTEM_ROLE_PREFIXES
    )


def _cache_marked(message: Any) -> bool:
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    return "cache_control" in message or (
        isinstance(content, list)
        and any(isinstance(p, dict) and "cache_control" in p for p in content)
    )


def _is_own_message(message: Any) -> bool:
    """A whole message memtap inserted (system/developer/user role, the block as content)."""
    return (
        isinstance(message, dict)
        and message.get("role") in (*_SYSTEM_ROLES, "user")
        and is_memory_block(message.get("content"))
    )


def _may_carry_own(message: Any) -> bool:
    """A message memtap may have written its block into (or next to, replayed)."""
    return isinstance(message, dict) and message.get("role") in (*_SYSTEM_ROLES, "user")


def _carries_own(message: Any) -> bool:
    return _is_own_message(message) or (
        _may_carry_own(message) and carries_own(message.get("content"))
    )


def _strip_own(messages: list[Any], start: int) -> tuple[list[Any], int]:
    """`messages` with memtap's blocks removed from index `start` on (before it is a cached
    prefix), and how many there were: a message memtap inserted, a block joined to a user,
    system or developer message."""
    kept = messages[:start]
    stripped = 0
    for message in messages[start:]:
        if _is_own_message(message):
            stripped += 1
            continue
        if _may_carry_own(message):
            content, n = without_own_content(message.get("content"))
            if n:
                stripped += n
                message = {**message, "content": content}
        kept.append(message)
    return kept, stripped


_TOOL_ROLES = ("tool", "function")


def _last_user(messages: list[Any]) -> int:
    """Index of the last user message (the one with text when there are several), -1 if
    none. A tool loop's results are `tool` messages: the person's turn stays where it is."""
    users = [
        i
        for i, m in enumerate(messages)
        if isinstance(m, dict) and m.get("role") == "user"
    ]
    with_text = [i for i in users if _user_text(messages[i]).strip()]
    return (with_text or users or [-1])[-1]


def _user_text(message: dict[str, Any]) -> str:
    return strip_memory_block(content_text(message.get("content")))


def _continues(messages: list[Any], user: int) -> bool:
    """A tool result after the user's turn: this request is a step of that turn's loop."""
    return any(
        isinstance(m, dict) and m.get("role") in _TOOL_ROLES
        for m in messages[user + 1 :]
    )


def usage_of(usage: Any) -> dict[str, int]:
    if not isinstance(usage, dict):
        return {}
    out: dict[str, int] = {}
    for src, dst in (
        ("prompt_tokens", "input_tokens"),
        ("completion_tokens", "output_tokens"),
    ):
        if isinstance(usage.get(src), int):
            out[dst] = usage[src]
    return out


class ChatStreamState(TurnState):
    """Folds `chat.completion.chunk` events (and a non-stream `chat.completion`) into a
    Completion for choice 0."""

    __slots__ = ("_calls",)

    def __init__(self) -> None:
        super().__init__()
        self._calls: dict[int, dict[str, Any]] = {}

    def on_event(self, event: str, payload: Any) -> None:
        if payload == "[DONE]" or event == "body":
            # `[DONE]` ends a stream; a whole JSON body (answer or error) is complete too.
            self._done = True
        if not isinstance(payload, dict):
            return
        if "error" in payload and payload["error"] is not None:
            self._error = error_of(payload["error"])
            return
        if payload.get("usage"):
            self._usage = usage_of(payload["usage"])
        if event == "body":
            self._on_body(payload)
            return
        for choice in payload.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            for key in ("content", "refusal"):
                if isinstance(delta.get(key), str):
                    self._text.append(delta[key])
            for call in delta.get("tool_calls") or ():
                slot = self._calls.setdefault(
                    int(call.get("index", 0)),
                    {"id": None, "name": None, "arguments": ""},
                )
                if call.get("id"):
                    slot["id"] = call["id"]
                function = call.get("function") or {}
                if function.get("name"):
                    slot["name"] = function["name"]
                if isinstance(function.get("arguments"), str):
                    slot["arguments"] = capped(slot["arguments"], function["arguments"])
            if choice.get("finish_reason"):
                self._finish = choice["finish_reason"]

    def _on_body(self, body: dict[str, Any]) -> None:
        for choice in body.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            message = choice.get("message") or {}
            for key in ("content", "refusal"):
                if isinstance(message.get(key), str):
                    self._text.append(message[key])
            for i, call in enumerate(message.get("tool_calls") or ()):
                function = call.get("function") or {}
                self._calls[i] = {
                    "id": call.get("id"),
                    "name": function.get("name"),
                    "arguments": function.get("arguments") or "",
                }
            self._finish = choice.get("finish_reason")

    def completion(self, eof_clean: bool) -> Completion:
        finish = "error" if self._error is not None else self._finish
        calls = tuple(
            {
                "id": c["id"],
                "name": c["name"],
                "arguments": parse_arguments(c["arguments"]),
            }
            for _, c in sorted(self._calls.items())
        )
        return self._completion(eof_clean, finish, calls)


class OpenAIChatCodec:
    format: ApiFormat = "openai-chat"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and _PATH.search(path) is not None

    def read_request(self, body: Any, path: str, query: str) -> ConversationView:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise ValueError("not a chat completions body: no messages list")  # noqa: TRY004 - the Codec protocol promises ValueError
        messages = body["messages"]
        # Only the system messages and the last user turn are read: a long conversation
        # costs one look at each message's role, not a text join of every message.
        system = [
            text
            for message in messages
            if isinstance(message, dict) and message.get("role") in _SYSTEM_ROLES
            for text in (strip_memory_block(content_text(message.get("content"))),)
            if text
        ]
        user = _last_user(messages)
        last_user = ""
        if user >= 0 and _user_text(messages[user]).strip():
            last_user = _user_text(messages[user])
        model = body.get("model")
        return ConversationView(
            model=model if isinstance(model, str) else None,
            stream=bool(body.get("stream")),
            last_user_text=last_user,
            system_text="\n".join(system),
            turn_key=turn_key(self.format, messages[: user + 1]) if last_user else "",
            continues_turn=_continues(messages, user),
            previous_assistant_text=assistant_before(
                messages,
                user,
                lambda m: m.get("role"),
                lambda m: content_text(m.get("content")),
            ),
        )

    def inject(
        self, body: Any, memory_text: str, placement: Placement, model: str | None
    ) -> Injection:
        messages: list[Any] = list(body["messages"])
        # OpenAI-compatible gateways (litellm, OpenRouter) pass Anthropic-style
        # `cache_control` on content parts: the messages up to the last marked one are a
        # cached prefix and stay byte-identical.
        marked = max(
            (i for i, m in enumerate(messages) if _cache_marked(m)), default=-1
        )
        if any(_carries_own(m) for m in messages[: marked + 1]):
            return NotPlaced("a memtap block is inside the cached prefix")
        messages, stripped = _strip_own(messages, marked + 1)
        if marked >= 0:
            placement = "last_user"
        user = _last_user(messages)
        if placement == "last_user" and user <= marked:
            if marked >= 0:
                return NotPlaced("no user turn after the last cache breakpoint")
            placement = "after_prefix"  # no user turn to go with
        if placement == "last_user":
            message = messages[user]
            messages[user] = {
                **message,
                "content": with_block_appended(message.get("content"), memory_text),
            }
            return Placed({**body, "messages": messages}, placement, stripped)
        roles = [m.get("role") for m in messages if isinstance(m, dict)]
        if "developer" in roles and "system" not in roles:
            role = "developer"
        elif rejects_system_role(model or body.get("model")):
            role = "user"
        else:
            role = "system"
        at = 0
        if placement == "after_prefix":
            while (
                at < len(messages)
                and isinstance(messages[at], dict)
                and messages[at].get("role") in _SYSTEM_ROLES
            ):
                at += 1
        messages.insert(at, {"role": role, "content": memory_text})
        return Placed({**body, "messages": messages}, placement, stripped)

    def follower(self, content_type: str, path: str, query: str) -> ResponseFollower:
        if "event-stream" in content_type.lower():
            return SseFollower(ChatStreamState())
        return JsonBodyFollower(ChatStreamState())
