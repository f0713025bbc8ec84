"""The forward proxy's access keys in YAML: `intercept.proxy_auth` (inline with ${ENV}, or an
htpasswd file checked when the config loads), `intercept.private_networks`,
`intercept.allow`; every error names its YAML path and never quotes a password."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from memtap.config.loader import ConfigError, load_config


def load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "memtap.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_config(str(path))


def errors(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    return [str(issue) for issue in info.value.errors]


def test_defaults(tmp_path: Path) -> None:
    intercept = load(tmp_path, "listen: 127.0.0.1:0\n").intercept
    assert intercept.proxy_auth is None
    assert intercept.private_networks == "deny"
    assert intercept.allow == ()


def test_inline_credentials_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGE_PROXY_AUTH", "ann:s3cret")
    config = load(tmp_path, 'intercept:\n  proxy_auth: "${EDGE_PROXY_AUTH}"\n')
    assert config.intercept.proxy_auth == "ann:s3cret"
    # Unset with a fallback to empty: no proxy authentication.
    config = load(tmp_path, 'intercept:\n  proxy_auth: "${EDGE_UNSET_AUTH:-}"\n')
    assert config.intercept.proxy_auth is None


def test_bad_inline_credentials_are_named_without_the_value(tmp_path: Path) -> None:
    found = errors(tmp_path, 'intercept:\n  proxy_auth: "justapassword"\n')
    assert found == [
        'intercept.proxy_auth: must be "USER:PASSWORD" or "@HTPASSWD_FILE"'
    ]
    assert "justapassword" not in found[0]


def test_htpasswd_file_is_checked_at_load(tmp_path: Path) -> None:
    good = tmp_path / "ok.htpasswd"
    good.write_text("ann:{SHA}qUqP5cyxm6YcTAhz05Hph5gvu9M=\n")
    assert (
        load(tmp_path, f'intercept:\n  proxy_auth: "@{good}"\n').intercept.proxy_auth
        == f"@{good}"
    )

    md5 = tmp_path / "md5.htpasswd"
    md5.write_text("# users\nann:$apr1$salt$hash\n")
    (message,) = errors(tmp_path, f'intercept:\n  proxy_auth: "@{md5}"\n')
    assert message.startswith(f"intercept.proxy_auth: {md5}: line 2: MD5 ($apr1$)")
    assert "htpasswd -B" in message

    (message,) = errors(tmp_path, f'intercept:\n  proxy_auth: "@{tmp_path}/absent"\n')
    assert message.startswith(f"intercept.proxy_auth: cannot read {tmp_path}/absent")


def test_private_networks_and_allow(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        """
        intercept:
          private_networks: allow
          allow: [10.0.0.0/8, 169.254.169.254, "fd00::/8", llm.lan, "*.corp.example:8443"]
        """,
    )
    assert config.intercept.private_networks == "allow"
    assert config.intercept.allow[0] == "10.0.0.0/8"
    found = errors(
        tmp_path,
        """
        intercept:
          private_networks: sometimes
          allow: [10.0.0.0/33, "http://x/", "a b"]
        """,
    )
    assert found[0].startswith("intercept.private_networks: ")
    assert "deny" in found[0] and "allow" in found[0]
    assert (
        found[1]
        == "intercept.allow[0]: '10.0.0.0/33' is not an IP network (write 10.0.0.0/8 or fd00::/8)"
    )
    assert found[2].startswith("intercept.allow[1]: ")
    assert found[3].startswith("intercept.allow[2]: not a host name")
    assert len(found) == 4
