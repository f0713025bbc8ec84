"""Installing memtap's log handler (`configure_logging`) and the per-request fast path
(`log_fields`).

Loggers are plain stdlib loggers named `memtap.<area>`; the message is the event name and
fields go in `extra={"fields": {...}}`.
"""

from __future__ import annotations

import atexit
import logging
import sys
import time
from typing import IO, Any

from memtap.proxy.logs.formats import JsonFormatter, TextFormatter
from memtap.proxy.logs.handler import BatchingHandler

_RecordKey = tuple[str, int, str]
_templates: dict[_RecordKey, dict[str, Any]] = {}
"""Per (logger, level, event): the attributes a LogRecord for it gets (all but the time and
the fields), made once by the logging module itself."""


def _sole_batching_handler(
    logger: logging.Logger, level: int
) -> BatchingHandler | None:
    """The one handler a record of `logger` at `level` reaches, when that is memtap's own
    `BatchingHandler` and no logger on the way filters: the record is then only ever a
    line to format, and `log_fields` queues the line itself. Looked up on every call, so
    handlers added later (pytest's caplog, a library's) get real records at once."""
    found: BatchingHandler | None = None
    current: logging.Logger | None = logger
    if logger.disabled:
        return None
    while current is not None:
        if current.filters:
            return None
        for handler in current.handlers:
            if level < handler.level:
                continue
            if (
                found is not None
                or not isinstance(handler, BatchingHandler)
                or not handler.takes_lines(level)
            ):
                return None
            found = handler
        if not current.propagate:
            break
        current = current.parent
    return found


def log_fields(
    logger: logging.Logger, level: int, event: str, fields: dict[str, Any]
) -> None:
    """`logger.log(level, event, extra={"fields": fields})` for lines written on every
    request: the same line reaches the same handlers (level, filters, propagation).

    When memtap's `BatchingHandler` is the only handler it reaches, no LogRecord is made:
    the line's parts are queued and the writer thread formats them as it would the record
    (~6.5 us of the event loop's time a line down to ~2). Otherwise the record is made from
    a per-event template instead of LogRecord.__init__ and makeRecord's checks; for the
    event loop's lines, the thread and process attributes are the first line's."""
    if not logger.isEnabledFor(level):
        return
    direct = _sole_batching_handler(logger, level)
    if direct is not None:
        line = (time.time(), logging.getLevelName(level), event, logger.name, fields)
        direct.emit_line(line)
        return
    key = (logger.name, level, event)
    template = _templates.get(key)
    if template is None:
        # Logger._log's caller info when findCaller is off (configure_logging turns it off).
        made = logger.makeRecord(
            logger.name,
            level,
            "(unknown file)",
            0,
            event,
            (),
            None,
            "(unknown function)",
        )
        template = _templates.setdefault(key, dict(made.__dict__))
    record = logging.LogRecord.__new__(logging.LogRecord)
    attributes = record.__dict__
    attributes.update(template)
    now = time.time()
    attributes["created"] = now
    # As LogRecord computes them:
    attributes["msecs"] = int((now - int(now)) * 1000) + 0.0
    attributes["relativeCreated"] = (
        template["relativeCreated"] + (now - template["created"]) * 1000
    )
    attributes["fields"] = fields
    logger.handle(record)


class LogSetup:
    """What `configure_logging` installed; `close()` writes what is pending and removes it."""

    def __init__(self, handler: BatchingHandler, owned_file: IO[str] | None) -> None:
        self._handler = handler
        self._owned_file = owned_file
        self._closed = False

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        logging.getLogger().removeHandler(self._handler)
        self._handler.close()
        if self._owned_file is not None:
            self._owned_file.close()


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
    root_level = parse_level(level)
    owned_file = open(file, "a", encoding="utf-8") if file else None  # noqa: SIM115 - closed by LogSetup
    target = owned_file or (stream if stream is not None else sys.stderr)
    handler = BatchingHandler(
        target, TextFormatter() if fmt == "text" else JsonFormatter()
    )
    handler._memtap = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(root_level)
    # No formatter here prints caller, thread or process: skip collecting them per record
    # (the logging HOWTO's "Optimization" switches; findCaller walks the stack every call).
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    # aiohttp's per-request access log duplicates request.done; memtap writes its own.
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    setup = LogSetup(handler, owned_file)
    atexit.register(setup.close)  # an unexpected exit still writes the last lines
    return setup
