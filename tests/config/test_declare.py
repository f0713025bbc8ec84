"""Each key declared once (config/declare.py): the range checks, the settings list and the
settings docs all come from the declarations on config/schema.py's fields."""

from __future__ import annotations

import dataclasses

import pytest

from memtap.config.declare import Range, declared_keys, declared_ranges, type_text
from memtap.config.errors import ConfigError, ConfigIssue
from memtap.config.loader import parse_config
from memtap.config.schema import Config, MemoryConfig, UpstreamConfig
from memtap.config.settings import SETTINGS, settings_table


@pytest.mark.parametrize(
    ("bounds", "value", "message"),
    [
        (Range(at_least=1, at_most=16000), 0, "must be from 1 to 16000"),
        (Range(at_least=1, at_most=16000), 16001, "must be from 1 to 16000"),
        (Range(at_least=1, at_most=16000), 16000, None),
        (Range(at_least=-1, at_most=1), -1.5, "must be from -1 to 1"),
        (Range(at_least=8), 7, "must be at least 8"),
        (Range(above=0), 0.0, "must be greater than 0"),
        (Range(above=0), 0.001, None),
        (
            Range(at_least=1, null_means="for never"),
            0,
            "must be at least 1, or null for never",
        ),
        (Range(at_least=1, null_means="for never"), None, None),
        (Range(one_of=("debug", "info")), "INFO", None),
        (Range(one_of=("debug", "info")), "loud", "must be one of debug, info"),
    ],
)
def test_a_range_says_what_is_wrong(
    bounds: Range, value: object, message: str | None
) -> None:
    assert bounds.problem(value) == message


def test_ranges_name_the_yaml_path_inside_lists_and_sections() -> None:
    config = dataclasses.replace(
        Config(),
        upstreams=(
            UpstreamConfig(name="a", url="http://a"),
            UpstreamConfig(name="b", url="http://b", prefix="/b", timeout_s=0),
        ),
        memory=dataclasses.replace(MemoryConfig(), top_k=0, min_similarity=2.0),
    )
    assert list(declared_ranges(config)) == [
        ConfigIssue("upstreams[1].timeout_s", "must be greater than 0"),
        ConfigIssue("memory.top_k", "must be at least 1"),
        ConfigIssue("memory.min_similarity", "must be from -1 to 1"),
    ]


def test_a_declared_range_is_checked_when_the_yaml_is_loaded() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"memory": {"episodes": {"snippet_tokens": 4}}}, source="t.yaml")
    assert [str(e) for e in info.value.errors] == [
        "memory.episodes.snippet_tokens: must be at least 8"
    ]


def test_the_settings_are_the_keys_declared_runtime_with_their_type_default_and_range() -> (
    None
):
    specs = {spec.name: spec for spec in SETTINGS}
    assert [spec.name for spec in SETTINGS] == [
        spec.name for spec in declared_keys(Config) if spec.declared.runtime
    ]
    top_k = specs["memory.max_tokens"]
    assert (top_k.type, top_k.default, top_k.range) == ("integer", 600, "1..16000")
    assert specs["memory.strategy"].type == "recent | keyword | semantic | hybrid"
    assert specs["memory.extract_from"].default == ["user"]
    assert specs["memory.retention_days"].type == "integer or null"
    assert all(spec.help for spec in SETTINGS)
    # A YAML-only key with a range is declared too, but is not a setting.
    assert "server.client.head_timeout_s" not in specs
    assert "upstreams[].timeout_s" in {k.name for k in declared_keys(Config)}


def test_type_text_reads_the_hints() -> None:
    assert type_text(bool) == "boolean"
    assert type_text(float | None) == "number or null"


def test_the_settings_table_has_one_row_per_setting() -> None:
    rows = [line for line in settings_table().splitlines() if line.startswith("| `")]
    assert len(rows) == len(SETTINGS)
    assert "| `memory.max_tokens` | integer | `600` | 1..16000 |" in settings_table()
