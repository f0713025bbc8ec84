"""Episodes end to end, through a real memtap in front of the provider stand-in: each turn's
new user message is stored once, whatever the format and however often the client re-sends
the history; a later request gets a dated snippet of it; the admin API lists and deletes
them; erase counts them; a failing episode store costs no fact and no request."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    EpisodesConfig,
    MemoryConfig,
    UpstreamConfig,
    VectorStoreConfig,
)
from memtap.engine.episode_types import EpisodeListQuery
from memtap.engine.memory_block import spoken_day
from memtap.engine.types import ListQuery
from tests.conftest import MemtapServer
from tests.support.standin import Standin

ServerFactory = Callable[..., Awaitable[MemtapServer]]
SAID = [
    "We drove to the coast last weekend with the kids.",
    "The demo went badly because the VPN dropped twice.",
    "Remind me what a good name for a sourdough starter is?",
]


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:24]


async def start(
    standin: Standin,
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    **episodes: Any,
) -> MemtapServer:
    config = memtap_config(
        upstreams=(
            UpstreamConfig(
                name="standin", url=standin.url, format="auto", timeout_s=30.0
            ),
        ),
        memory=MemoryConfig(
            enabled=True,
            strategy="hybrid",
            scope="owner",
            episodes=dataclasses.replace(EpisodesConfig(), **episodes),
        ),
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
    # The user's own messages: most tests here count them (the assistant's side, kept by
    # default, has its own tests below and in test_long_conversation.py).
    return await start(standin, memtap_server, memtap_config, keep_assistant=False)


def _chat(history: list[tuple[str, str]], text: str) -> tuple[str, dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}]
    for said, reply in history:
        messages += [
            {"role": "user", "content": said},
            {"role": "assistant", "content": reply},
        ]
    messages.append({"role": "user", "content": text})
    return "/v1/chat/completions", {"model": "gpt-4o-mini", "messages": messages}


def _responses(history: list[tuple[str, str]], text: str) -> tuple[str, dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for said, reply in history:
        items += [
            {"role": "user", "content": said},
            {"role": "assistant", "content": reply},
        ]
    items.append({"role": "user", "content": [{"type": "input_text", "text": text}]})
    return "/v1/responses", {
        "model": "gpt-4.1",
        "instructions": "Be brief.",
        "input": items,
    }


def _anthropic(history: list[tuple[str, str]], text: str) -> tuple[str, dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for said, reply in history:
        messages += [
            {"role": "user", "content": said},
            {"role": "assistant", "content": reply},
        ]
    messages.append({"role": "user", "content": [{"type": "text", "text": text}]})
    return "/v1/messages", {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "system": "Be brief.",
        "messages": messages,
    }


def _gemini(history: list[tuple[str, str]], text: str) -> tuple[str, dict[str, Any]]:
    contents: list[dict[str, Any]] = []
    for said, reply in history:
        contents += [
            {"role": "user", "parts": [{"text": said}]},
            {"role": "model", "parts": [{"text": reply}]},
        ]
    contents.append({"role": "user", "parts": [{"text": text}]})
    return "/v1beta/models/gemini-2.5-flash:generateContent", {
        "contents": contents,
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
    }


FORMATS = {
    "openai-chat": (_chat, None),
    "openai-responses": (_responses, ("openai-responses", "non_stream_json")),
    "anthropic": (_anthropic, None),
    "gemini": (_gemini, ("gemini", "generate_content_json")),
}


async def send(
    server: MemtapServer,
    standin: Standin,
    fmt: str,
    key: str,
    path: str,
    body: dict[str, Any],
    session: str = "s1",
) -> aiohttp.ClientResponse:
    fixture = FORMATS[fmt][1]
    if fixture is not None:
        standin.enqueue_fixture(*fixture)
    auth = (
        {"x-goog-api-key": key}
        if fmt == "gemini"
        else (
            {"x-api-key": key, "anthropic-version": "2023-06-01"}
            if fmt == "anthropic"
            else {"Authorization": f"Bearer {key}"}
        )
    )
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            server.url + path, json=body, headers={**auth, "X-Memtap-Session": session}
        ) as response,
    ):
        await response.read()
        assert response.status == 200
        return response


async def drained(server: MemtapServer) -> None:
    engine = server.runtime.engine
    assert engine is not None
    for _ in range(500):
        if (
            await engine.outbox.depth() == 0
            and not engine.pending.waiting
            and not engine.pending.unfinished()  # episodes are written after the facts
        ):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the outbox did not drain")


async def episodes_of(
    server: MemtapServer, owner: str
) -> list[tuple[str, str | None, str]]:
    engine = server.runtime.engine
    assert engine is not None
    page = await engine.list_episodes(EpisodeListQuery(owner=owner, limit=100))
    return sorted((e.content, e.session, e.role) for e in page.items)


@pytest.mark.parametrize("fmt", list(FORMATS))
async def test_resent_histories_store_each_message_once(
    memtap: MemtapServer, standin: Standin, fmt: str
) -> None:
    key = f"sk-episodes-{fmt}"
    build = FORMATS[fmt][0]
    history: list[tuple[str, str]] = []
    for text in SAID:
        path, body = build(history, text)
        await send(memtap, standin, fmt, key, path, body)
        history.append((text, "Noted."))
    # The client retries the last request as it was: nothing new either.
    await send(memtap, standin, fmt, key, *build(history[:-1], SAID[-1]))
    await drained(memtap)
    assert await episodes_of(memtap, owner_of(key)) == sorted(
        (t, "s1", "user") for t in SAID
    )


async def test_a_later_request_gets_a_dated_snippet_and_not_its_own_turn(
    memtap: MemtapServer, standin: Standin
) -> None:
    key = "sk-episodes-snippet"
    await send(memtap, standin, "openai-chat", key, *_chat([], SAID[1]))
    await drained(memtap)
    async with aiohttp.ClientSession() as http:
        async with http.post(
            f"{memtap.url}/_memtap/api/retrieve-preview",
            json={"owner": owner_of(key), "query": "why did the demo go badly?"},
        ) as r:
            preview = await r.json()
        assert r.status == 200
        episodes = [h for h in preview["results"] if h["kind"] == "episode"]
        assert [h["content"] for h in episodes] == [SAID[1]]
        assert "keyword" in episodes[0]["why"] and episodes[0]["said_at"][:2] == "20"
        day = spoken_day(episodes[0]["said_at"])
        assert f"[{day}] user said: {SAID[1]}" in preview["block"]
        # The message being asked now is never its own snippet.
        async with http.post(
            f"{memtap.url}/_memtap/api/retrieve-preview",
            json={"owner": owner_of(key), "query": SAID[1]},
        ) as r:
            own = await r.json()
        assert [h for h in own["results"] if h["kind"] == "episode"] == []
    # Through the proxy, the snippet is injected into the next request.
    response = await send(
        memtap,
        standin,
        "openai-chat",
        key,
        *_chat([], "The demo: what went wrong?"),
        session="s2",
    )
    assert int(response.headers["X-Memtap-Memories"]) >= 1
    assert "VPN dropped" in standin.last().body.decode()


async def test_a_previews_limit_bounds_facts_and_snippets_together(
    memtap: MemtapServer, standin: Standin
) -> None:
    key = "sk-episodes-limit"
    history: list[tuple[str, str]] = []
    for text in (
        "My favourite colour is teal.",
        "We painted the kitchen teal last spring.",
        "The teal mug broke when the cat jumped on the table.",
    ):
        await send(memtap, standin, "openai-chat", key, *_chat(history, text))
        history.append((text, "Noted."))
    await drained(memtap)
    async with aiohttp.ClientSession() as http:

        async def preview(**extra: Any) -> list[dict[str, Any]]:
            async with http.post(
                f"{memtap.url}/_memtap/api/retrieve-preview",
                json={
                    "owner": owner_of(key),
                    "query": "teal colour kitchen mug",
                    **extra,
                },
            ) as r:
                assert r.status == 200
                return list((await r.json())["results"])

        everything = await preview()
        assert {h["kind"] for h in everything} == {"fact", "episode"}
        assert len(everything) >= 3
        for limit in (0, 1, 2):
            assert await preview(limit=limit) == everything[:limit]


async def test_admin_lists_deletes_and_erase_counts_episodes(
    memtap: MemtapServer, standin: Standin
) -> None:
    key = "sk-episodes-admin"
    owner = owner_of(key)
    history: list[tuple[str, str]] = []
    for text in SAID[:2]:
        await send(memtap, standin, "openai-chat", key, *_chat(history, text))
        history.append((text, "ok"))
    await drained(memtap)
    async with aiohttp.ClientSession() as http:
        async with http.get(
            f"{memtap.url}/_memtap/api/episodes", params={"owner": owner}
        ) as r:
            page = await r.json()
        assert page["total"] == 2
        assert {
            "id",
            "owner",
            "session",
            "role",
            "content",
            "said_at",
            "request_id",
        } <= set(page["items"][0])
        assert page["items"][0]["content"] == SAID[1]  # newest first
        async with http.get(
            f"{memtap.url}/_memtap/api/episodes", params={"owner": owner, "q": "vpn"}
        ) as r:
            assert [i["content"] for i in (await r.json())["items"]] == [SAID[1]]
        # The memories endpoints list facts only.
        async with http.get(
            f"{memtap.url}/_memtap/api/memories", params={"owner": owner}
        ) as r:
            assert all(m["content"] not in SAID for m in (await r.json())["items"])
        async with http.delete(
            f"{memtap.url}/_memtap/api/episodes/{page['items'][0]['id']}"
        ) as r:
            assert r.status == 200
        async with http.delete(
            f"{memtap.url}/_memtap/api/episodes/{page['items'][0]['id']}"
        ) as r:
            assert r.status == 404
        async with http.delete(f"{memtap.url}/_memtap/api/owners/{owner}") as r:
            receipt = await r.json()
        assert receipt["removed"]["episodes"] == 1
        async with http.get(
            f"{memtap.url}/_memtap/api/episodes", params={"owner": owner}
        ) as r:
            assert (await r.json())["total"] == 0


async def test_keep_assistant_keeps_the_reply(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> None:
    server = await start(standin, memtap_server, memtap_config)  # the default keeps it
    standin.reply_text = "Try calling it Gaston."
    key = "sk-episodes-assistant"
    await send(server, standin, "openai-chat", key, *_chat([], SAID[2]))
    # The next turn re-sends that reply as history: it is the same episode, kept once.
    standin.reply_text = "Gaston it is."
    await send(
        server,
        standin,
        "openai-chat",
        key,
        *_chat([(SAID[2], "Try calling it Gaston.")], "I love it!"),
    )
    await drained(server)
    assert await episodes_of(server, owner_of(key)) == [
        ("Gaston it is.", "s1", "assistant"),
        ("I love it!", "s1", "user"),
        (SAID[2], "s1", "user"),
        ("Try calling it Gaston.", "s1", "assistant"),
    ]
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{server.url}/_memtap/api/retrieve-preview",
            json={
                "owner": owner_of(key),
                "query": "what name did you suggest for the starter?",
            },
        ) as r,
    ):
        preview = await r.json()
    # What the assistant said is recallable, with the question it answered beside it.
    assert "Gaston" in preview["block"] and "sourdough starter" in preview["block"]


async def test_episodes_off_keeps_none(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> None:
    server = await start(standin, memtap_server, memtap_config, enabled=False)
    key = "sk-episodes-off"
    await send(server, standin, "openai-chat", key, *_chat([], SAID[0]))
    await drained(server)
    assert await episodes_of(server, owner_of(key)) == []


async def test_a_failing_episode_store_costs_no_request_and_no_fact(
    memtap: MemtapServer, standin: Standin
) -> None:
    engine = memtap.runtime.engine
    assert engine is not None
    # A real failure of the episode tables (as a damaged or foreign schema would give).
    await engine.local.db.write(lambda conn: conn.execute("DROP TABLE episodes"))
    key = "sk-episodes-broken"
    owner = owner_of(key)
    await send(
        memtap,
        standin,
        "openai-chat",
        key,
        *_chat([], "I prefer Postgres for side projects."),
    )
    await drained(memtap)
    facts = await engine.list_memories(ListQuery(owner=owner))
    assert any("Postgres" in m.content for m in facts.items)
    response = await send(
        memtap,
        standin,
        "openai-chat",
        key,
        *_chat([], "Postgres or SQLite for my side project?"),
    )
    assert int(response.headers["X-Memtap-Memories"]) >= 1
    assert "Postgres" in standin.last().body.decode()
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{memtap.url}/_memtap/api/retrieve-preview",
            json={"owner": owner, "query": "postgres side project"},
        ) as r,
    ):
        preview = await r.json()
    assert r.status == 200 and preview["results"]
    assert any(
        f["tier"].startswith("episodes")
        for f in preview["resolution"]["episodes"]["fallbacks"]
    )
    assert engine.metrics.memory_fallbacks.value("episode_store") >= 1


async def test_turn_extracted_carries_the_episode_ids(
    memtap: MemtapServer, standin: Standin
) -> None:
    engine = memtap.runtime.engine
    assert engine is not None
    seen: list[tuple[str, tuple[str, ...]]] = []
    engine.events.on_turn_extracted(lambda e: seen.append((e.owner, e.episode_ids)))
    key = "sk-episodes-events"
    await send(memtap, standin, "openai-chat", key, *_chat([], SAID[0]))
    await send(memtap, standin, "openai-chat", key, *_chat([(SAID[0], "ok")], SAID[1]))
    await drained(memtap)
    page = await engine.list_episodes(EpisodeListQuery(owner=owner_of(key)))
    ids = {e.content: e.id for e in page.items}
    mine = [ids_ for owner, ids_ in seen if owner == owner_of(key)]
    assert mine == [(ids[SAID[0]],), (ids[SAID[1]],)]


async def test_export_erase_import_brings_episodes_back(
    memtap: MemtapServer, standin: Standin
) -> None:
    key = "sk-episodes-export"
    owner = owner_of(key)
    await send(
        memtap,
        standin,
        "openai-chat",
        key,
        *_chat([], "I prefer Postgres for side projects."),
    )
    await send(memtap, standin, "openai-chat", key, *_chat([], SAID[0]))
    await drained(memtap)
    before = await episodes_of(memtap, owner)
    async with aiohttp.ClientSession() as http:
        export = f"{memtap.url}/_memtap/api/owners/{owner}/export"
        # The contract's export is JSON lines of memories: episodes only when asked for.
        async with http.get(export) as r:
            plain = [json.loads(line) for line in (await r.read()).splitlines()]
        assert plain and {line["kind"] for line in plain} == {"memory"}
        assert all("type" in line and "content" in line for line in plain)
        async with http.get(export, params={"episodes": "true"}) as r:
            raw = await r.read()
        kinds = [json.loads(line)["kind"] for line in raw.splitlines() if line.strip()]
        assert kinds.count("episode") == 2 and kinds.count("memory") == len(plain)
        async with http.get(export, params={"episodes": "maybe"}) as r:
            assert r.status == 400 and (await r.json())["error"]["field"] == "episodes"
        async with http.delete(f"{memtap.url}/_memtap/api/owners/{owner}") as r:
            assert (await r.json())["removed"]["episodes"] == 2
        assert await episodes_of(memtap, owner) == []
        async with http.post(f"{memtap.url}/_memtap/api/import", data=raw) as r:
            report = await r.json()
        assert (
            report["episodes"] == {"created": 2, "unchanged": 0, "vectors_pending": 0}
            and report["created"] >= 1
        )
        assert report["skipped"] == 0
        assert await episodes_of(memtap, owner) == before
        # Importing the same lines again changes nothing.
        async with http.post(f"{memtap.url}/_memtap/api/import", data=raw) as r:
            assert (await r.json())["episodes"] == {
                "created": 0,
                "unchanged": 2,
                "vectors_pending": 0,
            }
        # `?wait=` as for a conversation import: checked before the body is read.
        async with http.post(
            f"{memtap.url}/_memtap/api/import", data=raw, params={"wait": "999"}
        ) as r:
            assert r.status == 400 and (await r.json())["error"]["field"] == "wait"
        # A bad episode line is reported with its number; the others go in.
        bad = (
            b'{"kind": "episode", "owner": "' + owner.encode() + b'", "content": "x"}\n'
        )
        async with http.post(f"{memtap.url}/_memtap/api/import", data=bad) as r:
            report = await r.json()
        assert report["skipped"] == 1 and report["errors"][0].startswith("line 1:")
