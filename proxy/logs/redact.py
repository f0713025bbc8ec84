"""Secrets out of every log line: credential values replaced by `[REDACTED]`.

Redaction runs on the finished line, so it also covers exception text, reprs of header dicts
and other libraries' messages.
"""

from __future__ import annotations

import re
from collections.abc import Callable

REDACTED = "[REDACTED]"

# x-memtap-user is no credential but a person's id (an end user behind a shared key): memtap
# never logs it, and a line that would (a header dump) gets it redacted like a key.
_SECRET_NAMES = r"authorization|proxy-authorization|x-api-key|x-goog-api-key|api[_-]?key|admin[_-]?token|x-memtap-user"
_PATTERNS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    # name: value / name=value / "name":"Bearer value" / name, value (JSON, reprs, headers,
    # env dumps). A comma counts only right after the name: in `"path":"/v1/admin/api_key",
    # "upstream": ...` the name ends a value, and what follows is the next field's name.
    (
        re.compile(
            r"(?i)((?:" + _SECRET_NAMES + r")(?:[\"']?\s*[:=]|\s*,)\s*[\"']?)"
            r"((?:bearer|basic|token)\s+)?([^\s\"',;&)}\]>]+)"
        ),
        lambda m: f"{m.group(1)}{m.group(2) or ''}{REDACTED}",
    ),
    # 'name', 'value' (a header or environment tuple's repr: 'x-api-key', 'OPENAI_API_KEY'):
    # the quoted string ends in the name, and is no JSON value (its quote follows no ":").
    (
        re.compile(
            r"(?i)((?<![:\w])(?<!:\s)([\"'])[\w-]*?(?:"
            + _SECRET_NAMES
            + r")\2\s*,\s*[\"']?)"
            r"((?:bearer|basic|token)\s+)?([^\s\"',;&)}\]>]+)"
        ),
        lambda m: f"{m.group(1)}{m.group(3) or ''}{REDACTED}",
    ),
    # ?key=K / &key=K in URLs
    (re.compile(r"(?i)([?&;]key=)([^&\s\"'#>]+)"), lambda m: f"{m.group(1)}{REDACTED}"),
    # a bare bearer token anywhere
    (
        re.compile(r"(?i)\b(bearer\s+)([A-Za-z0-9._~+/=-]{6,})"),
        lambda m: f"{m.group(1)}{REDACTED}",
    ),
    # well-known provider key shapes, wherever they appear
    (
        re.compile(r"\b(?:sk-[A-Za-z0-9_-]{8,}|AIza[0-9A-Za-z_-]{20,})"),
        lambda m: REDACTED,
    ),
)


# Substrings (lower-case) without which no pattern can match: most lines skip the regexes.
# Each secret name holds "authoriz", "key", "admin" (admin_token) or "memtap-user";
# "bearer" and "basic" after a name need the name. Not "token": every memory line has a
# "tokens" field.
_TRIGGERS = ("authoriz", "key", "admin", "memtap-user", "bearer", "sk-", "aiza")


def _may_hold_secret(text: str) -> bool:
    lowered = text.lower()
    if not lowered.isascii():
        # The patterns ignore case, which matches the Turkish dotted capital and dotless i
        # to "i" ("ADMİN_TOKEN", "authorızation"); lower() alone does not.
        lowered = lowered.replace("ı", "i").replace("i\u0307", "i")
    # Plain substring tests, spelled out: about 2x faster than any() over _TRIGGERS and 20x
    # faster than one case-insensitive alternation regex (measured on a request.done line).
    return (
        "key" in lowered
        or "authoriz" in lowered
        or "bearer" in lowered
        or "admin" in lowered
        or "sk-" in lowered
        or "aiza" in lowered
        or "memtap-user" in lowered
    )


def redact(text: str) -> str:
    """`text` with credential values replaced by `[REDACTED]`."""
    if not _may_hold_secret(text):
        return text
    for pattern, replace in _PATTERNS:
        text = pattern.sub(replace, text)
    return text
