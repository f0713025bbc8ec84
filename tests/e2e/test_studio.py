"""The Memory Studio (`GET /_memtap/`) in a real Chromium against a real memtap (in-process,
real sockets, real SQLite, the provider stand-in upstream): every tab renders, memories are
added, edited and deleted, the playground shows the block, the Requests tab shows a request
made through the proxy with its injected memory, reindex shows progress, an owner is erased
with a receipt. A screenshot per tab lands in build/screenshots/.

The browser script of each test runs in a thread (Selenium blocks) while memtap serves on the
test's event loop."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest

from memtap.config.schema import (
    AdminConfig,
    Config,
    EmbeddingConfig,
    MemoryConfig,
    QdrantConfig,
    VectorStoreConfig,
)
from memtap.proxy.owners import end_user_owner, user_tag
from tests.conftest import MemtapServer
from tests.e2e.browser import Page
from tests.support.admin import TOKEN, Admin, start_admin
from tests.support.standin import Standin

pytestmark = pytest.mark.timeout(180)

KEY = "sk-studio-user-key"
OWNER = hashlib.sha256(KEY.encode()).hexdigest()[:24]
XSS = "<img src=x onerror=alert(1)> prefers green tea"
ServerFactory = Callable[..., Awaitable[MemtapServer]]


@pytest.fixture
async def admin(
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> Admin:
    return await start_admin(memtap_server, memtap_config, http)


def studio(driver: object, admin: Admin, token: str | None = TOKEN) -> Page:
    page = Page(driver, admin.server.url)  # type: ignore[arg-type]
    page.open()
    if token is not None:
        page.type("#token", token)
        page.click("#auth button")
    return page


async def chat(admin: Admin, text: str) -> aiohttp.ClientResponse:
    async with admin.http.post(
        admin.server.url + "/v1/chat/completions",
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]},
        headers={"Authorization": f"Bearer {KEY}"},
    ) as response:
        await response.read()
        return response


async def test_every_tab_renders_and_a_memory_is_added_edited_deleted(
    admin: Admin, browser: object
) -> None:
    await admin.create(owner=OWNER, content="works on the billing service")

    def script() -> None:
        page = Page(browser, admin.server.url)  # type: ignore[arg-type]
        page.open()
        # Without the token the API says so, and the page shows it.
        page.wait_text("#status", "unauthorized")
        page = studio(browser, admin)
        tabs = [t.text for t in page.all('[role="tab"]')]
        assert tabs == ["Memories", "Playground", "Requests", "Engine", "Owners"]
        page.wait_text("#m-rows", "billing service")

        page.type("#m-add-owner", OWNER)
        page.type("#m-add-content", XSS)
        page.click("#m-add button[type=submit]")
        page.wait_text("#m-rows", "onerror=alert(1)")
        # User text is text: the tag shows literally and no <img> was created.
        assert page.all("#m-rows img") == []
        page.type("#m-owner", OWNER)
        page.wait(lambda: "live 2" in page.text("#m-stats"))
        assert "episodes 0" in page.text("#m-stats")  # counted apart from memories
        page.screenshot("memories")

        # Debounced search narrows the list.
        page.type("#m-q", "billing")
        page.wait(lambda: "green tea" not in page.text("#m-rows"))
        page.type("#m-q", "tea")
        page.wait(lambda: "billing" not in page.text("#m-rows"))
        row = page.find("#m-rows tr")

        # Inline edit.
        row.find_element("css selector", "button.edit").click()
        editor = page.find("#m-rows textarea.edit-content")
        editor.clear()
        editor.send_keys("prefers jasmine tea")
        page.click("#m-rows button.save")
        page.wait_text("#m-rows", "jasmine")
        page.type("#m-q", "")
        page.wait_text("#m-rows", "billing")

        # Delete asks first; "Keep" keeps it.
        jasmine = next(r for r in page.all("#m-rows tr") if "jasmine" in r.text)
        jasmine.find_element("css selector", "button.delete").click()
        page.wait(lambda: page.find("#m-rows button.confirm-delete"))
        page.click("#m-rows button.confirm-delete")
        page.wait(lambda: "jasmine" not in page.text("#m-rows"))

        for name in ("Playground", "Requests", "Engine", "Owners"):
            page.tab(name)
            page.wait(
                lambda: (
                    page.text("#status")
                    and "error" not in page.find("#status").get_attribute("class")
                )
            )
            page.screenshot(name.lower())
        # Keyboard: arrows move between tabs, Home goes to the first.
        page.find("#tab-owners").send_keys("\ue012")  # ArrowLeft
        page.wait(
            lambda: page.find("#tab-engine").get_attribute("aria-selected") == "true"
        )
        page.find("#tab-engine").send_keys("\ue011")  # Home
        page.wait(
            lambda: page.find("#tab-memories").get_attribute("aria-selected") == "true"
        )
        # The one 401 is the first load, before the token was given.
        assert [e for e in page.console_errors() if "(Unauthorized)" not in e] == []

    await asyncio.to_thread(script)
    listed = await admin.call("GET", "/api/memories", params={"owner": OWNER})
    assert [m["content"] for m in listed.body["items"]] == [
        "works on the billing service"
    ]


async def test_playground_shows_ranked_results_the_block_and_the_resolution(
    admin: Admin, browser: object
) -> None:
    await admin.create(owner=OWNER, content="deploys with Terraform on AWS")
    await admin.create(owner=OWNER, content="has a cat named Miso")

    def script() -> None:
        page = studio(browser, admin)
        page.tab("Playground")
        page.type("#p-owner", OWNER)
        page.type("#p-query", "how do I deploy with Terraform?")
        page.type("#p-budget", "300")
        page.click("#p-form button[type=submit]")
        page.wait_text("#p-rows", "Terraform")
        first = page.find("#p-rows tr").text
        assert "Terraform" in first and "keyword" in first
        block = page.wait_text("#p-block", "<memtap:memories>")
        assert "Terraform" in block and "Miso" not in block
        assert "strategy" in page.text("#p-resolution")
        assert "max_tokens" in page.text("#p-resolution")
        page.screenshot("playground")

    await asyncio.to_thread(script)


async def test_requests_tab_shows_a_proxied_request_with_its_injected_memory(
    admin: Admin, browser: object
) -> None:
    memory = await admin.create(owner=OWNER, content="prefers green tea over coffee")
    learning = await chat(admin, "I prefer aisle seats on long flights.")
    learnt_id = learning.headers["X-Memtap-Request-Id"]
    response = await chat(admin, "Which tea should I buy?")
    assert response.headers["X-Memtap-Memories"] == "1"
    request_id = response.headers["X-Memtap-Request-Id"]

    def script() -> None:
        page = studio(browser, admin)
        page.tab("Requests")
        row_css = f'#r-rows tr[data-request-id="{request_id}"]'
        row = page.wait(lambda: page.find(row_css))
        assert (
            OWNER in row.text
            and "openai-chat" in row.text
            and "gpt-4o-mini" in row.text
        )
        link = row.find_element("css selector", "a.memory-link")
        assert link.get_attribute("title") == memory["id"]
        # The earlier turn's extraction shows up once the outbox worker is done with it.
        learnt_css = f'#r-rows tr[data-request-id="{learnt_id}"]'
        page.click("#r-auto")
        learnt = page.wait(
            lambda: (
                page.find(learnt_css).find_elements("css selector", "a.memory-link")
                and page.find(learnt_css)
            )
        )
        assert learnt.find_elements("css selector", "td.ids")[1].text.startswith("1")
        page.click("#r-auto")
        page.find(row_css).find_elements("css selector", "a")[-1].click()
        detail = page.wait_text("#r-detail", request_id)
        assert memory["id"] in detail or "injected" in detail
        page.screenshot("requests")
        link = page.find(row_css).find_element("css selector", "a.memory-link")
        link.click()
        page.wait(
            lambda: page.find("#tab-memories").get_attribute("aria-selected") == "true"
        )
        page.wait_text("#m-rows", "prefers green tea")

    await asyncio.to_thread(script)


async def test_owners_tab_erases_with_a_typed_confirmation_and_shows_the_receipt(
    admin: Admin, browser: object
) -> None:
    await admin.create(owner=OWNER, content="lives in Lisbon")
    await admin.create(owner=OWNER, content="speaks Portuguese")
    await admin.create(owner="someone-else", content="unrelated")
    await chat(admin, "Where do I live?")

    def script() -> None:
        page = studio(browser, admin)
        page.tab("Owners")
        row_css = f'#o-rows tr[data-owner="{OWNER}"]'
        row = page.wait(lambda: page.find(row_css))
        assert row.text.split()[:3] == [OWNER, "2", "0"]
        page.screenshot("owners")
        row.find_element("css selector", "button.erase").click()
        go = page.wait(lambda: page.find("#o-erase-go"))
        assert not go.is_enabled()
        page.type("#o-erase-confirm", OWNER[:-1])
        assert not go.is_enabled()
        page.type("#o-erase-confirm", OWNER)
        page.wait(go.is_enabled)
        go.click()
        receipt = page.wait_text("#o-erase", "removed.memories")
        assert "Erased " + OWNER in receipt
        assert "removed.memories\n2" in receipt or "removed.memories 2" in receipt
        assert (
            "removed.requests_logged\n1" in receipt
            or "removed.requests_logged 1" in receipt
        )
        page.wait(lambda: page.all(row_css) == [])
        assert page.all('#o-rows tr[data-owner="someone-else"]')
        page.screenshot("owners-erased")

    await asyncio.to_thread(script)
    left = await admin.call("GET", "/api/memories", params={"owner": OWNER})
    assert left.body["total"] == 0


async def test_owners_tab_groups_the_end_users_of_a_key_under_it(
    admin: Admin, browser: object
) -> None:
    """End users behind one key (`KEYOWNER:USERTAG`) are listed under their key's row with
    their own counts; the key's row says how many it has, and exists (with zeros) when only
    its users have memories; one user is erased alone."""
    users = {name: end_user_owner(OWNER, user_tag(name)) for name in ("ann", "ben")}
    await admin.create(owner=OWNER, content="the app is called Hive")
    await admin.create(owner=users["ann"], content="keeps bees")
    await admin.create(owner=users["ann"], content="rides a cargo bike")
    await admin.create(owner=users["ben"], content="restores old radios")
    # A request naming ben by the header: counted under ben, not under the key.
    async with admin.http.post(
        admin.server.url + "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "radios?"}]},
        headers={"Authorization": f"Bearer {KEY}", "X-Memtap-User": "ben"},
    ) as response:
        assert response.status == 200
        await response.read()
    other_key = "fedcba9876543210fedcba98"
    lone = end_user_owner(other_key, user_tag("cy"))
    await admin.create(owner=lone, content="only a user of this key has memories")

    def script() -> None:
        page = studio(browser, admin)
        page.tab("Owners")
        page.wait(lambda: len(page.all("#o-rows tr")) == 5)
        rows = page.all("#o-rows tr")
        owners = [r.get_attribute("data-owner") for r in rows]
        # Each key's row first, its users right under it.
        for key, members in ((OWNER, set(users.values())), (other_key, {lone})):
            at = owners.index(key)
            assert set(owners[at + 1 : at + 1 + len(members)]) == members, owners
        cells = {
            r.get_attribute("data-owner"): [
                td.text for td in r.find_elements("css selector", "td")
            ]
            for r in rows
        }
        # owner, users, live, superseded, tokens, requests
        assert cells[OWNER][1:3] == ["2", "1"]
        assert cells[users["ann"]][1:3] == ["", "2"]
        assert cells[users["ben"]][1:3] == ["", "1"] and cells[users["ben"]][5] == "1"
        assert cells[other_key][1:4] == [
            "1",
            "0",
            "0",
        ]  # made up: only its user has any
        for user in (*users.values(), lone):
            row = rows[owners.index(user)]
            assert "end-user" in (row.get_attribute("class") or "")
            assert row.get_attribute("data-key-owner") in (OWNER, other_key)
        assert "2 owners, 3 end users" in page.text("#status")
        page.screenshot("owners-end-users")

        ann_css = f'#o-rows tr[data-owner="{users["ann"]}"]'
        page.find(ann_css).find_element("css selector", "button.erase").click()
        page.type("#o-erase-confirm", users["ann"])
        go = page.find("#o-erase-go")
        page.wait(go.is_enabled)
        go.click()
        receipt = page.wait_text("#o-erase", "removed.memories")
        assert "Erased " + users["ann"] in receipt
        assert "removed.memories\n2" in receipt or "removed.memories 2" in receipt
        page.wait(lambda: page.all(ann_css) == [])
        assert page.all(f'#o-rows tr[data-owner="{users["ben"]}"]')
        assert page.all(f'#o-rows tr[data-owner="{OWNER}"]')

        # The key's own erase says its users stay.
        key_row = page.find(f'#o-rows tr[data-owner="{OWNER}"]')
        key_row.find_element("css selector", "button.erase").click()
        assert "end users (1) keep" in page.wait_text("#o-erase", "end users")

    await asyncio.to_thread(script)
    left = await admin.call("GET", "/api/memories", params={"owner": users["ben"]})
    assert left.body["total"] == 1


async def test_engine_tab_reindexes_with_progress_and_edits_a_setting(
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
    browser: object,
) -> None:
    admin = await start_admin(
        memtap_server,
        memtap_config,
        http,
        memory=MemoryConfig(enabled=True, strategy="hybrid"),
        embedding=EmbeddingConfig(source="onnx"),
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
    )
    for n in range(30):
        await admin.create(owner=OWNER, content=f"fact number {n} about the project")

    def script() -> None:
        page = studio(browser, admin)
        page.tab("Engine")
        page.wait_text("#e-vector", "sqlite-vec")
        page.wait_text("#e-store", "sqlite")
        page.click("#e-force")
        page.click("#e-reindex")
        status = page.wait_text("#e-reindex-status", "done", timeout=90)
        # The pass rebuilds every vector; the background backfill may build a few of the
        # marked ones beside it (a loaded box: 25 of the 30 by the pass), and the bar
        # counts the pass's own.
        built = re.search(r"(\d+)(?: of (\d+))? vectors built", status)
        assert built is not None, status
        assert built[2] in (None, built[1]) and 0 < int(built[1]) <= 30, status
        bar = page.find("#e-progress")
        assert bar.get_attribute("value") == bar.get_attribute("max") == built[1]
        page.wait_text("#e-backlog", "0 memories wait")

        row_css = '#e-settings tr[data-setting="memory.max_tokens"]'
        row = page.find(row_css)
        assert "default" in row.text
        field = row.find_element("css selector", "input")
        field.clear()
        field.send_keys("0")
        row.find_element("css selector", "button.save").click()
        page.wait_text("#status", "memory.max_tokens")
        assert "error" in page.find("#status").get_attribute("class")
        row = page.find(row_css)
        field = row.find_element("css selector", "input")
        field.clear()
        field.send_keys("700")
        row.find_element("css selector", "button.save").click()
        page.wait(lambda: "override" in page.find(row_css).text)
        page.screenshot("engine")

    await asyncio.to_thread(script)
    assert admin.server.runtime.config.current.memory.max_tokens == 700


async def test_on_loopback_without_a_token_the_studio_needs_none(
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
    browser: object,
) -> None:
    admin = await start_admin(
        memtap_server, memtap_config, http, token=None, admin=AdminConfig(token=None)
    )
    await admin.create(owner=OWNER, content="uses vim keybindings")

    def script() -> None:
        page = studio(browser, admin, token=None)
        page.wait_text("#m-rows", "vim keybindings")
        page.tab("Owners")
        page.wait_text("#o-rows", OWNER)

    await asyncio.to_thread(script)


async def test_engine_tab_shows_qdrant_when_it_is_the_store(
    memtap_server: ServerFactory,
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
    browser: object,
    tmp_path: Path,
) -> None:
    admin = await start_admin(
        memtap_server,
        memtap_config,
        http,
        vector_store=VectorStoreConfig(
            kind="qdrant", qdrant=QdrantConfig(path=str(tmp_path / "qdrant"))
        ),
    )
    await admin.create(owner=OWNER, content="runs Qdrant locally")

    def script() -> None:
        page = studio(browser, admin)
        page.tab("Engine")
        card = page.wait(
            lambda: (
                page.find("#e-qdrant-card").is_displayed()
                and page.find("#e-qdrant-card")
            )
        )
        text = page.wait_text("#e-qdrant", "healthy")
        assert "health" in text and "ok" in text, text
        assert "qdrant" in page.text("#e-store")
        assert card.is_displayed()
        page.screenshot("engine-qdrant")

    await asyncio.to_thread(script)


async def test_memories_page_export_and_import(
    admin: Admin, browser: object, tmp_path: Path
) -> None:
    for n in range(27):
        await admin.create(owner=OWNER, content=f"note {n:02d} about the garden")
    imported = tmp_path / "memories.jsonl"
    live_id = "6f1c2a9e-5b7d-4c3e-9a10-2b8f4d6e8a01"
    imported.write_text(
        f'{{"id": "{live_id}", "owner": "importer", "content": "lives in Porto"}}\n'
        f'{{"owner": "importer", "content": "lives in Lisbon", "superseded_by": "{live_id}"}}\n'
    )

    def script() -> None:
        page = studio(browser, admin)
        page.wait_text("#m-page", "1–25 of 27")
        page.click("#m-next")
        page.wait_text("#m-page", "26–27 of 27")
        assert len(page.all("#m-rows tr")) == 2
        page.click("#m-prev")
        page.wait_text("#m-page", "1–25 of 27")
        page.type("#m-owner", OWNER)
        page.click("#m-export")
        page.wait_text("#m-io", f"exported 27 memories of {OWNER}")
        page.find("#m-import").send_keys(str(imported))
        page.wait_text("#m-io", "2 created")
        page.type("#m-owner", "importer")
        page.wait_text("#m-rows", "lives in Porto")
        assert "Lisbon" not in page.text("#m-rows")
        # The history switch shows what a newer memory superseded.
        page.click("#m-history")
        superseded = page.wait(lambda: page.find("#m-rows tr.superseded"))
        assert "lives in Lisbon" in superseded.text and "superseded" in superseded.text
        page.wait(lambda: "superseded 1" in page.text("#m-stats"))

    await asyncio.to_thread(script)
