"""Logging setup: JSON lines (`ts`, `level`, `event` + fields) or a text format for people,
with secrets redacted from every line.

Loggers are plain stdlib loggers named `memtap.<area>`; the message is the event name and
fields go in `extra={"fields": {...}}`. Redaction runs on the finished line, so it also covers
exception text, reprs of header dicts and other libraries' messages. Records are formatted
and written by a background thread (QueueListener): a slow stderr reader never blocks the
event loop.
"""

from __future__ import annotations

import logging
import logging.handlers
import queue
import re
import sys
import time
from collections.abc import Callable
from typing import IO, Any

import orjson

REDACTED = "[REDACTED]"

_SECRET_NAMES = r"authorization|proxy-authorization|x-api-key|x-goog-api-key|api[_-]?key|admin[_-]?token"
_PATTERNS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    # name: value / name=value / 'name', 'value' / "name":"Bearer value" (JSON, reprs, headers)
    (
        re.compile(
            r"(?i)((?:" + _SECRET_NAMES + r")[\"']?\s*(?:[:=]|,)\s*[\"']?)"
            r"((?:bearer|basic|token)\s+)?([^\s\"',;&)}\]>]+)"
        ),
        lambda m: f"{m.group(1)}{m.group(2) or ''}{REDACTED}",
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
_TRIGGERS = ("authoriz", "key", "bearer", "basic", "token", "sk-", "aiza")


def redact(text: str) -> str:
    """`text` with credential values replaced by `[REDACTED]`."""
    lowered = text.lower()
    if not any(trigger in lowered for trigger in _TRIGGERS):
        return text
    for pattern, replace in _PATTERNS:
        text = pattern.sub(replace, text)
    return text


def _iso_ts(created: float) -> str:
    seconds = int(created)
    millis = int((created - seconds) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    fields = getattr(record, "fields", None)
    return fields if isinstance(fields, dict) else {}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, event, logger, then the record's fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": _iso_ts(record.created),
            "level": record.levelname.lower(),
            "event": record.getMessage(),
            "logger": record.name,
        }
        for key, value in _fields(record).items():
            line.setdefault(key, value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exc"] = record.exc_text
        raw = orjson.dumps(line, default=repr, option=orjson.OPT_NON_STR_KEYS).decode(
            "utf-8"
        )
        return redact(raw)


class TextFormatter(logging.Formatter):
    """`ts LEVEL event key=value ...` for people reading a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        parts = [_iso_ts(record.created), f"{record.levelname:<7}", record.getMessage()]
        for key, value in _fields(record).items():
            rendered = (
                value
                if isinstance(value, str) and value and " " not in value
                else orjson.dumps(value, default=repr).decode("utf-8")
            )
            parts.append(f"{key}={rendered}")
        text = " ".join(parts)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            text += "\n" + record.exc_text
        return redact(text)


class _PreformattingQueueHandler(logging.handlers.QueueHandler):
    """Hands records to the writer thread with args merged and the traceback rendered, but
    keeps `fields` (the default QueueHandler would flatten the record into one string).

    The record is updated in place rather than copied (the stdlib's choice): this is the
    only handler, and the merged message is what any other handler would print anyway.
    """

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        if record.args:
            record.msg = record.getMessage()
            record.args = None
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
        return record


class LogSetup:
    """What `configure_logging` installed; `close()` flushes and removes it."""

    def __init__(
        self,
        listener: logging.handlers.QueueListener,
        handler: logging.Handler,
        target: logging.Handler,
    ):
        self._listener = listener
        self._handler = handler
        self._target = target
        self._closed = False

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        logging.getLogger().removeHandler(self._handler)
        self._listener.stop()
        self._target.close()


def parse_level(level: str) -> int:
    value = logging.getLevelNamesMapping().get(level.strip().upper())
    if value is None:
        raise ValueError(f"unknown log level {level!r} (debug, info, warning, error)")
    return value


def configure_logging(
    fmt: str = "json",
    level: str = "info",
    file: str | None = None,
    stream: IO[str] | None = None,
) -> LogSetup:
    """Route every logger (memtap's, aiohttp's, asyncio's) to one redacting handler on stderr
    (or `file`). Replaces handlers installed by a previous call."""
    root = logging.getLogger()
    for existing in list(root.handlers):
        if getattr(existing, "_memtap", False):
            root.removeHandler(existing)
    target: logging.Handler
    if file:
        target = logging.FileHandler(file, encoding="utf-8")
    else:
        target = logging.StreamHandler(stream if stream is not None else sys.stderr)
    target.setFormatter(TextFormatter() if fmt == "text" else JsonFormatter())
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    handler = _PreformattingQueueHandler(records)
    handler._memtap = True  # type: ignore[attr-defined]
    listener = logging.handlers.QueueListener(
        records, target, respect_handler_level=False
    )
    listener.start()
    root.addHandler(handler)
    root.setLevel(parse_level(level))
    # aiohttp's per-request access log duplicates request.done; memtap writes its own.
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    return LogSetup(listener, handler, target)
