"""Responses conversations the provider keeps (issue 36, item 5): with
`previous_response_id` (or `conversation`) the provider stores every input item and replays
it in each later turn, so memory goes into `instructions`, which it does not carry over; a
block in `input` would pile up turn after turn. Through a real memtap, the openai SDK.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import openai
import pytest

from memtap.config.schema import Config
from memtap.engine.memory_block import CLOSE, OPEN
from tests.conftest import MemtapServer
from tests.e2e.memory_harness import ServerFactory, seed, start_memtap
from tests.e2e.test_tool_loops import (
    ASK,
    CALLS,
    CAT,
    DECOY,
    FINAL,
    OUTPUTS,
    PLACEMENTS,
    SYSTEM,
    responses_call,
    responses_tools,
)
from tests.support.standin import Standin
from tests.support.tool_replies import responses_reply

KEY = "sk-stateful-responses-key-00000000"
BLOCK = re.compile(re.escape(OPEN) + ".*?" + re.escape(CLOSE), re.DOTALL)
QUESTIONS = (
    "What should I cook for my cat tonight?",
    "And what about my cat tomorrow?",
    "Is fish fine for a cat every day?",
)


@pytest.fixture
def start(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> Callable[[str], Awaitable[MemtapServer]]:
    async def make(placement: str) -> MemtapServer:
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


def blocks(value: Any) -> list[str]:
    return BLOCK.findall(json.dumps(value, ensure_ascii=False))


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("placement", PLACEMENTS)
async def test_previous_response_id_turns_get_memory_in_instructions(
    start: Callable[[str], Awaitable[MemtapServer]],
    standin: Standin,
    placement: str,
    stream: bool,
) -> None:
    server = await start(placement)
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0)
    developer = {"type": "message", "role": "developer", "content": SYSTEM}
    previous: str | None = None
    async with client:
        for turn, question in enumerate(QUESTIONS):
            standin.enqueue(
                responses_reply(f"resp_{turn}", call=None, text=FINAL, stream=stream)
            )
            kwargs: Any = {"input": [developer, {"role": "user", "content": question}]}
            if previous:
                kwargs["previous_response_id"] = previous
            response = await responses_call(client, stream, **kwargs)
            previous = response.id
    bodies = [r.json() for r in standin.requests]
    assert [b.get("previous_response_id") for b in bodies] == [
        None,
        "resp_0",
        "resp_1",
    ]
    for body in bodies[1:]:
        # Nothing of memtap's in what the provider stores: one block, in `instructions`.
        assert blocks(body["input"]) == []
        (block,) = blocks(body["instructions"])
        assert "Miso is allergic to chicken" in block
        assert body["input"][0] == developer


async def test_conversation_requests_get_memory_in_instructions(
    start: Callable[[str], Awaitable[MemtapServer]], standin: Standin
) -> None:
    server = await start("last_user")
    standin.enqueue(responses_reply("resp_c", call=None, text=FINAL, stream=False))
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0)
    async with client:
        await client.responses.create(
            model="gpt-4.1",
            conversation="conv_123",
            instructions=SYSTEM,
            input=[{"role": "user", "content": QUESTIONS[0]}],
        )
    body = standin.last().json()
    assert blocks(body["input"]) == []
    assert body["instructions"].startswith(f"{SYSTEM}\n\n{OPEN}")


@pytest.mark.parametrize("state", ["previous_response_id", "conversation"])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("placement", PLACEMENTS)
async def test_a_stateful_tool_loop_keeps_one_block_for_the_persons_words(
    start: Callable[[str], Awaitable[MemtapServer]],
    standin: Standin,
    placement: str,
    stream: bool,
    state: str,
) -> None:
    """Each step sends only the new items and the previous response's id (or the stored
    conversation's): the steps after the first hold none of the person's words, yet get the
    block of their turn."""
    server = await start(placement)
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0)
    items: list[Any] = [{"role": "user", "content": ASK}]
    previous = "resp_earlier"
    async with client:
        for step in range(3):
            call = CALLS[step] if step < 2 else None
            standin.enqueue(
                responses_reply(f"resp_s{step}", call=call, text=FINAL, stream=stream)
            )
            kept: Any = (
                {"previous_response_id": previous}
                if state == "previous_response_id"
                else {"conversation": "conv_tools"}
            )
            response = await responses_call(
                client,
                stream,
                instructions=SYSTEM,
                input=items,
                tools=responses_tools(),
                **kept,
            )
            previous = response.id
            if call is not None:
                items = [
                    {
                        "type": "function_call_output",
                        "call_id": call[0],
                        "output": OUTPUTS[step],
                    }
                ]
    bodies = [r.json() for r in standin.requests]
    found = [blocks(body["instructions"]) for body in bodies]
    # One block per step, in `instructions`, the same on every step, for the person's
    # words (the cat), not the tools' (the umbrella), and not what the turn taught.
    assert all(len(b) == 1 for b in found)
    assert len({b[0] for b in found}) == 1
    block = found[0][0]
    assert "Miso is allergic to chicken" in block
    assert "umbrella" not in block and "vegetarian" not in block
    assert all(blocks(body["input"]) == [] for body in bodies)
