"""The handler's side of the request_headers hook, on real sockets: it reads the body for
the `request` hooks exactly when a hook asked (`flow.read_body`), and streams it otherwise."""

from __future__ import annotations

import aiohttp
import pytest

from memtap.proxy.addons import default_addons
from memtap.proxy.flow import Flow
from memtap.proxy.pipeline import Addon
from tests.support.standin import Reply


class BodyWatcher(Addon):
    name = "body_watcher"

    def __init__(self, read: bool) -> None:
        self.read = read
        self.seen: list[tuple[int | None, bytes | None]] = []

    async def request_headers(self, flow: Flow) -> None:
        assert flow.body is None  # nothing is read before the decision
        flow.read_body = self.read

    async def request(self, flow: Flow) -> None:
        self.seen.append((flow.request_length, flow.body))


@pytest.mark.parametrize("read", [True, False], ids=["asked", "not-asked"])
async def test_the_body_is_read_only_when_a_hook_asks(
    read: bool, standin, memtap_server
) -> None:
    watcher = BodyWatcher(read)
    srv = await memtap_server(
        addons=lambda runtime: [watcher, *default_addons(runtime)]
    )
    standin.enqueue(Reply(status=200, headers={"Content-Type": "text/plain"}))
    payload = b'{"model": "m", "messages": []}'
    async with (
        aiohttp.ClientSession() as client,
        client.post(
            srv.url + "/v1/chat/completions",
            data=payload,
            headers={"Content-Type": "application/json"},
        ) as response,
    ):
        assert response.status == 200
        await response.read()
    assert watcher.seen == [(len(payload), payload if read else None)]
    assert standin.last().body == payload  # upstream gets the same bytes either way
