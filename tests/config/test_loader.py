"""config/loader.py: YAML → Config, every error named by its YAML path, env expansion, flags."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from memtap.config.loader import (
    ConfigError,
    ConfigIssue,
    load_config,
    load_config_detailed,
    parse_config,
)
from memtap.config.schema import Config


def write(tmp_path: Path, text: str, name: str = "memtap.yaml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def errors_of(
    tmp_path: Path, text: str, overrides: dict[str, Any] | None = None
) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text), overrides)
    return [str(issue) for issue in info.value.errors]


def test_empty_file_is_builtin_defaults(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "# only comments\n")) == Config()


def test_no_path_and_no_default_file_runs_on_builtin_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    loaded = load_config_detailed(None)
    assert loaded.path is None
    assert loaded.config.listen == "127.0.0.1:8080"
    assert loaded.config.upstreams[0].url == "https://api.openai.com"
    assert loaded.config.data_dir == "./data"


def test_no_path_uses_config_memtap_yaml_in_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "memtap.yaml").write_text("listen: 127.0.0.1:9999\n")
    monkeypatch.chdir(tmp_path)
    assert load_config(None).listen == "127.0.0.1:9999"


def test_full_valid_file(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            """
            listen: "[::1]:0"
            upstreams:
              - {name: openai, url: "https://api.openai.com", format: openai}
              - name: anthropic
                url: https://api.anthropic.com/
                prefix: /anthropic
                timeout_s: 30          # an int where a float is expected is fine
            memory:
              strategy: keyword
              extract_from: [user, assistant]
              retention_days: 30
              min_similarity: 0.5
            log: {level: DEBUG}
            """,
        )
    )
    assert config.listen == "[::1]:0"
    assert [u.name for u in config.upstreams] == ["openai", "anthropic"]
    assert config.upstreams[1].timeout_s == 30.0 and isinstance(
        config.upstreams[1].timeout_s, float
    )
    assert config.memory.extract_from == ("user", "assistant")
    assert config.memory.retention_days == 30
    assert config.memory.strategy == "keyword"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("memory:\n  foo: 1\n", "memory.foo: unknown key"),
        ("foo: 1\n", "foo: unknown key"),
        (
            "embedding:\n  remote:\n    modle: x\n",
            "embedding.remote.modle: unknown key (did you mean model?)",
        ),
        (
            "vector_store:\n  qdrant:\n    bogus: 1\n",
            "vector_store.qdrant.bogus: unknown key",
        ),
        (
            "upstreams:\n  - {name: a, url: 'http://h', extra: 1}\n",
            "upstreams[0].extra: unknown key",
        ),
        (
            "memory:\n  strategy: fancy\n",
            "memory.strategy: must be one of recent, keyword, semantic, hybrid",
        ),
        (
            "memory:\n  max_tokens: '600'\n",
            'memory.max_tokens: expected an integer, got a string "600"',
        ),
        (
            "memory:\n  max_tokens: true\n",
            "memory.max_tokens: expected an integer, got a boolean",
        ),
        (
            "memory:\n  max_tokens: 1.5\n",
            "memory.max_tokens: expected an integer, got a number",
        ),
        (
            "memory:\n  enabled: 1\n",
            "memory.enabled: expected true or false, got an integer",
        ),
        (
            "memory:\n  min_similarity: false\n",
            "memory.min_similarity: expected a number, got a boolean",
        ),
        ("memory:\n  min_score: .inf\n", "memory.min_score: must be a finite number"),
        ("memory: [1]\n", "memory: expected a mapping, got a list"),
        (
            "memory:\n  extract_from: user\n",
            'memory.extract_from: expected a list, got a string "user"',
        ),
        (
            "memory:\n  extract_from: [user, tool]\n",
            "memory.extract_from[1]: must be one of user, assistant",
        ),
        (
            "memory:\n  extract_from: [user, user]\n",
            "memory.extract_from: lists a role twice",
        ),
        ("memory:\n  max_tokens: 0\n", "memory.max_tokens: must be from 1 to 16000"),
        (
            "memory:\n  max_tokens: 16001\n",
            "memory.max_tokens: must be from 1 to 16000",
        ),
        ("memory:\n  top_k: 0\n", "memory.top_k: must be at least 1"),
        ("memory:\n  rrf_k: 0\n", "memory.rrf_k: must be at least 1"),
        (
            "memory:\n  retention_days: 0\n",
            "memory.retention_days: must be at least 1, or null for never",
        ),
        ("listen: 8080\n", "listen: expected a string, got an integer"),
        ("listen: localhost\n", "listen: must be HOST:PORT, e.g. 127.0.0.1:8080"),
        (
            "listen: 'localhost:70000'\n",
            "listen: port must be a number from 0 to 65535",
        ),
        (
            "listen: '::1:8080'\n",
            "listen: IPv6 addresses must be in brackets, e.g. [::1]:8080",
        ),
        ("admin:\n  listen: '[zz]:80'\n", "admin.listen: 'zz' is not an IPv6 address"),
        ("upstreams:\n  - {name: a, url: 'ftp://h'}\n", "upstreams[0].url: not a URL"),
        ("upstreams:\n  - {name: a, url: 'https://'}\n", "upstreams[0].url: not a URL"),
        (
            "upstreams:\n  - {name: a, url: 'http://h:99999'}\n",
            "upstreams[0].url: not a URL",
        ),
        ("upstreams:\n  - {name: a}\n", "upstreams[0].url: required key is missing"),
        (
            "upstreams:\n  - {name: a, url: 'http://h', prefix: v1}\n",
            'upstreams[0].prefix: must start with "/"',
        ),
        (
            "upstreams:\n  - {name: a, url: 'http://h', format: grok}\n",
            "upstreams[0].format: must be one of openai, anthropic, gemini, auto",
        ),
        (
            "upstreams:\n  - {name: a, url: 'http://h', timeout_s: 0}\n",
            "upstreams[0].timeout_s: must be greater than 0",
        ),
        (
            "upstreams:\n  - {name: a, url: 'http://h', ca_file: /no/such/ca.pem}\n",
            "upstreams[0].ca_file: file not found: /no/such/ca.pem",
        ),
        (
            "intercept:\n  upstream_ca_file: /no/such/ca.pem\n",
            "intercept.upstream_ca_file: file not found: /no/such/ca.pem",
        ),
        (
            "intercept:\n  hosts: ['https://api.openai.com']\n",
            "intercept.hosts[0]: not a host name (write api.example.com or *.example.com, no scheme or path)",
        ),
        (
            "intercept:\n  others: allow\n",
            "intercept.others: must be one of tunnel, deny",
        ),
        (
            "log:\n  level: loud\n",
            "log.level: must be one of debug, info, warning, error, critical",
        ),
        ("log:\n  format: xml\n", "log.format: must be one of json, text"),
        (
            "embedding:\n  source: remote\n",
            "embedding.remote.url: required when embedding.source is remote",
        ),
        (
            "vector_store:\n  kind: faiss\n",
            "vector_store.kind: must be one of auto, sqlite-vec, qdrant, none",
        ),
        (
            "vector_store:\n  qdrant: {url: 'localhost:6333'}\n",
            "vector_store.qdrant.url: not a URL",
        ),
    ],
)
def test_each_error_names_its_yaml_path(
    tmp_path: Path, text: str, expected: str
) -> None:
    assert errors_of(tmp_path, text) == [expected]


def test_all_errors_are_reported_at_once_with_list_indices(tmp_path: Path) -> None:
    errors = errors_of(
        tmp_path,
        """
        upstreams:
          - {name: a, url: "https://a.example"}
          - {name: a, url: "not a url", prefix: /b}
          - {name: c, url: "https://c.example", prefix: /b}
        memory:
          strategy: fancy
          foo: 1
        log:
          level: loud
        """,
    )
    assert set(errors) == {
        "upstreams[1].name: duplicate name 'a' (also upstreams[0])",
        "upstreams[1].url: not a URL",
        "upstreams[2].prefix: duplicate prefix '/b' (also upstreams[1])",
        "memory.strategy: must be one of recent, keyword, semantic, hybrid",
        "memory.foo: unknown key",
        "log.level: must be one of debug, info, warning, error, critical",
    }


def test_a_failed_list_item_keeps_the_indices_of_the_following_items(
    tmp_path: Path,
) -> None:
    errors = errors_of(
        tmp_path,
        "upstreams:\n  - {name: a}\n  - {name: b, url: 'ftp://x', prefix: /b}\n",
    )
    assert errors == [
        "upstreams[0].url: required key is missing",
        "upstreams[1].url: not a URL",
    ]


def test_config_error_str_lists_path_message_lines(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, "memory:\n  foo: 1\n  strategy: x\n"))
    assert str(info.value).splitlines() == [
        "memory.foo: unknown key",
        "memory.strategy: must be one of recent, keyword, semantic, hybrid",
    ]
    assert info.value.errors[0] == ConfigIssue("memory.foo", "unknown key")


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "- listen\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.errors[0].path == path


def test_bad_yaml_syntax_names_line_and_column(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "listen: 127.0.0.1:8080\nmemory:\n  strategy: [hybrid\n  scope: owner\n",
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    (issue,) = info.value.errors
    assert issue.path == path
    assert issue.message.startswith("invalid YAML at line 4, column")


def test_duplicate_key_is_an_error_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "memory:\n  max_tokens: 100\n  max_tokens: 200\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.errors == [
        ConfigIssue(
            path, "invalid YAML at line 3, column 3: duplicate key 'max_tokens'"
        )
    ]


def test_missing_file_and_non_utf8(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_config(str(tmp_path / "nope.yaml"))
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"listen: caf\xe9\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(str(bad))


def test_section_left_empty_means_defaults(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "memory:\nlog:\n")) == Config()


# -- ${VAR} expansion ----------------------------------------------------------------------


def test_env_expansion_in_strings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MT_HOST", "api.example.com")
    monkeypatch.setenv("MT_TOKEN", "s3cret")
    monkeypatch.delenv("MT_UNSET", raising=False)
    monkeypatch.setenv("MT_EMPTY", "")
    config = load_config(
        write(
            tmp_path,
            """
            upstreams:
              - {name: a, url: "https://${MT_HOST}/v1"}
            admin:
              token: ${MT_TOKEN}
            data_dir: ${MT_UNSET:-/var/lib/memtap}
            log:
              file: ${MT_EMPTY:-/tmp/fallback.log}
            embedding:
              remote:
                api_key: "$${NOT_A_VAR}"
            """,
        )
    )
    assert config.upstreams[0].url == "https://api.example.com/v1"
    assert config.admin.token == "s3cret"
    assert config.data_dir == "/var/lib/memtap"
    assert (
        config.log.file == "/tmp/fallback.log"
    )  # `:-` also covers a set-but-empty variable
    assert config.embedding.remote.api_key == "${NOT_A_VAR}"


def test_env_expansion_typed_values_and_empty_optional(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MT_TOKENS", "900")
    monkeypatch.setenv("MT_ON", "false")
    monkeypatch.delenv("MT_TOKEN", raising=False)
    config = load_config(
        write(
            tmp_path,
            """
            memory:
              max_tokens: ${MT_TOKENS}
              enabled: ${MT_ON}
              retention_days: ${MT_DAYS:-14}
            admin:
              token: ${MT_TOKEN:-}
            """,
        )
    )
    assert config.memory.max_tokens == 900
    assert config.memory.enabled is False
    assert config.memory.retention_days == 14
    assert config.admin.token is None  # an optional key expanding to "" is unset


def test_env_expansion_result_is_still_validated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MT_TOKENS", "many")
    monkeypatch.setenv("MT_URL", "ftp://x")
    errors = errors_of(
        tmp_path,
        "memory:\n  max_tokens: ${MT_TOKENS}\nupstreams:\n  - {name: a, url: '${MT_URL}'}\n",
    )
    assert errors == [
        'memory.max_tokens: expected an integer, got a string "many"',
        "upstreams[0].url: not a URL",
    ]


def test_unset_env_var_without_default_names_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MT_MISSING", raising=False)
    errors = errors_of(tmp_path, "admin:\n  token: ${MT_MISSING}\n")
    assert errors == [
        "admin.token: environment variable MT_MISSING is not set (use ${MT_MISSING:-default} for a fallback)"
    ]


def test_malformed_env_reference(tmp_path: Path) -> None:
    assert errors_of(tmp_path, "data_dir: ${1BAD}\n") == [
        "data_dir: invalid variable reference ${1BAD}"
    ]
    assert errors_of(tmp_path, "data_dir: ${OPEN\n") == [
        "data_dir: unterminated ${ in value"
    ]


def test_parse_config_takes_already_parsed_data() -> None:
    assert (
        parse_config({"memory": {"max_tokens": 10}}, source="inline").memory.max_tokens
        == 10
    )
    with pytest.raises(
        ConfigError, match=r"memory\.max_tokens: must be from 1 to 16000"
    ):
        parse_config({"memory": {"max_tokens": 0}}, source="inline")


# -- flags > YAML > defaults ---------------------------------------------------------------


def test_precedence_flags_over_yaml_over_defaults(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        listen: 127.0.0.1:7000
        data_dir: /yaml/data
        log: {level: warning, format: text}
        memory: {max_tokens: 700}
        """,
    )
    yaml_only = load_config(path)
    assert (yaml_only.listen, yaml_only.data_dir, yaml_only.log.level) == (
        "127.0.0.1:7000",
        "/yaml/data",
        "warning",
    )
    assert (
        yaml_only.memory.top_k == Config().memory.top_k
    )  # untouched keys keep the default

    flagged = load_config(
        path,
        {
            "listen": "127.0.0.1:7001",
            "data_dir": "/flag/data",
            "log.level": "debug",
            "admin.token": "tok",
            "log.format": None,
        },
    )
    assert flagged.listen == "127.0.0.1:7001"
    assert flagged.data_dir == "/flag/data"
    assert flagged.log.level == "debug"
    assert flagged.log.format == "text"  # a None flag (not given) leaves the YAML value
    assert flagged.admin.token == "tok"
    assert flagged.memory.max_tokens == 700


def test_upstream_and_format_flags(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        upstreams:
          - {name: openai, url: "https://api.openai.com"}
          - {name: anthropic, url: "https://api.anthropic.com", prefix: /anthropic, format: anthropic}
        """,
    )
    replaced = load_config(
        path, {"upstream": "http://127.0.0.1:9000", "format": "anthropic"}
    )
    (only,) = replaced.upstreams
    assert (only.name, only.url, only.prefix, only.format) == (
        "default",
        "http://127.0.0.1:9000",
        "/",
        "anthropic",
    )
    assert (
        load_config(path, {"upstream": "http://127.0.0.1:9000"}).upstreams[0].format
        == "auto"
    )
    every = load_config(path, {"format": "gemini"})
    assert [u.format for u in every.upstreams] == ["gemini", "gemini"]


def test_flag_values_are_validated_and_named_by_flag(tmp_path: Path) -> None:
    path = write(tmp_path, "listen: 127.0.0.1:7000\n")
    with pytest.raises(ConfigError) as info:
        load_config(
            path,
            {
                "listen": "nowhere",
                "upstream": "localhost:9000",
                "format": "grok",
                "log.level": "loud",
                "log.format": "xml",
                "data_dir": "",
            },
        )
    assert sorted(str(e) for e in info.value.errors) == sorted(
        [
            "--listen: must be HOST:PORT, e.g. 127.0.0.1:8080",
            "--upstream: not a URL",
            "--format: must be one of openai, anthropic, gemini, auto",
            "--log-level: must be one of debug, info, warning, error, critical",
            "--log-format: must be one of json, text",
            "--data-dir: must not be empty",
        ]
    )


def test_flags_are_not_env_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MT_SECRET", "leak")
    config = load_config(write(tmp_path, ""), {"admin.token": "${MT_SECRET}"})
    assert config.admin.token == "${MT_SECRET}"


def test_explicit_paths_record_file_keys_and_flags(tmp_path: Path) -> None:
    loaded = load_config_detailed(
        write(tmp_path, "memory:\n  max_tokens: 600\n"), {"log.level": "debug"}
    )
    assert {"memory", "memory.max_tokens", "log.level"} <= loaded.explicit
    assert "memory.top_k" not in loaded.explicit
    assert loaded.digest is not None and len(loaded.digest) == 64


def test_yaml_merge_keys_are_not_duplicates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MT_ROLES", "[user, assistant]")
    config = load_config(
        write(
            tmp_path,
            """
            memory:
              <<: {max_tokens: 100, top_k: 3}
              max_tokens: 200
              extract_from: ${MT_ROLES}
            """,
        )
    )
    assert (config.memory.max_tokens, config.memory.top_k) == (200, 3)
    assert config.memory.extract_from == ("user", "assistant")


def test_intercept_hosts_accept_ports_ipv6_and_wildcards() -> None:
    from memtap.config.loader import parse_config

    hosts = [
        "api.openai.com",
        "127.0.0.1:8443",
        "[::1]:443",
        "*.openai.azure.com",
        "localhost:*",
    ]
    config = parse_config({"intercept": {"hosts": hosts}}, source="t.yaml")
    assert config.intercept.hosts == tuple(hosts)


def test_a_bare_off_is_the_word_not_a_boolean(tmp_path: Path) -> None:
    # YAML 1.1 (PyYAML) reads `off` as false: where `off` is one of the allowed words it is
    # taken as that word, which is what the operator wrote.
    config = load_config(write(tmp_path, "embedding:\n  query_projection: off\n"))
    assert config.embedding.query_projection == "off"
    assert (
        load_config(
            write(tmp_path, "embedding:\n  query_projection: 'always'\n")
        ).embedding.query_projection
        == "always"
    )
    assert errors_of(tmp_path, "embedding:\n  query_projection: on\n") == [
        "embedding.query_projection: must be one of auto, always, off"
    ]
