"""The pipeline, in order. Reading `default_addons` tells you what memtap does to a request.

1. memory (`proxy/addons/memory.py`): owner, X-Memtap-* modes, retrieve + inject on the way
   in, follow the response and persist the turn (`response_done`) on the way out.
2. request log (`proxy/addons/request_log.py`): one entry per memory request in the
   runtime's ring (`GET /_memtap/api/requests`) and the `X-Memtap-Request-Id` header.
3. access log (`proxy/addons/access_log.py`): the `request.done` line and request metrics;
   last, so it sees what every other addon decided.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from memtap.proxy.addons.access_log import AccessLog
from memtap.proxy.addons.request_log import RequestLogAddon
from memtap.proxy.pipeline import Addon

if TYPE_CHECKING:
    from memtap.proxy.appkeys import Runtime

log = logging.getLogger("memtap.addons")


def default_addons(runtime: Runtime) -> list[Addon]:
    addons: list[Addon] = []
    memory = _memory_addon(runtime)
    if memory is not None:
        addons.append(memory)
    addons.append(RequestLogAddon(runtime))
    addons.append(AccessLog(runtime))
    return addons


def _memory_addon(runtime: Runtime) -> Addon | None:
    """The memory addon, or None (logged) when it cannot load: memtap then stays a pure proxy."""
    try:
        from memtap.proxy.addons.memory import MemoryAddon

        addon: Addon = MemoryAddon(runtime)
    except ModuleNotFoundError as exc:
        if exc.name != "memtap.proxy.addons.memory":
            log.error(
                "memory.addon_unavailable", extra={"fields": {"error": repr(exc)}}
            )
        return None
    except Exception as exc:
        log.error(
            "memory.addon_unavailable",
            extra={"fields": {"error": repr(exc)}},
            exc_info=exc,
        )
        return None
    return addon
