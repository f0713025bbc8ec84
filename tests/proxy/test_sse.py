"""The SSE decoder against the WHATWG "Interpreting an event stream" rules, fed in every
possible split."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtap.proxy.codecs.sse import SseDecoder, SseError, SseEvent


def decode(chunks: list[bytes]) -> tuple[list[SseEvent], SseDecoder]:
    decoder = SseDecoder()
    events: list[SseEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    decoder.close()
    return events, decoder


def all_splits(body: bytes) -> list[list[bytes]]:
    """The body whole, byte by byte, and cut once at every offset."""
    ways = [[body], [body[i : i + 1] for i in range(len(body))]]
    ways += [[body[:i], body[i:]] for i in range(1, len(body))]
    return ways


def assert_same_in_every_split(body: bytes, expected: list[SseEvent]) -> None:
    for chunks in all_splits(body):
        events, _ = decode(chunks)
        assert events == expected, chunks


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_line_endings(eol: bytes) -> None:
    body = b"event: a" + eol + b"data: 1" + eol + eol + b"data: 2" + eol + eol
    assert_same_in_every_split(
        body, [SseEvent("a", "1", None), SseEvent("message", "2", None)]
    )


def test_mixed_line_endings_and_cr_then_lf_in_next_chunk() -> None:
    body = b"data: x\r\r\ndata: y\n\r\ndata: z\r\n\r"
    expected = [
        SseEvent("message", "x", None),
        SseEvent("message", "y", None),
        SseEvent("message", "z", None),
    ]
    assert_same_in_every_split(body, expected)
    # CR ends a chunk, LF starts the next: one line end, not a blank line in between.
    events, _ = decode([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"])
    assert events == [SseEvent("message", "a\nb", None)]


def test_comments_multiline_data_and_optional_space() -> None:
    body = b': keep-alive\n\ndata: {"a":\ndata:1}\n: between\ndata\n\n'
    assert_same_in_every_split(body, [SseEvent("message", '{"a":\n1}\n', None)])


def test_only_one_space_is_removed_and_colonless_field() -> None:
    events, _ = decode([b"data:  two spaces\ndata\ndata:\n\n"])
    assert events == [SseEvent("message", " two spaces\n\n", None)]


def test_id_retry_and_unknown_fields() -> None:
    events, decoder = decode(
        [
            b"id: 7\nretry: 3000\nfoo: bar\ndata: a\n\ndata: b\n\nid\ndata: c\n\nretry: x\n\n"
        ]
    )
    assert events == [
        SseEvent("message", "a", "7"),
        SseEvent("message", "b", "7"),
        SseEvent("message", "c", ""),
    ]
    assert decoder.retry_ms == 3000
    events, _ = decode([b"id: a\x00b\ndata: d\n\n"])
    assert events == [SseEvent("message", "d", None)]  # an id with NUL is ignored


def test_blank_line_without_data_dispatches_nothing_and_resets_event_type() -> None:
    events, _ = decode([b"event: x\n\ndata: y\n\n"])
    assert events == [SseEvent("message", "y", None)]


def test_trailing_event_without_blank_line_is_discarded() -> None:
    events, decoder = decode([b"data: done\n\ndata: partial\n"])
    assert events == [SseEvent("message", "done", None)]
    assert not decoder.at_boundary
    events, decoder = decode([b"data: done\n\ndata: part"])
    assert events == [SseEvent("message", "done", None)]
    assert not decoder.at_boundary
    _, decoder = decode([b"data: done\n\n"])
    assert decoder.at_boundary


def test_utf8_split_anywhere_and_bom() -> None:
    text = "Grüße 🥐 « ᵉ » 万里长城"
    body = b"\xef\xbb\xbfdata: " + text.encode() + b"\n\n"
    assert_same_in_every_split(body, [SseEvent("message", text, None)])


def test_unicode_line_separators_are_not_line_ends() -> None:
    text = "a\u2028b\u2029c\x85d"
    events, _ = decode([f"data: {text}\n\n".encode()])
    assert events == [SseEvent("message", text, None)]


def test_invalid_utf8_is_replaced() -> None:
    events, _ = decode([b"data: ok\xff\n\n"])
    assert events == [SseEvent("message", "ok\ufffd", None)]


def test_line_cap() -> None:
    decoder = SseDecoder(max_line_bytes=64)
    with pytest.raises(SseError):
        decoder.feed(b"data: " + b"x" * 100)


def test_byte_at_a_time_is_linear() -> None:
    # A 200 KB stream fed one byte at a time must not rescan the buffer (quadratic).
    body = b"".join(b"data: " + b"y" * 2000 + b"\n\n" for _ in range(100))
    decoder = SseDecoder()
    count = 0
    for i in range(len(body)):
        count += len(decoder.feed(body[i : i + 1]))
    assert count == 100


def reference_parse(text: str) -> list[tuple[str, str]]:
    """A direct transcription of the standard's algorithm over a whole (decoded) stream."""
    lines: list[str] = []
    i = 0
    start = 0
    while i < len(text):
        if text[i] in "\r\n":
            lines.append(text[start:i])
            if text[i] == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
                i += 1
            start = i + 1
        i += 1
    out: list[tuple[str, str]] = []
    data, event = "", ""
    for line in lines:
        if line == "":
            if data:
                out.append((event or "message", data[:-1]))
            data, event = "", ""
        elif line.startswith(":"):
            continue
        else:
            name, sep, value = line.partition(":")
            if sep and value.startswith(" "):
                value = value[1:]
            if name == "data":
                data += value + "\n"
            elif name == "event":
                event = value
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "data: a",
                "data:b",
                "data",
                ": c",
                "event: e",
                "event:",
                "x: y",
                "data: é🥐",
                "",
            ]
        ),
        max_size=12,
    ),
    st.lists(st.sampled_from(["\n", "\r", "\r\n"]), min_size=1, max_size=3),
    st.data(),
)
def test_matches_reference_in_any_split(
    lines: list[str], eols: list[str], data: st.DataObject
) -> None:
    text = "".join(line + eols[i % len(eols)] for i, line in enumerate(lines))
    # A CR at the very end followed by nothing is fine; the reference treats it as a line end too.
    body = text.encode()
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(body) - 1)), max_size=6)))
    chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=False)]
    events, _ = decode(chunks)
    assert [(e.event, e.data) for e in events] == reference_parse(text)
