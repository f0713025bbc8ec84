"""`memory.placement` values (issue 13, item 6): `last_user` joins `prepend` and `after_prefix`
in the YAML file and the runtime settings API, with the same validation; the codecs and the
config agree on the set."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from memtap.config import schema
from memtap.config.errors import ConfigError
from memtap.config.loader import load_config
from memtap.config.schema import Config
from memtap.config.settings import apply_overrides
from memtap.proxy.codecs import base


def test_codecs_and_config_know_the_same_placements() -> None:
    assert typing.get_args(base.Placement) == typing.get_args(schema.Placement)
    assert set(typing.get_args(schema.Placement)) == {
        "prepend",
        "after_prefix",
        "last_user",
    }


@pytest.mark.parametrize("value", ["prepend", "after_prefix", "last_user"])
def test_every_placement_loads_from_yaml_and_the_settings_api(
    tmp_path: Path, value: str
) -> None:
    path = tmp_path / "memtap.yaml"
    path.write_text(f"memory:\n  placement: {value}\n")
    assert load_config(str(path)).memory.placement == value
    assert (
        apply_overrides(Config(), {"memory.placement": value}).memory.placement == value
    )


def test_an_unknown_placement_is_rejected_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        apply_overrides(Config(), {"memory.placement": "somewhere"})
    assert "memory.placement" in str(caught.value)
    path = tmp_path / "memtap.yaml"
    path.write_text("memory:\n  placement: end\n")
    with pytest.raises(ConfigError, match="memory.placement"):
        load_config(str(path))
