"""Lone surrogates (`"\\ud800"`: valid JSON, not UTF-8) in the memory path: retrieval and
extraction read the text with U+FFFD in their place, the upstream gets the user's text as
sent, and memory skipped for an unreadable body is logged."""

from __future__ import annotations

import asyncio
import json
import logging

import aiohttp
import orjson
import pytest

from memtap.engine.memory_block import OPEN
from memtap.engine.types import ListQuery
from memtap.proxy.codecs.surrogates import (
    REPLACEMENT,
    loads_for_reading,
    parse_request_body,
)
from tests.conftest import KeywordMemtap, MemtapServer
from tests.support.standin import Standin

KEY = "sk-test-surrogates-0001"


def test_parse_request_body() -> None:
    plain = parse_request_body(b'{"a": "caf\\u00e9 \\ud83d\\ude00"}')
    assert not plain.had_surrogates and plain.original is plain.readable
    assert plain.readable == {"a": "café 😀"}
    assert plain.dumps({"x": 1}) == orjson.dumps({"x": 1})

    raw = b'{"m": [{"content": "cut \\ud83d here \\udc00", "\\ud800k": 1}]}'
    parsed = parse_request_body(raw)
    assert parsed.had_surrogates
    assert parsed.readable == {
        "m": [
            {"content": f"cut {REPLACEMENT} here {REPLACEMENT}", f"{REPLACEMENT}k": 1}
        ]
    }
    out = parsed.dumps(parsed.original)
    assert b"\\ud83d here \\udc00" in out  # the client's text, as sent
    assert json.loads(out) == json.loads(raw)
    with pytest.raises(ValueError):
        parse_request_body(b"{not json")


def test_loads_for_reading() -> None:
    assert loads_for_reading(b'{"t": "a\\ud800b"}') == {"t": f"a{REPLACEMENT}b"}
    assert loads_for_reading('{"t": "ok"}') == {"t": "ok"}
    with pytest.raises(ValueError):
        loads_for_reading(b"[1,")


@pytest.fixture
async def memtap(keyword_memtap: KeywordMemtap) -> MemtapServer:
    return await keyword_memtap()


def chat_body(text_json: str) -> bytes:
    """A chat request whose user text is `text_json`, a JSON string literal as written."""
    return (
        '{"model": "gpt-4o-mini", "messages": [{"role": "system", "content": "Be brief."},'
        f' {{"role": "user", "content": {text_json}}}]}}'
    ).encode()


async def post(server: MemtapServer, body: bytes) -> aiohttp.ClientResponse:
    async with aiohttp.ClientSession() as session:
        response = await session.post(
            f"{server.url}/v1/chat/completions",
            data=body,
            headers={
                "Authorization": f"Bearer {KEY}",
                "Content-Type": "application/json",
            },
        )
        await response.read()
        return response


async def test_memory_works_around_lone_surrogates(
    memtap: MemtapServer, standin: Standin, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memtap")
    response = await post(
        memtap, chat_body('"I prefer Postgres for side projects. \\ud800"')
    )
    assert response.status == 200
    assert b'"I prefer Postgres for side projects. \\ud800"' in standin.requests[0].body
    engine = memtap.runtime.engine
    assert engine is not None
    owner = next(
        iter(
            {
                r.fields["owner"]
                for r in caplog.records
                if r.getMessage() == "request.done"
            }
        )
    )  # type: ignore[attr-defined]
    for _ in range(1500):
        page = await engine.list_memories(ListQuery(owner=owner, limit=10))
        if any("postgres" in m.content.lower() for m in page.items):
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("no memory was extracted from the turn")
    assert all("\ud800" not in m.content for m in page.items)

    response = await post(
        memtap, chat_body('"Postgres or SQLite for my next side project? \\udfff"')
    )
    assert response.status == 200
    assert int(response.headers["X-Memtap-Memories"]) >= 1
    sent = standin.requests[1].body
    assert b"\\udfff" in sent  # the user's text went upstream as written
    assert OPEN in json.loads(sent)["messages"][0]["content"] or OPEN in sent.decode(
        "ascii"
    )
    replaced = [
        r for r in caplog.records if r.getMessage() == "memory.surrogates_replaced"
    ]
    assert len(replaced) == 2
    assert not [r for r in caplog.records if r.getMessage() == "memory.failed"]


async def test_an_unreadable_body_is_logged_when_memory_is_skipped(
    memtap: MemtapServer, standin: Standin, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memtap")
    body = b'{"model": "gpt-4o-mini", "messages": [oops]}'
    await post(memtap, body)  # the stand-in answers what it makes of it
    assert standin.requests[0].body == body  # untouched
    (skipped,) = [r for r in caplog.records if r.getMessage() == "memory.skipped"]
    assert skipped.fields["reason"].startswith("unreadable_body")  # type: ignore[attr-defined]
