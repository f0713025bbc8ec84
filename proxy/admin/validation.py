"""Admin API request bodies: JSON objects and import lines become engine dataclasses.

Every body the admin API accepts passes through here (query strings through
`query_params.py`, each value through `fields.py`), so the rules live in one place: unknown
fields are rejected, strings are bounded and free of control characters, types and
timestamps are checked. A violation raises `InvalidInput(message, field)`, which the error
middleware turns into a 400 naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

import orjson
from aiohttp import web

from memtap.engine.api import InvalidInput
from memtap.engine.episode_types import MAX_EPISODE_CHARS, NewEpisode
from memtap.engine.types import (
    MemoryPatch,
    NewMemory,
    RetrievalRequest,
    Scope,
    Strategy,
)
from memtap.proxy.admin.fields import (
    boolean,
    bounded_string,
    integer,
    memory_id,
    memory_type,
    metadata,
    only,
    optional_string,
    owner_id,
    required,
    timestamp,
)

MAX_JSON_BODY: Final = 1024 * 1024
"""Ordinary JSON bodies; larger ones get 413 before they are parsed."""
MAX_IMPORT_LINE: Final = 1024 * 1024
MAX_CONTENT_CHARS: Final = 16_000
"""The admin API accepts less than the engine (engine.limits.MAX_CONTENT_CHARS): a request body
stays well under MAX_JSON_BODY with metadata beside it."""
MAX_PREVIEW_LIMIT: Final = 100
MAX_PREVIEW_TOKENS: Final = 100_000

STRATEGIES: Final[tuple[Strategy, ...]] = ("recent", "keyword", "semantic", "hybrid")
SCOPES: Final[tuple[Scope, ...]] = ("session", "owner", "global")


class PayloadTooLarge(Exception):
    """The body exceeded its limit; mapped to 413 `payload_too_large`."""


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
    only(body, _IMPORT_FIELDS if imported else _CREATE_FIELDS, "a memory")
    if body.get("kind") not in (None, "memory"):
        raise InvalidInput("kind must be memory or episode", "kind")
    expires_at = body.get("expires_at")
    return NewMemory(
        owner=owner_id(required(body, "owner")),
        content=bounded_string(
            required(body, "content"),
            "content",
            max_chars=MAX_CONTENT_CHARS,
            multiline=True,
        ),
        type=memory_type(body["type"]) if body.get("type") is not None else "factual",
        key=optional_string(body.get("key"), "key"),
        session=optional_string(body.get("session"), "session"),
        metadata=metadata(body["metadata"]) if body.get("metadata") is not None else {},
        expires_at=timestamp(expires_at, "expires_at")
        if expires_at is not None
        else None,
        id=memory_id(bounded_string(body["id"], "id", max_chars=128))
        if imported and body.get("id") is not None
        else None,
        created_at=_optional_timestamp(body.get("created_at"), "created_at")
        if imported
        else None,
        updated_at=_optional_timestamp(body.get("updated_at"), "updated_at")
        if imported
        else None,
        superseded_by=memory_id(
            bounded_string(body["superseded_by"], "superseded_by", max_chars=128)
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
    only(body, _PATCH_FIELDS, "a memory update")
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
        content=bounded_string(
            body["content"], "content", max_chars=MAX_CONTENT_CHARS, multiline=True
        )
        if "content" in body
        else None,
        type=memory_type(body["type"]) if "type" in body else None,
        key=optional_string(body.get("key"), "key"),
        session=optional_string(body.get("session"), "session"),
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
    only(body, _PREVIEW_FIELDS, "a retrieve-preview request")
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
        owner=owner_id(required(body, "owner")),
        query=bounded_string(
            required(body, "query"),
            "query",
            max_chars=MAX_CONTENT_CHARS,
            multiline=True,
            allow_empty=True,
        ),
        session=optional_string(body.get("session"), "session"),
        strategy=cast(Strategy | None, strategy),
        scope=cast(Scope | None, scope),
        max_tokens=None
        if max_tokens is None
        # 0 would be clamped to 1 silently: the budget's range is 1..MAX_PREVIEW_TOKENS.
        else integer(max_tokens, "max_tokens", minimum=1, maximum=MAX_PREVIEW_TOKENS),
        limit=None
        if limit is None
        else integer(limit, "limit", minimum=0, maximum=MAX_PREVIEW_LIMIT),
    )


@dataclass(frozen=True, slots=True)
class SummarizeRequest:
    older_than_days: int
    owner: str | None
    dry_run: bool


def summarize_request(body: Mapping[str, Any], default_days: int) -> SummarizeRequest:
    only(
        body, frozenset({"older_than_days", "owner", "dry_run"}), "a summarize request"
    )
    days = body.get("older_than_days")
    owner = body.get("owner")
    dry_run = body.get("dry_run")
    return SummarizeRequest(
        older_than_days=default_days
        if days is None
        else integer(days, "older_than_days", minimum=0, maximum=36_500),
        owner=None if owner is None else owner_id(owner),
        dry_run=False if dry_run is None else boolean(dry_run, "dry_run"),
    )


@dataclass(frozen=True, slots=True)
class ReindexRequest:
    limit: int | None
    force: bool


def restore_request(body: Mapping[str, Any]) -> str:
    only(body, frozenset({"summary_id"}), "a restore request")
    value = bounded_string(required(body, "summary_id"), "summary_id", max_chars=64)
    try:
        return memory_id(value)
    except InvalidInput as exc:
        raise InvalidInput("summary_id is not a valid memory id", "summary_id") from exc


def reindex_request(body: Mapping[str, Any]) -> ReindexRequest:
    only(body, frozenset({"limit", "force"}), "a reindex request")
    limit = body.get("limit")
    force = body.get("force")
    return ReindexRequest(
        limit=None
        if limit is None
        else integer(limit, "limit", minimum=1, maximum=1_000_000),
        force=False if force is None else boolean(force, "force"),
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
    only(body, _EPISODE_FIELDS, "an episode")
    role = body.get("role", "user")
    if role not in ("user", "assistant"):
        raise InvalidInput("role must be user or assistant", "role")
    request_id = body.get("request_id")
    fmt = body.get("format")
    return NewEpisode(
        owner=owner_id(required(body, "owner")),
        session=optional_string(body.get("session"), "session"),
        role=role,
        content=bounded_string(
            required(body, "content"),
            "content",
            max_chars=MAX_EPISODE_CHARS,
            multiline=True,
        ),
        said_at=timestamp(required(body, "said_at"), "said_at"),
        request_id=optional_string(request_id, "request_id") if request_id else None,
        format=optional_string(fmt, "format") if fmt else None,
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
