"""The transport side of followers: Content-Encoding, size caps, error bodies, and the Gemini
JSON-array scanner on adversarial strings."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest

from memtap.proxy.codecs.followers import decoding
from memtap.proxy.codecs.gemini import GeminiStreamState
from memtap.proxy.codecs.json_body import JsonArrayFollower, JsonBodyFollower
from memtap.proxy.codecs.registry import GEMINI, OPENAI_CHAT
from tests.proxy.test_codecs_fixtures import CASES, check

CHAT = next(c for c in CASES if c.name == "openai-chat/basic_text_stream")
ARRAY = next(c for c in CASES if c.name == "gemini/json_array_stream_snake_case")


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("GZIP", gzip.compress),
    ],
)
def test_compressed_bodies_are_followed(encoding: str, compress: object) -> None:
    assert callable(compress)
    for case in (CHAT, ARRAY):
        packed = compress(case.response)
        follower = decoding(
            case.codec.follower(case.expect["content_type"], case.path, ""), encoding
        )
        assert follower is not None
        for i in range(0, len(packed), 7):
            follower.feed(packed[i : i + 7])
        completion = follower.finish()
        assert not follower.failed
        check(case, completion, encoding)


def test_identity_and_unknown_encodings() -> None:
    follower = OPENAI_CHAT.follower("text/event-stream", "/v1/chat/completions", "")
    assert decoding(follower, None) is follower
    assert decoding(follower, "identity") is follower
    assert decoding(follower, "br") is None
    assert decoding(follower, "zstd") is None


def test_corrupt_compressed_body_fails_quietly() -> None:
    follower = decoding(
        OPENAI_CHAT.follower("application/json", "/v1/chat/completions", ""), "gzip"
    )
    assert follower is not None
    follower.feed(b"\x1f\x8b\x08\x00garbage-garbage-garbage")
    assert follower.failed
    assert follower.finish().clean_end is False


def test_json_body_cap_and_bad_json() -> None:
    capped = JsonBodyFollower(GeminiStreamState(), max_bytes=100)
    capped.feed(b"{" + b" " * 200)
    assert capped.failed and capped.finish().clean_end is False
    bad = OPENAI_CHAT.follower("application/json", "/v1/chat/completions", "")
    bad.feed(b'{"choices": [')
    assert bad.finish().clean_end is False and bad.failed


def test_gemini_error_object_on_a_stream_path() -> None:
    follower = GEMINI.follower(
        "application/json", "/v1beta/models/g:streamGenerateContent", ""
    )
    body = json.dumps(
        {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "quota"}}
    ).encode()
    follower.feed(b"  \n" + body)
    completion = follower.finish()
    assert (
        completion.finish == "error"
        and completion.error is not None
        and completion.assistant_text == ""
    )


def test_gemini_array_with_brackets_quotes_and_escapes_in_strings() -> None:
    texts = [
        'a "quoted" ] } [ { word',
        'back\\slash \\" and \u00e9\U0001f600',
        "}]},{[",
        "end",
    ]
    elements = [
        {
            "candidates": [
                {"content": {"parts": [{"text": t}], "role": "model"}, "index": 0}
            ]
        }
        for t in texts
    ]
    elements[-1]["candidates"][0]["finishReason"] = "STOP"
    body = (
        "["
        + ",\r\n".join(json.dumps(e, indent=2, ensure_ascii=False) for e in elements)
        + "\r\n]"
    ).encode()
    for cut in range(1, len(body)):
        follower = JsonArrayFollower(GeminiStreamState())
        follower.feed(body[:cut])
        follower.feed(body[cut:])
        completion = follower.finish()
        assert not follower.failed, cut
        assert completion.assistant_text == "".join(texts), cut
        assert completion.clean_end and completion.finish == "STOP"
    follower = JsonArrayFollower(GeminiStreamState())
    for i in range(len(body)):
        follower.feed(body[i : i + 1])
    assert follower.finish().assistant_text == "".join(texts)


def test_gemini_array_without_closing_bracket_is_not_clean() -> None:
    follower = JsonArrayFollower(GeminiStreamState())
    follower.feed(ARRAY.response[:-1])
    completion = follower.finish()
    assert not follower.failed and completion.clean_end is False


def test_gemini_text_parts_of_one_chunk_are_fragments_of_one_answer() -> None:
    chunk = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Hel"},
                        {"text": "why", "thought": True},
                        {"text": "lo"},
                    ],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ]
    }
    follower = GEMINI.follower(
        "text/event-stream", "/v1beta/models/g:streamGenerateContent", "alt=sse"
    )
    follower.feed(b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n")
    completion = follower.finish()
    assert completion.assistant_text == "Hello" and completion.clean_end
