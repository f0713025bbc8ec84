"""Azure OpenAI (issue 13, item 2): the key arrives as `api-key:` on
`/openai/deployments/{deployment}/chat/completions?api-version=...` and on the v1
`/openai/v1/...` paths. memtap takes it as the owner (hashed, never logged), recognises
those paths as the chat and responses formats, and injects memory. Driven by the official
`openai` SDK's `AzureOpenAI` client against memtap and the stand-in upstream."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import aiohttp
import openai
import pytest
from multidict import CIMultiDict

from memtap.config.schema import Config
from memtap.engine.memory_block import OPEN
from memtap.proxy.codecs.registry import OPENAI_CHAT, OPENAI_RESPONSES, detect
from memtap.proxy.headers import SECRET_HEADERS, api_key_from
from memtap.proxy.logs import redact
from tests.e2e.memory_harness import ServerFactory, owner_of, seed, start_memtap
from tests.support.standin import Standin

KEY = "azk-0f1e2d3c4b5a69788796a5b4c3d2e1f0"
FACT = "I deploy everything to the westeurope region."
API_VERSION = "2024-10-21"


def test_api_key_header_is_an_owner_and_a_secret() -> None:
    assert api_key_from(CIMultiDict({"api-key": f" {KEY} "})) == KEY
    # The contract's order: Authorization, x-api-key, api-key, x-goog-api-key, ?key=.
    both = CIMultiDict({"api-key": KEY, "Authorization": "Bearer other"})
    assert api_key_from(both) == "other"
    assert api_key_from(CIMultiDict({"api-key": KEY, "x-goog-api-key": "g"})) == KEY
    assert api_key_from(CIMultiDict({"api-key": "  "})) is None
    assert "api-key" in SECRET_HEADERS
    for line in (f"api-key: {KEY}", f'{{"api-key": "{KEY}"}}', f"'Api-Key', '{KEY}'"):
        assert KEY not in redact(line), line


@pytest.mark.parametrize(
    ("path", "codec"),
    [
        ("/openai/deployments/gpt-4o/chat/completions", OPENAI_CHAT),
        ("/openai/v1/chat/completions", OPENAI_CHAT),
        ("/openai/v1/deployments/gpt-4o/chat/completions", OPENAI_CHAT),
        ("/openai/v1/responses", OPENAI_RESPONSES),
        ("/openai/responses", OPENAI_RESPONSES),
    ],
)
@pytest.mark.parametrize("upstream_format", ["openai", "auto"])
def test_azure_paths_are_the_openai_formats(
    path: str, codec: Any, upstream_format: str
) -> None:
    assert detect(upstream_format, "POST", path) is codec
    assert detect(upstream_format, "GET", path) is None


@pytest.fixture
async def memtap(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> Any:
    server = await start_memtap(standin, memtap_server, memtap_config)
    await seed(server, KEY, FACT)
    return server


@pytest.mark.parametrize("stream", [False, True])
async def test_azure_openai_deployment_chat_gets_memory(
    memtap: Any, standin: Standin, stream: bool
) -> None:
    client = openai.AsyncAzureOpenAI(
        azure_endpoint=memtap.url,
        api_key=KEY,
        api_version=API_VERSION,
        max_retries=0,
    )
    messages: Any = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Where should the new service run?"},
    ]
    async with client:
        if stream:
            async with client.chat.completions.with_streaming_response.create(
                model="gpt-4o", messages=messages, stream=True
            ) as response:
                text = "".join(
                    [
                        c.choices[0].delta.content or ""
                        async for c in await response.parse()
                        if c.choices
                    ]
                )
                memories = response.headers.get("X-Memtap-Memories")
        else:
            raw = await client.chat.completions.with_raw_response.create(
                model="gpt-4o", messages=messages
            )
            text = raw.parse().choices[0].message.content or ""
            memories = raw.headers.get("X-Memtap-Memories")
    assert text == standin.reply_text
    assert memories == "1"
    received = standin.last()
    assert received.path == (
        f"/openai/deployments/gpt-4o/chat/completions?api-version={API_VERSION}"
    )
    assert received.headers["api-key"] == KEY  # forwarded as sent
    sent = json.dumps(received.json())
    assert sent.count(OPEN) == 1 and FACT in sent


async def test_azure_v1_paths_get_memory(memtap: Any, standin: Standin) -> None:
    """The v1 API: `AzureOpenAI(base_url=.../openai/v1/)` for Responses, and the raw
    `api-key` request LangChain `AzureChatOpenAI` / litellm `azure/` send to chat."""
    standin.enqueue_fixture("openai-responses", "non_stream_json")
    client = openai.AsyncAzureOpenAI(
        base_url=f"{memtap.url}/openai/v1/",
        api_key=KEY,
        api_version="preview",
        max_retries=0,
    )
    async with client:
        raw = await client.responses.with_raw_response.create(
            model="gpt-4.1", input="Where should the new service run?"
        )
        assert raw.parse().output_text
        assert raw.headers.get("X-Memtap-Memories") == "1"
    received = standin.last()
    assert received.path.startswith("/openai/v1/responses")
    assert received.headers["api-key"] == KEY
    assert FACT in json.dumps(received.json())

    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{memtap.url}/openai/v1/chat/completions",
            json={
                "model": "gpt-4o",
                "messages": [{"role": "user", "content": "And the database?"}],
            },
            headers={"api-key": KEY},
        ) as response,
    ):
        assert response.status == 200
        assert response.headers["X-Memtap-Memories"] == "1"
    assert FACT in json.dumps(standin.last().json())


@pytest.mark.slow
async def test_api_key_is_never_logged(standin: Standin, memtap_process: Any) -> None:
    proc = await memtap_process(
        {
            "log": {"level": "debug"},
            "upstreams": [{"name": "standin", "url": standin.url}],
        }
    )
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{proc.url}/openai/deployments/gpt-4o/chat/completions?api-version={API_VERSION}",
            json={"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]},
            headers={"api-key": KEY},
        ) as response,
    ):
        assert response.status == 200
        await response.read()
    assert await proc.terminate() == 0
    output = (
        proc.stderr_text() + "\n".join(proc.stdout_lines) + await proc.read_stdout()
    )
    assert KEY not in output
    (done,) = [e for e in proc.log_events() if e["event"] == "request.done"]
    assert done["owner"] == owner_of(KEY)
