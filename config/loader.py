"""Load the configuration: YAML file (or built-in defaults) + command-line flags → `Config`.

Precedence: flags > YAML file > built-in defaults (the dataclass defaults in
`config/schema.py`). Every problem is reported at once, each named by its YAML path
(`upstreams[1].url: not a URL`) or, for a flag, by the flag (`--listen: ...`).
Runtime overrides (admin settings API) are applied on top by `config.settings`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

import yaml

from memtap.config.convert import (
    Issues,
    build_dataclass,
    convert,
    field_hints,
    set_dotted,
)
from memtap.config.errors import ConfigError, ConfigIssue
from memtap.config.schema import ApiFormat, Config, UpstreamConfig
from memtap.config.validate import validate

__all__ = [
    "DEFAULT_CONFIG_PATH",
    "FLAG_NAMES",
    "ConfigError",
    "ConfigIssue",
    "LoadedConfig",
    "load_config",
    "load_config_bytes",
    "load_config_detailed",
    "parse_config",
    "parse_yaml",
    "resolve_config_path",
]

DEFAULT_CONFIG_PATH = "config/memtap.yaml"
"""Used when no `-c` is given and this file exists relative to the working directory."""

FLAG_NAMES: Mapping[str, str] = {
    "listen": "--listen",
    "data_dir": "--data-dir",
    "admin.token": "--admin-token",
    "log.format": "--log-format",
    "log.level": "--log-level",
    "upstream": "--upstream",
    "format": "--format",
}
"""Override key (as passed by `memtap serve`) → the flag named in error messages. Any other
dotted config path (`memory.max_tokens`) is accepted as an override too, named as itself."""


@dataclass(frozen=True, slots=True)
class LoadedConfig:
    config: Config
    path: str | None
    """The file that was read; None when running on built-in defaults."""
    explicit: frozenset[str]
    """Dotted paths set explicitly by the file or by a flag (`memory.max_tokens`)."""
    digest: str | None
    """sha256 of the file's bytes (None without a file); the reloader compares it."""


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects a key given twice in one mapping (PyYAML keeps the last silently)."""


def _construct_mapping(
    loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False
) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if (
            key_node.tag == "tag:yaml.org,2002:merge"
        ):  # `<<: *anchor` may repeat and override
            continue
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, (str, int, float, bool)) and key in seen:
            raise yaml.constructor.ConstructorError(
                "while reading a mapping",
                node.start_mark,
                f"duplicate key {key!r}",
                key_node.start_mark,
            )
        seen.add(key)
    loader.flatten_mapping(node)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping
)


def parse_yaml(text: str, *, source: str) -> Any:
    """YAML text → plain data. Syntax errors become a ConfigError naming line and column."""
    try:
        return yaml.load(
            text, Loader=_StrictLoader
        )  # a SafeLoader subclass: no arbitrary objects
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = (
            f" at line {mark.line + 1}, column {mark.column + 1}"
            if mark is not None
            else ""
        )
        problem = exc.problem or exc.context or "syntax error"
        raise ConfigError(
            [ConfigIssue(source, f"invalid YAML{where}: {problem}")], source=source
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(
            [ConfigIssue(source, f"invalid YAML: {exc}")], source=source
        ) from None


def resolve_config_path(path: str | None) -> str | None:
    """The file to read: `path` itself, else `config/memtap.yaml` if it exists, else None."""
    if path is not None:
        return path
    return DEFAULT_CONFIG_PATH if os.path.isfile(DEFAULT_CONFIG_PATH) else None


def read_config_bytes(path: str) -> bytes:
    """The file's bytes, or a ConfigError naming the file. Blocking: call off the event loop."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise ConfigError([ConfigIssue(path, "file not found")], source=path) from None
    except OSError as exc:
        raise ConfigError(
            [ConfigIssue(path, f"cannot read: {exc.strerror or exc}")], source=path
        ) from None


def decode_config(raw: bytes, *, source: str) -> Any:
    """File bytes → parsed YAML data (ConfigError on bad encoding or syntax)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            [ConfigIssue(source, f"not UTF-8 text (byte {exc.start})")], source=source
        ) from None
    return parse_yaml(text, source=source)


def _from_data(data: Any, source: str, issues: Issues) -> Config:
    if data is None:  # an empty file (or one with only comments)
        data = {}
    if not isinstance(data, dict):
        issues.add(
            source,
            "the top level must be a mapping of settings (listen:, upstreams:, ...)",
        )
        return Config()
    config: Config = build_dataclass(Config, data, "", issues)
    return config


def _apply_flags(
    config: Config, overrides: Mapping[str, Any], issues: Issues
) -> tuple[Config, dict[str, str]]:
    """Apply flag overrides; returns the config and {dotted path: flag label} of what was set."""
    labels: dict[str, str] = {}
    values = {key: value for key, value in overrides.items() if value is not None}
    format_hint = field_hints(UpstreamConfig)["format"]
    api_format: ApiFormat | None = None
    if "format" in values:
        before = len(issues.items)
        converted = convert(
            values.pop("format"),
            format_hint,
            FLAG_NAMES["format"],
            issues,
            expand=False,
        )
        api_format = cast(ApiFormat, converted) if len(issues.items) == before else None
    if "upstream" in values:
        before = len(issues.items)
        url = convert(
            values.pop("upstream"), str, FLAG_NAMES["upstream"], issues, expand=False
        )
        if len(issues.items) == before:
            upstream = UpstreamConfig(
                name="default", url=url, format=api_format or "auto", prefix="/"
            )
            config = replace(config, upstreams=(upstream,))
            labels["upstreams"] = FLAG_NAMES["upstream"]
    elif api_format is not None:
        config = replace(
            config,
            upstreams=tuple(replace(u, format=api_format) for u in config.upstreams),
        )
        labels.update(
            {
                f"upstreams[{i}].format": FLAG_NAMES["format"]
                for i in range(len(config.upstreams))
            }
        )
    for dotted, value in values.items():
        label = FLAG_NAMES.get(dotted, dotted)
        before = len(issues.items)
        # Flag values are taken literally: a shell already expanded what it meant to.
        config = set_dotted(config, dotted, value, label, issues)
        if len(issues.items) == before:
            labels[dotted] = label
    return config, labels


def _covers(prefix: str, path: str) -> bool:
    return path == prefix or path.startswith((prefix + ".", prefix + "["))


def check(
    config: Config,
    issues: Issues,
    labels: Mapping[str, str] | None = None,
    *,
    only: frozenset[str] | None = None,
) -> list[ConfigIssue]:
    """Conversion issues + semantic issues of `config`, relabelled to the flag/setting that set
    a path (`labels`), skipping paths that already failed conversion. With `only`, semantic
    issues outside those dotted paths are ignored (used for runtime overrides)."""
    found = list(issues.items)
    labels = labels or {}
    for issue in validate(config):
        # A path that failed conversion holds a placeholder: checks on it, inside it or over
        # it (a list holding a placeholder item) would only repeat the first error.
        if any(
            _covers(failed, issue.path) or _covers(issue.path, failed)
            for failed in issues.failed
        ):
            continue
        if only is not None and not any(_covers(p, issue.path) for p in only):
            continue
        label = next((lab for p, lab in labels.items() if _covers(p, issue.path)), None)
        found.append(ConfigIssue(label, issue.message) if label else issue)
    return found


def _finish(
    config: Config, issues: Issues, labels: Mapping[str, str], source: str
) -> Config:
    problems = check(config, issues, labels)
    if problems:
        raise ConfigError(problems, source=source)
    return config


def parse_config(data: Any, *, source: str) -> Config:
    """Already-parsed YAML data → validated Config (ConfigError lists every problem)."""
    issues = Issues()
    config = _from_data(data, source, issues)
    return _finish(config, issues, {}, source)


def load_config_bytes(
    raw: bytes | None, path: str | None, overrides: Mapping[str, Any] | None = None
) -> LoadedConfig:
    """Build from the given file bytes (None: built-in defaults) + flag `overrides`. The
    reloader uses this so that what it hashed is exactly what it loads."""
    issues = Issues()
    if raw is None or path is None:
        config = Config()
        source = "(defaults)"
        digest = None
    else:
        config = _from_data(decode_config(raw, source=path), path, issues)
        source = path
        digest = hashlib.sha256(raw).hexdigest()
    config, labels = _apply_flags(config, overrides or {}, issues)
    config = _finish(config, issues, labels, source)
    explicit = frozenset(issues.present) | frozenset(labels)
    return LoadedConfig(config=config, path=path, explicit=explicit, digest=digest)


def load_config_detailed(
    path: str | None, overrides: Mapping[str, Any] | None = None
) -> LoadedConfig:
    """Like `load_config`, also returning which file was read, its digest and the explicit keys."""
    resolved = resolve_config_path(path)
    raw = read_config_bytes(resolved) if resolved is not None else None
    return load_config_bytes(raw, resolved, overrides)


def load_config(path: str | None, overrides: Mapping[str, Any] | None = None) -> Config:
    """Read `path` (None: `config/memtap.yaml` if present, else built-in defaults), apply the
    flag `overrides` ({"listen": ..., "upstream": ..., "format": ..., "log.level": ...}),
    validate, and return the Config. Raises ConfigError naming every problem."""
    return load_config_detailed(path, overrides).config
