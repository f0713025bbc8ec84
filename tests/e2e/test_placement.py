"""Where memory goes in the request shapes real clients send (issue 13, items 3 to 6),
through a real memtap in front of the stand-in upstream, with the official SDKs:

- Responses with the app's prompt as a `developer`/`system` message in `input`: memory comes
  after it (`after_prefix`), never ahead of it in `instructions`;
- Gemini `cachedContent` (google-genai SDK): never a `systemInstruction`; memory goes with the
  last user turn, or is not placed (counted, logged) when there is none;
- a request that already carries memtap's own block (echoed `instructions`, replayed
  history) gets exactly one block; user text that merely looks like one stays;
- prompt caching: everything up to and including the last `cache_control` block reaches the
  upstream unchanged, memory goes with the last user turn (or nowhere).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import aiohttp
import anthropic
import openai
import pytest
from google import genai
from google.genai import types as genai_types

from memtap.config.schema import Config
from memtap.engine.memory_block import OPEN, MemoryLine, build_memory_block
from tests.conftest import MemtapServer
from tests.e2e.memory_harness import ServerFactory, seed, start_memtap
from tests.support.standin import Standin

KEY = "sk-placement-test-key-000000000000"
FACT = "My cat is called Miso."
STALE = build_memory_block([MemoryLine("I used to live in Lyon.", "2026-01-02")])
LOOKALIKE = "Here are my notes: <memtap:memories>\n- my own text\n</memtap:memories>"
QUESTION = "What should I feed my cat?"

Factory = Callable[..., Any]


@pytest.fixture
def start(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> Factory:
    async def make(placement: str = "after_prefix") -> MemtapServer:
        server = await start_memtap(
            standin, memtap_server, memtap_config, placement=placement
        )
        await seed(server, KEY, FACT)
        return server

    return make


def blocks_in(body: Any) -> int:
    return json.dumps(body, ensure_ascii=False).count(OPEN)


async def post(
    server: MemtapServer, path: str, body: bytes, headers: dict[str, str]
) -> aiohttp.ClientResponse:
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            server.url + path,
            data=body,
            headers={"Content-Type": "application/json", **headers},
        ) as response,
    ):
        await response.read()
        return response


# -- item 3: Responses with the app's prompt in `input` ----------------------------------


@pytest.mark.parametrize("instructions", [None, "Answer in English."])
async def test_responses_memory_follows_a_developer_prompt_in_input(
    start: Factory, standin: Standin, instructions: str | None
) -> None:
    server = await start("after_prefix")
    standin.enqueue_fixture("openai-responses", "non_stream_json")
    developer = {"type": "message", "role": "developer", "content": "You are a vet."}
    user = {"type": "message", "role": "user", "content": QUESTION}
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0)
    async with client:
        kwargs: Any = {"instructions": instructions} if instructions else {}
        raw = await client.responses.with_raw_response.create(
            model="gpt-4.1", input=[developer, user], **kwargs
        )
        assert raw.parse().output_text
        assert raw.headers["X-Memtap-Memories"] == "1"
    body = standin.last().json()
    first, memory, last = body["input"]
    assert (first, last) == (developer, user)
    assert memory["role"] == "developer" and FACT in memory["content"]
    # `instructions` is read before `input`: memory never goes there.
    assert body.get("instructions") == instructions


# -- item 4: Gemini cachedContent --------------------------------------------------------


@pytest.mark.parametrize("placement", ["prepend", "after_prefix"])
async def test_gemini_cached_content_gets_no_system_instruction(
    start: Factory, standin: Standin, placement: str
) -> None:
    server = await start(placement)
    standin.enqueue_fixture("gemini", "generate_content_json")
    client = genai.Client(
        api_key=KEY, http_options=genai_types.HttpOptions(base_url=server.url)
    )
    response = await client.aio.models.generate_content(
        model="gemini-2.5-flash",
        contents=QUESTION,
        config=genai_types.GenerateContentConfig(
            cached_content="cachedContents/vet-handbook"
        ),
    )
    await client.aio.aclose()
    assert response.text
    body = standin.last().json()
    assert standin.last().path.endswith("/models/gemini-2.5-flash:generateContent")
    assert body["cachedContent"] == "cachedContents/vet-handbook"
    assert "systemInstruction" not in body and "system_instruction" not in body
    (turn,) = body["contents"]
    assert turn["parts"][0] == {"text": QUESTION}
    assert FACT in turn["parts"][1]["text"] and len(turn["parts"]) == 2


async def test_gemini_cached_content_without_a_user_turn_is_not_placed(
    start: Factory, standin: Standin, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memtap.memory")
    server = await start()
    standin.enqueue_fixture("gemini", "generate_content_json")
    sent = json.dumps(
        {
            "cachedContent": "cachedContents/x",
            "contents": [{"role": "model", "parts": [{"text": "Hello."}]}],
        }
    ).encode()
    response = await post(
        server,
        "/v1beta/models/gemini-2.5-flash:generateContent",
        sent,
        {"x-goog-api-key": KEY},
    )
    assert response.status == 200
    assert response.headers["X-Memtap-Memories"] == "0"
    assert standin.last().body == sent  # the original bytes
    assert server.metrics.memory_requests.value("not_placed") == 1
    assert any(r.msg == "memory.not_placed" for r in caplog.records)


# -- item 5: memtap's own block never arrives twice ---------------------------------------


async def chat_call(server: MemtapServer, standin: Standin) -> dict[str, Any]:
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0)
    async with client:
        await client.chat.completions.create(
            model="gpt-4o",
            messages=[
                {"role": "system", "content": "Be brief."},
                {"role": "system", "content": STALE},  # replayed from a logged request
                {"role": "user", "content": LOOKALIKE},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": f"{QUESTION}\n\n{STALE}"},
            ],
        )
    return standin.last().json()  # type: ignore[no-any-return]


async def responses_call(server: MemtapServer, standin: Standin) -> dict[str, Any]:
    standin.enqueue_fixture("openai-responses", "non_stream_json")
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0)
    async with client:
        # The API echoes `instructions` (with memtap's block) and apps send them back.
        await client.responses.create(
            model="gpt-4.1",
            instructions=f"Be brief.\n\n{STALE}",
            input=[
                {"role": "user", "content": LOOKALIKE},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": QUESTION},
            ],
        )
    return standin.last().json()  # type: ignore[no-any-return]


async def anthropic_call(server: MemtapServer, standin: Standin) -> dict[str, Any]:
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key=KEY, max_retries=0)
    async with client:
        await client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=50,
            system=f"Be brief.\n\n{STALE}",
            messages=[
                {"role": "user", "content": LOOKALIKE},
                {"role": "assistant", "content": "Noted."},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": QUESTION},
                        {"type": "text", "text": STALE},
                    ],
                },
            ],
        )
    return standin.last().json()  # type: ignore[no-any-return]


async def gemini_call(server: MemtapServer, standin: Standin) -> dict[str, Any]:
    standin.enqueue_fixture("gemini", "generate_content_json")
    client = genai.Client(
        api_key=KEY, http_options=genai_types.HttpOptions(base_url=server.url)
    )
    await client.aio.models.generate_content(
        model="gemini-2.5-flash",
        contents=[
            genai_types.Content(role="user", parts=[genai_types.Part(text=LOOKALIKE)]),
            genai_types.Content(role="model", parts=[genai_types.Part(text="Noted.")]),
            genai_types.Content(
                role="user",
                parts=[genai_types.Part(text=QUESTION), genai_types.Part(text=STALE)],
            ),
        ],
        config=genai_types.GenerateContentConfig(
            system_instruction=[
                genai_types.Part(text="Be brief."),
                genai_types.Part(text=STALE),
            ]
        ),
    )
    await client.aio.aclose()
    return standin.last().json()  # type: ignore[no-any-return]


CALLS = {
    "openai-chat": chat_call,
    "openai-responses": responses_call,
    "anthropic": anthropic_call,
    "gemini": gemini_call,
}


@pytest.mark.parametrize("placement", ["prepend", "after_prefix", "last_user"])
@pytest.mark.parametrize("fmt", list(CALLS))
async def test_a_replayed_block_is_replaced_not_doubled(
    start: Factory, standin: Standin, fmt: str, placement: str
) -> None:
    server = await start(placement)
    body = await CALLS[fmt](server, standin)
    text = json.dumps(body, ensure_ascii=False)
    assert "Lyon" not in text  # memtap's old block is gone, wherever it was replayed
    assert text.count(FACT) == 1  # exactly one new block
    assert blocks_in(body) == 2  # ... plus the user's look-alike, untouched
    assert json.dumps(LOOKALIKE, ensure_ascii=False)[1:-1] in text
    assert "Be brief." in text and QUESTION in text


# -- item 6: prompt caching ---------------------------------------------------------------

TOOLS: Any = [
    {
        "name": "lookup",
        "description": "Look something up.",
        "input_schema": {"type": "object", "properties": {}},
        "cache_control": {"type": "ephemeral"},
    }
]
SYSTEM: Any = [
    {
        "type": "text",
        "text": "You are a vet. " * 50,
        "cache_control": {"type": "ephemeral"},
    }
]


@pytest.mark.parametrize("placement", ["prepend", "after_prefix", "last_user"])
async def test_anthropic_cache_breakpoints_keep_the_prefix(
    start: Factory, standin: Standin, placement: str
) -> None:
    server = await start(placement)
    history: Any = [
        {"role": "user", "content": "I have a cat."},
        {"role": "assistant", "content": "Lovely."},
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": QUESTION,
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        },
    ]
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key=KEY, max_retries=0)
    async with client:
        raw = await client.messages.with_raw_response.create(
            model="claude-sonnet-4-5",
            max_tokens=50,
            tools=TOOLS,
            system=SYSTEM,
            messages=history,
        )
        assert raw.headers["X-Memtap-Memories"] == "1"
    body = standin.last().json()
    # Everything up to and including the last marked block is what the client sent.
    assert (body["tools"], body["system"], body["messages"][:2]) == (
        TOOLS,
        SYSTEM,
        history[:2],
    )
    marked, memory = body["messages"][2]["content"]
    assert marked == history[2]["content"][0]
    assert memory["type"] == "text" and FACT in memory["text"]
    assert "cache_control" not in memory


async def test_chat_cache_control_parts_keep_the_prefix(
    start: Factory, standin: Standin
) -> None:
    """litellm / OpenRouter pass Anthropic-style `cache_control` on chat content parts."""
    server = await start("after_prefix")
    messages: Any = [
        {
            "role": "system",
            "content": [
                {
                    "type": "text",
                    "text": "Long policy. " * 40,
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        },
        {"role": "user", "content": QUESTION},
    ]
    sent = json.dumps({"model": "claude-via-litellm", "messages": messages}).encode()
    response = await post(
        server, "/v1/chat/completions", sent, {"Authorization": f"Bearer {KEY}"}
    )
    assert response.headers["X-Memtap-Memories"] == "1"
    body = standin.last().json()
    assert body["messages"][0] == messages[0]
    assert body["messages"][1]["content"].startswith(f"{QUESTION}\n\n{OPEN}")
    assert len(body["messages"]) == 2


@pytest.mark.parametrize(
    "messages",
    [
        pytest.param(
            [
                {"role": "user", "content": QUESTION},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "text",
                            "text": "Cats need",
                            "cache_control": {"type": "ephemeral"},
                        }
                    ],
                },
            ],
            id="breakpoint-after-the-last-user-turn",
        ),
        pytest.param(
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": STALE},
                        {
                            "type": "text",
                            "text": QUESTION,
                            "cache_control": {"type": "ephemeral"},
                        },
                    ],
                }
            ],
            id="memtap-block-inside-the-cached-prefix",
        ),
    ],
)
async def test_no_place_after_the_cached_prefix_means_original_bytes(
    start: Factory, standin: Standin, messages: Any
) -> None:
    server = await start()
    sent = json.dumps(
        {"model": "claude-sonnet-4-5", "max_tokens": 50, "messages": messages}
    ).encode()
    response = await post(server, "/v1/messages", sent, {"x-api-key": KEY})
    assert response.status == 200
    assert response.headers["X-Memtap-Memories"] == "0"
    assert standin.last().body == sent
    assert server.metrics.memory_requests.value("not_placed") == 1
