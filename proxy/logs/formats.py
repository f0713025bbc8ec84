"""The two line formats: JSON lines (`ts`, `level`, `event` + fields) or text for people.

A line is formatted from its parts (`Line`), so one queued without a LogRecord
(`log_fields`) comes out as its record would.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

from memtap.engine.clock import epoch_iso
from memtap.proxy.logs.redact import redact


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    fields = getattr(record, "fields", None)
    return fields if isinstance(fields, dict) else {}


_BASE_KEYS = frozenset({"ts", "level", "event", "logger"})
_LEVELS = {
    name: name.lower() for name in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
}


class LineFormatter(logging.Formatter):
    """A formatter that renders a line from its parts (`format_line`), so a line queued
    without a LogRecord (`log_fields`) is formatted as its record would be."""

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        parts = (
            record.created,
            record.levelname,
            record.getMessage(),
            record.name,
            _fields(record),
        )
        return self.format_line(parts, record.exc_text)

    def format_line(
        self, line: Line, exc_text: str | None = None, *, redacted: bool = True
    ) -> str:
        raise NotImplementedError


class JsonFormatter(LineFormatter):
    """One JSON object per line: ts, level, event, logger, then the record's fields."""

    def format_line(
        self, line: Line, exc_text: str | None = None, *, redacted: bool = True
    ) -> str:
        """The line; `redacted=False` leaves redaction to the caller (the batch writer
        looks for secrets in a whole batch at once)."""
        created, levelname, event, logger, fields = line
        level = _LEVELS.get(levelname) or levelname.lower()
        if exc_text or not _BASE_KEYS.isdisjoint(fields):
            merged: dict[str, Any] = {
                "ts": epoch_iso(created),
                "level": level,
                "event": event,
                "logger": logger,
            }
            for key, value in fields.items():
                merged.setdefault(key, value)  # a field never overrides the base keys
            if exc_text:
                merged["exc"] = exc_text
            raw = orjson.dumps(merged, default=repr, option=orjson.OPT_NON_STR_KEYS)
        else:
            # The usual line: the constant keys rendered once per event, the fields
            # dumped alone and spliced in (same bytes as dumping the merged dict).
            head = _heads.get((level, event, logger))
            if head is None:
                head = _line_head(level, event, logger)
            body = orjson.dumps(fields, default=repr, option=orjson.OPT_NON_STR_KEYS)
            ts = epoch_iso(created).encode("ascii")
            raw = b'{"ts":"' + ts + head + (b"," + body[1:] if len(body) > 2 else b"}")
        text = raw.decode("utf-8")
        return redact(text) if redacted else text


_heads: dict[tuple[str, str, str], bytes] = {}
"""`","level":...,"event":...,"logger":...` per (level, event, logger), rendered once.
Events are memtap's fixed names and other libraries' messages: bounded all the same."""
MAX_HEADS = 1024


def _line_head(level: str, event: str, logger: str) -> bytes:
    head = (
        b'",' + orjson.dumps({"level": level, "event": event, "logger": logger})[1:-1]
    )
    if len(_heads) >= MAX_HEADS:
        _heads.clear()
    _heads[(level, event, logger)] = head
    return head


class TextFormatter(LineFormatter):
    """`ts LEVEL event key=value ...` for people reading a terminal."""

    def format_line(
        self, line: Line, exc_text: str | None = None, *, redacted: bool = True
    ) -> str:
        created, levelname, event, _logger, fields = line
        parts = [epoch_iso(created), f"{levelname:<7}", event]
        for key, value in fields.items():
            rendered = (
                value
                if isinstance(value, str) and value and " " not in value
                else orjson.dumps(value, default=repr).decode("utf-8")
            )
            parts.append(f"{key}={rendered}")
        text = " ".join(parts)
        if exc_text:
            text += "\n" + exc_text
        return redact(text) if redacted else text


Line = tuple[float, str, str, str, dict[str, Any]]
"""A `log_fields` line queued without a LogRecord (`BatchingHandler.emit_line`): created,
level name, event, logger name, fields. A plain tuple: a frozen dataclass took 1.6 us to
make, most of what skipping the record saves."""
