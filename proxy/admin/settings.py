"""GET|PUT /api/settings, DELETE /api/settings/{name}: runtime overrides over the YAML base.

The YAML file (plus flags) is the base; overrides are stored in the database by the engine and
applied on top by the ConfigHolder. GET shows every runtime setting with its effective value
and source (default | yaml | override). PUT takes `{"memory.max_tokens": 800, ...}` or the
nested YAML shape `{"memory": {"max_tokens": 800}}`: all the values are validated together,
exactly like the YAML file, before anything is stored.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from aiohttp import web

from memtap.config.errors import ConfigError
from memtap.config.settings import SETTINGS_BY_NAME, apply_overrides, describe
from memtap.engine.api import InvalidInput, NotFound
from memtap.proxy.admin import validation
from memtap.proxy.admin.common import engine_of, json_response, runtime_of
from memtap.proxy.appkeys import Runtime

log = logging.getLogger("memtap.admin")

routes = web.RouteTableDef()

# One settings change at a time: validate-store-apply must not interleave with another.
# (asyncio.Lock binds to a loop only on first contended use, so it can be made at build time.)
SETTINGS_LOCK: Final = web.AppKey("settings_lock", asyncio.Lock)


def _settings_body(request: web.Request) -> dict[str, Any]:
    runtime = runtime_of(request)
    return {
        "settings": describe(runtime.config),
        "overrides": dict(runtime.config.runtime_overrides),
    }


@routes.get("/api/settings")
async def get_settings(request: web.Request) -> web.Response:
    return json_response(_settings_body(request))


def _flatten(changes: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """`{"memory": {"max_tokens": 800}}` (the YAML's shape) means `{"memory.max_tokens": 800}`.
    An object for a section whose keys are settings of their own (`memory.episodes`) is
    read key by key too: `{"memory.episodes": {"keep_assistant": false}}` changes that one
    key, and the section's other keys keep what the YAML (or an override) gave them."""
    flat: dict[str, Any] = {}
    for key, value in changes.items():
        name = prefix + key
        parts = (
            _flatten(value, name + ".")
            if isinstance(value, dict)
            and (name not in SETTINGS_BY_NAME or _has_own_settings(name))
            else {name: value}
        )
        for part, part_value in parts.items():
            if part in flat:
                raise InvalidInput(f"{part} is given twice", part)
            flat[part] = part_value
    return flat


def _has_own_settings(name: str) -> bool:
    return any(other.startswith(name + ".") for other in SETTINGS_BY_NAME)


@routes.put("/api/settings")
async def put_settings(request: web.Request) -> web.Response:
    changes = _flatten(await validation.read_json_object(request))
    if not changes:
        raise InvalidInput(
            'send at least one setting, e.g. {"memory.max_tokens": 800}', "body"
        )
    runtime = runtime_of(request)
    engine = engine_of(request)
    async with request.app[SETTINGS_LOCK]:
        merged = {**runtime.config.runtime_overrides, **changes}
        try:
            apply_overrides(runtime.config.base, merged)
        except ConfigError as exc:
            first = exc.errors[0]
            raise InvalidInput(f"{first.path}: {first.message}", first.path) from None
        for name, value in changes.items():
            await engine.save_override(name, value)
        runtime.config.apply_runtime_overrides(merged)
    log.info("settings.changed", extra={"fields": {"names": sorted(changes)}})
    return json_response(_settings_body(request))


@routes.delete("/api/settings/{name}")
async def delete_setting(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in SETTINGS_BY_NAME:
        raise NotFound(f"unknown setting {name!r}")
    runtime = runtime_of(request)
    engine = engine_of(request)
    async with request.app[SETTINGS_LOCK]:
        if name not in runtime.config.runtime_overrides:
            raise NotFound(f"setting {name!r} has no runtime override")
        await engine.delete_override(name)
        remaining = {
            k: v for k, v in runtime.config.runtime_overrides.items() if k != name
        }
        runtime.config.apply_runtime_overrides(remaining)
    log.info("settings.override_dropped", extra={"fields": {"name": name}})
    return json_response(_settings_body(request))


async def restore_overrides(runtime: Runtime) -> dict[str, Any]:
    """At start (after the engine opened): apply the overrides stored in the database on top
    of the YAML base. An override that no longer validates (the YAML changed under it) is
    skipped with a warning, not fatal. Returns the overrides applied."""
    if runtime.engine is None:
        return {}
    stored = await runtime.engine.load_overrides()
    valid: dict[str, Any] = {}
    for name, value in stored.items():
        try:
            apply_overrides(runtime.config.base, {**valid, name: value})
        except ConfigError as exc:
            log.warning(
                "settings.override_skipped",
                extra={"fields": {"name": name, "error": str(exc)}},
            )
            continue
        valid[name] = value
    if valid:
        runtime.config.apply_runtime_overrides(valid)
    return valid
