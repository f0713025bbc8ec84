"""`server.client.*` in YAML: the defaults, and errors named by their YAML path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from memtap.config.loader import ConfigError, load_config
from memtap.config.schema import ClientConfig


def test_defaults_and_a_file(tmp_path: Path) -> None:
    path = tmp_path / "memtap.yaml"
    path.write_text(
        "server:\n  client:\n    head_timeout_s: 5\n    max_connections: 0\n"
    )
    client = load_config(str(path)).server.client
    assert client.head_timeout_s == 5 and client.max_connections == 0
    assert client.keepalive_timeout_s == 75 and client.write_timeout_s == 120
    assert ClientConfig().body_idle_timeout_s == 60
    assert ClientConfig().max_connections_per_address == 1000


def test_errors_name_the_path(tmp_path: Path) -> None:
    path = tmp_path / "memtap.yaml"
    path.write_text(
        textwrap.dedent(
            """
            server:
              client:
                head_timeout_s: 0
                write_timeout_s: -1
                max_connections_per_address: -2
                typo_s: 3
            """
        )
    )
    with pytest.raises(ConfigError) as info:
        load_config(str(path))
    found = sorted(str(issue) for issue in info.value.errors)
    assert "server.client.head_timeout_s: must be greater than 0" in found
    assert "server.client.write_timeout_s: must be greater than 0" in found
    assert "server.client.max_connections_per_address: must be at least 0" in found
    assert any(line.startswith("server.client.typo_s") for line in found)
