"""How a config key is declared: once, on its field in `config/schema.py`.

    max_tokens: int = key(600, at_least=1, at_most=16000, runtime=True,
                          help="Token budget of the injected memory block.")

The field gives the key its name (its dotted path in the schema), its type (the type hint)
and its default; `key(...)` adds its range and its help, and whether it is a runtime setting
(changeable through the admin API). Everything else is derived from that one declaration:

* the range checks of `config/validate.py` (`declared_ranges`: the messages name the YAML
  path, `memory.max_tokens: must be from 1 to 16000`);
* the runtime settings (`config/settings.py:SETTINGS`) and what `GET /_memtap/api/settings`
  says of each (help, type, range);
* the runtime settings table of docs/configuration.md (`settings_table`;
  tests/contract/test_docs_reference.py fails when the page and the declarations differ).

What a type hint or a range cannot say (URLs, HOST:PORT, uniqueness, one key depending on
another) stays a check of its own in `config/validate.py`.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from memtap.config.errors import ConfigIssue

DECLARED = "memtap.declared"
"""The dataclass field metadata key that holds a field's `Declared`."""


@dataclass(frozen=True, slots=True)
class Range:
    """The values a number (or a word) may take. A None bound is no bound."""

    at_least: float | None = None
    at_most: float | None = None
    above: float | None = None
    """An exclusive lower bound (`> 0`: a duration)."""
    null_means: str | None = None
    """For an optional key: what null means, said in the message (`for never`)."""
    one_of: tuple[str, ...] = ()
    """Words a string may be, in any case (`log.level`)."""

    def problem(self, value: Any) -> str | None:
        """The message for `value` out of range, None when it is in range (or null)."""
        if value is None:
            return None
        if self.one_of:
            if str(value).lower() in self.one_of:
                return None
            return "must be one of " + ", ".join(self.one_of)
        if self.above is not None and not value > self.above:
            return f"must be greater than {_number(self.above)}"
        low, high = self.at_least, self.at_most
        if low is not None and high is not None:
            if not low <= value <= high:
                return f"must be from {_number(low)} to {_number(high)}"
            return None
        if high is not None and value > high:
            return f"must be at most {_number(high)}"
        if low is not None and value < low:
            message = f"must be at least {_number(low)}"
            return (
                f"{message}, or null {self.null_means}" if self.null_means else message
            )
        return None

    def text(self) -> str:
        """The range as the docs and the settings API show it: `1..16000`, `>= 1`, `> 0`."""
        if self.one_of:
            return " | ".join(self.one_of)
        if self.above is not None:
            return f"> {_number(self.above)}"
        low, high = self.at_least, self.at_most
        if low is not None and high is not None:
            return f"{_number(low)}..{_number(high)}"
        if low is not None:
            return f">= {_number(low)}"
        if high is not None:
            return f"<= {_number(high)}"
        return ""


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


@dataclass(frozen=True, slots=True)
class Declared:
    help: str
    range: Range | None
    runtime: bool


def key(
    default: Any = dataclasses.MISSING,
    *,
    help: str = "",
    at_least: float | None = None,
    at_most: float | None = None,
    above: float | None = None,
    null_means: str | None = None,
    one_of: tuple[str, ...] = (),
    runtime: bool = False,
    default_factory: Callable[[], Any] | Any = dataclasses.MISSING,
) -> Any:
    """A schema field with its declaration (see the module docstring)."""
    bounds = Range(at_least, at_most, above, null_means, one_of)
    declared = Declared(help, bounds if bounds != Range() else None, runtime)
    if runtime and not help:
        raise ValueError("a runtime setting needs its help")
    metadata = {DECLARED: declared}
    if default_factory is not dataclasses.MISSING:
        return field(default_factory=default_factory, metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One declared key, as derived from its field."""

    name: str
    """Dotted path, e.g. `memory.max_tokens`."""
    hint: Any
    default: Any
    declared: Declared

    @property
    def type_text(self) -> str:
        return type_text(self.hint)

    @property
    def range_text(self) -> str:
        return self.declared.range.text() if self.declared.range else ""


def declared_keys(cls: type, prefix: str = "") -> Iterator[KeySpec]:
    """Every declared key of the schema dataclass `cls`, depth first in field order (a
    section declared as a whole comes before its own keys)."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        name = f"{prefix}{f.name}"
        hint = hints[f.name]
        declared = f.metadata.get(DECLARED)
        if isinstance(declared, Declared):
            yield KeySpec(name, hint, _default(f), declared)
        if _is_section(hint):
            yield from declared_keys(hint, name + ".")
        elif typing.get_origin(hint) is tuple and _is_section(typing.get_args(hint)[0]):
            yield from declared_keys(typing.get_args(hint)[0], name + "[].")


def declared_ranges(value: Any, path: str = "") -> Iterator[ConfigIssue]:
    """Each value of the config tree `value` outside its declared range, by YAML path
    (`upstreams[1].timeout_s: must be greater than 0`)."""
    for f in dataclasses.fields(value):
        name = f"{path}.{f.name}" if path else f.name
        item = getattr(value, f.name)
        declared = f.metadata.get(DECLARED)
        if isinstance(declared, Declared) and declared.range is not None:
            problem = declared.range.problem(item)
            if problem is not None:
                yield ConfigIssue(name, problem)
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            yield from declared_ranges(item, name)
        elif isinstance(item, tuple):
            for i, entry in enumerate(item):
                if dataclasses.is_dataclass(entry) and not isinstance(entry, type):
                    yield from declared_ranges(entry, f"{name}[{i}]")


def type_text(hint: Any) -> str:
    """A type hint in words: `integer`, `number or null`, `list of (user | assistant)`."""
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        inner = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return " or ".join(type_text(arg) for arg in inner) + " or null"
    if origin is typing.Literal:
        return " | ".join(str(arg) for arg in typing.get_args(hint))
    if origin is tuple:
        item = type_text(typing.get_args(hint)[0])
        return f"list of ({item})" if " " in item else f"list of {item}"
    if _is_section(hint):
        return "object"
    return {bool: "boolean", int: "integer", float: "number", str: "string"}.get(
        hint, str(hint)
    )


def _is_section(hint: Any) -> bool:
    return dataclasses.is_dataclass(hint) and isinstance(hint, type)


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    factory: Any = f.default_factory
    return factory() if factory is not dataclasses.MISSING else None
