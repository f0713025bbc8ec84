"""Admin API query strings: the listings of memories, episodes, requests and owners. Unknown
parameters are rejected like unknown fields; values go through `fields.py`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from memtap.engine.api import InvalidInput
from memtap.engine.episode_types import EpisodeListQuery
from memtap.engine.history.importer import DEFAULT_WAIT_S
from memtap.engine.types import ListQuery
from memtap.proxy.admin.fields import (
    MAX_QUERY_CHARS,
    MAX_SHORT_CHARS,
    bounded_string,
    memory_type,
    only,
    owner_id,
    query_int,
)

MAX_LIST_LIMIT: Final = 500
DEFAULT_LIST_LIMIT: Final = 50

_LIST_PARAMS = frozenset(
    {"owner", "session", "type", "q", "limit", "offset", "include_superseded"}
)
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def list_query(params: Mapping[str, str]) -> ListQuery:
    """GET /api/memories query string. Unknown parameters are rejected like unknown fields."""
    only(params, _LIST_PARAMS, "the query string")
    include = params.get("include_superseded", "").lower()
    if include not in _TRUE | _FALSE:
        raise InvalidInput(
            "include_superseded must be true or false", "include_superseded"
        )
    q = (params.get("q") or "").strip()
    return ListQuery(
        owner=owner_id(params["owner"]) if params.get("owner") else None,
        session=bounded_string(params["session"], "session", max_chars=MAX_SHORT_CHARS)
        if params.get("session")
        else None,
        type=memory_type(params["type"]) if params.get("type") else None,
        q=bounded_string(q, "q", max_chars=MAX_QUERY_CHARS) if q else None,
        limit=query_int(params["limit"], "limit", minimum=0, maximum=MAX_LIST_LIMIT)
        if "limit" in params
        else DEFAULT_LIST_LIMIT,
        offset=query_int(params["offset"], "offset", minimum=0, maximum=10**9)
        if "offset" in params
        else 0,
        include_superseded=include in _TRUE,
    )


def export_query(params: Mapping[str, str]) -> bool:
    """GET /api/owners/{owner}/export query string: whether episodes follow the memories
    (`episodes=true`; the contract's export is JSON lines of memories). Other parameters
    are ignored, as they always were here (a download link's cache-buster)."""
    episodes = params.get("episodes", "").lower()
    if episodes not in _TRUE | _FALSE:
        raise InvalidInput("episodes must be true or false", "episodes")
    return episodes in _TRUE


_REQUESTS_PARAMS = frozenset({"owner", "limit"})
MAX_REQUESTS_LIMIT = 1000
DEFAULT_REQUESTS_LIMIT = 100


def requests_query(params: Mapping[str, str]) -> tuple[str | None, int]:
    """GET /api/requests query string: (owner or None, limit)."""
    only(params, _REQUESTS_PARAMS, "the query string")
    owner = owner_id(params["owner"]) if params.get("owner") else None
    limit = (
        query_int(params["limit"], "limit", minimum=1, maximum=MAX_REQUESTS_LIMIT)
        if "limit" in params
        else DEFAULT_REQUESTS_LIMIT
    )
    return owner, limit


def owners_query(params: Mapping[str, str]) -> str | None:
    """GET /api/owners query string: an optional owner to report on alone."""
    only(params, frozenset({"owner"}), "the query string")
    return owner_id(params["owner"]) if params.get("owner") else None


_EPISODE_LIST_PARAMS: Final = frozenset({"owner", "session", "q", "limit", "offset"})


def episode_list_query(params: Mapping[str, str]) -> EpisodeListQuery:
    """GET /api/episodes query string, read by the same rules as the memories listing."""
    only(params, _EPISODE_LIST_PARAMS, "the query string")
    q = (params.get("q") or "").strip()
    return EpisodeListQuery(
        owner=owner_id(params["owner"]) if params.get("owner") else None,
        session=bounded_string(params["session"], "session", max_chars=MAX_SHORT_CHARS)
        if params.get("session")
        else None,
        q=bounded_string(q, "q", max_chars=MAX_QUERY_CHARS) if q else None,
        limit=query_int(params["limit"], "limit", minimum=0, maximum=MAX_LIST_LIMIT)
        if "limit" in params
        else DEFAULT_LIST_LIMIT,
        offset=query_int(params["offset"], "offset", minimum=0, maximum=10**9)
        if "offset" in params
        else 0,
    )


MAX_WAIT_S: Final = 600.0


def wait_query(params: Mapping[str, str]) -> float:
    """`?wait=` seconds (0..`MAX_WAIT_S`, default `DEFAULT_WAIT_S`): how long an import's
    answer may wait without progress (for its turns, then for its windows' vectors)."""
    raw = params.get("wait")
    if raw is None:
        return DEFAULT_WAIT_S
    try:
        value = float(raw)
    except ValueError:
        raise InvalidInput("wait must be a number of seconds", "wait") from None
    if not 0 <= value <= MAX_WAIT_S:
        raise InvalidInput(f"wait must be 0..{MAX_WAIT_S:g} seconds", "wait")
    return value
