"""`BatchingHandler`: records formatted and written in batches by a background thread, so
a slow stderr reader never blocks the event loop."""

from __future__ import annotations

import collections
import logging
import threading
from typing import IO

from memtap.proxy.logs.formats import Line, LineFormatter
from memtap.proxy.logs.redact import _may_hold_secret, redact

MAX_PENDING_LINES = 100_000
"""Lines held for a log reader that stopped reading (about 50 MB at most)."""


class BatchingHandler(logging.Handler):
    """Formats and writes records on a background thread, in batches.

    `emit` (on the event loop) only merges the message, renders a traceback and appends to a
    deque: no lock hand-off, no syscall. The writer thread wakes every `interval_s`, formats
    what accumulated and writes it in one call, so a slow log reader never blocks the proxy
    and a busy proxy pays one write per batch, not per line. `close()` writes what is left.
    A reader that stops reading (a blocked stderr pipe) cannot grow the queue past
    `max_pending`: newer lines are dropped and counted, and one `log.dropped` line says how
    many once the writer gets through again.
    """

    def __init__(
        self,
        stream: IO[str],
        formatter: logging.Formatter,
        interval_s: float = 0.02,
        max_pending: int = MAX_PENDING_LINES,
    ) -> None:
        super().__init__()
        self.setFormatter(formatter)
        self._stream = stream
        self._interval_s = interval_s
        self._max_pending = max_pending
        self._pending: collections.deque[logging.LogRecord | Line] = collections.deque()
        self._dropped = 0
        self.dropped_total = 0
        self._stopping = threading.Event()
        self._writer = threading.Thread(
            target=self._run, name="memtap-log-writer", daemon=True
        )
        self._writer.start()

    def handle(self, record: logging.LogRecord) -> bool:
        # Handler.handle's lock is not needed: `emit` only appends to a deque (atomic), and
        # the writer thread drains it without the lock anyway.
        if self.filters and not self.filter(record):
            return False
        self.emit(record)
        return True

    def emit(self, record: logging.LogRecord) -> None:
        # Render now what must not outlive the call (args, the live traceback); keep `fields`.
        if record.args:
            record.msg = record.getMessage()
            record.args = None
        if record.exc_info:
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
            record.exc_info = None
        self._queue(record)

    def takes_lines(self, level: int) -> bool:
        """Whether `emit_line` may stand for `handle` at `level`: nothing here filters or
        formats in a way a bare line would skip."""
        return (
            level >= self.level
            and not self.filters
            and isinstance(self.formatter, LineFormatter)
        )

    def emit_line(self, line: Line) -> None:
        self._queue(line)

    def _queue(self, item: logging.LogRecord | Line) -> None:
        if len(self._pending) >= self._max_pending:
            self._dropped += 1
            self.dropped_total += 1
            return
        self._pending.append(item)

    def _run(self) -> None:
        while not self._stopping.wait(self._interval_s):
            self._write_pending()
        self._write_pending()

    def _write_pending(self) -> None:
        lines: list[str] = []
        if self._dropped:
            dropped, self._dropped = self._dropped, 0
            self._pending.append(
                logging.makeLogRecord(
                    {
                        "name": "memtap.logs",
                        "levelno": logging.WARNING,
                        "levelname": "WARNING",
                        "msg": "log.dropped",
                        "fields": {"lines": dropped},
                    }
                )
            )
        formatter = self.formatter
        unredacted: list[int] = []
        while self._pending:
            item = self._pending.popleft()
            if isinstance(item, tuple) and not isinstance(formatter, LineFormatter):
                item = record_of(item)  # the formatter was swapped since it was queued
            try:
                if isinstance(item, tuple):
                    assert isinstance(formatter, LineFormatter)
                    lines.append(formatter.format_line(item, redacted=False))
                    unredacted.append(len(lines) - 1)
                else:
                    lines.append(self.format(item))
            except Exception:  # noqa: BLE001 - a bad record must not stop the writer
                # Reported as logging reports any line it cannot format.
                self.handleError(record_of(item) if isinstance(item, tuple) else item)
        # One look for a secret's traces over the batch's queued lines instead of one a
        # line; the lines are redacted one by one (as `format` does) only when it finds one.
        if unredacted and _may_hold_secret("\n".join([lines[i] for i in unredacted])):
            for i in unredacted:
                lines[i] = redact(lines[i])
        if lines:
            try:
                self._stream.write("\n".join(lines) + "\n")
                self._stream.flush()
            except (OSError, ValueError):
                pass  # stderr closed (shutting down): nothing left to tell

    def flush(self) -> None:
        self._write_pending()

    def close(self) -> None:
        self._stopping.set()
        if self._writer.is_alive() and self._writer is not threading.current_thread():
            self._writer.join(timeout=5)
        super().close()


_TRACEBACKS = logging.Formatter()


def record_of(line: Line) -> logging.LogRecord:
    """The LogRecord a queued line stands for (for a formatter or an error report)."""
    created, levelname, event, logger, fields = line
    record = logging.makeLogRecord(
        {
            "name": logger,
            "levelno": logging.getLevelName(levelname),
            "levelname": levelname,
            "msg": event,
            "fields": fields,
        }
    )
    record.created = created
    return record
