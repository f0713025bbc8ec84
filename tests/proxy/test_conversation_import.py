"""POST /_memtap/api/import/conversations against a running memtap (real SQLite file)."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from memtap.config.schema import Config
from memtap.proxy.admin import conversations
from tests.conftest import MemtapServer
from tests.support.admin import Admin, start_admin
from tests.support.standin import Standin

OWNER = "importowner0000000000001"
PATH = "/api/import/conversations"


@pytest.fixture
async def admin(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> Admin:
    return await start_admin(memtap_server, memtap_config, http)


def jsonl(*items: Any) -> str:
    return "".join((i if isinstance(i, str) else json.dumps(i)) + "\n" for i in items)


def msg(
    role: str, content: str, ts: str, session: str = "s1", **extra: Any
) -> dict[str, Any]:
    return {
        "owner": OWNER,
        "session": session,
        "role": role,
        "content": content,
        "ts": ts,
        **extra,
    }


HISTORY = jsonl(
    msg("user", "I went to the dentist yesterday.", "2026-11-20T10:00:00Z"),
    msg("assistant", "I hope it went well!", "2026-11-20T10:00:05Z"),
    msg(
        "user",
        "We drove to the coast last weekend and I adopted a cat two weeks ago.",
        "2026-11-25T09:00:00Z",
    ),
    msg("assistant", "Sounds lovely.", "2026-11-25T09:00:03Z"),
    msg(
        "user",
        "I moved to Berlin last month.",
        "2026-10-15T08:00:00+02:00",
        session="s2",
    ),
)


async def facts(admin: Admin, owner: str = OWNER) -> list[dict[str, Any]]:
    reply = await admin.call(
        "GET", "/api/memories", params={"owner": owner, "limit": "100"}
    )
    assert reply.status == 200, reply.body
    return list(reply.body["items"])


async def test_jsonl_turns_are_extracted_at_their_own_times(admin: Admin) -> None:
    reply = await admin.call("POST", PATH, data=HISTORY)
    assert reply.status == 200, reply.body
    body = reply.body
    assert set(body) >= {"turns", "memories", "episodes", "skipped", "errors"}
    assert body["turns"] == 3 and body["skipped"] == 0 and body["errors"] == []
    assert body["pending"] == 0
    # No model here: no window waits for a vector, and the answer did not wait for one.
    assert body["vectors_pending"] == 0
    status = (await admin.call("GET", "/api/engine-status")).body
    assert status["embedding"] == "off"
    assert (
        status["episodes"]["windows"] > 0 and status["episodes"]["pending_vectors"] == 0
    )
    items = {m["content"]: m for m in await facts(admin)}
    assert body["memories"] == len(items)
    dentist = items["Went to the dentist yesterday (2026-11-19)"]
    assert dentist["created_at"] == dentist["updated_at"] == "2026-11-20T10:00:00.000Z"
    assert dentist["session"] == "s1"
    assert dentist["metadata"]["dates"] == [{"text": "yesterday", "date": "2026-11-19"}]
    assert dentist["metadata"]["request_id"].startswith("import-")
    assert "Adopted a cat two weeks ago (2026-11-11)" in items
    berlin = items["Moved to Berlin last month (2026-09)"]
    assert berlin["created_at"] == "2026-10-15T06:00:00.000Z"
    # The state fact drops "last month" from its words; its metadata still says when.
    assert items["Moved to Berlin"]["metadata"]["dates"] == [
        {"text": "last month", "date": "2026-09"}
    ]


async def test_reimport_is_skipped_and_writes_nothing(admin: Admin) -> None:
    first = await admin.call("POST", PATH, data=HISTORY)
    assert first.status == 200 and first.body["turns"] == 3
    before = await facts(admin)
    again = await admin.call("POST", PATH, data=HISTORY)
    assert again.status == 200, again.body
    assert again.body["turns"] == 0 and again.body["skipped"] == 3
    assert again.body["memories"] == 0 and again.body["errors"] == []
    after = await facts(admin)
    assert after == before  # not even updated_at moved
    assert (await admin.engine.outbox.depth()) == 0


async def test_bad_lines_are_reported_by_number_and_good_ones_imported(
    admin: Admin,
) -> None:
    body = jsonl(
        msg("user", "I went to the dentist yesterday.", "2026-11-20T10:00:00Z"),
        "{not json",
        msg("assistant", "ok", "2026-11-20T10:00:01Z"),
        {"owner": OWNER, "role": "user", "content": "I adopted a cat two weeks ago."},
        msg("robot", "beep", "2026-11-20T10:00:02Z"),
        msg("user", "", "2026-11-20T10:00:03Z"),
        {
            "role": "user",
            "content": "I adopted a dog yesterday.",
            "ts": "2026-11-20T11:00:00Z",
        },
        msg("system", "You are helpful.", "2026-11-20T09:00:00Z"),
        msg("user", "I adopted a parrot yesterday.", "2099-01-01T00:00:00Z"),
        "",
        msg(
            "user",
            "I adopted a hamster yesterday.",
            "2026-11-21T10:00:00Z",
            session="s9",
        ),
    )
    reply = await admin.call("POST", PATH, data=body)
    assert reply.status == 200, reply.body
    errors = {e["line"]: e["message"] for e in reply.body["errors"]}
    assert sorted(errors) == [2, 4, 5, 6, 7, 9]
    assert "JSON" in errors[2] and "ts" in errors[4] and "role" in errors[5]
    assert "empty" in errors[6] and "owner" in errors[7] and "future" in errors[9]
    assert reply.body["error_count"] == 6
    assert reply.body["turns"] == 2
    contents = {m["content"] for m in await facts(admin)}
    assert "Went to the dentist yesterday (2026-11-19)" in contents
    assert "Adopted a hamster yesterday (2026-11-20)" in contents
    assert not any("parrot" in c or "dog" in c or "cat" in c for c in contents)


def export(*conversations: dict[str, Any]) -> str:
    return json.dumps(list(conversations))


def node(
    node_id: str,
    parent: str | None,
    children: list[str],
    role: str | None,
    text: str = "",
    when: float | None = None,
    **extra: Any,
) -> dict[str, Any]:
    message = None
    if role is not None:
        message = {
            "id": node_id,
            "author": {"role": role},
            "create_time": when,
            "content": extra.pop("content", {"content_type": "text", "parts": [text]}),
            "metadata": extra.pop("metadata", {}),
            **extra,
        }
    return {"id": node_id, "message": message, "parent": parent, "children": children}


T0 = 1795000000.0  # 2026-11-18T11:06:40Z


def conversation(
    conv_id: str, start: float, user_text: str, edited: str
) -> dict[str, Any]:
    mapping = {
        "root": node("root", None, ["sys"], None),
        "sys": node(
            "sys",
            "root",
            ["u1"],
            "system",
            "You are ChatGPT",
            start,
            metadata={"is_visually_hidden_from_conversation": True},
        ),
        "u1": node("u1", "sys", ["a1", "a1b"], "user", edited, start + 1),
        # a regenerated answer on an abandoned branch
        "a1b": node(
            "a1b", "u1", [], "assistant", "I adopted a goat yesterday.", start + 2
        ),
        "a1": node("a1", "u1", ["tool"], "assistant", "Noted.", start + 3),
        "tool": node(
            "tool",
            "a1",
            ["code"],
            "assistant",
            "search()",
            start + 4,
            recipient="browser",
        ),
        "code": node("code", "tool", ["u2"], "tool", "results", start + 5),
        "u2": node("u2", "code", ["a2"], "user", user_text, start + 60),
        "a2": node(
            "a2",
            "u2",
            [],
            "assistant",
            "Nice!",
            start + 61,
            metadata={"model_slug": "gpt-4o"},
        ),
    }
    return {
        "title": "chat",
        "create_time": start,
        "update_time": start + 61,
        "mapping": mapping,
        "current_node": "a2",
        "conversation_id": conv_id,
        "id": conv_id,
    }


async def test_chatgpt_export_main_branch_at_message_times(admin: Admin) -> None:
    key = "sk-test-chatgpt-import-KEY-93ab"
    owner = hashlib.sha256(key.encode()).hexdigest()[:24]
    doc = export(
        conversation("conv-b", T0 + 86400, "I went to the dentist yesterday.", "Hello"),
        conversation(
            "conv-a",
            T0,
            "We drove to the coast last weekend.",
            "I adopted a cat two days ago.",
        ),
        {
            "title": "broken",
            "mapping": {"x": {"message": {"author": {"role": "user"}}}},
        },
    )
    reply = await admin.call("POST", PATH, data=doc, params={"api_key": key})
    assert reply.status == 200, reply.body
    assert reply.body["errors"] == [{"line": 3, "message": "conversation has no id"}]
    assert (
        reply.body["turns"] == 4
    )  # two per conversation: system, tool and branch left out
    items = {m["content"]: m for m in await facts(admin, owner)}
    assert not any("goat" in c for c in items)
    cat = items["Adopted a cat two days ago (2026-11-16)"]
    assert cat["session"] == "conv-a"
    assert cat["created_at"] == "2026-11-18T11:06:41.000Z"
    dentist = items["Went to the dentist yesterday (2026-11-18)"]
    assert dentist["session"] == "conv-b" and dentist["metadata"]["model"] == "gpt-4o"
    again = await admin.call("POST", PATH, data=doc, params={"api_key": key})
    assert again.body["turns"] == 0 and again.body["skipped"] == 4


async def test_export_over_the_cap_is_413_and_writes_nothing(
    admin: Admin, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conversations, "MAX_DOCUMENT_BYTES", 1000)
    doc = export(
        *(
            conversation(f"c{i}", T0 + i, "I went to the dentist yesterday.", "Hi")
            for i in range(5)
        )
    )
    reply = await admin.call("POST", PATH, data=doc, params={"owner": OWNER})
    assert reply.status == 413, reply.body
    assert reply.error_code == "payload_too_large"
    assert "memtap conversations import" in reply.body["error"]["message"]
    assert await facts(admin) == []


async def test_api_key_is_hashed_and_never_stored_or_logged(
    admin: Admin, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    key = "sk-live-RAW-KEY-must-not-leak-4f2c"
    owner = hashlib.sha256(key.encode()).hexdigest()[:24]
    body = jsonl(
        {
            "api_key": key,
            "session": "k",
            "role": "user",
            "content": "I went to the dentist yesterday.",
            "ts": 1795000000,
        },
        {
            "api_key": "",
            "session": "k",
            "role": "user",
            "content": "x",
            "ts": 1795000000,
        },
    )
    with caplog.at_level(logging.DEBUG):
        reply = await admin.call("POST", PATH, data=body)
        extra = await admin.call("POST", PATH, data="", params={"api_key": key})
    assert reply.status == 200 and extra.status == 200, (reply.body, extra.body)
    assert reply.body["turns"] == 1 and reply.body["errors"][0]["line"] == 2
    assert [m["owner"] for m in await facts(admin, owner)] == [owner]
    await admin.engine.checkpoint()
    for file in (tmp_path / "data").rglob("*"):
        if file.is_file():
            assert key.encode() not in file.read_bytes(), file
    logged = "\n".join(
        f"{r.getMessage()} {getattr(r, 'fields', '')}" for r in caplog.records
    )
    assert key not in logged
    db = next((tmp_path / "data").glob("*.db"))
    rows = sqlite3.connect(db).execute("SELECT owner FROM imported_turns").fetchall()
    assert rows == [(owner,)]


async def test_erase_owner_forgets_imports(admin: Admin) -> None:
    assert (await admin.call("POST", PATH, data=HISTORY)).body["turns"] == 3
    erased = await admin.call("DELETE", f"/api/owners/{OWNER}")
    assert erased.body["removed"]["imported_turns"] == 3
    again = await admin.call("POST", PATH, data=HISTORY)
    assert again.body["turns"] == 3 and again.body["skipped"] == 0


async def test_parameters_are_checked(admin: Admin) -> None:
    bad_owner = await admin.call("POST", PATH, data=HISTORY, params={"owner": "../x"})
    assert bad_owner.status == 400 and bad_owner.error_code == "invalid"
    bad_wait = await admin.call("POST", PATH, data=HISTORY, params={"wait": "9999"})
    assert bad_wait.status == 400
    no_auth = await admin.call("POST", PATH, data=HISTORY, token=None)
    assert no_auth.status == 401
    assert await facts(admin) == []
