"""The committed config/memtap.yaml: every schema key present and documented, loads cleanly,
and equals the built-in defaults (except the deliberate differences listed below)."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from memtap.config.convert import field_hints, to_plain
from memtap.config.loader import load_config
from memtap.config.schema import Config

REPO = Path(__file__).resolve().parents[2]
YAML_PATH = REPO / "config" / "memtap.yaml"

DELIBERATE_DIFFERENCES: dict[str, Any] = {}
"""Dotted path → value where memtap.yaml deliberately differs from the schema default.
Currently none: the file documents the defaults, so `make run` and a run with no file behave
alike. (`admin.token` reads ${MEMTAP_ADMIN_TOKEN:-}, which is the default null when unset.)"""


def _dataclass_of(hint: Any) -> type | None:
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return hint
    return None


def _list_item_dataclass(hint: Any) -> type | None:
    if typing.get_origin(hint) is tuple:
        return _dataclass_of(typing.get_args(hint)[0])
    return None


def schema_paths(
    cls: type = Config, prefix: str = ""
) -> Iterator[tuple[str, type, str]]:
    """(dotted path, owning dataclass, field name) of every field, recursively; list items
    of dataclasses are addressed as `upstreams[]`."""
    for name, hint in field_hints(cls).items():
        path = f"{prefix}{name}"
        yield path, cls, name
        if (nested := _dataclass_of(hint)) is not None:
            yield from schema_paths(nested, path + ".")
        elif (item := _list_item_dataclass(hint)) is not None:
            yield from schema_paths(item, path + "[].")


def yaml_lookup(data: Any, path: str) -> tuple[bool, Any]:
    node = data
    for part in path.split("."):
        list_item = part.endswith("[]")
        key = part[:-2] if list_item else part
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
        if list_item:
            if not isinstance(node, list) or not node:
                return False, None
            node = node[0]
    return True, node


def key_lines(text: str) -> dict[str, int]:
    """Dotted path (list items as `[]`) → 0-based line of its key, from the YAML node tree."""
    lines: dict[str, int] = {}
    root = yaml.compose(text)
    assert root is not None

    def walk_root(node: yaml.Node, prefix: str) -> None:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                path = f"{prefix}{key_node.value}"
                lines.setdefault(path, key_node.start_mark.line)
                if isinstance(value_node, yaml.MappingNode):
                    walk_root(value_node, path + ".")
                elif isinstance(value_node, yaml.SequenceNode):
                    for item in value_node.value:
                        walk_root(item, path + "[].")

    walk_root(root, "")
    return lines


def comment_above(lines: list[str], line_no: int) -> str:
    """The block of `#` lines directly above line `line_no` (stopping at a blank line)."""
    block: list[str] = []
    i = line_no - 1
    while i >= 0 and lines[i].strip().startswith("#"):
        block.insert(0, lines[i].strip().lstrip("#").strip())
        i -= 1
    return " ".join(block)


@pytest.fixture(scope="module")
def yaml_text() -> str:
    return YAML_PATH.read_text(encoding="utf-8")


def test_every_schema_field_is_a_key_in_memtap_yaml(yaml_text: str) -> None:
    data = yaml.safe_load(yaml_text)
    missing = [path for path, _, _ in schema_paths() if not yaml_lookup(data, path)[0]]
    assert missing == [], f"settings missing from config/memtap.yaml: {missing}"


def test_every_key_is_documented_with_its_default_and_allowed_values(
    yaml_text: str,
) -> None:
    lines = yaml_text.splitlines()
    positions = key_lines(yaml_text)
    problems: list[str] = []
    for path, cls, name in schema_paths():
        line_no = positions[path]
        comment = comment_above(lines, line_no)
        if not comment:
            problems.append(f"{path}: no comment directly above the key")
            continue
        f = next(f for f in dataclasses.fields(cls) if f.name == name)
        hint = field_hints(cls)[name]
        has_default = (
            f.default is not dataclasses.MISSING
            or f.default_factory is not dataclasses.MISSING
        )
        is_section = (
            _dataclass_of(hint) is not None or _list_item_dataclass(hint) is not None
        )
        if has_default and not is_section and "Default" not in comment:
            problems.append(f"{path}: comment does not state the default")
        if typing.get_origin(hint) is typing.Literal:
            absent = [v for v in typing.get_args(hint) if v not in comment]
            if absent:
                problems.append(
                    f"{path}: comment does not list allowed values {absent}"
                )
    assert problems == []


def test_memtap_yaml_loads_and_equals_the_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MEMTAP_ADMIN_TOKEN", raising=False)
    loaded = to_plain(load_config(str(YAML_PATH)))
    defaults = to_plain(Config())
    for path, value in DELIBERATE_DIFFERENCES.items():
        node = defaults
        *parents, last = path.split(".")
        for part in parents:
            node = node[part]
        node[last] = value
    assert loaded == defaults


def test_memtap_yaml_takes_the_admin_token_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMTAP_ADMIN_TOKEN", "from-env")
    assert load_config(str(YAML_PATH)).admin.token == "from-env"


def test_memory_defaults_are_the_documented_choice() -> None:
    memory = Config().memory
    assert (memory.strategy, memory.scope, memory.placement) == (
        "hybrid",
        "owner",
        "last_user",  # scripts/bench_cache.py: the placement provider caches can reuse
    )


def test_commented_examples_for_anthropic_and_gemini_are_valid(
    yaml_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uncommenting the example upstreams gives a valid file (the examples do not rot)."""
    monkeypatch.delenv("MEMTAP_ADMIN_TOKEN", raising=False)
    uncommented = []
    for line in yaml_text.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("# - name:", "#   url:", "#   format:", "#   prefix:")):
            line = line.replace("# ", "", 1)
        uncommented.append(line)
    from memtap.config.loader import parse_config, parse_yaml

    config = parse_config(parse_yaml("\n".join(uncommented), source="x"), source="x")
    assert [(u.name, u.prefix, u.format) for u in config.upstreams] == [
        ("openai", "/", "auto"),
        ("anthropic", "/anthropic", "anthropic"),
        ("gemini", "/gemini", "gemini"),
    ]
