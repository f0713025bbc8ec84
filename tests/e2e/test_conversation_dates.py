"""Dates through the proxy: a live turn's "last weekend" is stored resolved against the day
it was said, and an imported conversation's facts answer "when" questions with their date."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

import aiohttp

from memtap.config.schema import Config
from tests.e2e.memory_harness import ServerFactory, start_memtap
from tests.e2e.test_memory import wait_for_memory
from tests.support.standin import Standin


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def last_weekend(day: date) -> str:
    # Written out here, apart from dates.py: said Monday-Friday, the Saturday just gone;
    # said on a weekend, the Saturday before it.
    back = {5: 7, 6: 8}.get(day.weekday(), day.weekday() + 2)
    return (day - timedelta(days=back)).isoformat()


async def chat(server_url: str, key: str, text: str) -> None:
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{server_url}/v1/chat/completions",
            headers={"Authorization": f"Bearer {key}"},
            json={"model": "gpt-test", "messages": [{"role": "user", "content": text}]},
        ) as response,
    ):
        assert response.status == 200, await response.text()
        await response.read()


def injected(standin: Standin) -> str:
    return json.dumps(standin.last().json()["messages"])


async def test_live_turn_stores_last_weekend_resolved(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> None:
    server = await start_memtap(standin, memtap_server, memtap_config)
    key = "sk-e2e-dates-live"
    before = datetime.now(UTC).date()
    await chat(server.url, key, "I went to the coast last weekend.")
    after = datetime.now(UTC).date()
    contents = await wait_for_memory(server, owner_of(key), "coast")
    expected = {
        f"Went to the coast last weekend ({last_weekend(d)})" for d in {before, after}
    }
    assert expected & set(contents), contents
    await chat(server.url, key, "When did I go to the coast?")
    assert any(f"({last_weekend(d)})" in injected(standin) for d in {before, after})


async def test_imported_turn_answers_when_with_its_date(
    standin: Standin, memtap_server: ServerFactory, memtap_config: Callable[..., Config]
) -> None:
    server = await start_memtap(standin, memtap_server, memtap_config)
    key = "sk-e2e-dates-import"
    lines = [
        {
            "api_key": key,
            "session": "old",
            "role": "user",
            "content": "I went to the dentist yesterday.",
            "ts": "2026-06-10T09:30:00Z",
        },
        {
            "api_key": key,
            "session": "old",
            "role": "assistant",
            "content": "Hope it went fine.",
            "ts": "2026-06-10T09:30:04Z",
        },
    ]
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{server.url}/_memtap/api/import/conversations",
            data="".join(json.dumps(line) + "\n" for line in lines),
        ) as response,
    ):
        report = await response.json()
    assert report["turns"] == 1 and report["memories"] >= 1, report
    await chat(server.url, key, "When did I go to the dentist?")
    text = injected(standin)
    assert "Went to the dentist yesterday (2026-06-09)" in text, text
