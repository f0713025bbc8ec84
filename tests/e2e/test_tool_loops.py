"""Agents' tool loops through a real memtap (issue 36, item 4), with the official SDKs'
own tool-calling shapes, streaming and not, in every placement:

- every upstream request is one the provider accepts (tool results right after their call,
  Anthropic `tool_result` blocks first in their message, no text between a call and its
  result);
- memory stays in one place, byte for byte, on every step of the user turn: each step's
  upstream request is the previous step's plus the new tool items (a prompt cache hits);
- retrieval reads the person's words, never tool output;
- what is learned: the person's words once (with the first step), nothing from tool calls
  or tool results, and no fact the turn taught shows up in a later step of the same turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import anthropic
import openai
import pytest
from google import genai
from google.genai import types as genai_types

from memtap.config.schema import Config
from memtap.engine.memory_block import CLOSE, OPEN
from tests.conftest import MemtapServer
from tests.e2e.memory_harness import ServerFactory, owner_of, seed, start_memtap
from tests.e2e.test_episodes import drained
from tests.support.standin import Standin
from tests.support.tool_replies import (
    anthropic_reply,
    chat_reply,
    gemini_reply,
    responses_reply,
)

KEY = "sk-tool-loop-test-key-000000000000"
CAT = "My cat Miso is allergic to chicken."
DECOY = "My umbrella is red."
"""Found only by words of the tool output: the block must never hold it."""
SYSTEM = "You cook for pets."
ASK = "I'm vegetarian, by the way. What should I cook for my cat tonight?"
OUTPUTS = (
    "Pantry: salmon, rice, umbrella pasta. I am allergic to penicillin.",
    "Weather: rain, take an umbrella. I live in Oslo.",
)
"""Tool results: words that would retrieve DECOY, and statements that must not be learned."""
FINAL = "Cook plain salmon with rice for Miso."
CALLS = (("call_1", "pantry", {"q": "fish"}), ("call_2", "weather", {"city": "here"}))
PLACEMENTS = ("last_user", "after_prefix", "prepend")
BLOCK = re.compile(re.escape(OPEN) + ".*?" + re.escape(CLOSE), re.DOTALL)

Loop = Callable[[MemtapServer, Standin, bool], Awaitable[None]]


# -- the four SDKs' tool loops -------------------------------------------------------------


async def chat_loop(server: MemtapServer, standin: Standin, stream: bool) -> None:
    tools: Any = [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": f"The {name}.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
        for _, name, _ in CALLS
    ]
    messages: list[Any] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": ASK},
    ]
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0)
    async with client:
        for step in range(3):
            call = CALLS[step] if step < 2 else None
            standin.enqueue(chat_reply(call=call, text=FINAL, stream=stream))
            if stream:
                async with client.chat.completions.stream(
                    model="gpt-4o", messages=messages, tools=tools
                ) as events:
                    async for _ in events:
                        pass
                    completion = await events.get_final_completion()
            else:
                completion = await client.chat.completions.create(
                    model="gpt-4o", messages=messages, tools=tools
                )
            message = completion.choices[0].message
            if call is None:
                assert message.content == FINAL
                return
            assert message.tool_calls and message.tool_calls[0].id == call[0]
            messages.append(
                {
                    "role": "assistant",
                    "content": message.content,
                    "tool_calls": [c.model_dump() for c in message.tool_calls],
                }
            )
            messages.append(
                {"role": "tool", "tool_call_id": call[0], "content": OUTPUTS[step]}
            )


def responses_tools() -> Any:
    return [
        {
            "type": "function",
            "name": name,
            "description": f"The {name}.",
            "parameters": {"type": "object", "properties": {}},
            "strict": False,
        }
        for _, name, _ in CALLS
    ]


async def responses_call(
    client: openai.AsyncOpenAI, stream: bool, **kwargs: Any
) -> Any:
    if stream:
        async with client.responses.stream(model="gpt-4.1", **kwargs) as events:
            async for _ in events:
                pass
            return await events.get_final_response()
    return await client.responses.create(model="gpt-4.1", **kwargs)


async def responses_loop(server: MemtapServer, standin: Standin, stream: bool) -> None:
    items: list[Any] = [{"role": "user", "content": ASK}]
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0)
    async with client:
        for step in range(3):
            call = CALLS[step] if step < 2 else None
            standin.enqueue(
                responses_reply(f"resp_{step}", call=call, text=FINAL, stream=stream)
            )
            response = await responses_call(
                client,
                stream,
                instructions=SYSTEM,
                input=items,
                tools=responses_tools(),
            )
            if call is None:
                assert response.output_text == FINAL
                return
            items += [item.model_dump(exclude_none=True) for item in response.output]
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": call[0],
                    "output": OUTPUTS[step],
                }
            )


async def anthropic_loop(server: MemtapServer, standin: Standin, stream: bool) -> None:
    tools: Any = [
        {
            "name": name,
            "description": f"The {name}.",
            "input_schema": {"type": "object", "properties": {}},
        }
        for _, name, _ in CALLS
    ]
    messages: list[Any] = [{"role": "user", "content": ASK}]
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key=KEY, max_retries=0)
    async with client:
        for step in range(3):
            call = CALLS[step] if step < 2 else None
            standin.enqueue(anthropic_reply(call=call, text=FINAL, stream=stream))
            kwargs: Any = {
                "model": "claude-sonnet-4-5",
                "max_tokens": 200,
                "system": SYSTEM,
                "tools": tools,
                "messages": messages,
            }
            if stream:
                async with client.messages.stream(**kwargs) as events:
                    async for _ in events:
                        pass
                    message = await events.get_final_message()
            else:
                message = await client.messages.create(**kwargs)
            if call is None:
                assert message.content[0].type == "text"
                assert message.content[0].text == FINAL
                return
            (use,) = message.content
            assert use.type == "tool_use" and use.input == call[2]
            messages.append({"role": "assistant", "content": message.content})
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": call[0],
                            "content": OUTPUTS[step],
                        }
                    ],
                }
            )


async def gemini_loop(server: MemtapServer, standin: Standin, stream: bool) -> None:
    config = genai_types.GenerateContentConfig(
        system_instruction=SYSTEM,
        tools=[
            genai_types.Tool(
                function_declarations=[
                    genai_types.FunctionDeclaration(
                        name=name, description=f"The {name}."
                    )
                    for _, name, _ in CALLS
                ]
            )
        ],
        automatic_function_calling=genai_types.AutomaticFunctionCallingConfig(
            disable=True
        ),
    )
    contents: list[Any] = [
        genai_types.Content(role="user", parts=[genai_types.Part(text=ASK)])
    ]
    client = genai.Client(
        api_key=KEY, http_options=genai_types.HttpOptions(base_url=server.url)
    )
    try:
        for step in range(3):
            call = CALLS[step] if step < 2 else None
            standin.enqueue(gemini_reply(call=call, text=FINAL, stream=stream))
            if stream:
                parts: list[Any] = []
                async for chunk in await client.aio.models.generate_content_stream(
                    model="gemini-2.5-flash", contents=contents, config=config
                ):
                    assert chunk.candidates and chunk.candidates[0].content
                    parts += chunk.candidates[0].content.parts or []
                answer = genai_types.Content(role="model", parts=parts)
            else:
                response = await client.aio.models.generate_content(
                    model="gemini-2.5-flash", contents=contents, config=config
                )
                assert response.candidates and response.candidates[0].content
                answer = response.candidates[0].content
            assert answer.parts
            if call is None:
                assert "".join(p.text or "" for p in answer.parts) == FINAL
                return
            function_call = answer.parts[0].function_call
            assert function_call is not None and function_call.name == call[1]
            contents.append(answer)
            contents.append(
                genai_types.Content(
                    role="user",
                    parts=[
                        genai_types.Part.from_function_response(
                            name=call[1], response={"result": OUTPUTS[step]}
                        )
                    ],
                )
            )
    finally:
        await client.aio.aclose()


LOOPS: dict[str, Loop] = {
    "openai-chat": chat_loop,
    "openai-responses": responses_loop,
    "anthropic": anthropic_loop,
    "gemini": gemini_loop,
}
CONVERSATION = {
    "openai-chat": "messages",
    "openai-responses": "input",
    "anthropic": "messages",
    "gemini": "contents",
}


# -- what the provider accepts --------------------------------------------------------------


def accepted_chat(body: dict[str, Any]) -> None:
    messages = body["messages"]
    for i, message in enumerate(messages):
        if message.get("tool_calls"):
            ids = [c["id"] for c in message["tool_calls"]]
            answers = messages[i + 1 : i + 1 + len(ids)]
            # Each call's result follows it at once, nothing between.
            assert [m["role"] for m in answers] == ["tool"] * len(ids)
            assert sorted(m["tool_call_id"] for m in answers) == sorted(ids)
        if message["role"] == "tool":
            before = messages[i - 1]
            assert before["role"] == "tool" or before.get("tool_calls")


def accepted_responses(body: dict[str, Any]) -> None:
    items = body["input"]
    calls = {item["call_id"] for item in items if item.get("type") == "function_call"}
    for i, item in enumerate(items):
        if item.get("type") == "function_call_output":
            assert item["call_id"] in calls
            before = items[i - 1]
            assert before.get("type") in ("function_call", "function_call_output")
    assert isinstance(body.get("instructions", ""), str)


def accepted_anthropic(body: dict[str, Any]) -> None:
    messages = body["messages"]
    assert messages[0]["role"] == "user"
    for i, message in enumerate(messages):
        if i:
            assert message["role"] != messages[i - 1]["role"]  # roles alternate
        content = message["content"]
        if message["role"] != "assistant" or not isinstance(content, list):
            continue
        uses = [b["id"] for b in content if b["type"] == "tool_use"]
        if not uses:
            continue
        answer = messages[i + 1]["content"]
        kinds = [b["type"] for b in answer]
        # tool_result blocks first in the next user message, one per tool_use.
        assert kinds[: len(uses)] == ["tool_result"] * len(uses)
        assert "tool_result" not in kinds[len(uses) :]
        assert [b["tool_use_id"] for b in answer[: len(uses)]] == uses


def accepted_gemini(body: dict[str, Any]) -> None:
    contents = body["contents"]
    for i, content in enumerate(contents):
        calls = [p for p in content["parts"] if "functionCall" in p]
        if not calls:
            continue
        assert content["role"] == "model"
        answer = contents[i + 1]
        # The function-response turn follows at once, only function responses in it.
        assert answer["role"] == "user"
        assert all("functionResponse" in p for p in answer["parts"])
        assert len(answer["parts"]) == len(calls)


ACCEPTED: dict[str, Callable[[dict[str, Any]], None]] = {
    "openai-chat": accepted_chat,
    "openai-responses": accepted_responses,
    "anthropic": accepted_anthropic,
    "gemini": accepted_gemini,
}


def system_level(fmt: str, body: dict[str, Any]) -> str:
    """What the request says at the system level (where after_prefix/prepend put memory)."""
    if fmt == "openai-chat":
        return json.dumps(
            [m for m in body["messages"] if m["role"] in ("system", "developer")],
            ensure_ascii=False,
        )
    if fmt == "openai-responses":
        return json.dumps(body.get("instructions", ""), ensure_ascii=False)
    if fmt == "anthropic":
        return json.dumps(body.get("system", ""), ensure_ascii=False)
    return json.dumps(body.get("systemInstruction", ""), ensure_ascii=False)


def person_turn(fmt: str, body: dict[str, Any]) -> str:
    """The person's own message of the request, as sent upstream."""
    for item in body[CONVERSATION[fmt]]:
        if ASK in json.dumps(item, ensure_ascii=False):
            return json.dumps(item, ensure_ascii=False)
    raise AssertionError("the person's turn is gone")


# -- the test -----------------------------------------------------------------------------


@pytest.fixture
def start(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> Callable[[str], Awaitable[MemtapServer]]:
    async def make(placement: str) -> MemtapServer:
        # Keyword retrieval (no embeddings): what the block holds shows what was asked.
        server = await start_memtap(
            standin,
            memtap_server,
            memtap_config,
            placement=placement,
            strategy="keyword",
        )
        await seed(server, KEY, CAT, DECOY)
        return server

    return make


async def admin_get(server: MemtapServer, path: str, **params: str) -> Any:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{server.url}/_memtap/api/{path}", params=params) as response,
    ):
        assert response.status == 200, await response.text()
        return await response.json()


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("fmt", list(LOOPS))
async def test_a_tool_loop_keeps_memory_in_place_and_learns_the_person_once(
    start: Callable[[str], Awaitable[MemtapServer]],
    standin: Standin,
    fmt: str,
    placement: str,
    stream: bool,
) -> None:
    server = await start(placement)
    await LOOPS[fmt](server, standin, stream)
    bodies = [request.json() for request in standin.requests]
    assert len(bodies) == 3
    conversation = CONVERSATION[fmt]
    blocks = []
    for step, body in enumerate(bodies):
        ACCEPTED[fmt](body)
        text = json.dumps(body, ensure_ascii=False)
        (block,) = BLOCK.findall(text)  # exactly one block, on every step
        blocks.append(block)
        # Retrieval read the person's words: the cat, never the umbrella of the tools.
        assert "Miso is allergic to chicken" in block and "umbrella" not in block
        where = (
            person_turn(fmt, body)
            if placement == "last_user"
            else system_level(fmt, body)
        )
        assert block in where
        if step:
            before = bodies[step - 1]
            # The previous step's request, byte for byte, plus the new tool items.
            extended = body[conversation]
            assert extended[: len(before[conversation])] == before[conversation]
            assert len(extended) > len(before[conversation])
            assert {k: v for k, v in body.items() if k != conversation} == {
                k: v for k, v in before.items() if k != conversation
            }
    # Same block, byte for byte, although step 1 taught a fact that step 2's words retrieve.
    assert len(set(blocks)) == 1 and "vegetarian" not in blocks[0]

    await drained(server)
    owner = owner_of(KEY)
    memories = await admin_get(server, "memories", owner=owner, limit="100")
    contents = [m["content"] for m in memories["items"]]
    assert [c for c in contents if "vegetarian" in c.lower()] == ["Is vegetarian"]
    for said_by_a_tool in ("penicillin", "Oslo", "salmon", "umbrella pasta"):
        assert not any(said_by_a_tool in c for c in contents), contents
    episodes = await admin_get(server, "episodes", owner=owner, limit="100")
    # The person's words once, the final answer once (the assistant's side is kept by
    # default); nothing of a tool call or a tool result.
    assert sorted((e["role"], e["content"]) for e in episodes["items"]) == [
        ("assistant", FINAL),
        ("user", ASK),
    ]
    requests = await admin_get(server, "requests", owner=owner)
    steps = requests["items"][::-1]  # newest first
    assert len(steps) == 3
    # The person's words were extracted with the first step, once; the tool steps taught
    # nothing; the final answer was captured (nothing in it is learned by default).
    vegetarian = next(m for m in memories["items"] if m["content"] == "Is vegetarian")
    assert [vegetarian["id"] in (r["extracted"] or []) for r in steps] == [
        True,
        False,
        False,
    ]
    assert steps[1]["skipped_reason"] == "tool_step"
