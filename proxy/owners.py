"""What an owner id may look like, and how an end user behind a key becomes one.

Owners are sha256-derived hex ids in practice (`proxy/headers.py:owner_id_for_key`);
operators may also create readable ones ("alice"). No slashes or leading dots: an owner
never looks like a path.

An app whose server holds one key and serves many people names the person of each request
(the `X-Memtap-User` header, or the body's own field: `proxy/codecs/end_user.py`). That
person's owner is `<owner of the key>:<first 16 hex of sha256(ID)>`: only the digest is
kept, the raw ID is never stored, logged or put on the flow.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Final

from memtap.config.schema import EndUserSource, Scope

OWNER_ID_RE: Final = re.compile(r"[A-Za-z0-9_:@-][A-Za-z0-9_.:@-]{0,255}")

USER_TAG_CHARS: Final = 16
"""Hex characters of sha256(end user ID) in an end user's owner id."""
USER_SEPARATOR: Final = ":"


def is_owner_id(text: str) -> bool:
    """True for a string the admin API accepts as an owner id (never empty); an end user's
    owner (`KEYOWNER:USERTAG`) is one."""
    return OWNER_ID_RE.fullmatch(text) is not None


def user_tag(end_user: str) -> str:
    """The first 16 hex of sha256 of an end user's ID (stripped): what memtap keeps of it."""
    # surrogatepass: a header or body may carry a lone surrogate; hashing never fails.
    digest = hashlib.sha256(end_user.strip().encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:USER_TAG_CHARS]


def end_user_owner(key_owner: str, tag: str) -> str:
    """The owner of an end user (`user_tag`) behind the key whose owner is `key_owner`."""
    return f"{key_owner}{USER_SEPARATOR}{tag}"


def key_owner_of(owner: str) -> str | None:
    """The key's owner an end user's owner belongs to (None: `owner` names no end user).
    The Studio groups a key's users under it with this."""
    key, separator, tag = owner.rpartition(USER_SEPARATOR)
    return key if separator and key and tag else None


def chosen_end_user(
    sources: Iterable[EndUserSource], header_tag: str | None, body_tag: str | None
) -> tuple[EndUserSource, str] | None:
    """The end user a request names, by `memory.user_from` precedence: the first source
    that names one, with its tag (None: the request names no end user)."""
    for source in sources:
        tag = header_tag if source == "header" else body_tag
        if tag:
            return source, tag
    return None


def scope_for(owner: str, scope: Scope) -> Scope:
    """The scope a retrieval for `owner` runs with: `global` shares memories across keys
    (single-user setups), but an end user's owner says several people share its key, so
    it reads only its own (`owner`). The proxy and retrieve-preview both apply it."""
    return "owner" if scope == "global" and key_owner_of(owner) is not None else scope
