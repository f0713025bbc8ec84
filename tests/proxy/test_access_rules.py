"""The forward proxy's access rules, called directly: address categories, the destination
policy with `intercept.allow`, Basic credentials, htpasswd entries (bcrypt as `htpasswd -B`
writes it, `{SHA}` as `htpasswd -s` does), and the authenticator's caches."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import ipaddress
import os
from pathlib import Path

import bcrypt
import orjson
import pytest

from memtap.config.htpasswd import (
    Credential,
    HtpasswdError,
    parse_htpasswd,
    parse_inline,
)
from memtap.config.schema import InterceptConfig
from memtap.proxy.modes.access import proxy_auth
from memtap.proxy.modes.access.destinations import address_category, destination_refusal
from memtap.proxy.modes.access.gate import (
    AUTH_REQUIRED,
    ForwardAccess,
    denied_response,
    proxy_authorization_in_head,
)
from memtap.proxy.modes.access.proxy_auth import (
    ProxyAuthenticator,
    basic_credentials,
    verify_password,
)


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def sha_entry(user: str, password: str) -> str:
    return (
        f"{user}:{{SHA}}"
        + base64.b64encode(hashlib.sha1(password.encode()).digest()).decode()
    )


def bcrypt_entry(user: str, password: str) -> str:
    hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(4)).decode()
    return f"{user}:$2y$" + hashed[4:]  # htpasswd -B writes the $2y$ prefix


@pytest.mark.parametrize(
    ("address", "category"),
    [
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("100.64.0.1", "non-public"),
        ("127.0.0.1", "loopback"),
        ("0.0.0.0", "loopback"),
        ("::1", "loopback"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("fd00:ec2::254", "unique-local"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.169.254", "link-local"),
        ("64:ff9b::a9fe:a9fe", "link-local"),  # NAT64 form of 169.254.169.254
        ("224.0.0.1", "non-public"),
        ("93.184.216.34", None),
        ("2606:4700::1111", None),
    ],
)
def test_address_categories(address: str, category: str | None) -> None:
    assert address_category(ipaddress.ip_address(address)) == category


def test_destination_policy() -> None:
    deny = InterceptConfig(hosts=("api.openai.com",))
    assert destination_refusal(deny, "example.com", 443, ["93.184.216.34"]) is None
    refusal = destination_refusal(deny, "db.internal", 5432, ["10.0.0.5"])
    assert refusal is not None and refusal.category == "private"
    assert refusal.address == "10.0.0.5" and "intercept.allow" in refusal.message
    # Any of the addresses counts: a name with one private address is refused whole.
    assert destination_refusal(deny, "x", 443, ["93.184.216.34", "169.254.169.254"])
    assert destination_refusal(deny, "localhost", 80, []) is not None
    assert destination_refusal(deny, "db.localhost", 80, ["93.184.216.34"]) is not None
    # Hosts in intercept.hosts are the operator's choice.
    assert destination_refusal(deny, "api.openai.com", 443, ["10.0.0.1"]) is None

    allow = InterceptConfig(
        hosts=(), allow=("10.1.0.0/16", "*.corp.example", "llm.lan:8000", "fd00::/8")
    )
    assert destination_refusal(allow, "a", 80, ["10.1.2.3"]) is None
    assert destination_refusal(allow, "a", 80, ["::ffff:10.1.2.3"]) is None
    assert destination_refusal(allow, "a", 80, ["10.2.0.1"]) is not None
    assert destination_refusal(allow, "git.corp.example", 443, ["192.168.0.9"]) is None
    assert destination_refusal(allow, "llm.lan", 8000, ["192.168.0.9"]) is None
    assert destination_refusal(allow, "llm.lan", 8001, ["192.168.0.9"]) is not None
    assert destination_refusal(allow, "v6", 443, ["fd00::5"]) is None

    open_lan = InterceptConfig(hosts=(), private_networks="allow")
    assert destination_refusal(open_lan, "db", 5432, ["10.0.0.5"]) is None
    assert destination_refusal(open_lan, "metadata", 80, ["169.254.169.254"]) is None
    loop = destination_refusal(open_lan, "x", 80, ["127.0.0.1"])
    assert (
        loop is not None and loop.category == "loopback"
    )  # never this host's loopback
    assert destination_refusal(open_lan, "x", 80, ["::ffff:127.0.0.1"]) is not None
    assert (
        destination_refusal(
            InterceptConfig(hosts=(), private_networks="allow", allow=("127.0.0.1",)),
            "x",
            80,
            ["127.0.0.1"],
        )
        is None
    )


def test_clients_on_this_host_are_not_checked() -> None:
    access = ForwardAccess()
    config = InterceptConfig(hosts=())
    assert access.refusal(config, ("127.0.0.1", 5), "db", 1, ["10.0.0.5"]) is None
    assert access.refusal(config, ("::1", 5, 0, 0), "db", 1, ["10.0.0.5"]) is None
    assert access.refusal(config, ("10.9.9.9", 5), "db", 1, ["10.0.0.5"]) is not None


def test_basic_credentials() -> None:
    assert basic_credentials(basic("ann", "p:w")) == ("ann", "p:w")
    assert basic_credentials("basic " + base64.b64encode(b"a:b").decode()) == ("a", "b")
    for bad in (
        None,
        "",
        "Bearer x",
        "Basic",
        "Basic !!!",
        "Basic " + base64.b64encode(b"nocolon").decode(),
    ):
        assert basic_credentials(bad) is None


def test_password_schemes() -> None:
    users = parse_htpasswd(
        "# comment\n\n"
        + sha_entry("sha", "s3cret")
        + "\n"
        + bcrypt_entry("bc", "b3cret")
        + "\n"
    )
    assert verify_password(users["sha"], "s3cret") and not verify_password(
        users["sha"], "x"
    )
    assert verify_password(users["bc"], "b3cret") and not verify_password(
        users["bc"], "x"
    )
    assert not verify_password(users["bc"], "b" * 100)  # longer than bcrypt can check
    inline = parse_inline("ann:pass:with:colons")
    assert inline == Credential("ann", "plain", "pass:with:colons")
    assert verify_password(inline, "pass:with:colons") and not verify_password(
        inline, "pass"
    )
    assert not verify_password(Credential("x", "bcrypt", "$2y$garbage"), "x")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ann:$apr1$abc$def\n", "line 1: MD5 ($apr1$) entries are not supported"),
        ("ann:plaintext\n", "line 1: unsupported entry"),
        ("# only a comment\n", "the file lists no user"),
        ("ann\n", "line 1: expected USER:HASH"),
        ("ann:{SHA}x\nann:{SHA}y\n", "line 2: user 'ann' is listed twice"),
    ],
)
def test_bad_htpasswd(text: str, message: str) -> None:
    with pytest.raises(
        HtpasswdError,
        match=message.replace("$", r"\$").replace("(", r"\(").replace(")", r"\)"),
    ):
        parse_htpasswd(text)


def test_proxy_authorization_in_a_connect_head() -> None:
    head = (
        b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\nproxy-authorization:  Basic eA==\r\n"
    )
    assert proxy_authorization_in_head(head) == "Basic eA=="
    assert proxy_authorization_in_head(b"CONNECT a:443 HTTP/1.1\r\nHost: a\r\n") is None


def test_407_response_bytes() -> None:
    raw = denied_response(AUTH_REQUIRED)
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 407 Proxy Authentication Required\r\n")
    assert b'\r\nProxy-Authenticate: Basic realm="memtap"\r\n' in head
    assert b"\r\nConnection: close" in head
    assert orjson.loads(body)["error"]["code"] == "proxy_auth_required"


async def test_inline_credentials() -> None:
    auth = ProxyAuthenticator()
    assert await auth.check("ann:pw", basic("ann", "pw"))
    assert not await auth.check("ann:pw", basic("ann", "pW"))
    assert not await auth.check("ann:pw", basic("bob", "pw"))
    assert not await auth.check("ann:pw", None)
    # A reload with another password applies at once.
    assert await auth.check("ann:new", basic("ann", "new"))
    assert not await auth.check("ann:new", basic("ann", "pw"))


async def test_htpasswd_file_bcrypt_is_verified_once_and_reloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "htpasswd"
    path.write_text(bcrypt_entry("ann", "pw") + "\n" + sha_entry("bob", "pw2") + "\n")
    calls: list[str] = []
    real = proxy_auth.verify_password

    def counting(credential: Credential, password: str) -> bool:
        calls.append(credential.user)
        return real(credential, password)

    monkeypatch.setattr(proxy_auth, "verify_password", counting)
    monkeypatch.setattr(proxy_auth, "_RECHECK_S", 0.0)
    auth = ProxyAuthenticator()
    spec = f"@{path}"
    for _ in range(3):
        assert await auth.check(spec, basic("ann", "pw"))
    assert calls.count("ann") == 1  # bcrypt once, then remembered
    assert not await auth.check(spec, basic("ann", "wrong"))
    assert not await auth.check(spec, basic("ann", "wrong"))
    assert calls.count("ann") == 3  # a failure is never remembered
    assert await auth.check(spec, basic("bob", "pw2"))

    # The operator removes ann: the remembered success goes with the old file.
    path.write_text(sha_entry("bob", "pw2") + "\n")
    os.utime(path, ns=(1, 1))  # a different mtime even within the clock's resolution
    assert not await auth.check(spec, basic("ann", "pw"))
    assert await auth.check(spec, basic("bob", "pw2"))

    # A file that becomes unusable refuses everyone (fail closed).
    path.write_text("bob:$apr1$x$y\n")
    os.utime(path, ns=(2, 2))
    assert not await auth.check(spec, basic("bob", "pw2"))
    path.unlink()
    assert not await auth.check(spec, basic("bob", "pw2"))


async def test_concurrent_first_checks_wait_for_the_file(tmp_path: Path) -> None:
    # Callers arriving while the file is first read must be judged by it, not refused.
    path = tmp_path / "htpasswd"
    path.write_text(sha_entry("ann", "pw") + "\n")
    auth = ProxyAuthenticator()
    results = await asyncio.gather(
        *(auth.check(f"@{path}", basic("ann", "pw")) for _ in range(6))
    )
    assert results == [True] * 6
