"""`admin.listen`: the admin sub-app on its own address, not on the proxy's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import aiohttp
import pytest

from memtap.config.schema import AdminConfig, Config
from tests.conftest import MemtapServer
from tests.support.admin import TOKEN, admin_config
from tests.support.standin import Standin


async def test_admin_on_its_own_listener(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> None:
    config = admin_config(
        memtap_config, admin=AdminConfig(token=TOKEN, listen="127.0.0.1:0")
    )
    server = await memtap_server(config)
    runner = server.running.admin_runner
    assert runner is not None and runner.addresses
    host, port = runner.addresses[0][:2]
    admin_url = f"http://{host}:{port}/_memtap"
    auth = {"Authorization": f"Bearer {TOKEN}"}

    async with http.post(
        admin_url + "/api/memories",
        json={"owner": "abc", "content": "on the side"},
        headers=auth,
    ) as response:
        assert response.status == 201
    async with http.get(admin_url + "/api/memories", headers=auth) as response:
        assert (await response.json())["total"] == 1
    async with http.get(admin_url + "/api/memories") as response:
        assert response.status == 401
    async with http.get(admin_url + "/health") as response:
        assert response.status == 200
    # The proxy port no longer serves the admin API.
    async with http.get(server.url + "/_memtap/api/memories", headers=auth) as response:
        assert response.status == 404
        assert (await response.json())["error"]["code"] == "not_found"
    # ...but liveness/readiness probes still answer there.
    async with http.get(server.url + "/_memtap/health") as response:
        assert response.status == 200 and (await response.json())["status"] == "ok"
    async with http.get(server.url + "/_memtap/readyz") as response:
        assert response.status == 200 and (await response.json())["ready"] is True
    async with http.get(server.url + "/_memtap/metrics") as response:
        assert response.status == 404

    await server.stop()
    with pytest.raises(aiohttp.ClientConnectionError):
        async with http.get(admin_url + "/health") as response:
            await response.read()
