"""Header rules of a transparent proxy: hop-by-hop removal, memtap's own X-Memtap-* request
headers, and where an API key (the memory owner) is found.

Pure functions over multidicts; the handler reads every request with them
(`proxy/handler.py:new_flow`), whatever mode brought it. Every `X-Memtap-*` name is here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import parse_qsl

from multidict import CIMultiDict, MultiMapping

from memtap.proxy.owners import user_tag

# RFC 9110 section 7.6.1 plus the legacy names still seen in the wild. Proxy-* is matched by prefix.
HOP_BY_HOP: frozenset[str] = frozenset(
    {
        "connection",
        "keep-alive",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
"""Lower-case names never forwarded in either direction."""

MEMTAP_PREFIX = "x-memtap-"
SESSION_HEADER = "X-Memtap-Session"
MEMORY_HEADER = "X-Memtap-Memory"
USER_HEADER = "X-Memtap-User"
"""The end user behind the key (`proxy/owners.py`): its value is hashed at once, never kept."""
MEMORIES_HEADER = "X-Memtap-Memories"
REQUEST_ID_HEADER = "X-Memtap-Request-Id"

SECRET_HEADERS: frozenset[str] = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "x-memtap-user",
    }
)
"""Headers whose values are credentials or a person's id: never logged (see proxy/logs/redact.py)."""

# Headers the upstream request must not inherit: the client already got its 100 Continue
# from memtap, and Host is rewritten for the upstream.
_NOT_FORWARDED_UPSTREAM: frozenset[str] = HOP_BY_HOP | {"host", "expect"}


def _connection_tokens(headers: MultiMapping[str]) -> frozenset[str]:
    if "Connection" not in headers:
        return frozenset()
    tokens: set[str] = set()
    for value in headers.getall("Connection"):
        tokens.update(t.strip().lower() for t in value.split(",") if t.strip())
    return frozenset(tokens)


def is_hop_by_hop(name: str, connection_tokens: Iterable[str] = ()) -> bool:
    lower = name.lower()
    return (
        lower in HOP_BY_HOP or lower.startswith("proxy-") or lower in connection_tokens
    )


def _dropped_names(
    headers: MultiMapping[str], drop: frozenset[str], drop_memtap: bool
) -> tuple[str, ...]:
    named = _connection_tokens(headers)
    dropped: dict[str, None] = {}
    for name in headers:
        lower = name.lower()
        if (
            lower in drop
            or lower.startswith("proxy-")
            or (drop_memtap and lower.startswith(MEMTAP_PREFIX))
            or lower in named
        ):
            dropped[lower] = None
    return tuple(dropped)


_PlanKey = tuple[frozenset[str], bool, tuple[str, ...], tuple[str, ...]]
_plans: dict[_PlanKey, tuple[str, ...]] = {}
"""Which names a header set loses, per (rule, names in order, Connection values): clients
send the same few header sets again and again, so the per-name tests run once per set."""
MAX_PLANS = 256
"""Distinct header sets remembered (then the table starts over: bounded whatever clients send)."""


def _filtered(
    headers: MultiMapping[str], drop: frozenset[str], drop_memtap: bool
) -> CIMultiDict[str]:
    # The decision depends only on the names and the Connection header's tokens, never on
    # other values or on configuration: a set seen before is copied and cut at C speed.
    key = (drop, drop_memtap, tuple(headers), tuple(headers.getall("Connection", ())))
    dropped = _plans.get(key)
    if dropped is None:
        dropped = _dropped_names(headers, drop, drop_memtap)
        if len(_plans) >= MAX_PLANS:
            _plans.clear()
        _plans[key] = dropped
    out = CIMultiDict(headers)
    for name in dropped:
        out.popall(name)
    return out


def strip_hop_by_hop(headers: MultiMapping[str]) -> CIMultiDict[str]:
    """A copy without hop-by-hop headers (the fixed set, Proxy-*, and those Connection names).

    Order and repeated headers (Set-Cookie) are preserved.
    """
    return _filtered(headers, HOP_BY_HOP, drop_memtap=False)


@dataclass(frozen=True, slots=True)
class MemtapRequestHeaders:
    """The raw X-Memtap-* values a client sent (before they are stripped)."""

    session: str | None
    memory: str | None
    user_tag: str | None = None
    """The X-Memtap-User value as memtap keeps it (`proxy/owners.py:user_tag`), never raw."""


_NO_MEMTAP_HEADERS = MemtapRequestHeaders(session=None, memory=None)


def read_memtap_headers(headers: MultiMapping[str]) -> MemtapRequestHeaders:
    if (
        SESSION_HEADER not in headers
        and MEMORY_HEADER not in headers
        and USER_HEADER not in headers
    ):
        return _NO_MEMTAP_HEADERS  # the usual request: nothing to read
    session = (headers.get(SESSION_HEADER) or "").strip()
    memory = (headers.get(MEMORY_HEADER) or "").strip().lower()
    user = (headers.get(USER_HEADER) or "").strip()
    return MemtapRequestHeaders(
        session=session or None,
        memory=memory or None,
        user_tag=user_tag(user) if user else None,
    )


def upstream_request_headers(
    client_headers: MultiMapping[str], upstream_host: str
) -> CIMultiDict[str]:
    """Headers for the upstream request: hop-by-hop, X-Memtap-*, Host and Expect removed,
    `Host` set to the upstream's authority. Everything else passes through unchanged."""
    out = _filtered(client_headers, _NOT_FORWARDED_UPSTREAM, drop_memtap=True)
    out["Host"] = upstream_host
    return out


# -- owners ------------------------------------------------------------------------------


def api_key_from(headers: MultiMapping[str], query_string: str = "") -> str | None:
    """The API key a client authenticates with, as the contract lists the places: `Authorization:
    Bearer K`, `x-api-key: K`, `api-key: K` (Azure OpenAI: the `openai` SDK's `AzureOpenAI`,
    LangChain `AzureChatOpenAI`, litellm `azure/`), `x-goog-api-key: K`, `?key=K` (first
    match in that order)."""
    auth = headers.get("Authorization")
    if auth is not None:
        scheme, _, token = auth.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    for name in ("x-api-key", "api-key", "x-goog-api-key"):
        value = headers.get(name)
        if value is not None and value.strip():
            return value.strip()
    if "key=" in query_string:
        for name, value in parse_qsl(query_string, keep_blank_values=False):
            if name == "key" and value:
                return value
    return None


def owner_id_for_key(api_key: str) -> str:
    """Owner id = sha256(key) as lowercase hex, first 24 characters (the contract's definition)."""
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()[:24]
