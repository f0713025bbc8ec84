"""memtap's interception CA and the per-host leaf certificates it signs.

Layout under `<data_dir>/ca/`:
  memtap-ca.pem        the CA certificate (what clients trust; `memtap ca path` prints it)
  memtap-ca.key        its private key, mode 0600
  leaves/<host>.pem    leaf certificate + key per intercepted host (mode 0600), reused across runs

Everything here that touches the disk or does public-key work is blocking: `LeafCertStore.
context_for` runs it in a thread and keeps the resulting `ssl.SSLContext` in an in-memory LRU,
so only the first connection to a host pays for a certificate.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import ipaddress
import logging
import os
import re
import shutil
import ssl
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

log = logging.getLogger("memtap.certs")

CA_COMMON_NAME = "memtap interception CA"
CA_CERT_NAME = "memtap-ca.pem"
CA_KEY_NAME = "memtap-ca.key"
CA_VALIDITY = dt.timedelta(days=3650)
LEAF_VALIDITY = dt.timedelta(days=397)
"""The CA/Browser-forum ceiling; Apple clients reject longer-lived server certificates."""
LEAF_BACKDATE = dt.timedelta(days=1)
"""Leaves start a day early so a client whose clock lags a little still accepts them."""
LEAF_RENEW_BEFORE = dt.timedelta(days=7)
DEFAULT_LRU_SIZE = 256

_UNSAFE_FILE_CHARS = re.compile(r"[^A-Za-z0-9.\-]")


def ca_dir(data_dir: str | os.PathLike[str]) -> Path:
    return Path(data_dir) / "ca"


def ca_cert_path(data_dir: str | os.PathLike[str]) -> Path:
    return ca_dir(data_dir) / CA_CERT_NAME


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` readable by the owner only, atomically (tmp + rename)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)  # O_CREAT's mode is masked by umask; be explicit
    os.replace(tmp, path)


@contextlib.contextmanager
def _ca_lock(directory: Path) -> Iterator[None]:
    """An exclusive advisory lock on `<data_dir>/ca/.lock` (no-op where fcntl is missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(directory / ".lock", "a") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def _san_for(host: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


@dataclass(frozen=True, slots=True)
class CertificateAuthority:
    cert: x509.Certificate
    key: ec.EllipticCurvePrivateKey
    cert_path: Path

    @property
    def fingerprint(self) -> str:
        return self.cert.fingerprint(hashes.SHA256()).hex()

    @classmethod
    def load_or_create(cls, data_dir: str | os.PathLike[str]) -> CertificateAuthority:
        """Load the CA from `data_dir`, creating it on first use. Blocking."""
        directory = ca_dir(data_dir)
        cert_path = directory / CA_CERT_NAME
        key_path = directory / CA_KEY_NAME
        if cert_path.exists() and key_path.exists():
            return cls._load(cert_path, key_path)
        # Two processes on one data_dir (memtap serve + `memtap ca path`) must not both create
        # one: the second would pair its certificate with the first one's key.
        with _ca_lock(directory):
            if cert_path.exists() and key_path.exists():
                return cls._load(cert_path, key_path)
            return cls._create(data_dir)

    @classmethod
    def create(cls, data_dir: str | os.PathLike[str]) -> CertificateAuthority:
        """Create a fresh CA (replacing any existing one) and drop cached leaves. Blocking."""
        with _ca_lock(ca_dir(data_dir)):
            return cls._create(data_dir)

    @classmethod
    def _create(cls, data_dir: str | os.PathLike[str]) -> CertificateAuthority:
        directory = ca_dir(data_dir)
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name(
            [
                x509.NameAttribute(NameOID.COMMON_NAME, CA_COMMON_NAME),
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "memtap"),
            ]
        )
        now = _now()
        ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - LEAF_BACKDATE)
            .not_valid_after(now + CA_VALIDITY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(ski, critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski),
                critical=False,
            )
            .sign(key, hashes.SHA256())
        )
        key_pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        # Key first: a certificate without its key on disk would be unusable.
        _write_private(directory / CA_KEY_NAME, key_pem)
        cert_path = directory / CA_CERT_NAME
        tmp = cert_path.with_name(f".{CA_CERT_NAME}.tmp")
        tmp.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        os.chmod(tmp, 0o644)
        os.replace(tmp, cert_path)
        shutil.rmtree(directory / "leaves", ignore_errors=True)
        log.info(
            "ca.created",
            extra={
                "fields": {
                    "path": str(cert_path),
                    "fingerprint": cert.fingerprint(hashes.SHA256()).hex(),
                }
            },
        )
        return cls(cert=cert, key=key, cert_path=cert_path)

    @classmethod
    def _load(cls, cert_path: Path, key_path: Path) -> CertificateAuthority:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise TypeError(f"{key_path}: expected an EC private key")
        if os.stat(key_path).st_mode & 0o077:
            # Somebody loosened it (copy, restore from backup): tighten rather than refuse.
            os.chmod(key_path, 0o600)
            log.warning("ca.key_mode_fixed", extra={"fields": {"path": str(key_path)}})
        return cls(cert=cert, key=key, cert_path=cert_path)

    def issue_leaf(
        self, host: str
    ) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
        """A server certificate for `host` (DNS name or IP literal) signed by this CA."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = _now()
        not_before = now - LEAF_BACKDATE
        ca_ski = self.cert.extensions.get_extension_for_class(
            x509.SubjectKeyIdentifier
        ).value
        cert = (
            x509.CertificateBuilder()
            # Subject CN is cosmetic (clients match the SAN); keep it short: CN is capped at 64.
            .subject_name(
                x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host[:64])])
            )
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(not_before)
            .not_valid_after(not_before + LEAF_VALIDITY)
            .add_extension(
                x509.SubjectAlternativeName([_san_for(host)]), critical=False
            )
            .add_extension(
                x509.BasicConstraints(ca=False, path_length=None), critical=True
            )
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=False,
                    crl_sign=False,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(
                x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
            )
            .add_extension(
                x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                critical=False,
            )
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski),
                critical=False,
            )
            .sign(self.key, hashes.SHA256())
        )
        return cert, key


def leaf_file_name(host: str) -> str:
    """A file name that cannot escape the leaves directory whatever the client sent as host."""
    return _UNSAFE_FILE_CHARS.sub("_", host.lower()) + ".pem"


def _server_context(pem_path: Path) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    # memtap's HTTP server speaks HTTP/1.1 only; never let a client negotiate h2 on the tunnel.
    ctx.set_alpn_protocols(["http/1.1"])
    ctx.load_cert_chain(pem_path)
    return ctx


class LeafCertStore:
    """Server-side TLS contexts per intercepted host: memory LRU → disk → freshly issued."""

    def __init__(
        self, data_dir: str | os.PathLike[str], *, lru_size: int = DEFAULT_LRU_SIZE
    ) -> None:
        self._data_dir = Path(data_dir)
        self._lru_size = lru_size
        self._contexts: OrderedDict[str, ssl.SSLContext] = OrderedDict()
        self._pending: dict[str, asyncio.Future[ssl.SSLContext]] = {}
        self._ca: CertificateAuthority | None = None
        self._ca_lock = threading.Lock()
        self.issued = 0
        """Leaves generated by this process (not loaded from disk): observable cache behaviour."""
        self.loaded = 0
        """Leaves loaded from the on-disk cache."""

    @property
    def leaves_dir(self) -> Path:
        return ca_dir(self._data_dir) / "leaves"

    def ca(self) -> CertificateAuthority:
        """The CA, loaded or created on first use. Blocking: call from a thread."""
        with self._ca_lock:
            if self._ca is None:
                self._ca = CertificateAuthority.load_or_create(self._data_dir)
            return self._ca

    async def ensure_ca(self) -> CertificateAuthority:
        return await asyncio.to_thread(self.ca)

    def cached(self, host: str) -> ssl.SSLContext | None:
        """The context for `host` if it is in memory; never blocks."""
        ctx = self._contexts.get(host.lower())
        if ctx is not None:
            self._contexts.move_to_end(host.lower())
        return ctx

    async def context_for(self, host: str) -> ssl.SSLContext:
        """The server context presenting a leaf for `host`; concurrent callers share one build.

        The build is its own task, so a caller that goes away (client hung up) does not cancel
        it for the others, and the result still lands in the cache.
        """
        key = host.lower()
        ctx = self.cached(key)
        if ctx is not None:
            return ctx
        build = self._pending.get(key)
        if build is None:
            build = asyncio.ensure_future(self._build(key))
            self._pending[key] = build
            build.add_done_callback(lambda done: self._build_done(key, done))
        return await asyncio.shield(build)

    async def _build(self, key: str) -> ssl.SSLContext:
        ctx = await asyncio.to_thread(self._load_or_issue, key)
        ctx.sni_callback = self._sni_callback
        self._contexts[key] = ctx
        while len(self._contexts) > self._lru_size:
            self._contexts.popitem(last=False)
        return ctx

    def _build_done(self, key: str, done: asyncio.Future[ssl.SSLContext]) -> None:
        self._pending.pop(key, None)
        if not done.cancelled() and done.exception() is not None:
            log.error(
                "cert.failed",
                extra={"fields": {"host": key, "error": repr(done.exception())}},
            )

    def _sni_callback(
        self,
        ssl_obj: ssl.SSLObject | ssl.SSLSocket,
        server_name: str | None,
        _ctx: ssl.SSLContext,
    ) -> None:
        # The context was chosen from the CONNECT target; a client that names another host in
        # SNI (CONNECT to an IP, SNI with the name) gets that host's leaf when one is in memory.
        if server_name:
            other = self.cached(server_name)
            if other is not None and other is not ssl_obj.context:
                ssl_obj.context = other

    def _load_or_issue(self, host: str) -> ssl.SSLContext:
        ca = self.ca()
        path = self.leaves_dir / leaf_file_name(host)
        if path.exists() and self._usable(path, host, ca):
            self.loaded += 1
            return _server_context(path)
        cert, key = ca.issue_leaf(host)
        self.leaves_dir.mkdir(parents=True, exist_ok=True)
        pem = cert.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        _write_private(path, pem)
        self.issued += 1
        log.info(
            "cert.issued",
            extra={
                "fields": {
                    "host": host,
                    "not_after": cert.not_valid_after_utc.isoformat(),
                }
            },
        )
        return _server_context(path)

    @staticmethod
    def _usable(path: Path, host: str, ca: CertificateAuthority) -> bool:
        """A cached leaf is reused only if this CA signed it, it names `host`, and it is not near expiry."""
        try:
            cert = x509.load_pem_x509_certificate(path.read_bytes())
            cert.verify_directly_issued_by(ca.cert)
            san = cert.extensions.get_extension_for_class(
                x509.SubjectAlternativeName
            ).value
        except (ValueError, TypeError, x509.ExtensionNotFound, OSError) as exc:
            log.info(
                "cert.cache_rejected",
                extra={"fields": {"host": host, "reason": repr(exc)}},
            )
            return False
        except Exception as exc:  # noqa: BLE001 - InvalidSignature and friends: just reissue
            log.info(
                "cert.cache_rejected",
                extra={"fields": {"host": host, "reason": repr(exc)}},
            )
            return False
        if _san_for(host) not in san:
            return False
        return cert.not_valid_after_utc - _now() > LEAF_RENEW_BEFORE
