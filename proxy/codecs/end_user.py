"""Where each API format names the end user of a request in its own body.

OpenAI Chat Completions and Responses: `safety_identifier` (the current name), else `user`
(the older one, still sent by many apps); Anthropic Messages: `metadata.user_id`. Gemini
has no such field: its requests name an end user by the X-Memtap-User header only.

Read only: the body is never changed because of this (the field goes upstream as sent).
"""

from __future__ import annotations

from typing import Any

from memtap.engine.types import ApiFormat

_OPENAI_FIELDS = ("safety_identifier", "user")


def _text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value
    return None


def body_end_user(format: ApiFormat, body: Any) -> str | None:
    """The end user ID a parsed request body names (None: none, or not a string)."""
    if not isinstance(body, dict):
        return None
    if format in ("openai-chat", "openai-responses"):
        for name in _OPENAI_FIELDS:
            found = _text(body.get(name))
            if found is not None:
                return found
        return None
    if format == "anthropic":
        metadata = body.get("metadata")
        return _text(metadata.get("user_id")) if isinstance(metadata, dict) else None
    return None
