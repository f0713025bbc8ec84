"""JSON that JSON allows but UTF-8 does not: lone surrogates (`"\\ud800"`).

A client may send them (a string cut between the two halves of an emoji, a buggy encoder);
orjson refuses such a body, SQLite and the embedding models cannot store or read such text.
The rule, for the memory path only:

* `parse_request_body` reads the body as the client sent it (`original`) and, only when it
  holds lone surrogates, a copy with each one replaced by U+FFFD (`readable`). Retrieval and
  extraction read `readable`; memory is injected into `original`, and `dumps` writes it back
  with the surrogates as the client's `\\uXXXX` escapes: the upstream gets the user's text
  unchanged.
* `loads_for_reading` is for response observers (followers): the replaced copy is all they
  need.

The fast path is orjson's, untouched; the slow path runs only for a body orjson refused
because of a surrogate.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

_LONE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def _is_surrogate_error(exc: orjson.JSONDecodeError) -> bool:
    return "surrogate" in str(exc)


def scrub(value: Any) -> Any:
    """`value` with every lone surrogate in its strings (and keys) replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE.sub(REPLACEMENT, value)
    if isinstance(value, list):
        return [scrub(item) for item in value]
    if isinstance(value, dict):
        return {scrub(key): scrub(item) for key, item in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class ParsedBody:
    original: Any
    """The body as sent (lone surrogates kept): what memory is injected into."""
    readable: Any
    """The same, lone surrogates replaced: what retrieval and extraction read."""
    had_surrogates: bool

    def dumps(self, body: Any) -> bytes:
        """`body` (derived from `original`) as JSON bytes; surrogates stay `\\uXXXX` escapes."""
        if not self.had_surrogates:
            return orjson.dumps(body)
        return json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode(
            "ascii"
        )


def parse_request_body(raw: bytes) -> ParsedBody:
    """Parse a request body for memory. Raises ValueError (orjson.JSONDecodeError is one)
    when it is not JSON at all."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if not _is_surrogate_error(exc):
            raise
        original = json.loads(raw)
        return ParsedBody(original, scrub(original), True)
    return ParsedBody(body, body, False)


def loads_for_reading(raw: bytes | bytearray | str) -> Any:
    """orjson.loads, except that lone surrogates come out as U+FFFD instead of an error."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if not _is_surrogate_error(exc):
            raise
        return scrub(json.loads(raw))
