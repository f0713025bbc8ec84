"""The admin web page's script (proxy/admin/static/admin.js), driven in node with a minimal
DOM stand-in against a real memtap: list, search, add, delete and retrieve-preview."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest

from memtap.config.schema import Config
from tests.conftest import MemtapServer
from tests.support.admin import OWNER, TOKEN, Admin, start_admin
from tests.support.standin import Standin

DRIVER = Path(__file__).parent.parent / "admin_page" / "drive_page.js"
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
async def test_page_script_against_the_api(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> None:
    admin: Admin = await start_admin(memtap_server, memtap_config, http)
    assert NODE is not None
    proc = await asyncio.create_subprocess_exec(
        NODE,
        str(DRIVER),
        admin.server.url,
        TOKEN,
        OWNER,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    page = json.loads(out)

    assert "unauthorized" in page["statusWithoutToken"]
    contents = [row[4] for row in page["listed"]]
    assert contents == [
        "works on the billing service",
        "<img src=x onerror=alert(1)> prefers green tea",
    ]
    assert [row[4] for row in page["searched"]] == ["works on the billing service"]
    assert (
        page["previewed"] and page["previewed"][0][5] == "works on the billing service"
    )
    assert json.loads(page["resolution"])
    assert (
        page["block"].startswith("<memtap:memories>")
        and "billing service" in page["block"]
    )
    assert page["afterDelete"] == []
    listed = await admin.call("GET", "/api/memories", params={"owner": OWNER})
    assert [m["content"] for m in listed.body["items"]] == [
        "<img src=x onerror=alert(1)> prefers green tea"
    ]
    assert "DELETE api/memories/" in " ".join(page["calls"])
