"""Admin API input validation: request bodies and query strings become engine dataclasses.

Everything the admin API accepts passes through here, so the rules live in one place:
unknown fields are rejected, strings are bounded and free of control characters, types and
timestamps are checked. A violation raises `InvalidInput(message, field)`, which the error
middleware turns into a 400 naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

import orjson
from aiohttp import web

from memtap.engine.api import InvalidInput
from memtap.engine.clock import iso, parse_iso
from memtap.engine.episode_types import MAX_EPISODE_CHARS, EpisodeListQuery, NewEpisode
from memtap.engine.types import (
    MEMORY_TYPES,
    ListQuery,
    MemoryPatch,
    MemoryType,
    NewMemory,
    RetrievalRequest,
    Scope,
    Strategy,
)
from memtap.proxy.owners import is_owner_id

MAX_JSON_BODY: Final = 1024 * 1024
"""Ordinary JSON bodies; larger ones get 413 before they are parsed."""
MAX_IMPORT_LINE: Final = 1024 * 1024
MAX_CONTENT_CHARS: Final = 16_000
"""The admin API accepts less than the engine (engine.limits.MAX_CONTENT_CHARS): a request body
stays well under MAX_JSON_BODY with metadata beside it."""
MAX_SHORT_CHARS: Final = 256
"""owner, session, key."""
MAX_QUERY_CHARS: Final = 2_000
MAX_METADATA_BYTES: Final = 16 * 1024
MAX_LIST_LIMIT: Final = 500
DEFAULT_LIST_LIMIT: Final = 50
MAX_PREVIEW_LIMIT: Final = 100
MAX_PREVIEW_TOKENS: Final = 100_000

STRATEGIES: Final[tuple[Strategy, ...]] = ("recent", "keyword", "semantic", "hybrid")
SCOPES: Final[tuple[Scope, ...]] = ("session", "owner", "global")

_ID_RE: Final = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.:-]{0,127}")
# Control characters other than tab/newline/carriage return (NUL among them) never belong in
# stored text; FTS tokenizers and terminals both handle them badly.
_CONTROL_RE: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LINE_CONTROL_RE: Final = re.compile(r"[\x00-\x1f\x7f]")


class PayloadTooLarge(Exception):
    """The body exceeded its limit; mapped to 413 `payload_too_large`."""


# -- primitives -----------------------------------------------------------------------------


def _string(
    value: Any,
    field: str,
    *,
    max_chars: int,
    multiline: bool = False,
    allow_empty: bool = False,
) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string", field)
    if not allow_empty and not value.strip():
        raise InvalidInput(f"{field} must not be empty", field)
    if len(value) > max_chars:
        raise InvalidInput(f"{field} is longer than {max_chars} characters", field)
    pattern = _CONTROL_RE if multiline else _LINE_CONTROL_RE
    if pattern.search(value):
        raise InvalidInput(f"{field} contains control characters", field)
    return value


def _optional_string(
    value: Any, field: str, *, max_chars: int = MAX_SHORT_CHARS
) -> str | None:
    return None if value is None else _string(value, field, max_chars=max_chars)


def _int(value: Any, field: str, *, minimum: int, maximum: int) -> int:
    # bool is an int subclass: `"limit": true` is a client bug, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{field} must be an integer", field)
    if not minimum <= value <= maximum:
        raise InvalidInput(f"{field} must be between {minimum} and {maximum}", field)
    return value


def _bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{field} must be true or false", field)
    return value


def owner_id(value: Any, field: str = "owner") -> str:
    text = _string(value, field, max_chars=MAX_SHORT_CHARS)
    if not is_owner_id(text):
        raise InvalidInput(
            f"{field} may contain only letters, digits and _ . : @ - (no leading dot)",
            field,
        )
    return text


def memory_id(value: str) -> str:
    if not _ID_RE.fullmatch(value):
        raise InvalidInput("id is not a valid memory id", "id")
    return value


def memory_type(value: Any, field: str = "type") -> MemoryType:
    if value not in MEMORY_TYPES:
        raise InvalidInput(f"{field} must be one of {', '.join(MEMORY_TYPES)}", field)
    return cast(MemoryType, value)


def timestamp(value: Any, field: str) -> str:
    """ISO 8601 -> the engine's canonical UTC form `YYYY-MM-DDTHH:MM:SS.mmmZ`.

    A timestamp without a zone is taken as UTC (what every memtap timestamp is).
    """
    text = _string(value, field, max_chars=64)
    try:
        return iso(parse_iso(text))
    except ValueError:
        raise InvalidInput(
            f"{field} must be an ISO 8601 timestamp (2026-12-31T23:59:59Z)", field
        ) from None


def metadata(value: Any, field: str = "metadata") -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidInput(f"{field} must be a JSON object", field)
    try:
        encoded = orjson.dumps(value)
    except TypeError:
        raise InvalidInput(f"{field} must be plain JSON", field) from None
    if len(encoded) > MAX_METADATA_BYTES:
        raise InvalidInput(f"{field} is larger than {MAX_METADATA_BYTES} bytes", field)
    return cast(dict[str, Any], value)


def _only(body: Mapping[str, Any], allowed: frozenset[str], what: str) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise InvalidInput(f"unknown field {unknown[0]!r} in {what}", unknown[0])


def _require(body: Mapping[str, Any], field: str) -> Any:
    if field not in body or body[field] is None:
        raise InvalidInput(f"{field} is required", field)
    return body[field]


# -- bodies ---------------------------------------------------------------------------------


async def read_json_object(
    request: web.Request, *, limit: int = MAX_JSON_BODY, allow_empty: bool = False
) -> dict[str, Any]:
    """The request body as a JSON object; 413 past `limit` (checked before and while reading)."""
    raw = await read_body(request, limit)
    if not raw.strip():
        if allow_empty:
            return {}
        raise InvalidInput("request body must be a JSON object", "body")
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidInput(
            f"request body is not valid JSON: {exc.msg}", "body"
        ) from None
    if not isinstance(body, dict):
        raise InvalidInput("request body must be a JSON object", "body")
    return body


async def read_body(request: web.Request, limit: int) -> bytes:
    # The sub-app's own client_max_size is not consulted by aiohttp (the root app builds the
    # request), so the admin API enforces its limits here, on the raw stream.
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"request body is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.content.iter_chunked(64 * 1024):
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"request body is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


_CREATE_FIELDS = frozenset(
    {"owner", "content", "type", "key", "session", "metadata", "expires_at"}
)
_IMPORT_FIELDS = _CREATE_FIELDS | {
    "kind",
    "id",
    "created_at",
    "updated_at",
    "superseded_by",
    "valid_to",
}
_PATCH_FIELDS = frozenset(
    {"content", "type", "key", "session", "metadata", "expires_at"}
)


def new_memory(body: Mapping[str, Any], *, imported: bool = False) -> NewMemory:
    """POST /api/memories (and, with `imported`, one line of an import)."""
    _only(body, _IMPORT_FIELDS if imported else _CREATE_FIELDS, "a memory")
    if body.get("kind") not in (None, "memory"):
        raise InvalidInput("kind must be memory or episode", "kind")
    expires_at = body.get("expires_at")
    return NewMemory(
        owner=owner_id(_require(body, "owner")),
        content=_string(
            _require(body, "content"),
            "content",
            max_chars=MAX_CONTENT_CHARS,
            multiline=True,
        ),
        type=memory_type(body["type"]) if body.get("type") is not None else "factual",
        key=_optional_string(body.get("key"), "key"),
        session=_optional_string(body.get("session"), "session"),
        metadata=metadata(body["metadata"]) if body.get("metadata") is not None else {},
        expires_at=timestamp(expires_at, "expires_at")
        if expires_at is not None
        else None,
        id=memory_id(_string(body["id"], "id", max_chars=128))
        if imported and body.get("id") is not None
        else None,
        created_at=_optional_timestamp(body.get("created_at"), "created_at")
        if imported
        else None,
        updated_at=_optional_timestamp(body.get("updated_at"), "updated_at")
        if imported
        else None,
        superseded_by=memory_id(
            _string(body["superseded_by"], "superseded_by", max_chars=128)
        )
        if imported and body.get("superseded_by") is not None
        else None,
        valid_to=_optional_timestamp(body.get("valid_to"), "valid_to")
        if imported
        else None,
    )


def _optional_timestamp(value: Any, field: str) -> str | None:
    return None if value is None else timestamp(value, field)


def memory_patch(body: Mapping[str, Any]) -> MemoryPatch:
    """PUT /api/memories/{id}: only the fields present change; `expires_at: null` clears it."""
    _only(body, _PATCH_FIELDS, "a memory update")
    if not body:
        raise InvalidInput(
            "nothing to update: send at least one of "
            + ", ".join(sorted(_PATCH_FIELDS)),
            "body",
        )
    for field in ("content", "type", "metadata"):
        if field in body and body[field] is None:
            raise InvalidInput(f"{field} cannot be null", field)
    expires_at = body.get("expires_at")
    return MemoryPatch(
        content=_string(
            body["content"], "content", max_chars=MAX_CONTENT_CHARS, multiline=True
        )
        if "content" in body
        else None,
        type=memory_type(body["type"]) if "type" in body else None,
        key=_optional_string(body.get("key"), "key"),
        session=_optional_string(body.get("session"), "session"),
        metadata=metadata(body["metadata"]) if "metadata" in body else None,
        expires_at=timestamp(expires_at, "expires_at")
        if expires_at is not None
        else None,
        clear_expires_at="expires_at" in body and expires_at is None,
    )


_PREVIEW_FIELDS = frozenset(
    {"owner", "query", "strategy", "max_tokens", "session", "limit", "scope"}
)


def retrieval_request(body: Mapping[str, Any]) -> RetrievalRequest:
    """POST /api/retrieve-preview: omitted fields fall back to the configured values, exactly
    as they do for a proxied request."""
    _only(body, _PREVIEW_FIELDS, "a retrieve-preview request")
    strategy = body.get("strategy")
    if strategy is not None and strategy not in STRATEGIES:
        raise InvalidInput(
            f"strategy must be one of {', '.join(STRATEGIES)}", "strategy"
        )
    scope = body.get("scope")
    if scope is not None and scope not in SCOPES:
        raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}", "scope")
    max_tokens = body.get("max_tokens")
    limit = body.get("limit")
    return RetrievalRequest(
        owner=owner_id(_require(body, "owner")),
        query=_string(
            _require(body, "query"),
            "query",
            max_chars=MAX_CONTENT_CHARS,
            multiline=True,
            allow_empty=True,
        ),
        session=_optional_string(body.get("session"), "session"),
        strategy=cast(Strategy | None, strategy),
        scope=cast(Scope | None, scope),
        max_tokens=None
        if max_tokens is None
        # 0 would be clamped to 1 silently: the budget's range is 1..MAX_PREVIEW_TOKENS.
        else _int(max_tokens, "max_tokens", minimum=1, maximum=MAX_PREVIEW_TOKENS),
        limit=None
        if limit is None
        else _int(limit, "limit", minimum=0, maximum=MAX_PREVIEW_LIMIT),
    )


@dataclass(frozen=True, slots=True)
class SummarizeRequest:
    older_than_days: int
    owner: str | None
    dry_run: bool


def summarize_request(body: Mapping[str, Any], default_days: int) -> SummarizeRequest:
    _only(
        body, frozenset({"older_than_days", "owner", "dry_run"}), "a summarize request"
    )
    days = body.get("older_than_days")
    owner = body.get("owner")
    dry_run = body.get("dry_run")
    return SummarizeRequest(
        older_than_days=default_days
        if days is None
        else _int(days, "older_than_days", minimum=0, maximum=36_500),
        owner=None if owner is None else owner_id(owner),
        dry_run=False if dry_run is None else _bool(dry_run, "dry_run"),
    )


@dataclass(frozen=True, slots=True)
class ReindexRequest:
    limit: int | None
    force: bool


def restore_request(body: Mapping[str, Any]) -> str:
    _only(body, frozenset({"summary_id"}), "a restore request")
    value = _string(_require(body, "summary_id"), "summary_id", max_chars=64)
    try:
        return memory_id(value)
    except InvalidInput as exc:
        raise InvalidInput("summary_id is not a valid memory id", "summary_id") from exc


def reindex_request(body: Mapping[str, Any]) -> ReindexRequest:
    _only(body, frozenset({"limit", "force"}), "a reindex request")
    limit = body.get("limit")
    force = body.get("force")
    return ReindexRequest(
        limit=None
        if limit is None
        else _int(limit, "limit", minimum=1, maximum=1_000_000),
        force=False if force is None else _bool(force, "force"),
    )


# -- query strings --------------------------------------------------------------------------

_LIST_PARAMS = frozenset(
    {"owner", "session", "type", "q", "limit", "offset", "include_superseded"}
)
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def _query_int(raw: str, field: str, *, minimum: int, maximum: int) -> int:
    if not raw.isascii() or not raw.lstrip("-").isdigit():
        raise InvalidInput(f"{field} must be an integer", field)
    return _int(int(raw), field, minimum=minimum, maximum=maximum)


def list_query(params: Mapping[str, str]) -> ListQuery:
    """GET /api/memories query string. Unknown parameters are rejected like unknown fields."""
    _only(params, _LIST_PARAMS, "the query string")
    include = params.get("include_superseded", "").lower()
    if include not in _TRUE | _FALSE:
        raise InvalidInput(
            "include_superseded must be true or false", "include_superseded"
        )
    q = (params.get("q") or "").strip()
    return ListQuery(
        owner=owner_id(params["owner"]) if params.get("owner") else None,
        session=_string(params["session"], "session", max_chars=MAX_SHORT_CHARS)
        if params.get("session")
        else None,
        type=memory_type(params["type"]) if params.get("type") else None,
        q=_string(q, "q", max_chars=MAX_QUERY_CHARS) if q else None,
        limit=_query_int(params["limit"], "limit", minimum=0, maximum=MAX_LIST_LIMIT)
        if "limit" in params
        else DEFAULT_LIST_LIMIT,
        offset=_query_int(params["offset"], "offset", minimum=0, maximum=10**9)
        if "offset" in params
        else 0,
        include_superseded=include in _TRUE,
    )


_EPISODE_FIELDS = frozenset(
    {
        "kind",
        "id",
        "owner",
        "session",
        "role",
        "content",
        "said_at",
        "request_id",
        "format",
        "created_at",
    }
)


def import_item(line: bytes, number: int) -> NewMemory | NewEpisode:
    """One JSON line of an import body: an episode when its `kind` says so, else a memory."""
    try:
        item = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise InvalidInput(
            f"line {number}: not valid JSON ({exc.msg})", "body"
        ) from None
    if isinstance(item, dict) and item.get("kind") == "episode":
        try:
            return new_episode(item)
        except InvalidInput as exc:
            raise InvalidInput(f"line {number}: {exc}", exc.field) from None
    return import_line(line, number)


def new_episode(body: Mapping[str, Any]) -> NewEpisode:
    """One exported episode (`Episode.to_json()` + `"kind": "episode"`). Its id is derived
    from what was said, so an `id` in the line is not needed and not trusted."""
    _only(body, _EPISODE_FIELDS, "an episode")
    role = body.get("role", "user")
    if role not in ("user", "assistant"):
        raise InvalidInput("role must be user or assistant", "role")
    request_id = body.get("request_id")
    fmt = body.get("format")
    return NewEpisode(
        owner=owner_id(_require(body, "owner")),
        session=_optional_string(body.get("session"), "session"),
        role=role,
        content=_string(
            _require(body, "content"),
            "content",
            max_chars=MAX_EPISODE_CHARS,
            multiline=True,
        ),
        said_at=timestamp(_require(body, "said_at"), "said_at"),
        request_id=_optional_string(request_id, "request_id") if request_id else None,
        format=_optional_string(fmt, "format") if fmt else None,
    )


def import_line(line: bytes, number: int) -> NewMemory:
    """One JSON line of an import body (the export format: `Memory.to_json()` per line)."""
    try:
        item = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise InvalidInput(
            f"line {number}: not valid JSON ({exc.msg})", "body"
        ) from None
    if not isinstance(item, dict):
        raise InvalidInput(f"line {number}: expected a JSON object", "body")
    try:
        return new_memory(item, imported=True)
    except InvalidInput as exc:
        raise InvalidInput(f"line {number}: {exc}", exc.field) from None


_REQUESTS_PARAMS = frozenset({"owner", "limit"})
MAX_REQUESTS_LIMIT = 1000
DEFAULT_REQUESTS_LIMIT = 100


def requests_query(params: Mapping[str, str]) -> tuple[str | None, int]:
    """GET /api/requests query string: (owner or None, limit)."""
    _only(params, _REQUESTS_PARAMS, "the query string")
    owner = owner_id(params["owner"]) if params.get("owner") else None
    limit = (
        _query_int(params["limit"], "limit", minimum=1, maximum=MAX_REQUESTS_LIMIT)
        if "limit" in params
        else DEFAULT_REQUESTS_LIMIT
    )
    return owner, limit


def owners_query(params: Mapping[str, str]) -> str | None:
    """GET /api/owners query string: an optional owner to report on alone."""
    _only(params, frozenset({"owner"}), "the query string")
    return owner_id(params["owner"]) if params.get("owner") else None


_EPISODE_LIST_PARAMS: Final = frozenset({"owner", "session", "q", "limit", "offset"})


def episode_list_query(params: Mapping[str, str]) -> EpisodeListQuery:
    """GET /api/episodes query string, read by the same rules as the memories listing."""
    _only(params, _EPISODE_LIST_PARAMS, "the query string")
    q = (params.get("q") or "").strip()
    return EpisodeListQuery(
        owner=owner_id(params["owner"]) if params.get("owner") else None,
        session=_string(params["session"], "session", max_chars=MAX_SHORT_CHARS)
        if params.get("session")
        else None,
        q=_string(q, "q", max_chars=MAX_QUERY_CHARS) if q else None,
        limit=_query_int(params["limit"], "limit", minimum=0, maximum=MAX_LIST_LIMIT)
        if "limit" in params
        else DEFAULT_LIST_LIMIT,
        offset=_query_int(params["offset"], "offset", minimum=0, maximum=10**9)
        if "offset" in params
        else 0,
    )
