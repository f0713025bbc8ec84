"""A provider's own PKI for tests and benchmarks: a self-signed CA and a leaf for 127.0.0.1
that it signed, written as PEM files.

Built with `cryptography` directly, never with memtap's code (`proxy/modes/certs.py`), so a
test of memtap's TLS checks memtap against an independent issuer. memtap's own CA and leaves
are tested in tests/proxy/test_certs.py.

    pki = make_pki(tmp_path / "pki")
    Standin(tls=pki)                          # an HTTPS stand-in serving the leaf
    UpstreamConfig(..., ca_file=str(pki.ca_file))
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

CA_FILE = "ca.pem"
CHAIN_FILE = "server.pem"


@dataclass(frozen=True, slots=True)
class Pki:
    ca_file: Path
    """The CA certificate: what a client (or memtap's `ca_file`) trusts."""
    chain_file: Path
    """The 127.0.0.1 leaf followed by its private key: what the server loads."""

    @classmethod
    def in_directory(cls, directory: Path) -> Pki:
        """The files `make_pki(directory)` wrote (a benchmark's child process reads them)."""
        return cls(ca_file=directory / CA_FILE, chain_file=directory / CHAIN_FILE)

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.chain_file)
        return context


def make_pki(
    directory: Path, *, ca_name: str = "stand-in test CA", days: int = 30
) -> Pki:
    """A new CA and a leaf for 127.0.0.1 (IP SAN) it signed, valid from a day ago for `days`."""
    directory.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, ca_name)])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_subject)
        .issuer_name(ca_subject)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=days))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    pki = Pki.in_directory(directory)
    pki.ca_file.write_bytes(ca_cert.public_bytes(pem))
    key_pem = key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    pki.chain_file.write_bytes(leaf.public_bytes(pem) + key_pem)
    return pki
