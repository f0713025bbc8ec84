"""`Proxy-Authorization: Basic ...` checked against `intercept.proxy_auth`.

`ProxyAuthenticator.check(spec, header)` is all a mode calls. What it relies on:

* `spec` is the live config value: `USER:PASSWORD` (already `${ENV}`-expanded by the loader)
  or `@FILE`, an htpasswd file parsed by `config/htpasswd.py`. The file is re-read (in a
  thread) when its modification time or size changes, looked at no more than once a second;
  a file that cannot be read any more refuses everyone (fail closed) and is logged once.
* bcrypt costs tens of milliseconds by design, so it runs in a thread, at most two at a
  time (a flood of wrong passwords cannot take every worker thread), and a credential that
  verified once is remembered (by its SHA-256, never in clear) until the file changes:
  a client that sends the same header on every request pays for bcrypt once.
* Comparisons of passwords and digests are constant-time. Nothing here logs the header or
  a password; a failure is logged with its reason and the user name only.

bcrypt comes from the `bcrypt` package (pyca): a password-hashing primitive is exactly the
code not to write oneself.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import logging
import os
import time
from dataclasses import dataclass

import bcrypt

from memtap.config.htpasswd import (
    Credential,
    HtpasswdError,
    is_file_spec,
    parse_inline,
    read_htpasswd,
)

log = logging.getLogger("memtap.proxy_auth")

REALM_HEADER = 'Basic realm="memtap"'
"""The `Proxy-Authenticate` value of every 407."""

_RECHECK_S = 1.0
_REMEMBERED_MAX = 1024
_BCRYPT_AT_ONCE = 2


@dataclass(frozen=True, slots=True)
class _Table:
    users: dict[str, Credential]
    version: tuple[str, int, int]
    """What the users were read from: the spec, and (mtime, size) for a file (else -1, -1)."""


def _read_file(spec: str, known: _Table | None) -> _Table:
    """The users of the htpasswd file `spec` names (`known` again if it did not change).
    Blocking: runs in a thread. Raises OSError or HtpasswdError."""
    path = spec[1:]
    stat = os.stat(path)
    version = (spec, stat.st_mtime_ns, stat.st_size)
    if known is not None and known.version == version:
        return known
    return _Table(read_htpasswd(path), version)


def basic_credentials(header: str | None) -> tuple[str, str] | None:
    """(user, password) of a `Basic` Proxy-Authorization value; None if absent or malformed."""
    if not header:
        return None
    scheme, _, encoded = header.strip().partition(" ")
    if scheme.lower() != "basic" or not encoded.strip():
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    user, sep, password = decoded.partition(":")
    if not sep:
        return None
    return user, password


def verify_password(credential: Credential, password: str) -> bool:
    """Whether `password` matches the stored secret (blocking for bcrypt: call in a thread)."""
    raw = password.encode("utf-8")
    if credential.scheme == "plain":
        return hmac.compare_digest(raw, credential.secret.encode("utf-8"))
    if credential.scheme == "sha":
        digest = base64.b64encode(hashlib.sha1(raw).digest())  # htpasswd {SHA}
        return hmac.compare_digest(digest, credential.secret.encode("ascii", "replace"))
    if len(raw) > 72:
        return False  # bcrypt uses 72 bytes at most; the library refuses longer input
    try:
        return bcrypt.checkpw(raw, credential.secret.encode("ascii"))
    except ValueError:  # a malformed hash: never a match
        return False


class ProxyAuthenticator:
    """Checks proxy credentials; one per listener (it holds the caches)."""

    def __init__(self) -> None:
        self._table: _Table | None = None
        self._checked_spec: str | None = None
        self._checked_at = 0.0
        self._remembered: set[bytes] = set()
        self._bcrypt_slots = asyncio.Semaphore(_BCRYPT_AT_ONCE)
        self._unreadable_logged: str | None = None
        # one reader of the file at a time: callers arriving during a read wait for its
        # table instead of being judged against the table before it (or none at all)
        self._reading = asyncio.Lock()

    async def check(self, spec: str, header: str | None) -> bool:
        """True when `header` carries a user and password that `spec` accepts."""
        credentials = basic_credentials(header)
        if credentials is None:
            log.info("proxy_auth.failed", extra={"fields": {"reason": "missing"}})
            return False
        user, password = credentials
        table = await self._current(spec)
        credential = table.users.get(user) if table is not None else None
        if credential is None:
            self._failed("unknown_user", user)
            return False
        if credential.scheme != "bcrypt":
            ok = verify_password(credential, password)
        else:
            ok = await self._check_bcrypt(credential, password, table)
        if not ok:
            self._failed("wrong_password", user)
        return ok

    def _failed(self, reason: str, user: str) -> None:
        log.info(
            "proxy_auth.failed", extra={"fields": {"reason": reason, "user": user[:64]}}
        )

    async def _check_bcrypt(
        self, credential: Credential, password: str, table: _Table | None
    ) -> bool:
        key = hashlib.sha256(
            f"{credential.user}\0{credential.secret}\0{password}".encode()
        ).digest()
        if key in self._remembered:
            return True
        async with self._bcrypt_slots:
            ok = await asyncio.to_thread(verify_password, credential, password)
        if ok and table is self._table:
            if len(self._remembered) >= _REMEMBERED_MAX:
                self._remembered.clear()
            self._remembered.add(key)
        return ok

    async def _current(self, spec: str) -> _Table | None:
        """The users `spec` stands for now (None: a file that cannot be read)."""
        table = self._table
        if not is_file_spec(spec):
            if table is None or table.version[0] != spec:
                user = parse_inline(spec)
                self._swap(_Table({user.user: user}, (spec, -1, -1)))
            return self._table
        if self._checked_recently(spec):
            return table
        async with self._reading:
            if self._checked_recently(spec):
                return self._table
            fresh = await self._read(spec)
            self._checked_spec, self._checked_at = spec, time.monotonic()
            return fresh

    def _checked_recently(self, spec: str) -> bool:
        return (
            self._checked_spec == spec
            and time.monotonic() - self._checked_at < _RECHECK_S
        )

    async def _read(self, spec: str) -> _Table | None:
        table = self._table
        known = table if table is not None and table.version[0] == spec else None
        try:
            fresh: _Table | None = await asyncio.to_thread(_read_file, spec, known)
        except (OSError, HtpasswdError) as exc:
            if self._unreadable_logged != spec:
                self._unreadable_logged = spec
                log.error(
                    "proxy_auth.file_unusable",
                    extra={"fields": {"path": spec[1:], "error": str(exc)}},
                )
            fresh = None
        else:
            self._unreadable_logged = None
        self._swap(fresh)
        return fresh

    def _swap(self, table: _Table | None) -> None:
        if table is not self._table:
            self._remembered.clear()  # a changed file may have dropped a user
        self._table = table
