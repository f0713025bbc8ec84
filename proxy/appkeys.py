"""Typed application state: one `Runtime` object under one AppKey.

Long-lived resources are created in `proxy/server.py`'s cleanup_ctx and stored on the Runtime
(the app is frozen by then, so the mutable container is set at build time). Addons and the admin
sub-app read it (`request.config_dict[RUNTIME]`); nothing else is global.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import aiohttp
from aiohttp import web

from memtap.engine.events import EngineEvents
from memtap.engine.metrics import Metrics
from memtap.proxy.body_budget import BodyBudget
from memtap.proxy.request_log.ring import RequestLog
from memtap.proxy.turn_memory import TurnMemory

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder
    from memtap.engine.api import MemoryEngine
    from memtap.proxy.pipeline import Pipeline


@dataclass(slots=True)
class Runtime:
    config: ConfigHolder
    """The live configuration (YAML + flags + runtime overrides); `config.current` per request."""
    metrics: Metrics
    pipeline: Pipeline
    engine: MemoryEngine | None = None
    """None when memory is disabled or could not start: the proxy is then a pure pass-through."""
    engine_error: str | None = None
    upstream_session: aiohttp.ClientSession | None = None
    started_at: float = field(default_factory=time.time)
    draining: bool = False
    engine_events: EngineEvents = field(default_factory=EngineEvents)
    """Handed to every engine this runtime opens; the request log listens to it."""
    request_log: RequestLog = field(default_factory=RequestLog)
    turn_memory: TurnMemory = field(default_factory=TurnMemory)
    """What each user turn's first step injected, for the later steps of its tool loop."""
    body_budget: BodyBudget = field(default_factory=BodyBudget)
    """Bytes of request bodies read whole for memory, across requests in flight."""


RUNTIME = web.AppKey("runtime", Runtime)
