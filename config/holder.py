"""The live configuration: YAML file + flags (the base) + runtime overrides (admin API).

`holder.current` is what every request reads. It is replaced as a whole (configs are frozen),
never mutated, so a request that took `current` at its start sees one consistent config.
Swaps happen on the event loop; file reads and parsing run in a thread.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Mapping
from typing import Any

from memtap.config.convert import get_path, replace_path, resolve_field
from memtap.config.errors import ConfigError
from memtap.config.loader import (
    LoadedConfig,
    load_config_bytes,
    load_config_detailed,
    resolve_config_path,
)
from memtap.config.reload import FileSnapshot, FileWatcher, take_snapshot
from memtap.config.schema import Config
from memtap.config.settings import apply_overrides, setting_value

log = logging.getLogger("memtap.config")

Subscriber = Callable[[Config, Config, list[str]], None]
"""Called as `callback(old, new, changed_keys)` after every swap (reload or override)."""

RESTART_KEYS: tuple[str, ...] = (
    "listen",
    "data_dir",
    "admin.listen",
    "vector_store.kind",
    "embedding.multilingual",
    "log.format",
    "log.file",
)
"""Keys a running process cannot change (sockets bound, database and log handler opened at
start): a reload keeps their running value and reports them as `requires_restart`."""


def changed_keys(old: Any, new: Any, path: str = "") -> list[str]:
    """Dotted paths whose value differs (`memory.max_tokens`, `upstreams[1].url`); a list of
    a different length is reported as the list itself (`upstreams`)."""
    if old == new:
        return []
    if (
        dataclasses.is_dataclass(old)
        and type(old) is type(new)
        and not isinstance(old, type)
    ):
        found: list[str] = []
        for f in dataclasses.fields(old):
            child = f"{path}.{f.name}" if path else f.name
            found += changed_keys(getattr(old, f.name), getattr(new, f.name), child)
        return found
    if (
        isinstance(old, tuple)
        and isinstance(new, tuple)
        and len(old) == len(new)
        and any(dataclasses.is_dataclass(item) for item in old)
    ):
        found = []
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            found += changed_keys(a, b, f"{path}[{i}]")
        return found
    return [path]


class ConfigHolder:
    def __init__(
        self,
        base: Config,
        path: str | None = None,
        overrides_from_flags: Mapping[str, Any] | None = None,
        *,
        explicit: frozenset[str] | None = None,
        digest: str | None = None,
    ) -> None:
        """`base` = the config loaded from `path` with `overrides_from_flags` applied (as
        `load_config` returns it). `path` None means `config/memtap.yaml` if it exists, like
        `load_config`. `explicit`/`digest` come from `load_config_detailed`; when omitted the
        file is read once here (call `ConfigHolder.load` to avoid the second read)."""
        self.path = resolve_config_path(path)
        self.overrides_from_flags: dict[str, Any] = dict(overrides_from_flags or {})
        self._base = base
        self._current = base
        self._runtime: dict[str, Any] = {}
        self._subscribers: list[Subscriber] = []
        if self.path is not None and (explicit is None or digest is None):
            snapshot = take_snapshot(self.path)
            digest = digest if digest is not None else snapshot.digest
            if explicit is None and snapshot.raw is not None:
                explicit = _explicit_paths(
                    snapshot.raw, self.path, self.overrides_from_flags
                )
        self._explicit = explicit or frozenset()
        self._watcher = (
            FileWatcher(self.path, self._on_file_change, digest=digest)
            if self.path is not None
            else None
        )

    @classmethod
    def load(
        cls, path: str | None, overrides_from_flags: Mapping[str, Any] | None = None
    ) -> ConfigHolder:
        """Load the file (raises ConfigError) and hold it: what `memtap serve` calls."""
        loaded = load_config_detailed(path, overrides_from_flags)
        return cls(
            loaded.config,
            loaded.path,
            overrides_from_flags,
            explicit=loaded.explicit,
            digest=loaded.digest,
        )

    # -- reading ---------------------------------------------------------------------------
    @property
    def current(self) -> Config:
        """The effective config: YAML + flags, then runtime overrides."""
        return self._current

    @property
    def base(self) -> Config:
        """YAML + flags, without runtime overrides."""
        return self._base

    @property
    def runtime_overrides(self) -> dict[str, Any]:
        """A copy of the runtime overrides, name → JSON-friendly value."""
        return dict(self._runtime)

    @property
    def explicit(self) -> frozenset[str]:
        """Dotted paths set explicitly by the YAML file or a flag."""
        return self._explicit

    @staticmethod
    def changed_keys(old: Config, new: Config) -> list[str]:
        return changed_keys(old, new)

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Register `callback(old, new, changed_keys)`; returns a function that unsubscribes."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    # -- runtime overrides (admin settings API) ----------------------------------------------
    def apply_runtime_overrides(self, overrides: Mapping[str, Any]) -> Config:
        """Make `overrides` the complete set of runtime overrides (pass
        `{**holder.runtime_overrides, **changes}` to add to them) and swap. All-or-nothing: an
        invalid name or value raises ConfigError naming the setting and changes nothing."""
        new = apply_overrides(self._base, overrides)
        previous = self._runtime
        self._runtime = {name: setting_value(new, name) for name in overrides}
        touched = sorted(
            set(previous) ^ set(self._runtime)
            | {
                name
                for name in self._runtime
                if previous.get(name) != self._runtime[name]
            }
        )
        self._swap(self._base, new, "config.overrides_applied", {"names": touched})
        return new

    def drop_runtime_override(self, name: str) -> Config:
        """Remove one runtime override (the YAML/default value applies again). KeyError when
        `name` has no override."""
        if name not in self._runtime:
            raise KeyError(name)
        return self.apply_runtime_overrides(
            {k: v for k, v in self._runtime.items() if k != name}
        )

    # -- hot reload ------------------------------------------------------------------------
    async def start_watching(self, interval_s: float = 1.0) -> None:
        """Poll the file every `interval_s` and reload on change. No-op without a file."""
        if self._watcher is not None:
            self._watcher.start(interval_s)

    async def stop_watching(self) -> None:
        if self._watcher is not None:
            await self._watcher.stop()

    async def check_file(self) -> bool:
        """Poll the file once now (tests, SIGHUP); True when a change was handled."""
        return self._watcher is not None and await self._watcher.poll()

    async def _on_file_change(self, snapshot: FileSnapshot) -> None:
        assert self.path is not None
        if snapshot.raw is None:
            self._reload_failed([f"{self.path}: file not found"])
            return
        try:
            loaded = await asyncio.to_thread(
                load_config_bytes, snapshot.raw, self.path, self.overrides_from_flags
            )
            self.reload_loaded(loaded)
        except ConfigError as exc:
            self._reload_failed([str(issue) for issue in exc.errors])

    def reload_loaded(self, loaded: LoadedConfig) -> None:
        """Swap to a freshly loaded base (validated), keeping runtime overrides. Keys in
        RESTART_KEYS keep their running value and are reported as `requires_restart`.
        Raises ConfigError when the runtime overrides no longer apply."""
        new_base = loaded.config
        requires_restart = [
            key
            for key in RESTART_KEYS
            if setting_path_value(new_base, key) != setting_path_value(self._base, key)
        ]
        for key in requires_restart:
            parts = key.split(".")
            new_base = replace_path(new_base, parts, get_path(self._base, parts))
        new = apply_overrides(new_base, self._runtime)
        self._explicit = loaded.explicit
        self._swap(
            new_base,
            new,
            "config.reloaded",
            {"path": self.path, "requires_restart": requires_restart},
            always_log=True,
        )

    def _reload_failed(self, errors: list[str]) -> None:
        log.error(
            "config.reload_failed",
            extra={
                "fields": {
                    "path": self.path,
                    "errors": errors,
                    "kept": "previous config",
                }
            },
        )

    def _swap(
        self,
        new_base: Config,
        new: Config,
        event: str,
        fields: dict[str, Any],
        *,
        always_log: bool = False,
    ) -> None:
        old = self._current
        changed = changed_keys(old, new)
        self._base = new_base
        self._current = new
        if changed or always_log:
            log.info(event, extra={"fields": {**fields, "changed": changed}})
        if not changed:
            return
        for callback in list(self._subscribers):
            try:
                callback(old, new, changed)
            except Exception:  # one bad subscriber must not block the others
                log.exception(
                    "config.subscriber_failed",
                    extra={
                        "fields": {
                            "subscriber": getattr(
                                callback, "__qualname__", repr(callback)
                            )
                        }
                    },
                )


def setting_path_value(config: Config, dotted: str) -> Any:
    resolved = resolve_field(Config, dotted)
    if resolved is None:
        raise KeyError(dotted)
    return get_path(config, resolved[0])


def _explicit_paths(raw: bytes, path: str, flags: Mapping[str, Any]) -> frozenset[str]:
    """Explicit keys of a file that is already known to be valid (best effort: empty on error)."""
    try:
        return load_config_bytes(raw, path, flags).explicit
    except ConfigError:
        return frozenset()
