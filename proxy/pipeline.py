"""The addon pipeline: an ordered list of plain objects with lifecycle hooks.

Hook order for one request:
  request(flow)                 -- may rewrite flow.body / flow.request_headers
  response_headers(flow)        -- upstream status and headers known, nothing sent yet
  response_chunk(flow, chunk)   -- observer; called after the chunk was written to the client
  response_done(flow)           -- upstream body ended normally; awaited BEFORE the client
                                   sees the end of the body (durability of the outbox)
  error(flow, exc)              -- upstream failure, timeout or client disconnect
  finished(flow)                -- always last (access log, metrics)

Every call is guarded: an addon that raises is logged (`addon.error`) and the chain goes on,
so a failing memory addon never fails the request.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from proxy.flow import Flow

log = logging.getLogger("memtap.pipeline")


class Addon:
    """Base class with no-op hooks; subclasses override the ones they need."""

    name = "addon"

    async def request(self, flow: Flow) -> None:
        return None

    async def response_headers(self, flow: Flow) -> None:
        return None

    def response_chunk(self, flow: Flow, chunk: bytes) -> None:
        return None

    async def response_done(self, flow: Flow) -> None:
        return None

    async def error(self, flow: Flow, exc: BaseException) -> None:
        return None

    async def finished(self, flow: Flow) -> None:
        return None


class Pipeline:
    def __init__(self, addons: Sequence[Addon]) -> None:
        self.addons: tuple[Addon, ...] = tuple(addons)
        # Only addons that override response_chunk are called per chunk: the hot path.
        self._chunk_observers = tuple(
            a for a in self.addons if type(a).response_chunk is not Addon.response_chunk
        )

    def _failed(self, addon: Addon, hook: str, flow: Flow, exc: BaseException) -> None:
        log.error(
            "addon.error",
            extra={
                "fields": {
                    "addon": addon.name,
                    "hook": hook,
                    "request_id": flow.request_id,
                    "error": repr(exc),
                }
            },
            exc_info=exc,
        )

    async def _call(self, hook: str, flow: Flow, *args: Any) -> None:
        for addon in self.addons:
            try:
                await getattr(addon, hook)(flow, *args)
            except Exception as exc:  # noqa: BLE001 - an addon must never fail the request
                self._failed(addon, hook, flow, exc)

    async def request(self, flow: Flow) -> None:
        await self._call("request", flow)

    async def response_headers(self, flow: Flow) -> None:
        await self._call("response_headers", flow)

    def response_chunk(self, flow: Flow, chunk: bytes) -> None:
        for addon in self._chunk_observers:
            try:
                addon.response_chunk(flow, chunk)
            except Exception as exc:  # noqa: BLE001
                self._failed(addon, "response_chunk", flow, exc)

    async def response_done(self, flow: Flow) -> None:
        await self._call("response_done", flow)

    async def error(self, flow: Flow, exc: BaseException) -> None:
        await self._call("error", flow, exc)

    async def finished(self, flow: Flow) -> None:
        await self._call("finished", flow)
