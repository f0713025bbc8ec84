"""Extraction by a model through a real memtap: the stand-in upstream answers the chat and,
as the extraction model, serves scripted extraction answers (`tests/support/
extraction_answers.py`). Each answer ends in the right facts stored, or the rules' facts
with the fallback counted; never a fact for the wrong owner, never a lost turn."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import openai
import pytest

from memtap.config.loader import LoadedConfig
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    ExtractionConfig,
    MemoryConfig,
    ModelExtractionConfig,
    UpstreamConfig,
    VectorStoreConfig,
)
from memtap.engine.store_errors import StoreTimeout
from memtap.engine.types import ListQuery, Memory
from tests.conftest import MemtapServer
from tests.support import extraction_answers as answers
from tests.support.standin import Standin

ServerFactory = Callable[..., Awaitable[MemtapServer]]
EXTRACTOR_KEY = "sk-extraction-model"


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def model_config(standin: Standin, **changes: Any) -> ExtractionConfig:
    settings = ModelExtractionConfig(
        url=f"{standin.url}/v1",
        api_key=EXTRACTOR_KEY,
        model="standin-extractor",
        timeout_s=5.0,
    )
    return ExtractionConfig(
        kind="model", model=dataclasses.replace(settings, **changes)
    )


async def start(
    standin: Standin,
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    **model: Any,
) -> MemtapServer:
    config = memtap_config(
        upstreams=(
            UpstreamConfig(
                name="standin", url=standin.url, format="auto", timeout_s=30.0
            ),
        ),
        memory=MemoryConfig(enabled=True, strategy="recent", scope="owner"),
        extraction=model_config(standin, **model),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )
    server = await memtap_server(config)
    assert server.runtime.engine is not None, server.runtime.engine_error
    return server


@pytest.fixture
async def memtap(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> MemtapServer:
    return await start(standin, memtap_server, memtap_config)


async def say(
    server: MemtapServer, key: str, text: str, headers: dict[str, str] | None = None
) -> str:
    """One chat turn through memtap with the official SDK; returns its request id."""
    client = openai.AsyncOpenAI(
        base_url=f"{server.url}/v1",
        api_key=key,
        max_retries=0,
        default_headers=headers or {},
    )
    async with client:
        raw = await client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": text}]
        )
    assert raw.parse().choices[0].message.content
    return raw.headers.get("X-Memtap-Request-Id", "")


async def request_entry(server: MemtapServer, request_id: str) -> dict[str, Any]:
    url = f"{server.url}/_memtap/api/requests?limit=200"
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        assert response.status == 200
        items = (await response.json())["items"]
    return next(item for item in items if item["request_id"] == request_id)


async def extracted(
    server: MemtapServer, request_id: str, timeout: float = 30.0
) -> dict[str, Any]:
    """The request log entry once the worker handled the turn."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        entry = await request_entry(server, request_id)
        if entry["extraction"] == "done":
            return entry
        assert asyncio.get_running_loop().time() < deadline, entry
        await asyncio.sleep(0.02)


async def live(server: MemtapServer, owner: str) -> list[Memory]:
    engine = server.runtime.engine
    assert engine is not None
    return list((await engine.list_memories(ListQuery(owner=owner, limit=100))).items)


async def every(server: MemtapServer) -> list[Memory]:
    engine = server.runtime.engine
    assert engine is not None
    page = await engine.list_memories(ListQuery(limit=1000, include_superseded=True))
    return list(page.items)


async def seed(server: MemtapServer, owner: str, content: str) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{server.url}/_memtap/api/memories",
            json={"owner": owner, "content": content},
        ) as response,
    ):
        assert response.status == 201, await response.text()
        return str((await response.json())["id"])


def fallbacks(server: MemtapServer, reason: str) -> float:
    return server.metrics.extraction_fallbacks.value(reason)


# -- a good answer -----------------------------------------------------------------------------


async def test_a_good_answer_is_stored_with_what_it_replaces(
    memtap: MemtapServer, standin: Standin
) -> None:
    key, other = "sk-model-good", "sk-model-good-other"
    owner = owner_of(key)
    old = await seed(memtap, owner, "Abita a Roma")
    theirs = await seed(memtap, owner_of(other), "Abita a Napoli")
    standin.extraction_answers.append(
        answers.good(
            lambda prompt: [
                answers.fact(
                    "Abita a Milano",
                    lang="it",
                    key="home_city",
                    replaces=[answers.alias_of(prompt, "Abita a Roma")],
                )
            ]
        )
    )

    request_id = await say(memtap, key, "Mi sono trasferito a Milano il mese scorso.")
    entry = await extracted(memtap, request_id)

    now = await live(memtap, owner)
    assert [m.content for m in now] == ["Abita a Milano"]
    kept = now[0]
    assert entry["extracted"] == [kept.id]
    assert entry["extractor"] == "model" and entry["extractor_fallback"] is None
    assert kept.metadata["extractor"] == "model"
    assert kept.metadata["extraction_model"] == "standin-extractor"
    assert kept.metadata["lang"] == "it"
    history = {m.id: m for m in await every(memtap)}
    assert history[old].superseded_by == kept.id
    assert history[theirs].superseded_by is None  # another owner's: untouched

    # What left for the model: this owner's turn and memories only, memtap's own headers.
    [call] = standin.extraction_requests
    assert call.path == "/v1/chat/completions"
    assert call.headers["Authorization"] == f"Bearer {EXTRACTOR_KEY}"
    assert call.headers["X-Memtap-Memory"] == "off"
    prompt = answers.prompt_of(call.body)
    assert [t["user"] for t in prompt["turns"]] == [
        "Mi sono trasferito a Milano il mese scorso."
    ]
    assert [m["content"] for m in prompt["memories"]] == ["Abita a Roma"]
    assert "Napoli" not in call.body.decode()
    assert memtap.metrics.extraction_model_calls.value("ok") == 1
    assert memtap.metrics.extraction_model_tokens.value("in") == 300
    assert memtap.metrics.extraction_model_tokens.value("out") == 40
    assert memtap.metrics.extraction_batches.value("model") == 1
    text = memtap.metrics.render()
    assert 'memtap_extraction_model_calls_total{outcome="ok"} 1' in text


# -- failures: the rules take the batch ---------------------------------------------------------


FAILURES = {
    "malformed_json": answers.malformed_json,
    "wrong_schema": answers.wrong_schema,
    "timeout": lambda: answers.slow(3.0, [answers.fact("Lives in Atlantis")]),
    "status_429": lambda: answers.status(429),
    "status_5xx": lambda: answers.status(500),
}


@pytest.mark.parametrize("reason", sorted(FAILURES))
async def test_a_failed_call_falls_back_to_the_rules(
    reason: str,
    standin: Standin,
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
) -> None:
    server = await start(standin, memtap_server, memtap_config, timeout_s=0.5)
    key = f"sk-model-{reason}"
    owner = owner_of(key)
    standin.extraction_answers.append(FAILURES[reason]())

    request_id = await say(server, key, "I live in Oslo.")
    entry = await extracted(server, request_id)

    now = await live(server, owner)
    assert [m.content for m in now] == ["Lives in Oslo"]  # the rules' fact
    assert now[0].metadata["extractor"] == "rules"
    assert entry["extracted"] == [now[0].id]
    assert entry["extractor"] == "rules" and entry["extractor_fallback"] == reason
    assert fallbacks(server, reason) == 1
    assert server.metrics.extraction_model_failures.value(reason) == 1
    assert server.metrics.extraction_model_calls.value("failed") == 1
    assert server.metrics.extraction_batches.value("rules") == 1
    assert len(standin.extraction_requests) == 1
    assert not any("Atlantis" in m.content for m in await every(server))


async def test_an_answer_replacing_another_owners_memory_touches_nothing(
    memtap: MemtapServer, standin: Standin
) -> None:
    key, victim_key = "sk-model-attacker", "sk-model-victim"
    owner, victim = owner_of(key), owner_of(victim_key)
    theirs = await seed(memtap, victim, "Lives in Lisbon")
    mine = await seed(memtap, owner, "Prefers tea")
    # The answer names the other owner's real id (and the model's own fact with it).
    standin.extraction_answers.append(
        answers.good([answers.fact("Lives in Bergen", replaces=[theirs])])
    )

    request_id = await say(memtap, key, "I live in Oslo.")
    entry = await extracted(memtap, request_id)

    assert entry["extractor"] == "rules" and entry["extractor_fallback"] == "foreign_id"
    assert sorted(m.content for m in await live(memtap, owner)) == [
        "Lives in Oslo",
        "Prefers tea",
    ]
    victims = await live(memtap, victim)
    assert [(m.id, m.content, m.superseded_by) for m in victims] == [
        (theirs, "Lives in Lisbon", None)
    ]
    everything = await every(memtap)
    assert not any("Bergen" in m.content for m in everything)
    assert {m.owner for m in everything} == {owner, victim}
    assert fallbacks(memtap, "foreign_id") == 1
    # Only this owner's memories were shown to the model.
    prompt = answers.prompt_of(standin.extraction_requests[0].body)
    assert [m["content"] for m in prompt["memories"]] == ["Prefers tea"]
    assert theirs not in standin.extraction_requests[0].body.decode()
    assert mine not in standin.extraction_requests[0].body.decode()  # aliases, not ids


# -- bounded ---------------------------------------------------------------------------------


async def test_the_owner_rate_sends_the_next_batch_to_the_rules(
    standin: Standin,
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
) -> None:
    server = await start(
        standin, memtap_server, memtap_config, owner_calls_per_minute=1
    )
    key, other = "sk-model-rate", "sk-model-rate-other"
    standin.extraction_answers.extend(
        [
            answers.good([answers.fact("Lives in Oslo")]),
            answers.good([answers.fact("Lives in Paris")]),
        ]
    )
    first = await extracted(server, await say(server, key, "I live in Oslo."))
    second = await extracted(server, await say(server, key, "I work at Acme."))
    third = await extracted(server, await say(server, other, "I live in Paris."))

    assert first["extractor"] == "model"
    assert (
        second["extractor"] == "rules" and second["extractor_fallback"] == "rate_owner"
    )
    assert third["extractor"] == "model"  # another owner has a rate of its own
    assert sorted(m.content for m in await live(server, owner_of(key))) == [
        "Lives in Oslo",
        "Works at Acme",
    ]
    assert fallbacks(server, "rate_owner") == 1
    assert len(standin.extraction_requests) == 2


async def test_the_daily_budget_sends_batches_to_the_rules(
    standin: Standin,
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
) -> None:
    # A call's input is estimated at ~450 tokens (the system prompt is ~400): a budget of
    # 1000 admits the first, charged 950 by its answer's usage; the next would pass it.
    server = await start(standin, memtap_server, memtap_config, daily_tokens=1000)
    key = "sk-model-budget"
    standin.extraction_answers.append(
        answers.good(
            [answers.fact("Lives in Oslo")],
            usage={"prompt_tokens": 900, "completion_tokens": 50},
        )
    )
    first = await extracted(server, await say(server, key, "I live in Oslo."))
    second = await extracted(server, await say(server, key, "I work at Acme."))
    assert first["extractor"] == "model"
    assert second["extractor_fallback"] == "budget"
    assert fallbacks(server, "budget") == 1
    assert len(standin.extraction_requests) == 1
    assert server.metrics.extraction_model_tokens.value("in") == 900


# -- safe ------------------------------------------------------------------------------------


async def test_read_and_off_turns_never_reach_the_model(
    memtap: MemtapServer, standin: Standin
) -> None:
    key = "sk-model-optout"
    owner = owner_of(key)
    off = await say(memtap, key, "I live in Atlantis.", {"X-Memtap-Memory": "off"})
    read = await say(memtap, key, "I live in Lemuria.", {"X-Memtap-Memory": "read"})
    engine = memtap.runtime.engine
    assert engine is not None
    assert await engine.outbox.depth() == 0  # neither was ever queued
    standin.extraction_answers.append(answers.good([answers.fact("Lives in Oslo")]))
    last = await extracted(memtap, await say(memtap, key, "I live in Oslo."))
    assert last["extractor"] == "model"

    [call] = standin.extraction_requests  # the normal turn's call, and no other
    body = call.body.decode()
    assert "Oslo" in body and "Atlantis" not in body and "Lemuria" not in body
    assert (await request_entry(memtap, read))["extraction"] == "none"
    assert [m.content for m in await live(memtap, owner)] == ["Lives in Oslo"]
    assert off == "" or (await request_entry(memtap, off))["extraction"] == "none"


async def test_a_model_url_pointing_at_memtap_itself_makes_no_loop(
    memtap: MemtapServer, standin: Standin
) -> None:
    # The extraction model reached through memtap's own reverse proxy (an upstream of its
    # own): memtap's call says X-Memtap-Memory: off, so it is proxied without memory.
    current = memtap.holder.current
    looped = dataclasses.replace(
        current,
        extraction=dataclasses.replace(
            current.extraction,
            model=dataclasses.replace(current.extraction.model, url=f"{memtap.url}/v1"),
        ),
    )
    memtap.holder.reload_loaded(LoadedConfig(looped, None, frozenset(), None))
    key = "sk-model-loop"
    standin.extraction_answers.append(answers.good([answers.fact("Lives in Oslo")]))
    entry = await extracted(memtap, await say(memtap, key, "I live in Oslo."))
    assert entry["extractor"] == "model"
    [call] = standin.extraction_requests  # relayed once by memtap, to the stand-in
    assert "X-Memtap-Memory" not in call.headers  # memtap strips it before upstream
    await asyncio.sleep(0.3)
    engine = memtap.runtime.engine
    assert engine is not None
    assert await engine.outbox.depth() == 0
    assert len(standin.extraction_requests) == 1
    assert {m.owner for m in await every(memtap)} == {owner_of(key)}
    assert not await live(memtap, owner_of(EXTRACTOR_KEY))


async def test_memories_not_readable_in_time_send_the_batch_to_the_rules(
    memtap: MemtapServer, standin: Standin
) -> None:
    engine = memtap.runtime.engine
    assert engine is not None

    async def busy(*args: Any, **kwargs: Any) -> Any:
        raise StoreTimeout("the store is busy")

    real, engine.store.keyword = engine.store.keyword, busy  # type: ignore[method-assign]
    try:
        key = "sk-model-busy-store"
        entry = await extracted(memtap, await say(memtap, key, "I live in Oslo."))
    finally:
        engine.store.keyword = real  # type: ignore[method-assign]
    assert entry["extractor"] == "rules" and entry["extractor_fallback"] == "store"
    assert [m.content for m in await live(memtap, owner_of(key))] == ["Lives in Oslo"]
    assert not standin.extraction_requests
    assert fallbacks(memtap, "store") == 1


async def test_an_endpoint_that_keeps_failing_is_logged_once_and_counted_always(
    memtap: MemtapServer, standin: Standin, caplog: pytest.LogCaptureFixture
) -> None:
    standin.extraction_answers.extend(answers.status(500) for _ in range(3))
    with caplog.at_level(logging.INFO, logger="memtap.extraction.model"):
        for n in range(3):
            key = f"sk-model-down-{n}"
            entry = await extracted(
                memtap, await say(memtap, key, f"I live in Town{n}.")
            )
            assert entry["extractor_fallback"] == "status_5xx"
    lines = [
        getattr(r, "fields", {})
        for r in caplog.records
        if r.getMessage() == "extraction.fallback"
    ]
    assert [(f["reason"], f["suppressed"]) for f in lines] == [("status_5xx", 0)]
    assert fallbacks(memtap, "status_5xx") == 3
    assert len(standin.extraction_requests) == 3
