"""Provider-shaped answers of an agent's tool loop, for the stand-in: a tool call or a final
text, as JSON or as the format's stream, in OpenAI Chat, OpenAI Responses, Anthropic and
Gemini shapes (what the official SDKs parse)."""

from __future__ import annotations

import json
from typing import Any

from tests.support.standin import Reply

FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini")


def _json_reply(body: dict[str, Any]) -> Reply:
    return Reply(
        headers={"Content-Type": "application/json"},
        chunks=[json.dumps(body).encode()],
    )


def _sse_reply(events: list[bytes]) -> Reply:
    return Reply(
        headers={"Content-Type": "text/event-stream"},
        chunks=events,
        content_length=False,
    )


def _data(payload: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n".encode() if event else b""
    return head + b"data: " + json.dumps(payload).encode() + b"\n\n"


# -- OpenAI Chat -------------------------------------------------------------------------


def chat_reply(
    *, call: tuple[str, str, dict[str, Any]] | None, text: str, stream: bool
) -> Reply:
    """A chat completion: a tool call `(id, name, args)` (finish `tool_calls`) or `text`."""
    calls = (
        [
            {
                "id": call[0],
                "type": "function",
                "function": {"name": call[1], "arguments": json.dumps(call[2])},
            }
        ]
        if call
        else None
    )
    finish = "tool_calls" if call else "stop"
    base = {"id": "chatcmpl-tools", "created": 1764700000, "model": "gpt-4o"}
    if not stream:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None if call else text,
        }
        if calls:
            message["tool_calls"] = calls
        return _json_reply(
            base
            | {
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {
                    "prompt_tokens": 9,
                    "completion_tokens": 3,
                    "total_tokens": 12,
                },
            }
        )

    def chunk(delta: dict[str, Any], reason: str | None) -> bytes:
        return _data(
            base
            | {
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
            }
        )

    events = [chunk({"role": "assistant", "content": None if call else ""}, None)]
    if call:
        arguments = json.dumps(call[2])
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": call[0],
                            "type": "function",
                            "function": {"name": call[1], "arguments": ""},
                        }
                    ]
                },
                None,
            )
        )
        half = len(arguments) // 2
        for piece in (arguments[:half], arguments[half:]):
            events.append(
                chunk(
                    {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]},
                    None,
                )
            )
    else:
        events += [chunk({"content": word}, None) for word in _pieces(text)]
    events += [chunk({}, finish), b"data: [DONE]\n\n"]
    return _sse_reply(events)


# -- OpenAI Responses --------------------------------------------------------------------


def responses_reply(
    response_id: str,
    *,
    call: tuple[str, str, dict[str, Any]] | None,
    text: str,
    stream: bool,
) -> Reply:
    """A response: one `function_call` item `(call_id, name, args)`, or a text message."""
    if call:
        item: dict[str, Any] = {
            "type": "function_call",
            "id": f"fc_{call[0]}",
            "call_id": call[0],
            "name": call[1],
            "arguments": json.dumps(call[2]),
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "id": f"msg_{response_id}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    response: dict[str, Any] = {
        "id": response_id,
        "object": "response",
        "created_at": 1764700000,
        "model": "gpt-4.1",
        "status": "completed",
        "output": [item],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 9,
            "output_tokens": 3,
            "total_tokens": 12,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }
    if not stream:
        return _json_reply(response)
    started = response | {"status": "in_progress", "output": [], "usage": None}
    seq = iter(range(100))

    def event(kind: str, **fields: Any) -> bytes:
        return _data({"type": kind, "sequence_number": next(seq), **fields}, kind)

    events = [
        event("response.created", response=started),
        event("response.in_progress", response=started),
    ]
    if call:
        events.append(
            event(
                "response.output_item.added",
                output_index=0,
                item=item | {"arguments": "", "status": "in_progress"},
            )
        )
        events.append(
            event(
                "response.function_call_arguments.delta",
                item_id=item["id"],
                output_index=0,
                delta=item["arguments"],
            )
        )
        events.append(
            event(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=0,
                arguments=item["arguments"],
            )
        )
    else:
        events.append(
            event(
                "response.output_item.added",
                output_index=0,
                item=item | {"content": [], "status": "in_progress"},
            )
        )
        events.append(
            event(
                "response.content_part.added",
                item_id=item["id"],
                output_index=0,
                content_index=0,
                part={"type": "output_text", "text": "", "annotations": []},
            )
        )
        for word in _pieces(text):
            events.append(
                event(
                    "response.output_text.delta",
                    item_id=item["id"],
                    output_index=0,
                    content_index=0,
                    delta=word,
                    logprobs=[],
                )
            )
    events.append(event("response.output_item.done", output_index=0, item=item))
    events.append(event("response.completed", response=response))
    return _sse_reply(events)


# -- Anthropic ---------------------------------------------------------------------------


def anthropic_reply(
    *, call: tuple[str, str, dict[str, Any]] | None, text: str, stream: bool
) -> Reply:
    """A message: a `tool_use` block `(id, name, input)` (stop `tool_use`), or text."""
    block: dict[str, Any] = (
        {"type": "tool_use", "id": call[0], "name": call[1], "input": call[2]}
        if call
        else {"type": "text", "text": text}
    )
    stop = "tool_use" if call else "end_turn"
    message: dict[str, Any] = {
        "id": "msg_tools",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 9, "output_tokens": 3},
    }
    if not stream:
        return _json_reply(message)
    start = message | {"content": [], "stop_reason": None}
    events = [_data({"type": "message_start", "message": start}, "message_start")]
    if call:
        events.append(
            _data(
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": block | {"input": {}},
                },
                "content_block_start",
            )
        )
        arguments = json.dumps(call[2])
        half = len(arguments) // 2
        for piece in (arguments[:half], arguments[half:]):
            events.append(
                _data(
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                    "content_block_delta",
                )
            )
    else:
        events.append(
            _data(
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
                "content_block_start",
            )
        )
        for word in _pieces(text):
            events.append(
                _data(
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": word},
                    },
                    "content_block_delta",
                )
            )
    events.append(
        _data({"type": "content_block_stop", "index": 0}, "content_block_stop")
    )
    events.append(
        _data(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 3},
            },
            "message_delta",
        )
    )
    events.append(_data({"type": "message_stop"}, "message_stop"))
    return _sse_reply(events)


# -- Gemini ------------------------------------------------------------------------------


def gemini_reply(
    *, call: tuple[str, str, dict[str, Any]] | None, text: str, stream: bool
) -> Reply:
    """A GenerateContentResponse: a `functionCall` part `(id, name, args)` or text; as SSE
    chunks (`streamGenerateContent?alt=sse`) or one JSON body."""
    usage = {"promptTokenCount": 9, "candidatesTokenCount": 3, "totalTokenCount": 12}

    def response(parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
        candidate: dict[str, Any] = {
            "content": {"role": "model", "parts": parts},
            "index": 0,
        }
        if finish:
            candidate["finishReason"] = finish
        return {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": "gemini-2.5-flash",
        }

    if call:
        parts = [{"functionCall": {"id": call[0], "name": call[1], "args": call[2]}}]
    else:
        parts = [{"text": text}]
    if not stream:
        return _json_reply(response(parts, "STOP"))
    if call:
        chunks = [response(parts, "STOP")]
    else:
        words = _pieces(text)
        chunks = [
            response([{"text": word}], "STOP" if i == len(words) - 1 else None)
            for i, word in enumerate(words)
        ]
    return _sse_reply([_data(chunk) for chunk in chunks])


def _pieces(text: str) -> list[str]:
    parts = text.split(" ")
    return [p if i == len(parts) - 1 else p + " " for i, p in enumerate(parts)]
