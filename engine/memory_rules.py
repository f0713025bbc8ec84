"""Rules every record store applies the same way: which rows are live, what a valid new
memory is, the canonical timestamps, and how metadata is merge-patched on upsert."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memtap.engine.api import InvalidInput
from memtap.engine.clock import iso, parse_iso
from memtap.engine.limits import MAX_CONTENT_CHARS
from memtap.engine.types import MEMORY_TYPES, NewMemory


@dataclass(frozen=True, slots=True)
class Live:
    """Filter for rows retrieval may return: not superseded, not expired (`now`), written
    since `cutoff` (retention). `owner=None` = every owner (scope global); `match_session` =
    only rows of `session` (rows without a session when `session` is None)."""

    now: str
    cutoff: str | None
    owner: str | None
    session: str | None = None
    match_session: bool = False


def normalise_ts(value: str, field: str) -> str:
    """Parse any ISO 8601 timestamp (naive = UTC) into the canonical form."""
    try:
        return iso(parse_iso(value))
    except (ValueError, AttributeError) as exc:
        raise InvalidInput(f"{field} is not an ISO 8601 timestamp", field) from exc


def validate_new(new: NewMemory) -> None:
    if not new.owner or len(new.owner) > 256:
        raise InvalidInput("owner must be 1..256 characters", "owner")
    if not new.content.strip():
        raise InvalidInput("content must not be empty", "content")
    if len(new.content) > MAX_CONTENT_CHARS:
        raise InvalidInput(
            f"content is longer than {MAX_CONTENT_CHARS} characters", "content"
        )
    if new.type not in MEMORY_TYPES:
        raise InvalidInput(f"type must be one of {', '.join(MEMORY_TYPES)}", "type")
    if new.key is not None and not (0 < len(new.key) <= 512):
        raise InvalidInput("key must be 1..512 characters", "key")


def merge_patch(target: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """RFC 7386 JSON merge patch (what SQLite's `json_patch` does to metadata on upsert)."""
    out = dict(target)
    for name, value in patch.items():
        if value is None:
            out.pop(name, None)
        elif isinstance(value, dict) and isinstance(out.get(name), dict):
            out[name] = merge_patch(out[name], value)
        else:
            out[name] = value
    return out
