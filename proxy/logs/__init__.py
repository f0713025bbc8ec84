"""Logging: JSON lines (`ts`, `level`, `event` + fields) or a text format for people, with
secrets redacted from every line, written in batches off the event loop.

* `redact.py`: the secrets no line may hold;
* `formats.py`: `JsonFormatter` and `TextFormatter`;
* `handler.py`: `BatchingHandler`, the background writer;
* `setup.py`: `configure_logging` (what `memtap serve` installs) and `log_fields` (a line
  without a LogRecord, for what is written on every request).
"""

from memtap.proxy.logs.formats import JsonFormatter, TextFormatter
from memtap.proxy.logs.handler import BatchingHandler
from memtap.proxy.logs.redact import REDACTED, redact
from memtap.proxy.logs.setup import LogSetup, configure_logging, log_fields, parse_level

__all__ = [
    "REDACTED",
    "BatchingHandler",
    "JsonFormatter",
    "LogSetup",
    "TextFormatter",
    "configure_logging",
    "log_fields",
    "parse_level",
    "redact",
]
