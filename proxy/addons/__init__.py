"""The pipeline, in order. Reading `default_addons` tells you what memtap does to a request.

1. inject (`proxy/addons/inject.py`): decides once, from the headers, whether memory takes
   part (`request_headers`); retrieves and injects the owner's memories (`request`).
2. capture (`proxy/addons/capture.py`): follows the response of what inject read and
   persists the turn (`response_done`). After inject: it acts on inject's reading.
3. request log (`proxy/addons/request_log.py`): one entry per memory request in the
   runtime's ring (`GET /_memtap/api/requests`) and the `X-Memtap-Request-Id` header; it
   stays while memory is off, to record why a request got no memory.
4. access log (`proxy/addons/access_log.py`): the `request.done` line and request metrics;
   last, so it sees what every other addon decided.

The memory addons (1, 2) leave the pipeline while memory is off (`proxy/addons/memory_switch.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtap.proxy.addons.access_log import AccessLog
from memtap.proxy.addons.capture import CaptureAddon
from memtap.proxy.addons.inject import InjectAddon
from memtap.proxy.addons.request_log import RequestLogAddon

if TYPE_CHECKING:
    from memtap.proxy.appkeys import Runtime
    from memtap.proxy.pipeline import Addon


def default_addons(runtime: Runtime) -> list[Addon]:
    return [
        InjectAddon(runtime),
        CaptureAddon(runtime),
        RequestLogAddon(runtime),
        AccessLog(runtime),
    ]
