"""Memory end to end, through a real memtap (in-process, real sockets, real SQLite in tmp_path)
in front of the provider stand-in, with the official SDKs:

turn 1 states a preference; once the outbox has drained into a memory, turn 2's upstream body
carries it at the format's system level, and the client sees `X-Memtap-Memories >= 1`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import anthropic
import openai
import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    UpstreamConfig,
    VectorStoreConfig,
)
from memtap.engine.memory_block import OPEN
from memtap.engine.retrieval.admission.loop_lag import SHED_AT_SHARE
from memtap.engine.types import ListQuery
from tests.conftest import MemtapServer
from tests.support.standin import Reply, Standin, openai_chat_json, openai_chat_sse

PREFERENCE = "I prefer Postgres for side projects."
QUESTION = "Should I pick Postgres or SQLite for my next side project?"
ServerFactory = Callable[..., Awaitable[MemtapServer]]


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def memory_config(**changes: Any) -> MemoryConfig:
    return dataclasses.replace(
        MemoryConfig(enabled=True, strategy="hybrid", scope="owner"), **changes
    )


@pytest.fixture
async def memtap(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> MemtapServer:
    return await start_memtap(standin, memtap_server, memtap_config, memory_config())


async def start_memtap(
    standin: Standin,
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    memory: MemoryConfig,
) -> MemtapServer:
    config = memtap_config(
        upstreams=(
            UpstreamConfig(
                name="standin", url=standin.url, format="auto", timeout_s=30.0
            ),
        ),
        memory=memory,
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )
    server = await memtap_server(config)
    assert server.runtime.engine is not None, server.runtime.engine_error
    return server


def pause_before(
    target: Any, name: str, pause: Callable[[], Awaitable[None]]
) -> Callable[[], None]:
    """`target.<name>` (a coroutine method) runs `pause` first: a store that does not answer
    in time, a loop held by a saturated core. Returns what puts the method back."""
    real = getattr(target, name)

    async def paused(*args: Any, **kwargs: Any) -> Any:
        await pause()
        return await real(*args, **kwargs)

    setattr(target, name, paused)
    return lambda: setattr(target, name, real)


async def memories_of(server: MemtapServer, owner: str) -> list[str]:
    engine = server.runtime.engine
    assert engine is not None
    page = await engine.list_memories(ListQuery(owner=owner, limit=100))
    return [m.content for m in page.items]


async def wait_for_memory(
    server: MemtapServer, owner: str, needle: str, timeout: float = 30.0
) -> list[str]:
    """Poll until the outbox turned the turn into a memory containing `needle`."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        contents = await memories_of(server, owner)
        if any(needle.lower() in c.lower() for c in contents):
            return contents
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no memory with {needle!r} for {owner}: {contents}")
        await asyncio.sleep(0.02)


async def wait_for_episode(
    server: MemtapServer, owner: str, q: str, needle: str, timeout: float = 30.0
) -> list[dict[str, Any]]:
    """Poll the admin API until the owner's episodes matching `q` hold `needle`."""
    deadline = asyncio.get_running_loop().time() + timeout
    async with aiohttp.ClientSession() as http:
        while True:
            async with http.get(
                f"{server.url}/_memtap/api/episodes", params={"owner": owner, "q": q}
            ) as r:
                assert r.status == 200
                items = (await r.json())["items"]
            found = [e for e in items if needle in e["content"]]
            if found:
                return found
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no episode with {needle!r} for {owner}: {items}")
            await asyncio.sleep(0.02)


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [p.get("text", "") for p in content or () if isinstance(p, dict)]


def memory_text_at_system_level(fmt: str, body: dict[str, Any]) -> str:
    """The memory block as found where the format's injection must put it (else ""): the
    system level (`after_prefix`, `prepend`) or the last user turn (`last_user`, the default,
    and any request with cache breakpoints); it is nowhere else in the body."""
    if fmt == "openai-chat":
        messages = body["messages"]
        users = [m for m in messages if m["role"] == "user"]
        system = [
            m["content"] for m in messages if m["role"] in ("system", "developer")
        ]
        last_user = _texts(users[-1]["content"]) if users else []
    elif fmt == "openai-responses":
        system = [body.get("instructions") or ""]
        raw = body["input"]
        users = (
            [i for i in raw if i.get("role") == "user"] if isinstance(raw, list) else []
        )
        last_user = [raw] if isinstance(raw, str) else _texts(users[-1]["content"])
    elif fmt == "anthropic":
        system = _texts(body.get("system") or "")
        assert all(m["role"] != "system" for m in body["messages"])
        last_user = _texts(body["messages"][-1]["content"])
    else:
        instruction = (
            body.get("systemInstruction") or body.get("system_instruction") or {}
        )
        system = [p.get("text", "") for p in instruction.get("parts", [])]
        users = [c for c in body["contents"] if c.get("role", "user") == "user"]
        last_user = [p.get("text", "") for p in users[-1]["parts"]]
    found = [t for t in system + last_user if isinstance(t, str) and OPEN in t]
    assert json.dumps(body).count(OPEN) == len(found), "a memory block elsewhere"
    return "\n".join(found)


# -- one client call per (format, mode) ---------------------------------------------------


async def chat_turn(
    server: MemtapServer, key: str, text: str, stream: bool, headers: dict[str, str]
) -> str:
    client = openai.AsyncOpenAI(
        base_url=f"{server.url}/v1", api_key=key, max_retries=0, default_headers=headers
    )
    async with client:
        messages: Any = [
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": text},
        ]
        if stream:
            async with client.chat.completions.with_streaming_response.create(
                model="gpt-4o-mini", messages=messages, stream=True
            ) as response:
                parts = [
                    c.choices[0].delta.content or ""
                    async for c in await response.parse()
                    if c.choices
                ]
                assert "".join(parts)
                return response.headers.get("X-Memtap-Memories", "")
        raw = await client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=messages
        )
        assert raw.parse().choices[0].message.content
        return raw.headers.get("X-Memtap-Memories", "")


async def responses_turn(
    server: MemtapServer,
    standin: Standin,
    key: str,
    text: str,
    stream: bool,
    headers: dict[str, str],
) -> str:
    standin.enqueue_fixture(
        "openai-responses", "string_input_instructions" if stream else "non_stream_json"
    )
    client = openai.AsyncOpenAI(
        base_url=f"{server.url}/v1", api_key=key, max_retries=0, default_headers=headers
    )
    async with client:
        if stream:
            async with client.responses.with_streaming_response.create(
                model="gpt-4.1", input=text, instructions="Be brief.", stream=True
            ) as response:
                kinds = [event.type async for event in await response.parse()]
                assert kinds[-1] == "response.completed"
                return response.headers.get("X-Memtap-Memories", "")
        raw = await client.responses.with_raw_response.create(
            model="gpt-4.1", input=text, instructions="Be brief."
        )
        assert raw.parse().output_text
        return raw.headers.get("X-Memtap-Memories", "")


async def anthropic_turn(
    server: MemtapServer, key: str, text: str, stream: bool, headers: dict[str, str]
) -> str:
    client = anthropic.AsyncAnthropic(
        base_url=server.url, api_key=key, max_retries=0, default_headers=headers
    )
    async with client:
        kwargs: Any = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "system": [
                {
                    "type": "text",
                    "text": "Be brief.",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
            "messages": [{"role": "user", "content": text}],
        }
        if stream:
            async with client.messages.with_streaming_response.create(
                **kwargs, stream=True
            ) as response:
                kinds = [event.type async for event in await response.parse()]
                assert kinds[-1] == "message_stop"
                return response.headers.get("X-Memtap-Memories", "")
        raw = await client.messages.with_raw_response.create(**kwargs)
        assert (await raw.parse()).content
        return raw.headers.get("X-Memtap-Memories", "")


GEMINI_MODES = {
    "sse": ("sse_basic_text_crlf", ":streamGenerateContent?alt=sse"),
    "array": ("json_array_stream_snake_case", ":streamGenerateContent"),
    "json": ("generate_content_json", ":generateContent"),
}


async def gemini_turn(
    server: MemtapServer,
    standin: Standin,
    key: str,
    text: str,
    mode: str,
    headers: dict[str, str],
) -> str:
    fixture, suffix = GEMINI_MODES[mode]
    case = standin.enqueue_fixture("gemini", fixture)
    body: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
    if mode == "array":  # snake_case, as Google's curl examples write it
        body["system_instruction"] = {"parts": [{"text": "Be brief."}]}
        body["generation_config"] = {"temperature": 0.2}
    else:
        body["systemInstruction"] = {"parts": [{"text": "Be brief."}]}
    url = f"{server.url}/v1beta/models/gemini-2.5-flash{suffix}"
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            url, json=body, headers={"x-goog-api-key": key, **headers}
        ) as response,
    ):
        assert response.status == 200
        assert await response.read() == case.body  # relayed byte for byte
        return response.headers.get("X-Memtap-Memories", "")


VARIANTS = [
    ("openai-chat", True),
    ("openai-chat", False),
    ("openai-responses", True),
    ("openai-responses", False),
    ("anthropic", True),
    ("anthropic", False),
    ("gemini", "sse"),
    ("gemini", "array"),
    ("gemini", "json"),
]


async def turn(
    server: MemtapServer,
    standin: Standin,
    fmt: str,
    variant: Any,
    key: str,
    text: str,
    headers: dict[str, str] | None = None,
) -> str:
    headers = headers or {}
    if fmt == "openai-chat":
        return await chat_turn(server, key, text, variant, headers)
    if fmt == "openai-responses":
        return await responses_turn(server, standin, key, text, variant, headers)
    if fmt == "anthropic":
        return await anthropic_turn(server, key, text, variant, headers)
    return await gemini_turn(server, standin, key, text, variant, headers)


@pytest.mark.parametrize(
    ("fmt", "variant"), VARIANTS, ids=[f"{f}-{v}" for f, v in VARIANTS]
)
async def test_turn_two_carries_turn_one(
    memtap: MemtapServer, standin: Standin, fmt: str, variant: Any
) -> None:
    key = f"sk-e2e-{fmt}-{variant}"
    owner = owner_of(key)
    session = {"X-Memtap-Session": "s1"}

    first = await turn(memtap, standin, fmt, variant, key, PREFERENCE, session)
    assert first == "0"
    upstream_first = standin.last()
    assert memory_text_at_system_level(fmt, upstream_first.json()) == ""
    assert "X-Memtap-Session" not in upstream_first.headers

    await wait_for_memory(memtap, owner, "postgres")

    second = await turn(memtap, standin, fmt, variant, key, QUESTION, session)
    assert int(second) >= 1
    body = standin.last().json()
    injected = memory_text_at_system_level(fmt, body)
    assert "Postgres" in injected and "side project" in injected
    # The application's own system text is still there, untouched.
    assert "Be brief." in json.dumps(body) or "You are helpful." in json.dumps(body)
    assert memtap.metrics.memories_injected.value() >= 1


async def test_memory_off_neither_injects_nor_learns(
    memtap: MemtapServer, standin: Standin
) -> None:
    key = "sk-e2e-off"
    owner = owner_of(key)
    await chat_turn(memtap, key, PREFERENCE, False, {})
    await wait_for_memory(memtap, owner, "postgres")

    header = await chat_turn(
        memtap,
        key,
        QUESTION + " I prefer tabs over spaces.",
        True,
        {"X-Memtap-Memory": "off"},
    )
    assert header == ""  # the request did not go through memory
    upstream = standin.last()
    assert OPEN not in upstream.body.decode()
    assert "X-Memtap-Memory" not in upstream.headers

    # A later normal turn is queued after the "off" one: once it is stored, the "off" turn
    # would have been too, had it been captured.
    await chat_turn(memtap, key, "I usually deploy on Fridays.", False, {})
    contents = await wait_for_memory(memtap, owner, "fridays")
    assert not any("tabs" in c for c in contents)


async def test_memory_read_injects_but_does_not_learn(
    memtap: MemtapServer, standin: Standin
) -> None:
    key = "sk-e2e-read"
    owner = owner_of(key)
    await anthropic_turn(memtap, key, PREFERENCE, True, {})
    await wait_for_memory(memtap, owner, "postgres")

    header = await anthropic_turn(
        memtap,
        key,
        QUESTION + " I prefer tabs over spaces.",
        True,
        {"X-Memtap-Memory": "read"},
    )
    assert int(header) >= 1
    upstream = standin.last()
    assert "Postgres" in memory_text_at_system_level("anthropic", upstream.json())
    assert "X-Memtap-Memory" not in upstream.headers

    await anthropic_turn(memtap, key, "I usually deploy on Fridays.", False, {})
    contents = await wait_for_memory(memtap, owner, "fridays")
    assert not any("tabs" in c for c in contents)


async def test_owners_do_not_see_each_other(
    memtap: MemtapServer, standin: Standin
) -> None:
    await chat_turn(memtap, "sk-owner-a", PREFERENCE, False, {})
    await wait_for_memory(memtap, owner_of("sk-owner-a"), "postgres")
    header = await chat_turn(memtap, "sk-owner-b", QUESTION, False, {})
    assert header == "0"
    assert OPEN not in standin.last().body.decode()


async def test_unreadable_body_passes_through_unchanged(
    memtap: MemtapServer, standin: Standin
) -> None:
    raw = b'{"model": "gpt-4o-mini", "messages": [ this is not json'
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{memtap.url}/v1/chat/completions",
            data=raw,
            headers={
                "Authorization": "Bearer sk-e2e-bad",
                "Content-Type": "application/json",
            },
        ) as response,
    ):
        assert response.status == 400  # the stand-in's answer, relayed
    assert standin.last().body == raw


async def test_retrieval_timeout_fails_open(
    memtap_server: ServerFactory, memtap_config: Callable[..., Config], standin: Standin
) -> None:
    """Nothing read by the limit (a store whose reads do not come back in time): the
    request goes upstream unchanged at the limit, counted as `retrieval_timeout`."""
    server = await start_memtap(
        standin, memtap_server, memtap_config, memory_config(retrieval_timeout_ms=100)
    )
    await chat_turn(server, "sk-e2e-timeout", PREFERENCE, False, {})
    await wait_for_memory(server, owner_of("sk-e2e-timeout"), "postgres")
    engine = server.runtime.engine
    assert engine is not None

    async def stall() -> None:
        await asyncio.sleep(5)

    pause_before(engine.store, "keyword_and_recent", stall)  # type: ignore[attr-defined]
    started = time.monotonic()
    header = await chat_turn(server, "sk-e2e-timeout", QUESTION, True, {})
    assert time.monotonic() - started < 2
    assert header == "0"
    assert OPEN not in standin.last().body.decode()
    assert server.metrics.memory_fallbacks.value("retrieval_timeout") == 1


async def test_a_loop_that_falls_behind_still_injects_what_the_keyword_leg_read(
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    standin: Standin,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The vector leg's search holds the event loop past the limit (as a saturated core
    does): every timer fires late, together, and the request goes upstream at the limit
    with the facts the keyword leg read before it — not with nothing."""
    caplog.set_level("INFO", logger="memtap")
    server = await memtap_server(
        memtap_config(
            memory=memory_config(retrieval_timeout_ms=400, vector_skip_coverage=0.0),
            embedding=EmbeddingConfig(source="onnx"),
            vector_store=VectorStoreConfig(kind="sqlite-vec"),
        )
    )
    await chat_turn(server, "sk-e2e-late", PREFERENCE, False, {})
    await wait_for_memory(server, owner_of("sk-e2e-late"), "postgres")
    engine = server.runtime.engine
    assert engine is not None

    async def hold_the_loop() -> None:
        time.sleep(0.5)  # noqa: ASYNC251 - the loop held, as by a saturated core

    # The vector leg must run for the loop to be held in it: on a loaded box the loop's
    # lag after the turn's writes can shed the retrieval to the keyword leg first.
    shed_at_s = SHED_AT_SHARE * 400 / 1000
    deadline = time.monotonic() + 10
    while engine.loop_lag.now_s() >= shed_at_s and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    undo = pause_before(engine.vector_index, "search", hold_the_loop)  # type: ignore[attr-defined]
    try:
        header = await chat_turn(server, "sk-e2e-late", QUESTION, True, {})
    finally:
        undo()
    assert int(header) >= 1
    assert "Postgres" in standin.last().body.decode()
    assert server.metrics.memory_fallbacks.value("retrieval_partial") == 1
    assert server.metrics.memory_fallbacks.value("retrieval_timeout") == 0
    injected = [
        r.fields  # type: ignore[attr-defined]
        for r in caplog.records
        if r.getMessage() == "memory.injected"
    ]
    assert injected[-1]["cut_at_limit"] == "keyword"


async def test_no_api_key_means_no_memory(
    memtap: MemtapServer, standin: Standin
) -> None:
    async with aiohttp.ClientSession() as session:
        body = {"model": "m", "messages": [{"role": "user", "content": QUESTION}]}
        async with session.post(
            f"{memtap.url}/v1/chat/completions", json=body
        ) as response:
            assert response.status == 200
            assert "X-Memtap-Memories" not in response.headers
    assert standin.last().json() == body


async def test_only_completed_answers_are_learned(
    memtap: MemtapServer, standin: Standin
) -> None:
    key = "sk-e2e-completed-only"
    owner = owner_of(key)
    auth = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    # An HTTP error answer.
    standin.enqueue_fixture("openai-chat", "http_429_rate_limit")
    with pytest.raises(openai.RateLimitError):
        await chat_turn(memtap, key, "I prefer tabs over spaces.", False, {})
    # A streaming refusal (stop_reason: refusal): the stream ends cleanly, but is not learned.
    standin.enqueue_fixture("anthropic-messages", "streaming_refusal_stop_reason")
    await anthropic_turn(memtap, key, "I really like Rust.", True, {})
    # A stream whose body ends before its terminator (no `data: [DONE]`).
    chunks = openai_chat_sse("Sure.", "gpt-4o-mini")
    assert chunks[-1].startswith(b"data: [DONE]")
    standin.enqueue(
        Reply(
            headers={"Content-Type": "text/event-stream"},
            chunks=chunks[:-1],
            content_length=False,
        )
    )
    body = {
        "model": "gpt-4o-mini",
        "stream": True,
        "messages": [{"role": "user", "content": "I always use vim."}],
    }
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{memtap.url}/v1/chat/completions", json=body, headers=auth
        ) as response,
    ):
        assert await response.read() == b"".join(chunks[:-1])

    await chat_turn(memtap, key, "I usually deploy on Fridays.", False, {})
    contents = await wait_for_memory(memtap, owner, "fridays")
    assert not any(
        word in c.lower() for c in contents for word in ("tabs", "rust", "vim")
    ), contents


async def test_gzip_answer_is_followed_and_learned(
    memtap: MemtapServer, standin: Standin
) -> None:
    key = "sk-e2e-gzip"
    payload = gzip.compress(
        json.dumps(openai_chat_json("Noted.", "gpt-4o-mini")).encode()
    )
    standin.enqueue(
        Reply(
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
            chunks=[payload[:10], payload[10:]],
        )
    )
    await chat_turn(memtap, key, "I prefer tabs over spaces.", False, {})
    await wait_for_memory(memtap, owner_of(key), "tabs")


async def test_accept_encoding_limited_to_what_memtap_can_follow(
    memtap: MemtapServer, standin: Standin
) -> None:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": QUESTION}]}
    for offered, mode, sent in [
        ("br, gzip;q=0.8, zstd", "on", "gzip;q=0.8"),
        ("br", "on", "identity"),
        ("gzip, deflate", "on", "gzip, deflate"),
        (
            "br, gzip",
            "read",
            "br, gzip",
        ),  # nothing is followed: the header stays as sent
    ]:
        headers = {
            "Authorization": "Bearer sk-e2e-enc",
            "Accept-Encoding": offered,
            "X-Memtap-Memory": mode,
        }
        async with (
            aiohttp.ClientSession(auto_decompress=False) as session,
            session.post(
                f"{memtap.url}/v1/chat/completions", json=body, headers=headers
            ) as response,
        ):
            assert response.status == 200
        assert standin.last().headers["Accept-Encoding"] == sent


async def test_a_broken_engine_fails_open(
    memtap: MemtapServer, standin: Standin
) -> None:
    engine = memtap.runtime.engine
    assert engine is not None
    await engine.close()  # the store is gone: every engine call now raises
    for stream in (True, False):
        header = await chat_turn(memtap, "sk-e2e-broken", PREFERENCE, stream, {})
        assert header == "0"
        assert standin.last().json()["messages"][-1]["content"] == PREFERENCE
    fallbacks = memtap.metrics.memory_fallbacks
    assert fallbacks.value("retrieval") == 2
    assert fallbacks.value("capture") == 2


async def test_memory_switched_on_and_off_at_run_time(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> None:
    """A process that started with memory off: `memory.enabled: true` (a reload, or the
    settings API) opens the engine and memory works; `false` takes it off the path again."""
    config = memtap_config(
        memory=memory_config(enabled=False),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )
    server = await memtap_server(config)
    assert server.runtime.engine is None
    assert (await health(server))["store"] == "off"
    key = "sk-e2e-switch"
    assert await chat_turn(server, key, PREFERENCE, False, {}) == ""  # pass-through

    server.holder.apply_runtime_overrides({"memory.enabled": True})
    await memory_comes_on(server)
    assert await chat_turn(server, key, PREFERENCE, False, {}) == "0"
    await wait_for_memory(server, owner_of(key), "postgres")
    assert int(await chat_turn(server, key, QUESTION, False, {})) >= 1
    assert (await health(server))["store"] not in ("off", "error")

    server.holder.apply_runtime_overrides({"memory.enabled": False})
    assert all(a.name != "memory" for a in server.runtime.pipeline.addons)
    assert await chat_turn(server, key, QUESTION, False, {}) == ""
    assert OPEN not in standin.last().body.decode()
    # and back on: the engine is still open, so at once
    server.holder.apply_runtime_overrides({"memory.enabled": True})
    assert int(await chat_turn(server, key, QUESTION, False, {})) >= 1


async def health(server: MemtapServer) -> dict[str, Any]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{server.url}/_memtap/health") as response,
    ):
        body: dict[str, Any] = await response.json()
        return body


async def test_memory_switched_on_by_a_reload_applies_stored_settings(
    standin: Standin,
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    tmp_path: Path,
) -> None:
    """Settings overrides live in the engine's database: a process that started with memory
    off could not read them, so opening the engine later applies them, as a start does."""
    data_dir = tmp_path / "shared-data"
    first = await start_memtap(
        standin,
        memtap_server,
        lambda **kw: memtap_config(data_dir=str(data_dir), **kw),
        memory_config(strategy="keyword"),
    )
    async with (
        aiohttp.ClientSession() as http,
        http.put(
            f"{first.url}/_memtap/api/settings", json={"memory.max_tokens": 123}
        ) as response,
    ):
        assert response.status == 200, await response.text()
    await first.stop()

    def yaml_text(enabled: bool) -> str:
        return (
            f"data_dir: {data_dir}\n"
            f"upstreams: [{{name: standin, url: '{standin.url}'}}]\n"
            f"memory: {{enabled: {str(enabled).lower()}, strategy: keyword}}\n"
            "embedding: {source: none}\n"
            "vector_store: {kind: none}\n"
        )

    path = tmp_path / "memtap.yaml"
    path.write_text(yaml_text(False))
    holder = ConfigHolder.load(str(path))
    second = await memtap_server(
        dataclasses.replace(holder.current, listen="127.0.0.1:0"),
        config_path=path,
        watch_config=True,
    )
    assert second.runtime.engine is None
    assert second.holder.current.memory.max_tokens != 123
    path.write_text(yaml_text(True))
    await memory_comes_on(second)
    for _ in range(1000):  # the overrides follow the open
        if second.holder.current.memory.max_tokens == 123:
            break
        await asyncio.sleep(0.01)
    assert second.holder.current.memory.max_tokens == 123
    assert second.holder.current.memory.enabled


async def memory_comes_on(server: MemtapServer, timeout_s: float = 10.0) -> None:
    """Until the engine is open and the memory addon is on the request path."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not (
        server.runtime.engine is not None
        and any(a.uses_memory for a in server.runtime.pipeline.addons)
    ):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(
                f"memory did not come on: {server.runtime.engine_error}"
            )
        await asyncio.sleep(0.01)


async def test_a_turn_kept_only_as_an_episode_is_read_at_once(
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    standin: Standin,
) -> None:
    """Read-your-own-writes for a turn no fact comes from: the next request, sent the moment
    the turn's response ended, gets its snippet. The recall did not wait for the turn's
    episode (stored after its facts), and a window found before its vector was floored out
    (no cosine): a third to a half of such turns were missed."""
    server = await memtap_server(
        memtap_config(
            # A limit long enough that a loop lagging behind the model's runs on a busy
            # machine does not shed the snippets (the shed point is a share of it).
            memory=memory_config(retrieval_timeout_ms=2000),
            embedding=EmbeddingConfig(source="onnx"),
            vector_store=VectorStoreConfig(kind="sqlite-vec"),
        )
    )
    # Warm (the model's first runs lag the loop: a lagging loop sheds the snippets).
    await chat_turn(server, "sk-e2e-episode-warm", "I had a long day.", False, {})
    await chat_turn(server, "sk-e2e-episode-warm", "What did I have?", False, {})
    missed = []
    for round_ in range(6):
        key, code = f"sk-e2e-episode-{round_}", f"Zq{round_}kehdti"
        await chat_turn(server, key, f"My wifi password is {code}.", False, {})
        injected = await chat_turn(server, key, "What's my wifi password?", False, {})
        if injected == "0" or code not in standin.last().body.decode():
            missed.append(round_)
    assert missed == []


async def test_what_no_rule_reads_is_remembered_as_said(
    standin: Standin,
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
) -> None:
    """A self-statement in words no extraction rule knows becomes a fact quoted as said,
    listed by the admin API, injected when it is relevant, and it takes nothing away from
    a rule's fact said next."""
    # A limit long enough that the loop, busy with this test's own turns, does not shed
    # the snippets (the shed point is a share of it).
    memtap = await start_memtap(
        standin, memtap_server, memtap_config, memory_config(retrieval_timeout_ms=2000)
    )
    key = "sk-e2e-said"
    owner = owner_of(key)
    routine = "I go climbing 3x a week at the bouldering gym near my office"
    await chat_turn(memtap, key, routine + ", my forearms are dying", False, {})
    await chat_turn(memtap, key, "I'm a nurse at St Mary's.", False, {})
    await wait_for_memory(memtap, owner, "nurse")
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{memtap.url}/_memtap/api/memories", params={"owner": owner}) as r,
    ):
        assert r.status == 200
        items = (await r.json())["items"]
    contents = {m["content"]: m for m in items}
    quoted = f'Said: "{routine}"'
    assert quoted in contents, list(contents)
    assert contents[quoted]["type"] == "factual"
    assert any("nurse" in c for c in contents)  # both live: the quote claims no slot

    await wait_for_episode(memtap, owner, "climbing", routine)
    assert (
        int(await chat_turn(memtap, key, "Which climbing shoes suit me?", False, {}))
        >= 1
    )
    injected = memory_text_at_system_level("openai-chat", standin.last().json())
    # Once, not twice: the turn's own snippet says it whole, so the quote gives way.
    assert injected.count(routine) == 1 and quoted not in injected, injected
    # Without that snippet (deleted here; retention and the cap do it in time) the fact
    # is what remembers it.
    found = await wait_for_episode(memtap, owner, "climbing", routine)
    async with aiohttp.ClientSession() as http:
        for episode in found:
            async with http.delete(
                f"{memtap.url}/_memtap/api/episodes/{episode['id']}"
            ) as r:
                assert r.status in (200, 204)
    assert (
        int(await chat_turn(memtap, key, "Which climbing shoes suit me?", False, {}))
        >= 1
    )
    injected = memory_text_at_system_level("openai-chat", standin.last().json())
    assert quoted in injected


async def test_a_newer_value_retires_the_older_through_memtap(
    memtap: MemtapServer, standin: Standin
) -> None:
    """#35 item 6 through a real memtap: German verb-second retires the older choice like
    English does, and a diet given up keeps what the user eats now beside its retirement;
    what is injected is the current profile, not the retired value."""
    key = "sk-e2e-newer"
    owner = owner_of(key)
    await chat_turn(memtap, key, "Ich bevorzuge Vim.", False, {})
    await wait_for_memory(memtap, owner, "Bevorzugt Vim")
    await chat_turn(memtap, key, "Inzwischen bevorzuge ich Helix statt Vim.", False, {})
    await chat_turn(memtap, key, "I'm vegan.", False, {})
    await wait_for_memory(memtap, owner, "Is vegan")
    await chat_turn(memtap, key, "I'm not vegan anymore, I eat fish now.", False, {})
    contents = await wait_for_memory(memtap, owner, "I eat fish now")
    assert "Bevorzugt Helix statt Vim" in contents
    assert "Is no longer vegan" in contents
    assert "Bevorzugt Vim" not in contents and "Is vegan" not in contents

    assert (
        int(await chat_turn(memtap, key, "Am I vegan? Do I eat fish?", False, {})) >= 1
    )
    injected = memory_text_at_system_level("openai-chat", standin.last().json())
    assert "Is no longer vegan" in injected and "I eat fish now" in injected
    assert "Is vegan" not in injected
