"""retrieve-preview (the proxy's own retrieval, no side effects), engine-status, summarize and
reindex through a real memtap in front of the provider stand-in."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from memtap.config.schema import Config, MemoryConfig
from memtap.engine.memory_block import OPEN
from tests.conftest import MemtapServer
from tests.support.admin import OWNER, Admin, start_admin
from tests.support.standin import Standin

API_KEY = "sk-test-admin-explain-0001"
KEY_OWNER = hashlib.sha256(API_KEY.encode()).hexdigest()[:24]
QUESTION = "Which database should I use for the new billing service?"


@pytest.fixture
async def admin(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> Admin:
    memory = MemoryConfig(
        enabled=True, strategy="keyword", max_tokens=600, extract_from=("user",)
    )
    return await start_admin(memtap_server, memtap_config, http, memory=memory)


async def proxied_chat(
    admin: Admin, text: str, session: str | None = None
) -> tuple[int, dict[str, str]]:
    headers = {"Authorization": f"Bearer {API_KEY}", "X-Memtap-Memory": "read"}
    if session:
        headers["X-Memtap-Session"] = session
    body = {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": text},
        ],
    }
    async with admin.http.post(
        admin.server.url + "/v1/chat/completions", json=body, headers=headers
    ) as response:
        await response.read()
        return response.status, dict(response.headers)


def injected_text(standin: Standin) -> str:
    body = standin.last().json()
    # Wherever the placement put it: a system message, or the last user turn.
    texts = [m["content"] for m in body["messages"] if isinstance(m["content"], str)]
    return "\n".join(t for t in texts if OPEN in t)


async def test_preview_is_exactly_what_the_proxy_injects(
    admin: Admin, standin: Standin
) -> None:
    for content in (
        "The billing service uses Postgres 16 as its database.",
        "Use SQLite only for local prototypes, never for the billing service.",
        "The user's cat is named Miso.",
        "Database migrations run with alembic.",
    ):
        await admin.create(owner=KEY_OWNER, content=content)
    await admin.create(
        owner=OWNER, content="Another owner also has a billing database note."
    )

    preview = await admin.call(
        "POST", "/api/retrieve-preview", json={"owner": KEY_OWNER, "query": QUESTION}
    )
    assert preview.status == 200, preview.body
    results = preview.body["results"]
    assert results, "the keyword tier should find the billing memories"
    for hit in results:
        assert set(hit) >= {
            "id",
            "content",
            "score",
            "tier",
            "tokens",
            "fts_rank",
            "vec_rank",
        }
    assert all("Miso" not in hit["content"] for hit in results)
    assert all("Another owner" not in hit["content"] for hit in results)
    assert preview.body["tokens"] == sum(hit["tokens"] for hit in results)
    assert isinstance(preview.body["resolution"], dict) and preview.body["resolution"]

    # Preview twice: no side effects, same answer.
    again = await admin.call(
        "POST", "/api/retrieve-preview", json={"owner": KEY_OWNER, "query": QUESTION}
    )
    assert [h["id"] for h in again.body["results"]] == [h["id"] for h in results]

    status, headers = await proxied_chat(admin, QUESTION)
    assert status == 200
    assert headers["X-Memtap-Memories"] == str(len(results))
    injected = injected_text(standin)
    assert preview.body["block"] is not None
    assert preview.body["block"] in injected, (preview.body["block"], injected)
    # The upstream got the block once, and no memory the preview did not list.
    assert injected.count(OPEN) == 1
    for hit in results:
        assert hit["content"] in injected


async def test_preview_options_change_the_result(admin: Admin) -> None:
    for i in range(6):
        await admin.create(
            owner=KEY_OWNER,
            content=f"billing database fact number {i} " + "filler " * 30,
        )
    full = await admin.call(
        "POST", "/api/retrieve-preview", json={"owner": KEY_OWNER, "query": QUESTION}
    )
    assert len(full.body["results"]) >= 3
    tight = await admin.call(
        "POST",
        "/api/retrieve-preview",
        json={"owner": KEY_OWNER, "query": QUESTION, "max_tokens": 60},
    )
    assert tight.body["tokens"] <= 60 and len(tight.body["results"]) < len(
        full.body["results"]
    )
    one = await admin.call(
        "POST",
        "/api/retrieve-preview",
        json={"owner": KEY_OWNER, "query": QUESTION, "limit": 1},
    )
    assert len(one.body["results"]) == 1
    recent = await admin.call(
        "POST",
        "/api/retrieve-preview",
        json={"owner": KEY_OWNER, "query": "unrelated words", "strategy": "recent"},
    )
    assert recent.status == 200 and recent.body["results"]
    assert all(h["tier"] == "recent" for h in recent.body["results"])
    nobody = await admin.call(
        "POST", "/api/retrieve-preview", json={"owner": "nobody", "query": QUESTION}
    )
    assert nobody.body["results"] == [] and nobody.body["block"] is None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "x"}, "owner"),
        ({"owner": OWNER}, "query"),
        ({"owner": OWNER, "query": "x", "strategy": "magic"}, "strategy"),
        ({"owner": OWNER, "query": "x", "scope": "world"}, "scope"),
        ({"owner": OWNER, "query": "x", "max_tokens": -1}, "max_tokens"),
        ({"owner": OWNER, "query": "x", "max_tokens": 0}, "max_tokens"),
        ({"owner": OWNER, "query": "x", "max_tokens": "100"}, "max_tokens"),
        ({"owner": OWNER, "query": "x", "limit": True}, "limit"),
        ({"owner": OWNER, "query": "x", "limit": 10_000}, "limit"),
        ({"owner": OWNER, "query": "x", "verbose": True}, "verbose"),
        ({"owner": OWNER, "query": "nul\x00"}, "query"),
    ],
)
async def test_preview_validation(
    admin: Admin, body: dict[str, Any], field: str
) -> None:
    reply = await admin.call("POST", "/api/retrieve-preview", json=body)
    assert reply.status == 400 and reply.body["error"]["field"] == field, reply.body


async def test_engine_status(admin: Admin) -> None:
    await admin.create(content="a fact", type="factual")
    await admin.create(content="a procedure", type="procedural")
    reply = await admin.call("GET", "/api/engine-status")
    assert reply.status == 200
    text = json.dumps(reply.body)
    for word in (
        "sqlite",
        "fts",
        "outbox",
        "vector",
        "embedding",
        "factual",
        "procedural",
    ):
        assert word in text, word


async def test_summarize_keeps_originals(admin: Admin) -> None:
    for i in range(3):
        await admin.create(content=f"Old note {i}: " + "details " * 40, session="old")
    dry = await admin.call(
        "POST",
        "/api/summarize",
        json={"older_than_days": 0, "owner": OWNER, "dry_run": True},
    )
    assert dry.status == 200 and dry.body["dry_run"] is True
    before = await admin.call(
        "GET", "/api/memories", params={"owner": OWNER, "include_superseded": "true"}
    )
    assert before.body["total"] == 3  # a dry run writes nothing

    done = await admin.call(
        "POST", "/api/summarize", json={"older_than_days": 0, "owner": OWNER}
    )
    assert done.status == 200 and done.body["dry_run"] is False
    history = await admin.call(
        "GET", "/api/memories", params={"owner": OWNER, "include_superseded": "1"}
    )
    superseded = {
        m["id"] for m in history.body["items"] if m["superseded_by"] is not None
    }
    assert superseded == {m["id"] for m in before.body["items"]}, (
        "originals stay as history"
    )
    assert superseded == set(done.body["originals"])
    active = await admin.call("GET", "/api/memories", params={"owner": OWNER})
    assert {m["id"] for m in active.body["items"]} == set(done.body["summaries"])
    assert all(
        len(m["content"]) < len(before.body["items"][0]["content"])
        for m in active.body["items"]
    )

    for body, field in (
        ({"older_than_days": -1}, "older_than_days"),
        ({"dry_run": "yes"}, "dry_run"),
        ({"owner": "../x"}, "owner"),
        ({"days": 3}, "days"),
    ):
        bad = await admin.call("POST", "/api/summarize", json=body)
        assert bad.status == 400 and bad.body["error"]["field"] == field


async def test_summarize_restore_brings_the_original_back(admin: Admin) -> None:
    original = await admin.create(content="Old note: " + "details " * 40)
    done = await admin.call(
        "POST", "/api/summarize", json={"older_than_days": 0, "owner": OWNER}
    )
    (summary_id,) = done.body["summaries"]
    restored = await admin.call(
        "POST", "/api/summarize/restore", json={"summary_id": summary_id}
    )
    assert restored.status == 200
    assert restored.body["id"] == original["id"]
    assert restored.body["content"] == original["content"]
    assert restored.body["superseded_by"] is None
    active = await admin.call("GET", "/api/memories", params={"owner": OWNER})
    assert [m["id"] for m in active.body["items"]] == [original["id"]]
    gone = await admin.call("GET", f"/api/memories/{summary_id}")
    assert gone.status == 404
    not_a_summary = await admin.call(
        "POST", "/api/summarize/restore", json={"summary_id": original["id"]}
    )
    assert not_a_summary.status == 404
    bad = await admin.call(
        "POST", "/api/summarize/restore", json={"summary_id": "../x"}
    )
    assert bad.status == 400 and bad.body["error"]["field"] == "summary_id"


async def test_reindex_without_vector_tier_reports_why(admin: Admin) -> None:
    reply = await admin.call("POST", "/api/reindex", json={})
    assert (
        reply.status == 200 and reply.body["started"] is False and reply.body["reason"]
    )
    empty_body = await admin.call("POST", "/api/reindex")
    assert empty_body.status == 200
    bad = await admin.call("POST", "/api/reindex", json={"limit": 0})
    assert bad.status == 400 and bad.body["error"]["field"] == "limit"
