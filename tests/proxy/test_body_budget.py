"""The bytes of request bodies memory holds at once (`server.max_rewrite_inflight_bytes`):
past the budget a request gets no memory and streams upstream untouched; a body alone
always fits; what a request holds is given back when it ends, however it ends."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import json

import aiohttp
import pytest

from memtap.config.schema import (
    ServerConfig,
)
from memtap.proxy.body_budget import BodyBudget
from tests.conftest import KeywordMemtap, MemtapServer
from tests.support.standin import Reply, Standin

KEY = "sk-test-body-budget-0001"


def test_the_budget_holds_what_fits_and_one_body_alone() -> None:
    budget = BodyBudget()
    assert budget.take(900, 1000) and budget.held == 900
    assert not budget.take(200, 1000)  # would pass it while another is held
    assert budget.take(100, 1000)  # fits exactly
    budget.give_back(900)
    budget.give_back(100)
    assert budget.held == 0
    assert budget.take(5000, 1000)  # alone: always (the per-request cap bounds it)
    assert not budget.take(1, 1000)
    budget.give_back(5000)
    assert budget.take(10**9, 0) and budget.take(10**9, 0)  # 0: no limit


def chat(padding: int) -> bytes:
    text = "Which database for my side project? " + "x" * padding
    return json.dumps(
        {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]}
    ).encode()


@pytest.fixture
async def memtap(keyword_memtap: KeywordMemtap) -> MemtapServer:
    return await keyword_memtap(
        remembered=(KEY, "Prefers Postgres for side projects"),
        server=dataclasses.replace(ServerConfig(), max_rewrite_inflight_bytes=1500),
    )


async def released(budget: BodyBudget) -> bool:
    """Whether everything is given back once the requests end (the handler gives a share
    back as it finishes, a moment after the client has read the whole answer)."""
    for _ in range(300):
        if budget.held == 0:
            return True
        await asyncio.sleep(0.01)
    return False


async def held(budget: BodyBudget) -> int:
    """What the budget holds once a request in flight has taken its share."""
    for _ in range(200):
        if budget.held:
            break
        await asyncio.sleep(0.01)
    return budget.held


def slow_answer(standin: Standin) -> None:
    """The next request's answer takes a second: it holds its body meanwhile."""
    standin.enqueue(
        Reply(
            headers={"Content-Type": "application/json"},
            chunks=[b'{"id": "x", "choices": []}'],
            headers_delay_s=1.0,
        )
    )


async def post(
    session: aiohttp.ClientSession, url: str, body: bytes, **headers: str
) -> dict[str, str]:
    async with session.post(
        f"{url}/v1/chat/completions",
        data=body,
        headers={
            "Authorization": f"Bearer {KEY}",
            "Content-Type": "application/json",
            **headers,
        },
    ) as response:
        await response.read()
        assert response.status == 200
        return dict(response.headers)


async def test_a_body_past_the_budget_streams_through_without_memory(
    memtap: MemtapServer, standin: Standin
) -> None:
    budget = memtap.runtime.body_budget
    slow_answer(standin)  # the first request holds its body while the upstream thinks
    first_body, second_body = chat(900), chat(800)
    async with aiohttp.ClientSession() as session:
        first = asyncio.create_task(post(session, memtap.url, first_body))
        assert await held(budget) == len(first_body)
        second = await post(session, memtap.url, second_body)
        assert "X-Memtap-Memories" not in second  # no memory: the budget was held
        assert standin.requests[-1].body == second_body  # untouched
        assert memtap.metrics.memory_skipped.value("memory_busy") == 1
        assert (await first)["X-Memtap-Memories"] == "1"
        assert await released(budget)  # given back when it ended
        third = await post(session, memtap.url, second_body)
        assert third["X-Memtap-Memories"] == "1"
    assert await released(budget)


async def test_a_client_that_goes_away_gives_its_share_back(
    memtap: MemtapServer, standin: Standin
) -> None:
    budget = memtap.runtime.body_budget
    standin.enqueue(Reply(chunks=[b"{}"], headers_delay_s=5.0))
    async with aiohttp.ClientSession() as session:
        waiting = asyncio.create_task(post(session, memtap.url, chat(900)))
        assert await held(budget) > 0
        waiting.cancel()  # the client hangs up while the upstream thinks
        with pytest.raises(asyncio.CancelledError):
            await waiting
    assert await released(budget)


async def test_a_compressed_body_holds_what_it_reads_not_what_it_weighs(
    memtap: MemtapServer, standin: Standin
) -> None:
    """A small gzip body that reads as much more holds its decompressed size: past the
    budget it gets no memory and goes upstream as sent."""
    budget = memtap.runtime.body_budget
    slow_answer(standin)
    small = chat(100)  # holds ~170 bytes while the upstream thinks
    packed = gzip.compress(chat(4000))  # ~100 bytes on the wire, ~4 KB read
    async with aiohttp.ClientSession() as session:
        first = asyncio.create_task(post(session, memtap.url, small))
        assert await held(budget) == len(small)
        answer = await post(session, memtap.url, packed, **{"Content-Encoding": "gzip"})
        assert "X-Memtap-Memories" not in answer
        assert standin.requests[-1].body == packed  # as sent
        assert memtap.metrics.memory_skipped.value("memory_busy") == 1
        assert (await first)["X-Memtap-Memories"] == "1"
    assert await released(budget)


async def test_a_chunked_body_gives_back_what_it_did_not_need(
    memtap: MemtapServer, standin: Standin
) -> None:
    """A chunked upload holds the per-request cap while it is read, then only its size."""
    budget = memtap.runtime.body_budget
    standin.enqueue(Reply(chunks=[b"{}"], headers_delay_s=1.0))
    body = chat(100)

    async def chunks():  # no Content-Length: sent chunked
        yield body[:50]
        yield body[50:]

    async with aiohttp.ClientSession() as session:
        sending = asyncio.create_task(
            session.post(
                f"{memtap.url}/v1/chat/completions",
                data=chunks(),
                headers={"Authorization": f"Bearer {KEY}"},
            )
        )
        for _ in range(200):
            if standin.requests:
                break
            await asyncio.sleep(0.01)
        assert budget.held == len(body)  # not the 32 MiB cap
        response = await sending
        await response.read()
        response.release()
    assert await released(budget)
