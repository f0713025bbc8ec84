"""/_memtap/api/memories through a real memtap: CRUD, validation, pagination edges, hostile
input (SQL/FTS metacharacters, NUL, path traversal) and oversized bodies."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import aiohttp
import pytest

from memtap.proxy.admin.query_params import MAX_LIST_LIMIT
from memtap.proxy.admin.validation import MAX_CONTENT_CHARS, MAX_JSON_BODY
from tests.support.admin import OWNER, Admin

METACHARACTERS = [
    "'",
    '"',
    "*",
    "NEAR(",
    "OR",
    "--",
    "%",
    "_",
    "a' OR '1'='1",
    '"unbalanced',
    "col:value",
    "^x",
    "x AND",
    "(",
    ")",
    ";",
    "\\",
    "' ; DROP TABLE memories; --",
    "NOT",
    "+",
    "{content}",
]
TRAVERSAL = [
    "../",
    "..%2F..%2Fetc%2Fpasswd",
    "%2e%2e%2f",
    "..\\..\\",
    "a/../../b",
    "/etc/passwd",
    "....//",
]
MEMORY_KEYS = {
    "id",
    "owner",
    "session",
    "type",
    "key",
    "content",
    "metadata",
    "created_at",
    "updated_at",
    "expires_at",
    "superseded_by",
    "valid_to",
}


async def test_create_get_update_delete(admin: Admin) -> None:
    created = await admin.create(
        content="I prefer tabs over spaces",
        type="factual",
        key="pref:indent",
        session="s1",
        metadata={"source": "test"},
        expires_at="2099-01-02T03:04:05+02:00",
    )
    assert set(created) >= MEMORY_KEYS
    assert (
        created["owner"] == admin_owner()
        and created["session"] == "s1"
        and created["key"] == "pref:indent"
    )
    assert created["expires_at"] == "2099-01-02T01:04:05.000Z"
    assert created["created_at"].endswith("Z")

    got = await admin.call("GET", f"/api/memories/{created['id']}")
    assert got.status == 200 and got.body == created

    updated = await admin.call(
        "PUT",
        f"/api/memories/{created['id']}",
        json={"content": "I prefer spaces now", "expires_at": None},
    )
    assert updated.status == 200
    assert (
        updated.body["content"] == "I prefer spaces now"
        and updated.body["expires_at"] is None
    )
    assert updated.body["id"] == created["id"] and updated.body["key"] == "pref:indent"

    # The update re-indexed FTS: the new words are found, the old ones are not.
    found = await admin.call("GET", "/api/memories", params={"q": "spaces"})
    assert [m["id"] for m in found.body["items"]] == [created["id"]]
    assert (await admin.call("GET", "/api/memories", params={"q": "tabs"})).body[
        "total"
    ] == 0

    deleted = await admin.call("DELETE", f"/api/memories/{created['id']}")
    assert deleted.status == 200 and deleted.body == {"deleted": created["id"]}
    for method in ("GET", "PUT", "DELETE"):
        again = await admin.call(
            method, f"/api/memories/{created['id']}", json={"content": "x"}
        )
        assert again.status == 404 and again.error_code == "not_found", method


def admin_owner() -> str:
    return OWNER


async def test_create_returns_location(admin: Admin) -> None:
    reply = await admin.call(
        "POST", "/api/memories", json={"owner": OWNER, "content": "x"}
    )
    assert reply.status == 201 and reply.headers["Location"].endswith(
        "/_memtap/api/memories/" + reply.body["id"]
    )
    assert reply.body["type"] == "factual" and reply.body["metadata"] == {}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"content": "no owner"}, "owner"),
        ({"owner": OWNER}, "content"),
        ({"owner": OWNER, "content": "   "}, "content"),
        ({"owner": OWNER, "content": 5}, "content"),
        ({"owner": OWNER, "content": "x" * (MAX_CONTENT_CHARS + 1)}, "content"),
        ({"owner": OWNER, "content": "nul\x00byte"}, "content"),
        ({"owner": OWNER, "content": "x", "type": "opinion"}, "type"),
        ({"owner": OWNER, "content": "x", "expires_at": "tomorrow"}, "expires_at"),
        (
            {"owner": OWNER, "content": "x", "expires_at": "2026-13-01T00:00:00Z"},
            "expires_at",
        ),
        ({"owner": OWNER, "content": "x", "expires_at": 1700000000}, "expires_at"),
        ({"owner": OWNER, "content": "x", "metadata": ["list"]}, "metadata"),
        (
            {"owner": OWNER, "content": "x", "metadata": {"big": "y" * 20000}},
            "metadata",
        ),
        ({"owner": OWNER, "content": "x", "session": "s\nnewline"}, "session"),
        ({"owner": OWNER, "content": "x", "key": "k" * 300}, "key"),
        ({"owner": OWNER, "content": "x", "id": "chosen-id"}, "id"),
        ({"owner": OWNER, "content": "x", "unexpected": 1}, "unexpected"),
        ({"owner": "../etc", "content": "x"}, "owner"),
        ({"owner": "a/b", "content": "x"}, "owner"),
        ({"owner": "", "content": "x"}, "owner"),
    ],
)
async def test_create_validation(
    admin: Admin, body: dict[str, Any], field: str
) -> None:
    reply = await admin.call("POST", "/api/memories", json=body)
    assert reply.status == 400, reply.body
    assert reply.body["error"]["code"] == "invalid"
    assert reply.body["error"]["field"] == field
    assert field in reply.body["error"]["message"]


@pytest.mark.parametrize(
    "raw", [b"", b"not json", b"[1, 2]", b'"string"', b"{", b"null"]
)
async def test_create_rejects_non_object_bodies(admin: Admin, raw: bytes) -> None:
    reply = await admin.call(
        "POST", "/api/memories", data=raw, headers={"Content-Type": "application/json"}
    )
    assert reply.status == 400 and reply.error_code == "invalid"


async def test_update_validation(admin: Admin) -> None:
    memory = await admin.create(content="original")
    path = f"/api/memories/{memory['id']}"
    for body, field in (
        ({}, "body"),
        ({"owner": "someone-else"}, "owner"),
        ({"content": None}, "content"),
        ({"type": "bogus"}, "type"),
        ({"expires_at": "yesterday"}, "expires_at"),
        ({"id": "new-id"}, "id"),
    ):
        reply = await admin.call("PUT", path, json=body)
        assert reply.status == 400 and reply.body["error"]["field"] == field, (
            body,
            reply.body,
        )
    assert (await admin.call("GET", path)).body["content"] == "original"


async def test_oversized_bodies_are_413(admin: Admin) -> None:
    huge = b'{"owner": "a", "content": "' + b"x" * (MAX_JSON_BODY + 10) + b'"}'
    for method, path in (
        ("POST", "/api/memories"),
        ("POST", "/api/retrieve-preview"),
        ("PUT", "/api/settings"),
    ):
        reply = await admin.call(
            method, path, data=huge, headers={"Content-Type": "application/json"}
        )
        assert reply.status == 413, (path, reply.status)
        assert reply.error_code == "payload_too_large"

    # Also without a Content-Length (chunked): the limit is enforced while reading.
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(20):
            yield b"x" * (MAX_JSON_BODY // 10)

    reply = await admin.call("POST", "/api/memories", data=chunks())  # type: ignore[arg-type]
    assert reply.status == 413 and reply.error_code == "payload_too_large"


# -- listing ------------------------------------------------------------------------------


async def test_list_filters_and_total(admin: Admin) -> None:
    other = "fedcba9876543210fedcba98"
    await admin.create(content="alpha one", session="s1", type="factual")
    await admin.create(content="alpha two", session="s2", type="procedural")
    await admin.create(content="beta three", session="s1", type="episodic")
    await admin.create(owner=other, content="alpha of someone else")

    async def ids(**params: str) -> tuple[list[str], int]:
        reply = await admin.call("GET", "/api/memories", params=params)
        assert reply.status == 200, reply.body
        return [m["content"] for m in reply.body["items"]], reply.body["total"]

    assert await ids(owner=OWNER) == (["beta three", "alpha two", "alpha one"], 3)
    assert await ids(owner=OWNER, session="s1") == (["beta three", "alpha one"], 2)
    assert await ids(owner=OWNER, type="procedural") == (["alpha two"], 1)
    assert await ids(q="alpha") == (
        ["alpha of someone else", "alpha two", "alpha one"],
        3,
    )
    assert await ids(owner=other, q="alpha") == (["alpha of someone else"], 1)
    assert await ids(owner="nobody") == ([], 0)


async def test_pagination_edges(admin: Admin) -> None:
    created = [await admin.create(content=f"memory number {i}") for i in range(7)]
    newest_first = [m["id"] for m in reversed(created)]

    async def page(limit: int | None, offset: int | None) -> dict[str, Any]:
        params = {
            k: str(v)
            for k, v in (("limit", limit), ("offset", offset))
            if v is not None
        }
        reply = await admin.call("GET", "/api/memories", params=params)
        assert reply.status == 200, reply.body
        return dict(reply.body)

    assert (await page(0, None))["items"] == [] and (await page(0, None))["total"] == 7
    assert [m["id"] for m in (await page(1, None))["items"]] == newest_first[:1]
    assert [
        m["id"] for m in (await page(MAX_LIST_LIMIT, None))["items"]
    ] == newest_first
    assert [m["id"] for m in (await page(None, None))["items"]] == newest_first
    assert [m["id"] for m in (await page(3, 6))["items"]] == newest_first[6:]
    past = await page(5, 7)
    assert past["items"] == [] and past["total"] == 7
    assert (await page(5, 10**6))["items"] == []
    # Walking pages of 3 visits every memory exactly once, in a stable order.
    walked = [m["id"] for offset in (0, 3, 6) for m in (await page(3, offset))["items"]]
    assert walked == newest_first

    for params, field in (
        ({"limit": str(MAX_LIST_LIMIT + 1)}, "limit"),
        ({"limit": "-1"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"limit": "1.5"}, "limit"),
        ({"limit": "１"}, "limit"),  # fullwidth digit: isdigit() but not ASCII
        ({"offset": "-5"}, "offset"),
        ({"type": "nope"}, "type"),
        ({"include_superseded": "maybe"}, "include_superseded"),
        ({"sort": "id"}, "sort"),
        ({"owner": "../x"}, "owner"),
    ):
        reply = await admin.call("GET", "/api/memories", params=params)
        assert reply.status == 400 and reply.body["error"]["field"] == field, (
            params,
            reply.body,
        )


@pytest.mark.parametrize("text", METACHARACTERS)
async def test_metacharacters_are_plain_text(admin: Admin, text: str) -> None:
    memory = await admin.create(
        content=f"literal {text} marker", key=f"k {text}", session=f"s {text}"
    )
    assert memory["content"] == f"literal {text} marker"
    listed = await admin.call(
        "GET", "/api/memories", params={"q": text, "owner": OWNER}
    )
    assert listed.status == 200, listed.body
    assert listed.body["total"] in (0, 1)
    by_session = await admin.call(
        "GET", "/api/memories", params={"session": f"s {text}"}
    )
    assert [m["id"] for m in by_session.body["items"]] == [memory["id"]]
    preview = await admin.call(
        "POST", "/api/retrieve-preview", json={"owner": OWNER, "query": text}
    )
    assert preview.status == 200, preview.body
    # Nothing was dropped or rewritten by the hostile text.
    total = await admin.call("GET", "/api/memories", params={"limit": "0"})
    assert total.body["total"] == 1


async def test_nul_in_query_parameters_is_rejected(admin: Admin) -> None:
    for name in ("q", "session", "owner"):
        reply = await admin.call("GET", "/api/memories", params={name: "a\x00b"})
        assert reply.status == 400 and reply.body["error"]["field"] == name


@pytest.mark.parametrize("segment", TRAVERSAL)
async def test_path_traversal_in_ids_and_owners(admin: Admin, segment: str) -> None:
    memory = await admin.create(content="must survive")
    base = admin.url
    for method, path in (
        ("GET", f"/api/memories/{segment}"),
        ("PUT", f"/api/memories/{segment}"),
        ("DELETE", f"/api/memories/{segment}"),
        ("DELETE", f"/api/owners/{segment}"),
        ("GET", f"/api/owners/{segment}/export"),
        ("DELETE", f"/api/settings/{segment}"),
        ("GET", f"/static/{segment}"),
    ):
        url = aiohttp.client.URL(base + path, encoded=True)
        async with admin.http.request(
            method,
            url,
            json={"content": "x"},
            headers={"Authorization": f"Bearer {admin.token}"},
        ) as response:
            assert response.status in (400, 404, 405), (method, path, response.status)
            if response.content_type == "application/json":
                assert "error" in await response.json()
    assert (await admin.call("GET", f"/api/memories/{memory['id']}")).body[
        "content"
    ] == "must survive"


@pytest.mark.parametrize("text", METACHARACTERS + ["a\x00b"])
async def test_metacharacters_in_ids_owners_and_names(admin: Admin, text: str) -> None:
    """Hostile text in path parameters is either rejected (400), unknown (404) or, when it
    happens to be a legal owner name ("OR", "--"), an owner with nothing: never a match on
    someone else's data."""
    memory = await admin.create(content="still here")
    segment = quote(text, safe="")
    auth = {"Authorization": f"Bearer {admin.token}"}

    async def call(method: str, path: str) -> tuple[int, bytes]:
        url = aiohttp.client.URL(admin.url + path, encoded=True)
        async with admin.http.request(
            method, url, json={"content": "x"}, headers=auth
        ) as response:
            body = await response.read()
            if response.status >= 400:
                assert "error" in json.loads(body)
            return response.status, body

    for method in ("GET", "PUT", "DELETE"):
        status, _ = await call(method, f"/api/memories/{segment}")
        assert status in (400, 404), (method, text, status)
    status, _ = await call("DELETE", f"/api/settings/{segment}")
    assert status in (400, 404)
    status, body = await call("DELETE", f"/api/owners/{segment}")
    assert status in (400, 404) or json.loads(body)["removed"]["memories"] == 0
    status, body = await call("GET", f"/api/owners/{segment}/export")
    assert status in (400, 404) or (status == 200 and body == b"")
    listed = await admin.call("GET", "/api/memories", params={"owner": text})
    assert listed.status == 400 or listed.body["total"] == 0
    typed = await admin.call("GET", "/api/memories", params={"type": text})
    assert typed.status == 400 and typed.body["error"]["field"] == "type"
    preview = await admin.call(
        "POST", "/api/retrieve-preview", json={"owner": text, "query": "still here"}
    )
    assert preview.status == 400 or preview.body["results"] == []
    kept = await admin.call("GET", f"/api/memories/{memory['id']}")
    assert kept.body["content"] == "still here"
