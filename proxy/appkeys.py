"""Typed application state (aiohttp AppKeys): the few places where long-lived state lives."""

from __future__ import annotations

from typing import TYPE_CHECKING

import aiohttp
from aiohttp import web

from engine.metrics import Metrics

if TYPE_CHECKING:
    from config.holder import ConfigHolder
    from engine.api import MemoryEngine
    from proxy.pipeline import Pipeline

CONFIG = web.AppKey("config", "ConfigHolder")
"""The live configuration (YAML + flags + runtime overrides); swapped atomically on reload."""
ENGINE = web.AppKey("engine", "MemoryEngine | None")
"""None when memory could not start: the proxy then runs as a pure pass-through."""
METRICS = web.AppKey("metrics", Metrics)
PIPELINE = web.AppKey("pipeline", "Pipeline")
UPSTREAM_SESSION = web.AppKey("upstream_session", aiohttp.ClientSession)
