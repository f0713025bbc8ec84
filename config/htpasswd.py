"""`intercept.proxy_auth` values: `USER:PASSWORD`, or `@FILE` naming an htpasswd file.

Pure parsing, no verification: lives in config/ so the YAML validator (which names the bad
line) and the forward proxy's authenticator (`proxy/access/proxy_auth.py`) read entries the
same way. Supported htpasswd entries: bcrypt (`htpasswd -B`: `$2y$`, `$2b$`, `$2a$`) and SHA-1
(`htpasswd -s`: `{SHA}` + base64). The MD5 (`$apr1$`) and crypt() forms are refused with a
message that says which flag to use instead: both are weak, and crypt() is not portable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scheme = Literal["plain", "sha", "bcrypt"]

_BCRYPT_PREFIXES = ("$2y$", "$2b$", "$2a$")


@dataclass(frozen=True, slots=True)
class Credential:
    """One user's stored secret: the password itself (`USER:PASSWORD` in the config), a
    `{SHA}` digest (base64 text after the marker) or a bcrypt hash."""

    user: str
    scheme: Scheme
    secret: str


class HtpasswdError(ValueError):
    """A `proxy_auth` value or an htpasswd line memtap cannot use (message names the line)."""


def is_file_spec(spec: str) -> bool:
    return spec.startswith("@")


def parse_inline(spec: str) -> Credential:
    """`USER:PASSWORD` (the password may contain ':'). Raises HtpasswdError."""
    user, sep, password = spec.partition(":")
    if not sep or not user or not password:
        raise HtpasswdError('must be "USER:PASSWORD" or "@HTPASSWD_FILE"')
    return Credential(user=user, scheme="plain", secret=password)


def _entry(user: str, stored: str, where: str) -> Credential:
    if stored.startswith("{SHA}"):
        return Credential(user=user, scheme="sha", secret=stored[5:])
    if stored.startswith(_BCRYPT_PREFIXES):
        return Credential(user=user, scheme="bcrypt", secret=stored)
    if stored.startswith("$apr1$"):
        raise HtpasswdError(
            f"{where}: MD5 ($apr1$) entries are not supported; "
            "write them with htpasswd -B (bcrypt) or -s (SHA)"
        )
    raise HtpasswdError(
        f"{where}: unsupported entry (crypt or plain text); "
        "write it with htpasswd -B (bcrypt) or -s (SHA)"
    )


def parse_htpasswd(text: str) -> dict[str, Credential]:
    """Every `user:hash` line of an htpasswd file (blank lines and `#` comments skipped).

    Raises HtpasswdError naming the first bad line; a file without any entry is an error too
    (it would lock every client out, which is never what an operator meant).
    """
    entries: dict[str, Credential] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        user, sep, stored = line.partition(":")
        where = f"line {number}"
        if not sep or not user or not stored:
            raise HtpasswdError(f"{where}: expected USER:HASH")
        if user in entries:
            raise HtpasswdError(f"{where}: user {user!r} is listed twice")
        entries[user] = _entry(user, stored, where)
    if not entries:
        raise HtpasswdError("the file lists no user")
    return entries


def read_htpasswd(path: str) -> dict[str, Credential]:
    """Read and parse an htpasswd file (blocking). Raises OSError or HtpasswdError."""
    with open(path, encoding="utf-8") as handle:
        return parse_htpasswd(handle.read())
