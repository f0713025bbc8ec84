"""Memories written through the admin API, import and MCP get the slot and conflict handling
extracted facts get: a new value of a single-valued slot supersedes the old (valid_to set,
history with include_superseded), a negated update ends the old value, a less specific
restatement never replaces the richer fact, and admin and extracted facts supersede each
other. Against the real admin API over HTTP, with SQLite and with Qdrant (local mode) as the
record store."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest

from memtap.config.schema import Config, QdrantConfig, VectorStoreConfig
from memtap.engine.supersession.conflict import claim_of, subject_for
from memtap.engine.types import Turn
from tests.conftest import MemtapServer
from tests.support.admin import OWNER, Admin, start_admin
from tests.support.standin import Standin


@pytest.fixture(params=["sqlite", "qdrant"])
async def admin(
    request: pytest.FixtureRequest,
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    tmp_path: Path,
    standin: Standin,
) -> Admin:
    vector_store = (
        VectorStoreConfig(kind="none")
        if request.param == "sqlite"
        else VectorStoreConfig(
            kind="qdrant", qdrant=QdrantConfig(path=str(tmp_path / "q"))
        )
    )
    return await start_admin(
        memtap_server, memtap_config, http, vector_store=vector_store
    )


async def listed(admin: Admin, history: bool = False) -> list[dict[str, Any]]:
    params = {"owner": OWNER, "limit": "100"}
    if history:
        params["include_superseded"] = "true"
    reply = await admin.call("GET", "/api/memories", params=params)
    assert reply.status == 200, reply.body
    return list(reply.body["items"])


async def live_contents(admin: Admin) -> list[str]:
    return sorted(m["content"] for m in await listed(admin))


async def history(admin: Admin) -> dict[str, dict[str, Any]]:
    return {
        m["content"]: m for m in await listed(admin, history=True) if m["superseded_by"]
    }


def test_subjects_of_stored_and_spoken_content() -> None:
    home = {
        subject_for(c)
        for c in (
            "Lives in Oslo",
            "I live in Bergen",
            "User lives in Rome",
            "No longer lives in Oslo",
            "Vit à Lyon",
            "Wohnt nicht mehr in Berlin",
        )
    }
    assert home == {"slot:location.home"}
    assert (
        subject_for("Is vegetarian")
        == subject_for("I'm not vegetarian any more")
        == "slot:constraint.diet"
    )
    assert subject_for("Is a nurse") == "slot:work.role"
    assert (
        subject_for("Uses Neovim")
        == subject_for("I switched from VS Code to Neovim")
        == "choice:editor"
    )
    assert subject_for("Likes Java") == subject_for("Does not like Java")
    assert subject_for("Meeting notes from Tuesday") is None
    negated = claim_of("No longer lives in Oslo")
    assert negated is not None and negated.polarity == "negative"


async def test_a_new_value_supersedes_the_old_and_history_stays(admin: Admin) -> None:
    old = await admin.create(content="Lives in Oslo")
    new = await admin.create(content="I moved to Bergen")
    assert new["superseded_by"] is None
    assert await live_contents(admin) == ["I moved to Bergen"]
    past = (await history(admin))["Lives in Oslo"]
    assert (
        past["id"] == old["id"]
        and past["superseded_by"] == new["id"]
        and past["valid_to"]
    )
    # unrelated facts are untouched; another employer replaces the employer only
    await admin.create(content="Works at Google")
    await admin.create(content="Is allergic to peanuts")
    await admin.create(content="Works at Stripe")
    assert await live_contents(admin) == [
        "I moved to Bergen",
        "Is allergic to peanuts",
        "Works at Stripe",
    ]


async def test_a_negated_update_ends_the_old_value(admin: Admin) -> None:
    await admin.create(content="Is vegetarian")
    ended = await admin.create(content="I'm not vegetarian any more")
    assert await live_contents(admin) == ["I'm not vegetarian any more"]
    assert (await history(admin))["Is vegetarian"]["superseded_by"] == ended["id"]


async def test_a_less_specific_restatement_never_replaces_the_richer_fact(
    admin: Admin,
) -> None:
    rich = await admin.create(content="Lives in Berlin, Kreuzberg")
    short = await admin.create(content="Lives in Berlin")
    assert short["superseded_by"] == rich["id"] and short["valid_to"]
    assert await live_contents(admin) == ["Lives in Berlin, Kreuzberg"]
    # a different value is an update, not a restatement
    await admin.create(content="Lives in Munich")
    assert await live_contents(admin) == ["Lives in Munich"]


async def test_an_edit_takes_part_too(admin: Admin) -> None:
    first = await admin.create(content="Works at Google")
    note = await admin.create(content="Meeting notes from Tuesday")
    reply = await admin.call(
        "PUT", f"/api/memories/{note['id']}", json={"content": "Works at Stripe"}
    )
    assert reply.status == 200, reply.body
    assert await live_contents(admin) == ["Works at Stripe"]
    assert (await history(admin))["Works at Google"]["id"] == first["id"]


async def test_admin_and_extracted_facts_supersede_each_other(admin: Admin) -> None:
    await admin.create(content="Lives in Oslo")
    engine = admin.engine
    await engine.enqueue_turn(
        Turn("req-1", OWNER, None, "openai-chat", "I live in Lisbon now.", "Noted.")
    )
    deadline = time.monotonic() + 10
    while await live_contents(admin) != ["Lives in Lisbon"]:
        assert time.monotonic() < deadline, await live_contents(admin)
        await asyncio.sleep(0.02)
    await admin.create(content="Is based in Porto")
    assert await live_contents(admin) == ["Is based in Porto"]


async def test_import_keeps_the_newest_whatever_the_order(admin: Admin) -> None:
    lines = [
        {
            "owner": OWNER,
            "content": "Works at Stripe",
            "created_at": "2026-11-01T00:00:00Z",
            "updated_at": "2026-11-01T00:00:00Z",
        },
        {
            "owner": OWNER,
            "content": "Works at Google",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        },
        {
            "owner": OWNER,
            "content": "Prefers dark mode",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        },
    ]
    body = b"\n".join(orjson.dumps(line) for line in lines)
    reply = await admin.call("POST", "/api/import", data=body)
    assert reply.status == 200 and reply.body["created"] == 3, reply.body
    assert await live_contents(admin) == ["Prefers dark mode", "Works at Stripe"]
    assert "Works at Google" in await history(admin)
