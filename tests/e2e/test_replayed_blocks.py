"""memtap's own block coming back at the system level (issue 36, item 5): an app that logs
what went upstream and replays it, a framework that merges the system prompt it was given
into one string. Wherever memtap may have written its block (a system or developer message,
Responses `instructions`, Anthropic `system` as a string or blocks, Gemini
`systemInstruction`), the exact block is removed before a new one is placed: one block
arrives, and the application's own text is untouched.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from memtap.config.schema import Config
from memtap.engine.memory_block import OPEN, MemoryLine, build_memory_block
from tests.conftest import MemtapServer
from tests.e2e.memory_harness import ServerFactory, seed, start_memtap
from tests.support.standin import Standin

KEY = "sk-replayed-blocks-key-0000000000"
FACT = "My cat is called Miso."
STALE = build_memory_block([MemoryLine("I used to live in Lyon.", "2026-01-02")])
APP = "Be brief."
QUESTION = "What should I feed my cat?"
JOINED = f"{APP}\n\n{STALE}"

CASES: dict[str, tuple[str, dict[str, str], dict[str, Any]]] = {
    "chat-system-joined": (
        "/v1/chat/completions",
        {"Authorization": f"Bearer {KEY}"},
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": JOINED},
                {"role": "user", "content": QUESTION},
            ],
        },
    ),
    "chat-developer-parts": (
        "/v1/chat/completions",
        {"Authorization": f"Bearer {KEY}"},
        {
            "model": "gpt-4o",
            "messages": [
                {
                    "role": "developer",
                    "content": [
                        {"type": "text", "text": APP},
                        {"type": "text", "text": STALE},
                    ],
                },
                {"role": "user", "content": QUESTION},
            ],
        },
    ),
    "responses-developer-input": (
        "/v1/responses",
        {"Authorization": f"Bearer {KEY}"},
        {
            "model": "gpt-4.1",
            "input": [
                {"type": "message", "role": "developer", "content": JOINED},
                {"type": "message", "role": "user", "content": QUESTION},
            ],
        },
    ),
    "responses-instructions-only-block": (
        "/v1/responses",
        {"Authorization": f"Bearer {KEY}"},
        {"model": "gpt-4.1", "instructions": STALE, "input": QUESTION},
    ),
    "anthropic-system-blocks": (
        "/v1/messages",
        {"x-api-key": KEY},
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 50,
            "system": [{"type": "text", "text": JOINED}],
            "messages": [{"role": "user", "content": QUESTION}],
        },
    ),
    "gemini-instruction-joined-part": (
        "/v1beta/models/gemini-2.5-flash:generateContent",
        {"x-goog-api-key": KEY},
        {
            "systemInstruction": {"parts": [{"text": JOINED}]},
            "contents": [{"role": "user", "parts": [{"text": QUESTION}]}],
        },
    ),
    "gemini-snake-case-instruction": (
        "/v1beta/models/gemini-2.5-flash:generateContent",
        {"x-goog-api-key": KEY},
        {
            "system_instruction": {"parts": [{"text": APP}, {"text": STALE}]},
            "contents": [{"role": "user", "parts": [{"text": QUESTION}]}],
            "generation_config": {"temperature": 0.2},
        },
    ),
}


@pytest.fixture
def start(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> Callable[[str], Awaitable[MemtapServer]]:
    async def make(placement: str) -> MemtapServer:
        server = await start_memtap(
            standin, memtap_server, memtap_config, placement=placement
        )
        await seed(server, KEY, FACT)
        return server

    return make


@pytest.mark.parametrize("placement", ["prepend", "after_prefix", "last_user"])
@pytest.mark.parametrize("case", list(CASES))
async def test_a_block_replayed_at_the_system_level_is_replaced(
    start: Callable[[str], Awaitable[MemtapServer]],
    standin: Standin,
    case: str,
    placement: str,
) -> None:
    server = await start(placement)
    path, headers, sent = CASES[case]
    if "gemini" in case:
        standin.enqueue_fixture("gemini", "generate_content_json")
    elif "responses" in case:
        standin.enqueue_fixture("openai-responses", "non_stream_json")
    async with (
        aiohttp.ClientSession() as http,
        http.post(server.url + path, json=sent, headers=headers) as response,
    ):
        await response.read()
        assert response.status == 200
        assert response.headers["X-Memtap-Memories"] == "1"
    body = standin.last().json()
    text = json.dumps(body, ensure_ascii=False)
    assert "Lyon" not in text  # the replayed block is gone
    assert text.count(OPEN) == 1 and text.count(FACT) == 1  # one new block
    if case != "responses-instructions-only-block":
        assert APP in text  # the application's own text stays
    assert QUESTION in text
