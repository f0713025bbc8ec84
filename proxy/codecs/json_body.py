"""Followers for JSON response bodies.

- `JsonBodyFollower`: a non-streaming body (one JSON value, e.g. a `chat.completion` object
  or an HTTP error body); buffered up to a cap and parsed once at the end.
- `JsonArrayFollower`: Gemini's `streamGenerateContent` without `alt=sse`, one JSON array
  written element by element. Each element is parsed as soon as its closing brace arrives,
  with a byte-level scanner that tracks strings and escapes, so any chunking is fine. A body
  that turns out to be a JSON object (an error answer) is handled like `JsonBodyFollower`.
"""

from __future__ import annotations

import re

from memtap.proxy.codecs.base import Completion
from memtap.proxy.codecs.followers import (
    MAX_JSON_BODY_BYTES,
    StreamState,
    failed_completion,
)
from memtap.proxy.codecs.surrogates import loads_for_reading

_WHITESPACE = b" \t\r\n"
_OUTSIDE = re.compile(rb'[\[\]{}"]')
_INSIDE = re.compile(rb'["\\]')


class JsonBodyFollower:
    __slots__ = ("_buf", "_max", "_state", "error", "failed")

    def __init__(
        self, state: StreamState, max_bytes: int = MAX_JSON_BODY_BYTES
    ) -> None:
        self.failed = False
        self.error: str | None = None
        self._buf = bytearray()
        self._state = state
        self._max = max_bytes

    def feed(self, chunk: bytes) -> None:
        if self.failed:
            return
        self._buf += chunk
        if len(self._buf) > self._max:
            self._fail(f"body larger than {self._max} bytes")
            self._buf = bytearray()

    def finish(self) -> Completion:
        if self.failed:
            return failed_completion(self.error or "failed")
        try:
            self._state.on_event("body", loads_for_reading(self._buf))
            return self._state.completion(True)
        except Exception as exc:  # noqa: BLE001 - a follower disables itself, never raises
            self._fail(f"{type(exc).__name__}: {exc}")
            return failed_completion(self.error or "failed")

    def _fail(self, reason: str) -> None:
        self.failed = True
        self.error = reason


class JsonArrayFollower:
    __slots__ = (
        "_body",
        "_buf",
        "_depth",
        "_element_start",
        "_escape",
        "_in_string",
        "_max",
        "_mode",
        "_pos",
        "_state",
        "error",
        "failed",
    )

    def __init__(
        self, state: StreamState, max_bytes: int = MAX_JSON_BODY_BYTES
    ) -> None:
        self.failed = False
        self.error: str | None = None
        self._state = state
        self._buf = bytearray()
        self._pos = 0
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._element_start = -1
        self._mode = "sniff"  # sniff -> array -> done | object (delegated)
        self._body: JsonBodyFollower | None = None
        self._max = max_bytes

    def feed(self, chunk: bytes) -> None:
        if self.failed:
            return
        try:
            if self._mode == "sniff":
                chunk = self._sniff(chunk)
            if self._mode == "object" and self._body is not None:
                self._body.feed(chunk)
            elif self._mode == "array":
                self._buf += chunk
                self._scan()
                if len(self._buf) > self._max:
                    raise ValueError(f"array element larger than {self._max} bytes")
        except Exception as exc:  # noqa: BLE001 - a follower disables itself, never raises
            self.failed = True
            self.error = f"{type(exc).__name__}: {exc}"

    def finish(self) -> Completion:
        if self.failed:
            return failed_completion(self.error or "failed")
        if self._mode == "object" and self._body is not None:
            completion = self._body.finish()
            self.failed, self.error = self._body.failed, self._body.error
            return completion
        try:
            return self._state.completion(self._mode == "done")
        except Exception as exc:  # noqa: BLE001
            self.failed = True
            self.error = f"{type(exc).__name__}: {exc}"
            return failed_completion(self.error)

    def _sniff(self, chunk: bytes) -> bytes:
        stripped = chunk.lstrip(_WHITESPACE)
        if not stripped:
            return b""
        if stripped[:1] == b"[":
            self._mode = "array"
            return stripped
        if stripped[:1] == b"{":
            self._mode = "object"
            self._body = JsonBodyFollower(self._state, self._max)
            return stripped
        raise ValueError("response body is neither a JSON array nor an object")

    def _scan(self) -> None:
        buf = self._buf
        pos = self._pos
        size = len(buf)
        while pos < size:
            if self._in_string:
                if self._escape:
                    self._escape = False
                    pos += 1
                    continue
                match = _INSIDE.search(buf, pos)
                if match is None:
                    pos = size
                    break
                pos = match.start()
                if buf[pos] == 0x5C:  # backslash: the next byte is escaped
                    self._escape = True
                else:
                    self._in_string = False
                pos += 1
                continue
            if self._mode == "done":
                pos = size
                break
            match = _OUTSIDE.search(buf, pos)
            if match is None:
                pos = size
                break
            pos = match.start()
            byte = buf[pos]
            if byte == 0x22:  # "
                self._in_string = True
            elif byte in (0x7B, 0x5B):  # { [
                self._depth += 1
                if self._depth == 2:
                    self._element_start = pos
            else:  # } ]
                self._depth -= 1
                if self._depth == 1 and self._element_start >= 0:
                    element = loads_for_reading(
                        bytes(buf[self._element_start : pos + 1])
                    )
                    self._element_start = -1
                    self._state.on_event("chunk", element)
                elif self._depth == 0:
                    self._mode = "done"
                elif self._depth < 0:
                    raise ValueError("unbalanced JSON array")
            pos += 1
        # Keep only the element in progress (or nothing) so memory stays bounded.
        keep_from = self._element_start if self._element_start >= 0 else pos
        if keep_from:
            del buf[:keep_from]
            self._element_start = min(0, self._element_start)
            pos -= keep_from
        self._pos = pos
