"""Which requests get a codec: only POST to a known generation endpoint of the upstream's
configured format; everything else passes through (None)."""

from __future__ import annotations

import pytest

from memtap.proxy.codecs.registry import (
    ANTHROPIC,
    GEMINI,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    detect,
)


@pytest.mark.parametrize(
    ("fmt", "path", "codec"),
    [
        ("auto", "/v1/chat/completions", OPENAI_CHAT),
        ("auto", "/openai/deployments/gpt-4o-prod/chat/completions", OPENAI_CHAT),
        ("auto", "/chat/completions", OPENAI_CHAT),
        ("auto", "/api/paas/v4/chat/completions", OPENAI_CHAT),
        ("auto", "/v1/responses", OPENAI_RESPONSES),
        ("auto", "/v1/messages", ANTHROPIC),
        ("auto", "/v1beta/models/gemini-2.5-flash:generateContent", GEMINI),
        ("auto", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", GEMINI),
        ("auto", "/v1/models/gemini-2.0-flash:generateContent", GEMINI),
        ("openai", "/v1/chat/completions", OPENAI_CHAT),
        ("openai", "/v1/responses", OPENAI_RESPONSES),
        ("anthropic", "/v1/messages", ANTHROPIC),
        ("gemini", "/v1beta/models/gemini-2.5-pro:streamGenerateContent", GEMINI),
        ("openai", "/v1/messages", None),
        ("anthropic", "/v1/chat/completions", None),
        ("gemini", "/v1/responses", None),
        ("auto", "/v1/models", None),
        ("auto", "/v1/messages/count_tokens", None),
        ("auto", "/v1/messages/batches", None),
        ("auto", "/v1/threads/thread_1/messages", None),
        ("auto", "/v1/responses/resp_123", None),
        ("auto", "/v1beta/models/gemini-2.5-flash:countTokens", None),
        ("auto", "/v1beta/models/text-embedding-004:embedContent", None),
        ("auto", "/v1/embeddings", None),
    ],
)
def test_detect(fmt: str, path: str, codec: object) -> None:
    assert detect(fmt, "POST", path) is codec


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "OPTIONS"])
def test_only_post(method: str) -> None:
    assert detect("auto", method, "/v1/chat/completions") is None


def test_lowercase_method_and_unknown_format() -> None:
    assert detect("auto", "post", "/v1/messages") is ANTHROPIC
    assert detect("bogus", "POST", "/v1/messages") is None
