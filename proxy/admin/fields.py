"""One field of admin API input: the checks every body and query string applies to a value
(type, bounds, no control characters, owner and memory ids, timestamps, metadata) and to the
set of fields (unknown ones rejected, required ones present). A violation raises
`InvalidInput(message, field)`, which the error middleware turns into a 400 naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, cast

import orjson

from memtap.engine.api import InvalidInput
from memtap.engine.clock import iso, parse_iso
from memtap.engine.types import MEMORY_TYPES, MemoryType
from memtap.proxy.owners import is_owner_id

MAX_SHORT_CHARS: Final = 256
"""owner, session, key."""
MAX_QUERY_CHARS: Final = 2_000
MAX_METADATA_BYTES: Final = 16 * 1024

_ID_RE: Final = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.:-]{0,127}")
# Control characters other than tab/newline/carriage return (NUL among them) never belong in
# stored text; FTS tokenizers and terminals both handle them badly.
_CONTROL_RE: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LINE_CONTROL_RE: Final = re.compile(r"[\x00-\x1f\x7f]")


def bounded_string(
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


def optional_string(
    value: Any, field: str, *, max_chars: int = MAX_SHORT_CHARS
) -> str | None:
    return None if value is None else bounded_string(value, field, max_chars=max_chars)


def integer(value: Any, field: str, *, minimum: int, maximum: int) -> int:
    # bool is an int subclass: `"limit": true` is a client bug, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{field} must be an integer", field)
    if not minimum <= value <= maximum:
        raise InvalidInput(f"{field} must be between {minimum} and {maximum}", field)
    return value


def boolean(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{field} must be true or false", field)
    return value


def owner_id(value: Any, field: str = "owner") -> str:
    text = bounded_string(value, field, max_chars=MAX_SHORT_CHARS)
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
    text = bounded_string(value, field, max_chars=64)
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


def only(body: Mapping[str, Any], allowed: frozenset[str], what: str) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise InvalidInput(f"unknown field {unknown[0]!r} in {what}", unknown[0])


def required(body: Mapping[str, Any], field: str) -> Any:
    if field not in body or body[field] is None:
        raise InvalidInput(f"{field} is required", field)
    return body[field]


def query_int(raw: str, field: str, *, minimum: int, maximum: int) -> int:
    """An integer from a query string (digits only), within bounds."""
    if not raw.isascii() or not raw.lstrip("-").isdigit():
        raise InvalidInput(f"{field} must be an integer", field)
    return integer(int(raw), field, minimum=minimum, maximum=maximum)
