"""The codecs in an agent's tool loop (issue 36, item 4): which user turn a step belongs to,
where memory goes when tool results follow the person's turn, and the pieces the addons
build on (`TurnMemory`, what a step adds to memory)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memtap.engine.memory_block import MemoryLine, build_memory_block
from memtap.engine.types import Hit, Memory, Retrieval
from memtap.proxy.addons.capture import spoken
from memtap.proxy.addons.inject import _line, _shown, as_first_step_showed
from memtap.proxy.codecs.base import Completion, Placed
from memtap.proxy.codecs.registry import (
    ANTHROPIC,
    GEMINI,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
)
from memtap.proxy.turn_memory import Shown, TurnMemory, TurnRef

BLOCK = build_memory_block([MemoryLine("My cat is called Miso.", "2026-11-30")])
ASK = "What should I feed my cat?"
GEMINI_PATH = "/v1beta/models/gemini-2.5-flash:generateContent"

# (codec, path, the person's first step, the same turn after one round of tool results)
STEPS: dict[str, tuple[Any, str, dict[str, Any], dict[str, Any]]] = {
    "openai-chat": (
        OPENAI_CHAT,
        "/v1/chat/completions",
        {"model": "gpt-4o", "messages": [{"role": "user", "content": ASK}]},
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "user", "content": ASK},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "I live in Oslo."},
            ],
        },
    ),
    "openai-responses": (
        OPENAI_RESPONSES,
        "/v1/responses",
        {"model": "gpt-4.1", "input": [{"role": "user", "content": ASK}]},
        {
            "model": "gpt-4.1",
            "input": [
                {"role": "user", "content": ASK},
                {
                    "type": "function_call",
                    "call_id": "c1",
                    "name": "f",
                    "arguments": "{}",
                },
                {
                    "type": "function_call_output",
                    "call_id": "c1",
                    "output": "I live in Oslo.",
                },
            ],
        },
    ),
    "anthropic": (
        ANTHROPIC,
        "/v1/messages",
        {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": ASK}]},
        {
            "model": "m",
            "max_tokens": 9,
            "messages": [
                {"role": "user", "content": ASK},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": "I live in Oslo.",
                        }
                    ],
                },
            ],
        },
    ),
    "gemini": (
        GEMINI,
        GEMINI_PATH,
        {"contents": [{"role": "user", "parts": [{"text": ASK}]}]},
        {
            "contents": [
                {"role": "user", "parts": [{"text": ASK}]},
                {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "f", "args": {}}}],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "name": "f",
                                "response": {"result": "I live in Oslo."},
                            }
                        }
                    ],
                },
            ]
        },
    ),
}


@pytest.mark.parametrize("fmt", list(STEPS))
def test_a_tool_step_belongs_to_the_persons_turn(fmt: str) -> None:
    codec, path, first, step = STEPS[fmt]
    one = codec.read_request(first, path, "")
    two = codec.read_request(step, path, "")
    assert one.last_user_text == two.last_user_text == ASK  # never the tool output
    assert one.turn_key and one.turn_key == two.turn_key
    assert (one.continues_turn, two.continues_turn) == (False, True)


@pytest.mark.parametrize("fmt", list(STEPS))
def test_a_new_message_after_the_loop_is_a_new_turn(fmt: str) -> None:
    codec, path, _, step = STEPS[fmt]
    later = json.loads(json.dumps(step))
    key = {"gemini": "contents", "openai-responses": "input"}.get(fmt, "messages")
    if fmt == "gemini":
        later[key] += [
            {"role": "model", "parts": [{"text": "Salmon."}]},
            {"role": "user", "parts": [{"text": "Thanks!"}]},
        ]
    else:
        later[key] += [
            {"role": "assistant", "content": "Salmon."},
            {"role": "user", "content": "Thanks!"},
        ]
    view = codec.read_request(later, path, "")
    assert view.last_user_text == "Thanks!" and not view.continues_turn
    assert view.turn_key != codec.read_request(step, path, "").turn_key


@pytest.mark.parametrize("fmt", list(STEPS))
def test_last_user_memory_stays_with_the_persons_turn(fmt: str) -> None:
    codec, _, first, step = STEPS[fmt]
    one = codec.inject(first, BLOCK, "last_user", None)
    two = codec.inject(step, BLOCK, "last_user", None)
    assert isinstance(one, Placed) and isinstance(two, Placed)
    key = {"gemini": "contents", "openai-responses": "input"}.get(fmt, "messages")
    before, after = one.body[key], two.body[key]
    # The first step's conversation, unchanged, then the tool items as the app sent them.
    assert after[: len(before)] == before
    assert after[len(before) :] == step[key][len(before) :]
    assert BLOCK not in json.dumps(after[len(before) :])


def test_anthropic_marked_tool_result_gets_memory_after_the_breakpoint() -> None:
    """A client that marks its newest message (tool results included): the person's turn
    is inside the cached prefix, so the block goes after the last marked block, at the end
    of the tool-result message, where text is allowed."""
    _, _, _, step = STEPS["anthropic"]
    body = json.loads(json.dumps(step))
    body["messages"][2]["content"][0]["cache_control"] = {"type": "ephemeral"}
    injection = ANTHROPIC.inject(body, BLOCK, "last_user", None)
    assert isinstance(injection, Placed)
    messages = injection.body["messages"]
    assert messages[:2] == body["messages"][:2]
    result, memory = messages[2]["content"]
    assert result == body["messages"][2]["content"][0]
    assert memory == {"type": "text", "text": BLOCK}


def test_gemini_memory_never_joins_a_function_response_turn() -> None:
    body = {
        "contents": [
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "f", "response": {}}}],
            },
        ]
    }
    injection = GEMINI.inject(body, BLOCK, "last_user", None)
    assert isinstance(injection, Placed)
    assert injection.body["contents"] == body["contents"]
    assert injection.body["systemInstruction"] == {"parts": [{"text": BLOCK}]}


@pytest.mark.parametrize("placement", ["prepend", "after_prefix", "last_user"])
@pytest.mark.parametrize("state", ["previous_response_id", "conversation"])
def test_stateful_responses_get_memory_in_instructions(
    placement: Any, state: str
) -> None:
    body = {
        "model": "gpt-4.1",
        state: "resp_1" if state == "previous_response_id" else "conv_1",
        "input": [
            {"type": "message", "role": "developer", "content": "Be brief."},
            {"role": "user", "content": ASK},
        ],
    }
    injection = OPENAI_RESPONSES.inject(body, BLOCK, placement, None)
    assert isinstance(injection, Placed)
    assert injection.body["input"] == body["input"]
    assert injection.body["instructions"] == BLOCK


def test_a_stateful_tool_step_names_the_response_it_continues() -> None:
    body = {
        "model": "gpt-4.1",
        "previous_response_id": "resp_7",
        "input": [{"type": "function_call_output", "call_id": "c1", "output": "42"}],
    }
    view = OPENAI_RESPONSES.read_request(body, "/v1/responses", "")
    assert view.last_user_text == "" and view.turn_key == ""
    assert view.continues_turn and view.continues_response == "resp_7"


@pytest.mark.parametrize(
    ("content_type", "chunks"),
    [
        (
            "text/event-stream",
            [
                (
                    b'event: response.created\ndata: {"type":"response.created",'
                    b'"response":{"id":"resp_9","status":"in_progress"}}\n\n'
                ),
                (
                    b'event: response.completed\ndata: {"type":"response.completed",'
                    b'"response":{"id":"resp_9","status":"completed"}}\n\n'
                ),
            ],
        ),
        (
            "application/json",
            [b'{"id":"resp_9","object":"response","status":"completed","output":[]}'],
        ),
    ],
)
def test_the_responses_follower_reads_the_response_id(
    content_type: str, chunks: list[bytes]
) -> None:
    follower = OPENAI_RESPONSES.follower(content_type, "/v1/responses", "")
    for chunk in chunks:
        follower.feed(chunk)
    assert follower.finish().response_id == "resp_9"


def test_what_a_step_adds_to_memory() -> None:
    _, path, first, step = STEPS["openai-chat"]
    one = OPENAI_CHAT.read_request(first, path, "")
    two = OPENAI_CHAT.read_request(step, path, "")
    calling = Completion("Let me look.", "tool_calls", True, ({"id": "c2"},))
    answer = Completion("Salmon.", "stop", True)
    assert spoken(one, calling) == (ASK, "")  # the words once; a tool call is no answer
    assert spoken(two, calling) == ("", "")  # a middle step adds nothing
    assert spoken(two, answer) == ("", "Salmon.")  # the answer once


def test_turn_memory_is_bounded_and_per_owner() -> None:
    memory = TurnMemory(max_turns=2, max_responses=1)
    shown = (Shown.of("m1", "My cat is called Miso.", MemoryLine("x", "2026-11-30")),)
    memory.shown("a", "k1", shown)
    memory.shown("a", "k2", ())
    assert memory.first_step("b", "k1") is None  # another owner's turn is not theirs
    assert memory.first_step("a", "k1") == shown  # used: k2 is now the oldest
    memory.shown("a", "k3", ())
    assert memory.first_step("a", "k2") is None
    assert memory.first_step("a", "k1") == shown
    memory.answered("a", "r1", TurnRef("k1", ASK))
    memory.answered("a", "r2", TurnRef("k3", ASK))
    assert memory.turn_after("a", "r1") is None
    assert memory.turn_after("a", "r2") == TurnRef("k3", ASK)


def _hit(memory_id: str, content: str, updated: str) -> Hit:
    memory = Memory(
        memory_id, "o", None, "factual", None, content, {}, updated, updated
    )
    return Hit(memory, 1.0, "keyword", 5)


def test_a_tool_step_shows_what_the_first_step_showed() -> None:
    first = Retrieval(
        (
            _hit("cat", "My cat is called Miso.", "2026-01-02T00:00:00.000Z"),
            _hit("gone", "I live in Lyon.", "2026-01-03T00:00:00.000Z"),
            _hit("edited", "I drink tea.", "2026-01-04T00:00:00.000Z"),
        ),
        {},
    )
    lines = [_line(hit) for hit in first.hits]
    shown = tuple(map(_shown, first.hits, lines))
    later = Retrieval(
        (
            _hit(
                "new", "Is vegetarian", "2026-12-07T00:00:00.000Z"
            ),  # the turn taught it
            _hit("edited", "I drink coffee.", "2026-12-07T00:00:00.000Z"),
            _hit(
                "cat", "My cat is called Miso.", "2026-12-07T00:00:00.000Z"
            ),  # re-dated
        ),
        {},
    )
    kept, kept_lines = as_first_step_showed(shown, later)
    assert [hit.memory.id for hit in kept.hits] == [
        "cat",
        "edited",
    ]  # first step's order
    assert kept_lines == [
        MemoryLine(
            "My cat is called Miso.", "2026-01-02"
        ),  # as the first step showed it
        MemoryLine("I drink coffee.", "2026-12-07"),  # edited: as it is now
    ]
    assert kept.tokens == 10
