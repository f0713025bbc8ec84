"""Generic response followers: the transport side (SSE framing, buffering, error capture)
shared by every format. The format side is a `StreamState` that each codec module provides.

A follower never raises: the first problem marks it `failed`, it then ignores the rest of
the body, and `finish` reports what it had (the memory addon does not capture a failed
response).
"""

from __future__ import annotations

import zlib
from typing import Any, Protocol

from memtap.proxy.codecs.base import Completion, ResponseFollower
from memtap.proxy.codecs.sse import SseDecoder
from memtap.proxy.codecs.surrogates import loads_for_reading

MAX_JSON_BODY_BYTES = 32 * 1024 * 1024
"""Non-streaming bodies above this are not captured (the relay still forwards them)."""


class StreamState(Protocol):
    """What a format knows: how to fold one decoded message into an answer."""

    def on_event(self, event: str, payload: Any) -> None:
        """`payload` is the parsed JSON of an SSE event's data (or the raw string when it is
        not JSON, e.g. `[DONE]`), a JSON-array element, or a whole JSON body."""
        ...

    def completion(self, eof_clean: bool) -> Completion:
        """`eof_clean`: the body ended at a message boundary (nothing partial pending)."""
        ...


def failed_completion(reason: str) -> Completion:
    return Completion(assistant_text="", finish=None, clean_end=False, error=reason)


class SseFollower:
    """Follows a `text/event-stream` body whose events carry JSON."""

    __slots__ = ("_decoder", "_state", "error", "failed")

    def __init__(self, state: StreamState) -> None:
        self.failed = False
        self.error: str | None = None
        self._decoder = SseDecoder()
        self._state = state

    def feed(self, chunk: bytes) -> None:
        if self.failed:
            return
        try:
            for event in self._decoder.feed(chunk):
                data = event.data
                # Chat's `[DONE]` sentinel is the one non-JSON data value in these streams.
                payload: Any = (
                    data
                    if data == "[DONE]" or data.lstrip()[:1] not in ("{", "[")
                    else loads_for_reading(data)  # lone surrogates → U+FFFD
                )
                self._state.on_event(event.event, payload)
        except Exception as exc:  # noqa: BLE001 - a follower disables itself, never raises
            self.failed = True
            self.error = f"{type(exc).__name__}: {exc}"

    def finish(self) -> Completion:
        if self.failed:
            return failed_completion(self.error or "failed")
        self._decoder.close()
        try:
            return self._state.completion(self._decoder.at_boundary)
        except Exception as exc:  # noqa: BLE001
            self.failed = True
            self.error = f"{type(exc).__name__}: {exc}"
            return failed_completion(self.error)


class DecodingFollower:
    """Feeds a follower the decompressed body when the upstream sent `Content-Encoding`
    (memtap relays the compressed bytes untouched; only the observer decompresses)."""

    __slots__ = ("_inner", "_zlib", "error", "failed")

    def __init__(self, inner: ResponseFollower, wbits: int) -> None:
        self._inner = inner
        self._zlib = zlib.decompressobj(wbits=wbits)
        self.failed = False
        self.error: str | None = None

    def feed(self, chunk: bytes) -> None:
        if self.failed:
            return
        try:
            plain = self._zlib.decompress(chunk, MAX_JSON_BODY_BYTES)
            if self._zlib.unconsumed_tail:
                raise ValueError("decompressed chunk too large")
        except Exception as exc:  # noqa: BLE001 - a follower disables itself, never raises
            self.failed = True
            self.error = f"{type(exc).__name__}: {exc}"
            return
        if plain:
            self._inner.feed(plain)
        self.failed = self._inner.failed

    def finish(self) -> Completion:
        if self.failed:
            return failed_completion(self.error or "failed")
        try:
            tail = self._zlib.flush()
        except Exception as exc:  # noqa: BLE001
            self.failed = True
            self.error = f"{type(exc).__name__}: {exc}"
            return failed_completion(self.error)
        if tail:
            self._inner.feed(tail)
        completion: Completion = self._inner.finish()
        self.failed = self._inner.failed
        return completion


ZLIB_WBITS = {
    "gzip": 16 + zlib.MAX_WBITS,
    "x-gzip": 16 + zlib.MAX_WBITS,
    "deflate": zlib.MAX_WBITS,
}
"""The Content-Encodings memtap can read (zlib), by the window bits that read each."""


def _token(content_encoding: str | None) -> str:
    return (content_encoding or "").strip().lower()


def plain_encoding(content_encoding: str | None) -> bool:
    """Whether a body with this `Content-Encoding` header is sent as it reads."""
    return _token(content_encoding) in ("", "identity")


def zlib_wbits(content_encoding: str | None) -> int | None:
    """The zlib window bits that read a body of this `Content-Encoding` (None: not zlib)."""
    return ZLIB_WBITS.get(_token(content_encoding))


def decoding(
    follower: ResponseFollower, content_encoding: str | None
) -> ResponseFollower | None:
    """`follower` wrapped for the response's Content-Encoding; None when memtap cannot
    decode it (e.g. `br`, `zstd`): that response is then relayed without capture."""
    if plain_encoding(content_encoding):
        return follower
    wbits = zlib_wbits(content_encoding)
    return None if wbits is None else DecodingFollower(follower, wbits)
