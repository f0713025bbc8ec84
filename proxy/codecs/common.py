"""Small readers shared by the format codecs (message text, tool arguments, error objects)."""

from __future__ import annotations

import json
from typing import Any


def content_text(content: Any) -> str:
    """Text of a message `content`: a string, or the text parts of a parts list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict)
            and part.get("type") in ("text", "input_text")
            and isinstance(part.get("text"), str)
        )
    return ""


def parse_arguments(raw: str) -> Any:
    """Tool-call arguments parsed to JSON; the raw string when they are not valid JSON."""
    try:
        return json.loads(raw) if raw else {}
    except ValueError:
        return raw


def error_of(err: Any) -> str:
    """A short `type: message` string for a provider error object (any shape)."""
    if isinstance(err, dict):
        kind = err.get("type") or err.get("code") or "error"
        message = err.get("message")
        return f"{kind}: {message}" if message else str(kind)
    return str(err)
