"""Build the frozen schema dataclasses from plain YAML/JSON values, generically.

Driven only by the dataclass fields and their type hints, so a field added to
`config/schema.py` is loaded, type-checked and reported without touching this module.
Supported hints: str, int, float, bool, Literal[...], X | None, tuple[X, ...], nested
dataclasses. Checks are strict (a bool is not an int, "600" is not an int) except that an int
is accepted where a float is expected, and a string that came from `${VAR}` expansion is read
as a YAML scalar when the key is not a string (so `max_tokens: ${MAX:-600}` works).

Conversion never stops at the first problem: every issue is recorded in `Issues` with its
path, and a failed value is replaced by the field's default (or a neutral placeholder) so the
rest of the file can still be checked. The result is only used when `Issues` stays empty.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from memtap.config.errors import ConfigIssue

_ENV_REF = re.compile(r"\$\$|\$\{([^}]*)\}")
_ENV_BODY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?", re.DOTALL)


@dataclass(slots=True)
class Issues:
    """Collects problems; `failed` holds the paths whose value was replaced by a fallback, so
    later semantic checks do not report the same path twice. `present` holds every path that
    was set explicitly in the input (used to tell "yaml" from "default" sources)."""

    items: list[ConfigIssue] = field(default_factory=list)
    failed: set[str] = field(default_factory=set)
    present: set[str] = field(default_factory=set)

    def add(self, path: str, message: str) -> None:
        self.items.append(ConfigIssue(path, message))
        self.failed.add(path)

    def __bool__(self) -> bool:
        return bool(self.items)


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def expand_env(
    text: str, path: str, issues: Issues, environ: Mapping[str, str] | None = None
) -> tuple[str, bool]:
    """Expand `${VAR}` and `${VAR:-default}` (default used when VAR is unset or empty);
    `$$` is a literal `$`. Returns (text, whether any reference was expanded)."""
    env = os.environ if environ is None else environ
    if "$" not in text:
        return text, False
    expanded = False
    bad: list[str] = []

    def substitute(match: re.Match[str]) -> str:
        nonlocal expanded
        if match.group(0) == "$$":
            return "$"
        body = match.group(1)
        parsed = _ENV_BODY.fullmatch(body)
        if parsed is None:
            bad.append(f"invalid variable reference ${{{body}}}")
            return ""
        name, default = parsed.group(1), parsed.group(2)
        expanded = True
        value = env.get(name)
        if value:
            return value
        if default is not None:
            return default
        if value is None:
            bad.append(
                f"environment variable {name} is not set (use ${{{name}:-default}} for a fallback)"
            )
        return ""

    result = _ENV_REF.sub(substitute, text)
    if "${" in _ENV_REF.sub("", text):
        bad.append("unterminated ${ in value")
    for message in bad:
        issues.add(path, message)
    return result, expanded


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return f'a string "{value}"' if len(value) <= 40 else "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _optional_inner(tp: Any) -> Any | None:
    """For `X | None` return X; None for any other hint."""
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        args = [arg for arg in typing.get_args(tp) if arg is not type(None)]
        if len(args) == 1 and len(typing.get_args(tp)) == 2:
            return args[0]
    return None


def placeholder(tp: Any) -> Any:
    """A well-typed stand-in for a value that failed to convert and has no default."""
    if _optional_inner(tp) is not None:
        return None
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return typing.get_args(tp)[0]
    if origin is tuple:
        return ()
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return build_dataclass(tp, {}, "", Issues())
    return {str: "", int: 0, float: 0.0, bool: False}.get(tp)


def _yaml_value(text: str) -> Any:
    """An expanded string read as YAML (`600` → 600, `[user]` → list); unparsable → as is."""
    try:
        return yaml.safe_load(text) if text.strip() else None
    except yaml.YAMLError:
        return text


def convert(
    value: Any,
    tp: Any,
    path: str,
    issues: Issues,
    *,
    environ: Mapping[str, str] | None = None,
    expand: bool = True,
) -> Any:
    """Convert `value` to type hint `tp`, recording problems under `path`.
    Returns a well-typed value in every case (a placeholder on failure). With `expand=False`
    strings are taken literally (flags, admin API values: never read the process environment
    on behalf of a remote caller)."""
    expanded = False
    if isinstance(value, str) and expand:
        value, expanded = expand_env(value, path, issues, environ)
        if path in issues.failed:
            return placeholder(tp)
        if expanded and not _accepts_str(tp):
            value = _yaml_value(value)
    return _convert_plain(value, tp, path, issues, expanded, environ, expand)


def _accepts_str(tp: Any) -> bool:
    inner = _optional_inner(tp)
    tp = inner if inner is not None else tp
    return tp is str or typing.get_origin(tp) is typing.Literal


def _convert_plain(
    value: Any,
    tp: Any,
    path: str,
    issues: Issues,
    expanded: bool,
    environ: Mapping[str, str] | None,
    expand: bool,
) -> Any:
    inner = _optional_inner(tp)
    if inner is not None:
        # An optional key whose `${VAR:-}` expanded to nothing means "unset".
        if value is None or (expanded and value == ""):
            return None
        return _convert_plain(value, inner, path, issues, expanded, environ, expand)

    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        allowed = typing.get_args(tp)
        if isinstance(value, str) and value in allowed:
            return value
        # YAML 1.1 reads a bare `off` / `on` as a boolean: take it back as the word.
        if isinstance(value, bool) and (word := "on" if value else "off") in allowed:
            return word
        issues.add(path, "must be one of " + ", ".join(str(a) for a in allowed))
        return allowed[0]

    if origin is tuple:
        args = typing.get_args(tp)
        if (
            len(args) != 2 or args[1] is not Ellipsis
        ):  # only tuple[X, ...] is used by the schema
            raise TypeError(f"unsupported tuple hint {tp!r} at {path}")
        if not isinstance(
            value, (list, tuple)
        ):  # tuple: Python callers pass config values back
            issues.add(path, f"expected a list, got {_describe(value)}")
            return ()
        return tuple(
            convert(
                item, args[0], f"{path}[{i}]", issues, environ=environ, expand=expand
            )
            for i, item in enumerate(value)
        )

    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if value is None:  # `memory:` with every child commented out
            value = {}
        if not isinstance(value, dict):
            issues.add(path, f"expected a mapping, got {_describe(value)}")
            return placeholder(tp)
        return build_dataclass(tp, value, path, issues, environ=environ, expand=expand)

    if tp is bool:
        if isinstance(value, bool):
            return value
        issues.add(path, f"expected true or false, got {_describe(value)}")
        return False
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        issues.add(path, f"expected an integer, got {_describe(value)}")
        return 0
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                issues.add(path, "must be a finite number")
                return 0.0
            return float(value)
        issues.add(path, f"expected a number, got {_describe(value)}")
        return 0.0
    if tp is str:
        if isinstance(value, str):
            return value
        issues.add(path, f"expected a string, got {_describe(value)}")
        return ""
    raise TypeError(f"unsupported type hint {tp!r} at {path}")


def field_hints(cls: type) -> dict[str, Any]:
    """Resolved type hints of a schema dataclass (the schema uses postponed annotations)."""
    return typing.get_type_hints(cls)


def build_dataclass(
    cls: type[Any],
    data: Mapping[Any, Any],
    path: str,
    issues: Issues,
    *,
    environ: Mapping[str, str] | None = None,
    expand: bool = True,
) -> Any:
    hints = field_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in data:
        if key not in fields:
            message = "unknown key"
            close = difflib.get_close_matches(str(key), list(fields), n=1)
            if close:
                message += f" (did you mean {close[0]}?)"
            issues.add(join(path, str(key)), message)
    kwargs: dict[str, Any] = {}
    for name, f in fields.items():
        key_path = join(path, name)
        if name in data:
            issues.present.add(key_path)
            converted = convert(
                data[name],
                hints[name],
                key_path,
                issues,
                environ=environ,
                expand=expand,
            )
            if key_path in issues.failed and _has_default(f):
                # Keep checking the rest against a sane value. Only when this key itself failed:
                # a bad item inside a list keeps its placeholder so later indices stay right.
                converted = _default_of(f)
            kwargs[name] = converted
        elif not _has_default(f):
            issues.add(key_path, "required key is missing")
            kwargs[name] = placeholder(hints[name])
    return cls(**kwargs)


def _has_default(f: dataclasses.Field[Any]) -> bool:
    return (
        f.default is not dataclasses.MISSING
        or f.default_factory is not dataclasses.MISSING
    )


def _default_of(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    factory: Any = f.default_factory
    return factory()


def resolve_field(root_cls: type, dotted: str) -> tuple[list[str], Any] | None:
    """(parts, type hint) of the dotted path `memory.max_tokens` in the schema, None if no such key.
    Only paths through nested dataclasses are addressable (not list items)."""
    parts = dotted.split(".")
    cls: Any = root_cls
    hint: Any = None
    for part in parts:
        if not (dataclasses.is_dataclass(cls) and isinstance(cls, type)):
            return None
        hints = field_hints(cls)
        if part not in hints:
            return None
        hint = hints[part]
        cls = hint
    return parts, hint


def get_path(obj: Any, parts: list[str]) -> Any:
    for part in parts:
        obj = getattr(obj, part)
    return obj


def replace_path(obj: Any, parts: list[str], value: Any) -> Any:
    """A copy of the frozen dataclass tree `obj` with the leaf at `parts` replaced."""
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    return dataclasses.replace(
        obj, **{head: replace_path(getattr(obj, head), rest, value)}
    )


def set_dotted(obj: Any, dotted: str, raw: Any, label: str, issues: Issues) -> Any:
    """Set one dotted key from a raw (YAML/JSON-like) value, converted and type-checked like
    the YAML file but without `${VAR}` expansion; problems are reported under `label`
    (a flag or setting name)."""
    resolved = resolve_field(type(obj), dotted)
    if resolved is None:
        issues.add(label, "unknown setting")
        return obj
    parts, hint = resolved
    before = len(issues.items)
    value = convert(raw, hint, label, issues, expand=False)
    if len(issues.items) > before:
        return obj
    return replace_path(obj, parts, value)


def to_plain(value: Any) -> Any:
    """JSON-friendly form of a config value (tuples become lists, dataclasses dicts)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)
        }
    if isinstance(value, (tuple, list)):
        return [to_plain(item) for item in value]
    return value
