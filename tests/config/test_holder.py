"""config/holder.py + config/settings.py: hot reload, runtime overrides, settings description."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from memtap.config.convert import resolve_field
from memtap.config.errors import ConfigError
from memtap.config.holder import ConfigHolder, changed_keys
from memtap.config.schema import Config
from memtap.config.settings import SETTINGS, apply_overrides, describe

Change = tuple[Config, Config, list[str]]

BASE_YAML = """\
listen: 127.0.0.1:7100
upstreams:
  - {name: openai, url: "https://api.openai.com"}
memory:
  max_tokens: 600
log:
  level: info
"""


def holder_for(
    tmp_path: Path, text: str = BASE_YAML, flags: dict[str, Any] | None = None
) -> tuple[ConfigHolder, Path]:
    path = tmp_path / "memtap.yaml"
    path.write_text(text, encoding="utf-8")
    return ConfigHolder.load(str(path), flags or {}), path


async def aholder_for(
    tmp_path: Path, text: str = BASE_YAML, flags: dict[str, Any] | None = None
) -> tuple[ConfigHolder, Path]:
    """holder_for off the event loop (file I/O never blocks the loop, as in production)."""
    return await asyncio.to_thread(holder_for, tmp_path, text, flags)


async def awrite(path: Path, text: str) -> None:
    await asyncio.to_thread(path.write_text, text, encoding="utf-8")


def record(holder: ConfigHolder) -> list[Change]:
    changes: list[Change] = []
    holder.subscribe(lambda old, new, keys: changes.append((old, new, keys)))
    return changes


def events(caplog: pytest.LogCaptureFixture, name: str) -> list[dict[str, Any]]:
    return [
        r.__dict__.get("fields", {}) for r in caplog.records if r.getMessage() == name
    ]


# -- changed_keys ----------------------------------------------------------------------------


def test_changed_keys_are_dotted_paths() -> None:
    base = Config()
    new = apply_overrides(base, {"memory.max_tokens": 900, "log.level": "debug"})
    assert changed_keys(base, new) == ["memory.max_tokens", "log.level"]
    assert ConfigHolder.changed_keys(base, base) == []


# -- hot reload ------------------------------------------------------------------------------


async def test_valid_edit_swaps_and_notifies_subscribers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memtap.config")
    holder, path = await aholder_for(tmp_path)
    changes = record(holder)
    old = holder.current
    await awrite(
        path,
        BASE_YAML.replace("max_tokens: 600", "max_tokens: 900").replace(
            "level: info", "level: debug"
        ),
    )
    assert await holder.check_file() is True
    assert holder.current.memory.max_tokens == 900
    assert holder.current.log.level == "debug"
    assert len(changes) == 1
    seen_old, seen_new, keys = changes[0]
    assert seen_old is old and seen_new is holder.current
    assert keys == ["memory.max_tokens", "log.level"]
    (fields,) = events(caplog, "config.reloaded")
    assert fields["changed"] == ["memory.max_tokens", "log.level"]
    assert fields["requires_restart"] == []


async def test_invalid_edit_keeps_old_config_and_logs_reload_failed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memtap.config")
    holder, path = await aholder_for(tmp_path)
    changes = record(holder)
    before = holder.current
    await awrite(path, BASE_YAML.replace("max_tokens: 600", "max_tokens: 0\n  foo: 1"))
    assert await holder.check_file() is True
    assert holder.current is before
    assert changes == []
    (fields,) = events(caplog, "config.reload_failed")
    assert fields["errors"] == [
        "memory.foo: unknown key",
        "memory.max_tokens: must be from 1 to 16000",
    ]
    assert not events(caplog, "config.reloaded")
    # the same bad content is not reported again; fixing it reloads
    assert await holder.check_file() is False
    await awrite(path, BASE_YAML.replace("max_tokens: 600", "max_tokens: 700"))
    assert await holder.check_file() is True
    assert holder.current.memory.max_tokens == 700


async def test_bad_yaml_syntax_and_deleted_file_keep_old_config(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    holder, path = await aholder_for(tmp_path)
    before = holder.current
    await awrite(path, "memory: [unclosed\n")
    await holder.check_file()
    await asyncio.to_thread(path.unlink)
    await holder.check_file()
    assert holder.current is before
    failures = [f["errors"][0] for f in events(caplog, "config.reload_failed")]
    assert failures[0].startswith(f"{path}: invalid YAML at line 2")
    assert failures[1] == f"{path}: file not found"


async def test_touch_without_content_change_does_not_reload(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memtap.config")
    holder, path = await aholder_for(tmp_path)
    await awrite(path, BASE_YAML)
    assert await holder.check_file() is False
    assert not events(caplog, "config.reloaded")


async def test_reload_keeps_flags_and_runtime_overrides(tmp_path: Path) -> None:
    holder, path = await aholder_for(tmp_path, flags={"log.level": "warning"})
    holder.apply_runtime_overrides({"memory.top_k": 5})
    await awrite(
        path,
        BASE_YAML.replace("level: info", "level: error").replace(
            "max_tokens: 600", "max_tokens: 800"
        ),
    )
    await holder.check_file()
    assert holder.current.log.level == "warning"  # the flag still wins over the file
    assert holder.current.memory.top_k == 5  # the runtime override still applies
    assert holder.current.memory.max_tokens == 800
    assert holder.base.memory.top_k == Config().memory.top_k


async def test_restart_only_keys_keep_running_value(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memtap.config")
    holder, path = await aholder_for(tmp_path)
    changes = record(holder)
    await awrite(
        path,
        BASE_YAML.replace("127.0.0.1:7100", "127.0.0.1:7200").replace(
            "max_tokens: 600", "max_tokens: 650"
        )
        + "data_dir: /elsewhere\n",
    )
    await holder.check_file()
    assert holder.current.listen == "127.0.0.1:7100"
    assert holder.current.data_dir == "./data"
    assert holder.current.memory.max_tokens == 650
    (fields,) = events(caplog, "config.reloaded")
    assert fields["requires_restart"] == ["listen", "data_dir"]
    assert fields["changed"] == ["memory.max_tokens"]
    assert changes[0][2] == ["memory.max_tokens"]


async def test_watcher_task_picks_up_an_edit(tmp_path: Path) -> None:
    holder, path = await aholder_for(tmp_path)
    seen = asyncio.Event()
    holder.subscribe(lambda old, new, keys: seen.set())
    await holder.start_watching(interval_s=0.02)
    try:
        await awrite(path, BASE_YAML.replace("max_tokens: 600", "max_tokens: 1234"))
        await asyncio.wait_for(seen.wait(), timeout=5)
        assert holder.current.memory.max_tokens == 1234
    finally:
        await holder.stop_watching()
    await holder.stop_watching()  # idempotent


async def test_a_failing_subscriber_does_not_block_others(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    holder, _ = await aholder_for(tmp_path)

    def broken(old: Config, new: Config, keys: list[str]) -> None:
        raise RuntimeError("boom")

    holder.subscribe(broken)
    changes = record(holder)
    holder.apply_runtime_overrides({"memory.max_tokens": 100})
    assert len(changes) == 1
    assert events(caplog, "config.subscriber_failed")


def test_holder_without_file_runs_on_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    holder = ConfigHolder(Config(), None, {})
    assert holder.path is None
    assert holder.current == Config()


@pytest.fixture
def empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


async def test_holder_without_file_watching_is_a_noop(empty_cwd: Path) -> None:
    holder = await asyncio.to_thread(ConfigHolder, Config(), None, {})
    await holder.start_watching(0.01)
    assert await holder.check_file() is False
    await holder.stop_watching()


# -- runtime overrides and settings ---------------------------------------------------------


def test_every_setting_is_a_real_config_path_with_help() -> None:
    names = [spec.name for spec in SETTINGS]
    assert len(names) == len(set(names))
    for spec in SETTINGS:
        assert resolve_field(Config, spec.name) is not None, spec.name
        assert len(spec.help) > 10, spec.name
    memory_fields = {f"memory.{name}" for name in Config().memory.__slots__}
    assert memory_fields <= set(names)
    assert {"embedding.source", "log.level"} <= set(names)


def test_apply_overrides_validates_like_yaml() -> None:
    config = apply_overrides(
        Config(),
        {"memory.max_tokens": 800, "memory.extract_from": ["user", "assistant"]},
    )
    assert config.memory.max_tokens == 800
    assert config.memory.extract_from == ("user", "assistant")
    with pytest.raises(ConfigError) as info:
        apply_overrides(
            Config(),
            {
                "memory.max_tokens": 0,
                "memory.strategy": "fancy",
                "memory.top_k": "5",
                "listen": "0.0.0.0:1",
                "memory.nope": 1,
            },
        )
    assert sorted(map(str, info.value.errors)) == [
        "listen: not a runtime setting",
        "memory.max_tokens: must be from 1 to 16000",
        "memory.nope: unknown setting",
        "memory.strategy: must be one of recent, keyword, semantic, hybrid",
        'memory.top_k: expected an integer, got a string "5"',
    ]


def test_apply_overrides_does_not_expand_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MT_SECRET", "debug")
    with pytest.raises(ConfigError, match="log.level: must be one of"):
        apply_overrides(Config(), {"log.level": "${MT_SECRET}"})


def test_holder_runtime_overrides_replace_and_drop(tmp_path: Path) -> None:
    holder, _ = holder_for(tmp_path)
    changes = record(holder)
    holder.apply_runtime_overrides(
        {"memory.max_tokens": 900, "memory.extract_from": ("user", "assistant")}
    )
    assert holder.current.memory.max_tokens == 900
    assert holder.base.memory.max_tokens == 600
    assert holder.runtime_overrides == {
        "memory.max_tokens": 900,
        "memory.extract_from": ["user", "assistant"],
    }
    assert changes[-1][2] == ["memory.max_tokens", "memory.extract_from"]

    with pytest.raises(ConfigError) as info:
        holder.apply_runtime_overrides({**holder.runtime_overrides, "memory.top_k": 0})
    assert [str(e) for e in info.value.errors] == ["memory.top_k: must be at least 1"]
    assert holder.current.memory.max_tokens == 900  # all-or-nothing

    holder.drop_runtime_override("memory.max_tokens")
    assert holder.current.memory.max_tokens == 600
    assert holder.runtime_overrides == {"memory.extract_from": ["user", "assistant"]}
    with pytest.raises(KeyError):
        holder.drop_runtime_override("memory.max_tokens")
    holder.apply_runtime_overrides({})
    assert holder.current == holder.base


def test_describe_reports_value_and_source(tmp_path: Path) -> None:
    holder, _ = holder_for(
        tmp_path,
        BASE_YAML + "embedding:\n  source: none\n",
        flags={"log.level": "debug"},
    )
    holder.apply_runtime_overrides({"memory.top_k": 7})
    rows = {row["name"]: row for row in describe(holder)}
    assert [row["name"] for row in describe(holder)] == [spec.name for spec in SETTINGS]
    assert (
        rows["memory.top_k"]["source"] == "override"
        and rows["memory.top_k"]["value"] == 7
    )
    assert (
        rows["embedding.source"]["source"] == "yaml"
        and rows["embedding.source"]["value"] == "none"
    )
    # set explicitly in the file, even though it equals the default
    assert rows["memory.max_tokens"]["source"] == "yaml"
    assert (
        rows["log.level"]["source"] == "yaml" and rows["log.level"]["value"] == "debug"
    )  # from the flag
    assert rows["memory.strategy"]["source"] == "default"
    assert rows["memory.extract_from"]["value"] == ["user"]
    assert all(row["help"] for row in rows.values())


def test_holder_constructed_directly_reads_explicit_keys(tmp_path: Path) -> None:
    path = tmp_path / "memtap.yaml"
    path.write_text(BASE_YAML)
    from memtap.config.loader import load_config

    holder = ConfigHolder(load_config(str(path)), str(path), {})
    rows = {row["name"]: row["source"] for row in describe(holder)}
    assert rows["memory.max_tokens"] == "yaml"
    assert rows["memory.top_k"] == "default"


def test_apply_log_level_subscriber(tmp_path: Path) -> None:
    from memtap.config.settings import apply_log_level

    root = logging.getLogger()
    previous = root.level
    holder, _ = holder_for(tmp_path)
    holder.subscribe(apply_log_level)
    try:
        holder.apply_runtime_overrides({"log.level": "error"})
        assert root.level == logging.ERROR
        holder.apply_runtime_overrides({"log.level": "debug"})
        assert root.level == logging.DEBUG
    finally:
        root.setLevel(previous)


async def test_vector_store_kind_change_requires_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memtap.config")
    holder, path = await aholder_for(tmp_path)
    await awrite(path, BASE_YAML + "vector_store:\n  kind: none\n")
    await holder.check_file()
    assert holder.current.vector_store.kind == "auto"
    (fields,) = events(caplog, "config.reloaded")
    assert fields["requires_restart"] == ["vector_store.kind"]
    assert fields["changed"] == []
