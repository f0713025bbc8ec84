"""An incremental Server-Sent Events decoder (WHATWG HTML Living Standard, §9.2.6
"Interpreting an event stream").

`feed` accepts the body in any split: inside a UTF-8 sequence, between the CR and the LF
of a line end, inside a field name. Lines are cut on bytes (CR, LF and CRLF never occur
inside a multi-byte UTF-8 sequence), then each whole line is decoded, so a split never
changes the result. Only CR, LF and CRLF end a line (not U+2028 or other Unicode breaks,
which `str.splitlines` would wrongly honour).

The decoder only observes: the relay forwards the original bytes, never a re-encoding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE_END = re.compile(rb"[\r\n]")
_BOM = b"\xef\xbb\xbf"
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024


class SseError(ValueError):
    """The stream cannot be decoded (a line longer than the configured cap)."""


@dataclass(frozen=True, slots=True)
class SseEvent:
    event: str
    """The `event:` field, "message" when the event had none."""
    data: str
    """The `data:` lines joined with "\\n" (the final newline removed)."""
    id: str | None
    """The last event id in effect when the event was dispatched."""


class SseDecoder:
    """Turns body chunks into dispatched events. One instance per response body."""

    __slots__ = (
        "_bom_checked",
        "_buf",
        "_data",
        "_event",
        "_has_data",
        "_last_id",
        "_max_line",
        "_scan_from",
        "_skip_lf",
        "closed",
        "retry_ms",
    )

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self._buf = bytearray()
        self._scan_from = 0
        # A CR was the last byte of the previous chunk: an LF at the start of the next
        # chunk belongs to the same line end (CRLF split by the transport).
        self._skip_lf = False
        self._bom_checked = False
        self._data: list[str] = []
        self._has_data = False
        self._event = ""
        self._last_id: str | None = None
        self._max_line = max_line_bytes
        self.retry_ms: int | None = None
        self.closed = False

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Decode `chunk`; returns the events it completed (possibly none)."""
        if not chunk:
            return []
        buf = self._buf
        buf += chunk
        if not self._bom_checked:
            # The stream may start with one UTF-8 BOM, which is ignored.
            if len(buf) < len(_BOM) and _BOM.startswith(bytes(buf)):
                return []
            if buf.startswith(_BOM):
                del buf[: len(_BOM)]
            self._bom_checked = True
        if self._skip_lf and buf:
            self._skip_lf = False
            if buf[0] == 0x0A:
                del buf[0]
        events: list[SseEvent] = []
        start = 0
        pos = self._scan_from
        while True:
            match = _LINE_END.search(buf, pos)
            if match is None:
                break
            end = match.start()
            line = bytes(buf[start:end])
            nxt = end + 1
            if buf[end] == 0x0D:
                if nxt < len(buf):
                    if buf[nxt] == 0x0A:
                        nxt += 1
                else:
                    self._skip_lf = True
            event = self._line(line)
            if event is not None:
                events.append(event)
            start = pos = nxt
        if start:
            del buf[:start]
        self._scan_from = len(buf)
        if len(buf) > self._max_line:
            raise SseError(f"SSE line longer than {self._max_line} bytes")
        return events

    def close(self) -> None:
        """End of the body. A trailing event without its blank line is discarded, as the
        standard says; `at_boundary` tells whether anything was pending."""
        self.closed = True

    @property
    def at_boundary(self) -> bool:
        """True when no partial line and no undispatched event are pending."""
        return not self._buf and not self._has_data and not self._event

    def _line(self, raw: bytes) -> SseEvent | None:
        if not raw:
            return self._dispatch()
        line = raw.decode("utf-8", errors="replace")
        if line[0] == ":":
            return None  # comment
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\x00" not in value:
                self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry_ms = int(value)
        return None

    def _dispatch(self) -> SseEvent | None:
        if not self._has_data:
            self._event = ""
            return None
        event = SseEvent(
            event=self._event or "message", data="\n".join(self._data), id=self._last_id
        )
        self._data = []
        self._has_data = False
        self._event = ""
        return event
