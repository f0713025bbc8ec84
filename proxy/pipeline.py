"""The addon pipeline: an ordered list of plain objects with lifecycle hooks.

Hook order for one request:
  request_headers(flow)         -- route, owner and X-Memtap-* known, body not read yet: the
                                   place to decide what the request needs (`flow.read_body`)
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

from memtap.proxy.flow import Flow

log = logging.getLogger("memtap.pipeline")


class Addon:
    """Base class with no-op hooks; subclasses override the ones they need."""

    name = "addon"
    uses_memory = False
    """True: the addon works with the memory engine, and leaves the pipeline while memory is
    switched off or has no engine (`proxy/addons/memory_switch.py`)."""

    async def request_headers(self, flow: Flow) -> None:
        return None

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


_HOOKS = (
    "request_headers",
    "request",
    "response_headers",
    "response_done",
    "error",
    "finished",
)


def _overriding(addons: tuple[Addon, ...], hook: str) -> tuple[Addon, ...]:
    base = getattr(Addon, hook)
    return tuple(a for a in addons if getattr(type(a), hook, base) is not base)


class Pipeline:
    def __init__(self, addons: Sequence[Addon]) -> None:
        self.addons: tuple[Addon, ...] = tuple(addons)
        # Per hook, only the addons that override it: a no-op hook costs no coroutine per
        # request (with memory off only the access log's `finished` is left).
        self._by_hook: dict[str, tuple[Addon, ...]] = {
            hook: _overriding(self.addons, hook) for hook in _HOOKS
        }
        # Only addons that override response_chunk are called per chunk: the hot path.
        self._chunk_observers = _overriding(self.addons, "response_chunk")
        self.has_chunk_observers = bool(self._chunk_observers)
        """False: the relay loop skips `response_chunk` altogether."""
        self.has_done_hooks = bool(self._by_hook["response_done"])
        """False: nothing to commit before the end of a body (no shielded task needed)."""

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
        for addon in self._by_hook[hook]:
            try:
                await getattr(addon, hook)(flow, *args)
            except Exception as exc:  # noqa: BLE001 - an addon must never fail the request
                self._failed(addon, hook, flow, exc)

    async def request_headers(self, flow: Flow) -> None:
        await self._call("request_headers", flow)

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
