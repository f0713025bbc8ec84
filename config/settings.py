"""Runtime-overridable settings: the schema's keys declared `runtime=True`.

Each is declared once, on its field in `config/schema.py` (`config/declare.py`: name, type,
default, range, help); this module derives the list from there.

The admin API (`GET|PUT /_memtap/api/settings`, `DELETE /_memtap/api/settings/{name}`) lists
and changes exactly these; the engine persists overrides (name → JSON value) and they are
re-applied on top of the YAML file at start and after every reload. Values are converted and
validated exactly like the YAML file (same converter, same semantic checks), without `${VAR}`
expansion.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from memtap.config.convert import Issues, get_path, resolve_field, set_dotted, to_plain
from memtap.config.declare import declared_keys
from memtap.config.errors import ConfigError
from memtap.config.loader import check
from memtap.config.schema import Config

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

Source = Literal["default", "yaml", "override"]


@dataclass(frozen=True, slots=True)
class SettingSpec:
    name: str
    """Dotted config path, e.g. `memory.max_tokens`."""
    help: str
    type: str
    """The value's type in words (`integer`, `recent | keyword | semantic | hybrid`)."""
    default: Any
    """The built-in default, JSON-friendly (tuples as lists)."""
    range: str
    """`1..16000`, `>= 1`, `> 0`; empty when the type says it all."""


SETTINGS: tuple[SettingSpec, ...] = tuple(
    SettingSpec(
        spec.name,
        spec.declared.help,
        spec.type_text,
        to_plain(spec.default),
        spec.range_text,
    )
    for spec in declared_keys(Config)
    if spec.declared.runtime
)
"""Exactly the keys declared `runtime=True` on the schema (`config/schema.py`), in its order."""

SETTINGS_BY_NAME: Mapping[str, SettingSpec] = {spec.name: spec for spec in SETTINGS}


class SettingView(TypedDict):
    name: str
    value: Any
    default: Any
    source: Source
    help: str
    type: str
    range: str | None


def apply_overrides(config: Config, overrides: Mapping[str, Any]) -> Config:
    """`config` with each runtime override applied (`{"memory.max_tokens": 800}`).
    Raises ConfigError naming the setting for an unknown name or an invalid value; the
    checks are the YAML file's (`memory.max_tokens: must be from 1 to 16000`)."""
    issues = Issues()
    for name, value in overrides.items():
        if name not in SETTINGS_BY_NAME:
            issues.add(
                name,
                "not a runtime setting"
                if resolve_field(Config, name)
                else "unknown setting",
            )
            continue
        config = set_dotted(config, name, value, name, issues)
    # Only the overridden paths are checked: an unrelated problem (a CA file deleted since
    # start) must not block changing memory.max_tokens.
    problems = check(config, issues, only=frozenset(overrides))
    if problems:
        raise ConfigError(problems, source="settings")
    return config


def setting_value(config: Config, name: str) -> Any:
    """JSON-friendly value of a setting in `config` (tuples become lists)."""
    resolved = resolve_field(Config, name)
    if resolved is None:
        raise KeyError(name)
    return to_plain(get_path(config, resolved[0]))


def describe(holder: ConfigHolder) -> list[SettingView]:
    """Every setting with its effective value and where it comes from: `override` (runtime,
    admin API), `yaml` (the file or a flag set it, or the base value differs from the
    built-in default), else `default`."""
    views: list[SettingView] = []
    for spec in SETTINGS:
        default = spec.default
        source: Source
        if _overridden(spec.name, holder.runtime_overrides):
            source = "override"
        elif (
            spec.name in holder.explicit
            or setting_value(holder.base, spec.name) != default
        ):
            source = "yaml"
        else:
            source = "default"
        views.append(
            SettingView(
                name=spec.name,
                value=setting_value(holder.current, spec.name),
                default=default,
                source=source,
                help=spec.help,
                type=spec.type,
                range=spec.range or None,
            )
        )
    return views


def _overridden(name: str, overrides: Mapping[str, Any]) -> bool:
    """Whether `name` or a section above it (a `memory.episodes` object stored by an older
    version) is overridden."""
    parts = name.split(".")
    return any(".".join(parts[:end]) in overrides for end in range(len(parts), 0, -1))


def apply_log_level(old: Config, new: Config, changed: list[str]) -> None:
    """A ConfigHolder subscriber that makes a changed `log.level` effective on the root
    logger (`holder.subscribe(apply_log_level)` once logging is configured)."""
    if "log.level" in changed:
        logging.getLogger().setLevel(new.log.level.upper())


TABLE_START = "<!-- settings table: generated from config/schema.py by scripts/settings_table.py -->"
TABLE_END = "<!-- end of settings table -->"


def settings_table() -> str:
    """The runtime settings as docs/configuration.md shows them (a markdown table), made
    from the declarations; tests/contract/test_docs_reference.py checks the page holds it."""
    rows = [
        "| Setting | Type | Default | Range | What it does |",
        "|---|---|---|---|---|",
    ]
    for spec in SETTINGS:
        default = (
            "its keys' defaults"
            if isinstance(spec.default, dict)
            else f"`{json.dumps(spec.default)}`"
        )
        cells = (f"`{spec.name}`", spec.type, default, spec.range, spec.help)
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join([TABLE_START, *rows, TABLE_END])
