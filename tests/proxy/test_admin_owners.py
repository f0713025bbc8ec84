"""Owner export (JSON lines), import (upsert, counts, bad lines) and erase receipts."""

from __future__ import annotations

import json
from typing import Any

from memtap.proxy.admin import owners
from memtap.proxy.owners import end_user_owner, user_tag
from tests.support.admin import OWNER, Admin

OTHER = "fedcba9876543210fedcba98"


def lines(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


async def seed(admin: Admin) -> list[dict[str, Any]]:
    made = [
        await admin.create(
            content="Prefers dark mode",
            key="pref:theme",
            session="s1",
            metadata={"n": 1},
        ),
        await admin.create(
            content="Works in Lisbon (UTC+0)",
            type="episodic",
            expires_at="2099-05-01T00:00:00Z",
        ),
        await admin.create(content="Deploys with `make release`", type="procedural"),
        await admin.create(content="unicode ✓ naïve café \t tab", type="semantic"),
    ]
    await admin.create(owner=OTHER, content="someone else's memory")
    return made


async def test_export_erase_import_restores_the_same_memories(admin: Admin) -> None:
    made = await seed(admin)
    export = await admin.call("GET", f"/api/owners/{OWNER}/export")
    assert export.status == 200
    assert export.headers["Content-Type"].startswith("application/x-ndjson")
    exported = lines(export.raw)
    assert {m["id"] for m in exported} == {m["id"] for m in made}
    assert all(m["owner"] == OWNER for m in exported)

    erase = await admin.call("DELETE", f"/api/owners/{OWNER}")
    assert erase.status == 200
    assert erase.body["owner"] == OWNER
    assert erase.body["removed"]["memories"] == 4
    assert {"memories", "outbox", "fts", "vectors"} <= set(erase.body["removed"])
    assert (await admin.call("GET", "/api/memories", params={"owner": OWNER})).body[
        "total"
    ] == 0
    assert lines((await admin.call("GET", f"/api/owners/{OWNER}/export")).raw) == []
    assert (await admin.call("GET", "/api/memories", params={"owner": OTHER})).body[
        "total"
    ] == 1

    imported = await admin.call(
        "POST",
        "/api/import",
        data=export.raw,
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert imported.status == 200, imported.body
    assert imported.body == {"created": 4, "updated": 0, "skipped": 0, "errors": []}
    restored = {
        m["id"]: m
        for m in lines((await admin.call("GET", f"/api/owners/{OWNER}/export")).raw)
    }
    for original in made:
        again = restored[original["id"]]
        for field in (
            "owner",
            "session",
            "type",
            "key",
            "content",
            "metadata",
            "created_at",
            "expires_at",
        ):
            assert again[field] == original[field], field
    # Full-text search works again on the restored rows.
    found = await admin.call("GET", "/api/memories", params={"q": "Lisbon"})
    assert [m["id"] for m in found.body["items"]] == [made[1]["id"]]

    # Importing the same lines again updates in place (upsert by id), creates nothing.
    twice = await admin.call("POST", "/api/import", data=export.raw)
    assert (twice.body["created"], twice.body["updated"]) == (0, 4)
    assert (await admin.call("GET", "/api/memories", params={"owner": OWNER})).body[
        "total"
    ] == 4


async def test_import_reports_bad_lines_and_keeps_good_ones(admin: Admin) -> None:
    body = b"\n".join(
        [
            json.dumps({"owner": OWNER, "content": "good one"}).encode(),
            b"not json at all",
            json.dumps(
                {"owner": OWNER, "content": "bad type", "type": "opinion"}
            ).encode(),
            json.dumps(
                {"owner": OWNER, "content": "unknown field", "color": "red"}
            ).encode(),
            b"[1, 2, 3]",
            b"",
            json.dumps({"owner": "../../etc", "content": "traversal owner"}).encode(),
            json.dumps(
                {"owner": OWNER, "content": "good two", "id": "kept-id-1"}
            ).encode(),
        ]
    )
    reply = await admin.call("POST", "/api/import", data=body)
    assert reply.status == 200
    assert (reply.body["created"], reply.body["updated"], reply.body["skipped"]) == (
        2,
        0,
        5,
    )
    assert len(reply.body["errors"]) == 5
    assert reply.body["errors"][0].startswith("line 2:")
    assert any("color" in error for error in reply.body["errors"])
    assert (await admin.call("GET", "/api/memories/kept-id-1")).body[
        "content"
    ] == "good two"


async def test_import_limits(admin: Admin) -> None:
    long_line = json.dumps(
        {"owner": OWNER, "content": "x" * (2 * 1024 * 1024)}
    ).encode()
    reply = await admin.call("POST", "/api/import", data=long_line)
    assert reply.status == 413 and reply.error_code == "payload_too_large"
    declared = await admin.call(
        "POST",
        "/api/import",
        data=b"{}",
        headers={"Content-Length": str(owners.MAX_IMPORT_BYTES + 1)},
    )
    assert declared.status in (400, 413)  # aiohttp may refuse the lying header itself


async def test_import_many_lines_in_batches(admin: Admin) -> None:
    count = owners.IMPORT_BATCH * 2 + 7
    body = b"\n".join(
        json.dumps(
            {"owner": OTHER, "content": f"bulk memory {i}", "id": f"bulk-{i}"}
        ).encode()
        for i in range(count)
    )
    reply = await admin.call("POST", "/api/import", data=body + b"\n")
    assert reply.body == {"created": count, "updated": 0, "skipped": 0, "errors": []}
    assert (
        await admin.call("GET", "/api/memories", params={"owner": OTHER, "limit": "0"})
    ).body["total"] == count
    exported = lines((await admin.call("GET", f"/api/owners/{OTHER}/export")).raw)
    assert len(exported) == count and len({m["id"] for m in exported}) == count


async def test_erase_unknown_owner_and_bad_owner(admin: Admin) -> None:
    reply = await admin.call("DELETE", "/api/owners/nobody-here")
    assert reply.status == 200 and reply.body["removed"]["memories"] == 0
    for bad in (".hidden", "a%00b", "x" * 300):
        reply = await admin.call("DELETE", f"/api/owners/{bad}")
        assert reply.status == 400 and reply.body["error"]["field"] == "owner", bad


async def test_export_import_keeps_superseded_history(admin: Admin) -> None:
    for i in range(2):
        await admin.create(content=f"Long old note {i}: " + "details " * 40)
    summarized = await admin.call(
        "POST", "/api/summarize", json={"older_than_days": 0, "owner": OWNER}
    )
    assert summarized.status == 200 and summarized.body["originals"]
    active_before = await admin.call("GET", "/api/memories", params={"owner": OWNER})
    export = await admin.call("GET", f"/api/owners/{OWNER}/export")
    assert len(lines(export.raw)) == 4  # summaries and superseded originals
    await admin.call("DELETE", f"/api/owners/{OWNER}")
    await admin.call("POST", "/api/import", data=export.raw)
    active_after = await admin.call("GET", "/api/memories", params={"owner": OWNER})
    assert {m["id"] for m in active_after.body["items"]} == {
        m["id"] for m in active_before.body["items"]
    }


async def test_owner_stats_count_memories_and_episodes(admin: Admin) -> None:
    await admin.create(content="Prefers tea over coffee")
    episode = {
        "kind": "episode",
        "owner": OWNER,
        "session": None,
        "role": "user",
        "content": "We drove to the coast last weekend.",
        "said_at": "2026-11-28T10:00:00Z",
    }
    reply = await admin.call(
        "POST", "/api/import", data=json.dumps(episode).encode() + b"\n"
    )
    assert reply.status == 200, reply.body
    stats = await admin.call("GET", "/api/owners", params={"owner": OWNER})
    (item,) = stats.body["items"]
    assert (item["owner"], item["live"], item["episodes"]) == (OWNER, 1, 1)
    everyone = await admin.call("GET", "/api/owners")
    assert {i["owner"]: i["episodes"] for i in everyone.body["items"]}[OWNER] == 1


async def test_episode_listing_reads_its_query_like_the_memories_listing(
    admin: Admin,
) -> None:
    for params, field in (
        ({"owner": OWNER, "colour": "red"}, "colour"),
        ({"owner": OWNER, "limit": "lots"}, "limit"),
        ({"owner": OWNER, "limit": "100000"}, "limit"),
        ({"owner": OWNER, "q": "x" * 5000}, "q"),
    ):
        reply = await admin.call("GET", "/api/episodes", params=params)
        assert reply.status == 400 and reply.body["error"]["field"] == field, params
    listed = await admin.call(
        "GET", "/api/episodes", params={"owner": OWNER, "limit": "0"}
    )
    assert (
        listed.status == 200
        and listed.body["total"] == 0
        and listed.body["items"] == []
    )


async def test_an_end_users_owner_works_wherever_an_owner_is_taken(
    admin: Admin,
) -> None:
    """`KEYOWNER:USERTAG`: listed, searched, previewed, counted, exported and erased like any
    owner; erasing it leaves the key's own owner and its other users, and erasing the key's
    owner leaves its users."""
    alice = end_user_owner(OWNER, user_tag("alice@example.com"))
    bob = end_user_owner(OWNER, user_tag("bob@example.com"))
    await admin.create(owner=OWNER, content="The app is called Hive")
    made = [
        await admin.create(owner=alice, content="Alice keeps bees", session="s1"),
        await admin.create(owner=alice, content="Alice rides a cargo bike"),
    ]
    await admin.create(owner=bob, content="Bob restores old radios")

    listed = await admin.call(
        "GET", "/api/memories", params={"owner": alice, "q": "bees"}
    )
    assert [m["id"] for m in listed.body["items"]] == [made[0]["id"]]
    preview = await admin.call(
        "POST",
        "/api/retrieve-preview",
        json={"owner": alice, "query": "bees radios Hive", "scope": "global"},
    )
    assert preview.status == 200, preview.body
    assert [r["content"] for r in preview.body["results"]] == ["Alice keeps bees"]
    stats = await admin.call("GET", "/api/owners")
    by_owner = {i["owner"]: i for i in stats.body["items"]}
    assert by_owner[alice]["key_owner"] == OWNER and by_owner[alice]["live"] == 2
    assert by_owner[bob]["key_owner"] == OWNER
    assert by_owner[OWNER]["key_owner"] is None
    for path in ("/api/episodes", "/api/requests"):
        reply = await admin.call("GET", path, params={"owner": alice})
        assert reply.status == 200 and reply.body["items"] == [], path
    export = await admin.call("GET", f"/api/owners/{alice}/export")
    assert export.status == 200
    assert {m["id"] for m in lines(export.raw)} == {m["id"] for m in made}

    erase = await admin.call("DELETE", f"/api/owners/{alice}")
    assert erase.status == 200 and erase.body["owner"] == alice
    assert erase.body["removed"]["memories"] == 2
    left = await admin.call("GET", "/api/owners")
    assert {i["owner"] for i in left.body["items"]} == {OWNER, bob}

    erase = await admin.call("DELETE", f"/api/owners/{OWNER}")
    assert erase.body["removed"]["memories"] == 1  # exactly the key's own owner
    left = await admin.call("GET", "/api/owners")
    assert {i["owner"] for i in left.body["items"]} == {bob}
