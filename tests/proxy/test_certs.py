"""memtap's interception CA and leaf certificates: files, extensions, caching, real handshakes."""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import os
import ssl
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from memtap.proxy.modes.certs import (
    CA_COMMON_NAME,
    CertificateAuthority,
    LeafCertStore,
    ca_cert_path,
    leaf_file_name,
)


def test_ca_created_on_first_use_with_private_key_mode_0600(tmp_path: Path) -> None:
    ca = CertificateAuthority.load_or_create(tmp_path)
    assert ca.cert_path == ca_cert_path(tmp_path) == tmp_path / "ca" / "memtap-ca.pem"
    key_path = tmp_path / "ca" / "memtap-ca.key"
    assert stat.S_IMODE(os.stat(key_path).st_mode) == 0o600
    assert b"PRIVATE KEY" in key_path.read_bytes()
    assert b"PRIVATE KEY" not in ca.cert_path.read_bytes()
    # Second load reads the same CA instead of making a new one.
    assert CertificateAuthority.load_or_create(tmp_path).fingerprint == ca.fingerprint


def test_ca_certificate_says_memtap_is_a_ca_and_lasts_ten_years(tmp_path: Path) -> None:
    cert = CertificateAuthority.load_or_create(tmp_path).cert
    assert (
        cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
        == CA_COMMON_NAME
    )
    assert "memtap" in CA_COMMON_NAME
    basic = cert.extensions.get_extension_for_class(x509.BasicConstraints)
    assert basic.critical and basic.value.ca
    assert cert.extensions.get_extension_for_class(x509.KeyUsage).value.key_cert_sign
    lifetime = cert.not_valid_after_utc - dt.datetime.now(dt.UTC)
    assert dt.timedelta(days=3640) < lifetime <= dt.timedelta(days=3651)


def test_key_mode_is_tightened_when_loosened(tmp_path: Path) -> None:
    CertificateAuthority.load_or_create(tmp_path)
    key_path = tmp_path / "ca" / "memtap-ca.key"
    os.chmod(key_path, 0o644)
    CertificateAuthority.load_or_create(tmp_path)
    assert stat.S_IMODE(os.stat(key_path).st_mode) == 0o600


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("api.openai.com", x509.DNSName("api.openai.com")),
        ("127.0.0.1", x509.IPAddress(ipaddress.ip_address("127.0.0.1"))),
    ],
)
def test_leaf_has_san_serverauth_and_at_most_397_days(
    tmp_path: Path, host: str, expected: x509.GeneralName
) -> None:
    ca = CertificateAuthority.load_or_create(tmp_path)
    leaf, _key = ca.issue_leaf(host)
    leaf.verify_directly_issued_by(ca.cert)
    assert list(
        leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    ) == [expected]
    assert not leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert (
        ExtendedKeyUsageOID.SERVER_AUTH
        in leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    )
    assert leaf.not_valid_after_utc - leaf.not_valid_before_utc <= dt.timedelta(
        days=397
    )
    assert (
        leaf.not_valid_before_utc < dt.datetime.now(dt.UTC) < leaf.not_valid_after_utc
    )


def test_leaf_file_name_cannot_escape_the_directory() -> None:
    assert "/" not in leaf_file_name("../../etc/passwd")
    assert leaf_file_name("API.OpenAI.com") == "api.openai.com.pem"


async def _handshake(ctx: ssl.SSLContext, ca_file: Path, server_hostname: str) -> str:
    """A real TLS handshake on loopback: the client verifies against `ca_file` only."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"ok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=ctx)
    port = server.sockets[0].getsockname()[1]
    client_ctx = ssl.create_default_context(cafile=str(ca_file))
    client_ctx.verify_flags |= (
        ssl.VERIFY_X509_STRICT
    )  # Python 3.13's default: be ready for it
    try:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, ssl=client_ctx, server_hostname=server_hostname
        )
        data = await reader.read()
        ssl_obj = writer.get_extra_info("ssl_object")
        alpn = ssl_obj.selected_alpn_protocol() if ssl_obj else None
        writer.close()
        assert data == b"ok"
        return str(alpn)
    finally:
        server.close()
        await server.wait_closed()


async def test_leaf_context_passes_a_strict_client_handshake(tmp_path: Path) -> None:
    store = LeafCertStore(tmp_path)
    ctx = await store.context_for("localhost")
    await _handshake(ctx, ca_cert_path(tmp_path), "localhost")
    # The wrong name must fail: the SAN really is per host.
    with pytest.raises(ssl.SSLCertVerificationError):
        await _handshake(ctx, ca_cert_path(tmp_path), "api.openai.com")


async def test_leaf_is_cached_in_memory_then_on_disk(tmp_path: Path) -> None:
    store = LeafCertStore(tmp_path)
    first = await store.context_for("api.openai.com")
    assert await store.context_for("API.openai.com") is first
    assert store.issued == 1
    leaf_file = tmp_path / "ca" / "leaves" / "api.openai.com.pem"
    assert stat.S_IMODE(os.stat(leaf_file).st_mode) == 0o600
    before = leaf_file.read_bytes()
    # A new process (new store) reuses the disk copy instead of issuing again.
    again = LeafCertStore(tmp_path)
    await again.context_for("api.openai.com")
    assert (again.issued, again.loaded) == (0, 1)
    assert leaf_file.read_bytes() == before


async def test_concurrent_first_connections_issue_one_leaf(tmp_path: Path) -> None:
    store = LeafCertStore(tmp_path)
    contexts = await asyncio.gather(
        *(store.context_for("api.anthropic.com") for _ in range(8))
    )
    assert all(c is contexts[0] for c in contexts)
    assert store.issued == 1


async def test_lru_evicts_oldest_context(tmp_path: Path) -> None:
    store = LeafCertStore(tmp_path, lru_size=2)
    for host in ("a.example", "b.example", "c.example"):
        await store.context_for(host)
    assert store.cached("a.example") is None
    assert store.cached("c.example") is not None


async def test_regenerated_ca_invalidates_cached_leaves(tmp_path: Path) -> None:
    store = LeafCertStore(tmp_path)
    await store.context_for("localhost")
    old = CertificateAuthority.load_or_create(tmp_path).fingerprint
    new_ca = CertificateAuthority.create(tmp_path)
    assert new_ca.fingerprint != old
    assert not (tmp_path / "ca" / "leaves").exists()
    fresh = LeafCertStore(tmp_path)
    ctx = await fresh.context_for("localhost")
    assert fresh.issued == 1
    await _handshake(ctx, ca_cert_path(tmp_path), "localhost")


async def test_leaf_signed_by_another_ca_is_reissued(tmp_path: Path) -> None:
    other = tmp_path / "other"
    await LeafCertStore(other).context_for("localhost")
    mine = tmp_path / "mine"
    (mine / "ca" / "leaves").mkdir(parents=True)
    (mine / "ca" / "leaves" / "localhost.pem").write_bytes(
        (other / "ca" / "leaves" / "localhost.pem").read_bytes()
    )
    store = LeafCertStore(mine)
    ctx = await store.context_for("localhost")
    assert (store.issued, store.loaded) == (1, 0)
    await _handshake(ctx, ca_cert_path(mine), "localhost")


def test_cli_ca_path_creates_then_reuses_and_regenerate_replaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from memtap.proxy.cli.main import main

    monkeypatch.chdir(
        tmp_path
    )  # no config/memtap.yaml here: built-in defaults (./data)
    assert main(["ca", "path"]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed == (tmp_path / "data" / "ca" / "memtap-ca.pem").resolve()
    assert printed.exists()
    before = printed.read_bytes()
    assert main(["ca", "path", "--json"]) == 0
    assert '"created": false' in capsys.readouterr().out
    assert printed.read_bytes() == before
    assert main(["ca", "regenerate"]) == 0
    capsys.readouterr()
    assert printed.read_bytes() != before
    assert stat.S_IMODE(os.stat(printed.with_suffix(".key")).st_mode) == 0o600
    # -c and --data-dir: the config's data_dir, overridden by the flag.
    (tmp_path / "memtap.yaml").write_text("data_dir: ./elsewhere\n")
    assert main(["ca", "path", "-c", "memtap.yaml"]) == 0
    assert capsys.readouterr().out.strip().endswith("elsewhere/ca/memtap-ca.pem")
    assert main(["ca", "path", "-c", "memtap.yaml", "--data-dir", "flagdir"]) == 0
    assert capsys.readouterr().out.strip().endswith("flagdir/ca/memtap-ca.pem")
    (tmp_path / "bad.yaml").write_text("data_dirr: x\n")
    assert main(["ca", "path", "-c", "bad.yaml"]) == 1


def test_concurrent_first_use_creates_one_consistent_ca(tmp_path: Path) -> None:
    """`memtap serve` and `memtap ca path` racing on a new data_dir end with one CA whose key
    matches its certificate (the creation is under a file lock)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=6) as pool:
        cas = list(
            pool.map(lambda _: CertificateAuthority.load_or_create(tmp_path), range(6))
        )
    final = CertificateAuthority.load_or_create(tmp_path)
    assert {ca.fingerprint for ca in cas} == {final.fingerprint}
    assert (
        final.key.public_key().public_numbers()
        == final.cert.public_key().public_numbers()
    )
