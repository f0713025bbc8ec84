"""GET|PUT /api/settings and DELETE /api/settings/{name}: precedence default < yaml < override,
validation naming the field, persistence in the database, restore at start."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from memtap.config.loader import load_config
from memtap.proxy.admin.settings import restore_overrides
from tests.conftest import MemtapServer
from tests.support.admin import TOKEN, Admin
from tests.support.standin import Standin


def write_yaml(tmp_path: Path, standin: Standin) -> Path:
    doc = {
        "listen": "127.0.0.1:0",
        "data_dir": str(tmp_path / "data"),
        "upstreams": [{"name": "standin", "url": standin.url}],
        "admin": {"token": TOKEN},
        "memory": {"enabled": True, "strategy": "keyword", "max_tokens": 700},
        "embedding": {"source": "none"},
        "vector_store": {"kind": "none"},
    }
    path = tmp_path / "memtap.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


async def start(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    http: aiohttp.ClientSession,
    path: Path,
) -> Admin:
    server = await memtap_server(load_config(str(path)), config_path=path)
    assert server.runtime.engine is not None, server.runtime.engine_error
    return Admin(server, http, TOKEN)


def by_name(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["name"]: item for item in body["settings"]}


async def test_precedence_and_drop(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    http: aiohttp.ClientSession,
    standin: Standin,
    tmp_path: Path,
) -> None:
    admin = await start(memtap_server, http, write_yaml(tmp_path, standin))
    settings = by_name((await admin.call("GET", "/api/settings")).body)
    assert (
        settings["memory.max_tokens"]["value"] == 700
        and settings["memory.max_tokens"]["source"] == "yaml"
    )
    assert settings["memory.max_tokens"]["default"] == 600
    # Type and range as config/schema.py declares them; none for a word or a switch.
    assert (
        settings["memory.max_tokens"]["type"],
        settings["memory.max_tokens"]["range"],
    ) == ("integer", "1..16000")
    assert settings["memory.enabled"]["range"] is None
    assert (
        settings["memory.top_k"]["source"] == "default"
        and settings["memory.top_k"]["value"] == 20
    )
    assert all(item["help"] for item in settings.values())

    put = await admin.call(
        "PUT", "/api/settings", json={"memory.max_tokens": 900, "memory.top_k": 7}
    )
    assert put.status == 200, put.body
    settings = by_name(put.body)
    assert settings["memory.max_tokens"] == {
        **settings["memory.max_tokens"],
        "value": 900,
        "source": "override",
    }
    assert (
        settings["memory.top_k"]["value"] == 7
        and settings["memory.top_k"]["source"] == "override"
    )
    assert put.body["overrides"] == {"memory.max_tokens": 900, "memory.top_k": 7}
    # The live config changed (what the proxy reads per request) and the override is stored.
    assert admin.server.runtime.config.current.memory.max_tokens == 900
    assert await admin.engine.load_overrides() == {
        "memory.max_tokens": 900,
        "memory.top_k": 7,
    }

    dropped = await admin.call("DELETE", "/api/settings/memory.max_tokens")
    assert dropped.status == 200
    settings = by_name(dropped.body)
    assert (
        settings["memory.max_tokens"]["value"] == 700
        and settings["memory.max_tokens"]["source"] == "yaml"
    )
    assert settings["memory.top_k"]["source"] == "override"
    assert admin.server.runtime.config.current.memory.max_tokens == 700
    assert await admin.engine.load_overrides() == {"memory.top_k": 7}

    again = await admin.call("DELETE", "/api/settings/memory.max_tokens")
    assert again.status == 404 and again.error_code == "not_found"
    unknown = await admin.call("DELETE", "/api/settings/memory.nope")
    assert unknown.status == 404


async def test_a_section_object_changes_only_the_keys_it_gives(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    http: aiohttp.ClientSession,
    standin: Standin,
    tmp_path: Path,
) -> None:
    """`{"memory.episodes": {"keep_assistant": false}}` (or the nested form) overrides that
    key alone: the section's other keys keep what the YAML gave them (it once replaced the
    whole section, putting them back to their defaults and calling them "yaml")."""
    path = write_yaml(tmp_path, standin)
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["memory"]["episodes"] = {"max_snippets": 3, "snippet_tokens": 40}
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    admin = await start(memtap_server, http, path)
    for body in (
        {"memory.episodes": {"keep_assistant": False}},
        {"memory": {"episodes": {"keep_assistant": False}}},
    ):
        put = await admin.call("PUT", "/api/settings", json=body)
        assert put.status == 200, put.body
        assert put.body["overrides"] == {"memory.episodes.keep_assistant": False}
        episodes = admin.server.runtime.config.current.memory.episodes
        assert (
            episodes.keep_assistant,
            episodes.max_snippets,
            episodes.snippet_tokens,
        ) == (
            False,
            3,
            40,
        )
        settings = by_name(put.body)
        assert settings["memory.episodes.max_snippets"]["source"] == "yaml"
        assert settings["memory.episodes.keep_assistant"]["source"] == "override"
    twice = await admin.call(
        "PUT",
        "/api/settings",
        json={"memory.episodes": {"enabled": False}, "memory.episodes.enabled": True},
    )
    assert (
        twice.status == 400
        and twice.body["error"]["field"] == "memory.episodes.enabled"
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"memory.max_tokens": 0}, "memory.max_tokens"),
        ({"memory.max_tokens": "lots"}, "memory.max_tokens"),
        ({"memory.strategy": "magic"}, "memory.strategy"),
        ({"memory.unknown_knob": 1}, "memory.unknown_knob"),
        ({"listen": "0.0.0.0:1"}, "listen"),
        ({"admin.token": "steal"}, "admin.token"),
        ({"memory.top_k": 5, "memory.rrf_k": -3}, "memory.rrf_k"),
        ({"../etc": 1}, "../etc"),
        ({}, "body"),
    ],
)
async def test_invalid_settings_name_the_field_and_change_nothing(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    http: aiohttp.ClientSession,
    standin: Standin,
    tmp_path: Path,
    body: dict[str, Any],
    field: str,
) -> None:
    admin = await start(memtap_server, http, write_yaml(tmp_path, standin))
    reply = await admin.call("PUT", "/api/settings", json=body)
    assert reply.status == 400, reply.body
    assert (
        reply.body["error"]["code"] == "invalid"
        and reply.body["error"]["field"] == field
    )
    assert admin.server.runtime.config.current.memory.top_k == 20
    assert await admin.engine.load_overrides() == {}


async def test_end_user_settings_change_at_run_time_and_are_checked(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    http: aiohttp.ClientSession,
    standin: Standin,
    tmp_path: Path,
) -> None:
    """memory.users and memory.user_from are memory.* runtime settings like the others:
    listed with their source, set (either shape), validated like the file, dropped."""
    admin = await start(memtap_server, http, write_yaml(tmp_path, standin))
    settings = by_name((await admin.call("GET", "/api/settings")).body)
    assert settings["memory.users"]["value"] == "optional"
    assert settings["memory.user_from"]["value"] == ["header", "body"]
    assert settings["memory.users"]["source"] == "default"

    reply = await admin.call(
        "PUT",
        "/api/settings",
        json={"memory": {"users": "required", "user_from": ["body", "header"]}},
    )
    assert reply.status == 200, reply.body
    settings = by_name(reply.body)
    assert settings["memory.users"]["source"] == "override"
    memory = admin.server.runtime.config.current.memory
    assert memory.users == "required" and memory.user_from == ("body", "header")

    for bad, field in (
        ({"memory.users": "always"}, "memory.users"),
        ({"memory.user_from": ["cookie"]}, "memory.user_from[0]"),
        (
            {"memory.user_from": []},
            "memory.user_from",
        ),  # required: someone must name one
    ):
        reply = await admin.call("PUT", "/api/settings", json=bad)
        assert reply.status == 400 and reply.body["error"]["field"] == field, bad
    assert admin.server.runtime.config.current.memory.users == "required"

    reply = await admin.call("DELETE", "/api/settings/memory.users")
    assert reply.status == 200
    assert admin.server.runtime.config.current.memory.users == "optional"


async def test_overrides_survive_a_restart(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    http: aiohttp.ClientSession,
    standin: Standin,
    tmp_path: Path,
) -> None:
    path = write_yaml(tmp_path, standin)
    first = await start(memtap_server, http, path)
    reply = await first.call("PUT", "/api/settings", json={"memory.max_items": 3})
    assert reply.status == 200
    await first.server.stop()

    # A plain restart re-applies the stored override (the admin mount does it at start).
    second = await start(memtap_server, http, path)
    settings = by_name((await second.call("GET", "/api/settings")).body)
    assert settings["memory.max_items"]["value"] == 3
    assert settings["memory.max_items"]["source"] == "override"
    assert second.server.runtime.config.current.memory.max_items == 3


async def test_restore_skips_overrides_that_no_longer_validate(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    http: aiohttp.ClientSession,
    standin: Standin,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = write_yaml(tmp_path, standin)
    first = await start(memtap_server, http, path)
    # Stored behind the API's back: one valid, one invalid, one that is not a setting.
    await first.engine.save_override("memory.top_k", 9)
    await first.engine.save_override("memory.max_tokens", 0)
    await first.engine.save_override("listen", "0.0.0.0:1")
    await first.server.stop()

    second = await start(memtap_server, http, path)
    current = second.server.runtime.config.current
    assert current.memory.top_k == 9 and current.memory.max_tokens == 700
    assert current.listen != "0.0.0.0:1"
    skipped = [
        r for r in caplog.records if r.getMessage() == "settings.override_skipped"
    ]
    assert len(skipped) == 2
    assert await restore_overrides(second.server.runtime) == {"memory.top_k": 9}
