"""A request body sent compressed (`Content-Encoding: gzip`): it goes upstream exactly as
sent whenever memory leaves it alone (any path, memory off, no key); memory reads a gzip or
deflate body decompressed, and a body it rewrites goes up plain, without the header; a body
memory cannot decompress (br) passes untouched; the admin API refuses encoded bodies (415)."""

from __future__ import annotations

import gzip
import json
import logging
import zlib

import aiohttp
import pytest

from memtap.engine.memory_block import OPEN
from memtap.proxy.codecs.request_encoding import decoded_body
from tests.conftest import KeywordMemtap, MemtapServer
from tests.support.standin import Standin

KEY = "sk-test-gzip-upload-0001"
CHAT = json.dumps(
    {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "user", "content": "Which database for my side project?"}
        ],
    }
).encode()


def test_decoded_body() -> None:
    assert decoded_body(CHAT, None, 10**6) is CHAT
    assert decoded_body(CHAT, "identity", 10**6) is CHAT
    assert decoded_body(gzip.compress(CHAT), "gzip", 10**6) == CHAT
    assert decoded_body(zlib.compress(CHAT), "deflate", 10**6) == CHAT
    assert decoded_body(CHAT, "br", 10**6) is None  # not decodable here
    assert decoded_body(gzip.compress(CHAT), "gzip, br", 10**6) is None
    assert decoded_body(b"not gzip", "gzip", 10**6) is None
    assert decoded_body(gzip.compress(CHAT)[:-8], "gzip", 10**6) is None  # cut short
    bomb = gzip.compress(b"{" + b" " * 5_000_000 + b"}")
    assert decoded_body(bomb, "gzip", 1_000_000) is None  # bounded
    # Two gzip members one after the other are one body (RFC 1952); garbage after is not.
    half = len(CHAT) // 2
    members = gzip.compress(CHAT[:half]) + gzip.compress(CHAT[half:])
    assert decoded_body(members, "gzip", 10**6) == CHAT
    assert decoded_body(gzip.compress(CHAT) + b"junk", "gzip", 10**6) is None
    assert decoded_body(zlib.compress(CHAT) + b"junk", "deflate", 10**6) is None


@pytest.fixture
async def memtap(keyword_memtap: KeywordMemtap) -> MemtapServer:
    return await keyword_memtap(remembered=(KEY, "Prefers Postgres for side projects"))


async def send(
    server: MemtapServer, path: str, body: bytes, encoding: str, **headers: str
) -> aiohttp.ClientResponse:
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        response = await session.post(
            f"{server.url}{path}",
            data=body,
            headers={
                "Authorization": f"Bearer {KEY}",
                "Content-Type": "application/json",
                "Content-Encoding": encoding,
                **headers,
            },
        )
        await response.read()
        return response


async def test_a_compressed_upload_memory_leaves_alone_goes_up_as_sent(
    memtap: MemtapServer, standin: Standin
) -> None:
    packed = gzip.compress(CHAT)
    for path, headers in (
        ("/v1/chat/completions", {"X-Memtap-Memory": "off"}),
        ("/v1/some/other/path", {}),
    ):
        response = await send(memtap, path, packed, "gzip", **headers)
        assert response.status == 200, path
        sent = standin.last()
        assert sent.body == packed, path  # the bytes as sent, not decompressed
        assert sent.headers["Content-Encoding"] == "gzip"
        assert sent.headers["Content-Length"] == str(len(packed))


async def test_memory_reads_a_gzip_body_and_sends_its_rewrite_plain(
    memtap: MemtapServer, standin: Standin
) -> None:
    for encoding, packed in (
        ("gzip", gzip.compress(CHAT)),
        ("deflate", zlib.compress(CHAT)),
    ):
        response = await send(memtap, "/v1/chat/completions", packed, encoding)
        assert response.status == 200
        assert response.headers["X-Memtap-Memories"] == "1", encoding
        sent = standin.last()
        assert "Content-Encoding" not in sent.headers  # plain JSON went up
        assert sent.headers["Content-Length"] == str(len(sent.body))
        text = json.dumps(sent.json())
        assert OPEN in text and "Postgres" in text


async def test_a_body_memory_cannot_decompress_passes_untouched(
    memtap: MemtapServer, standin: Standin, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memtap")
    opaque = b"\x1b\x03\x00brotli-like bytes memtap does not read"
    response = await send(memtap, "/v1/chat/completions", opaque, "br")
    assert "X-Memtap-Memories" not in response.headers
    assert (
        standin.last().body == opaque
        and standin.last().headers["Content-Encoding"] == "br"
    )
    (skipped,) = [r for r in caplog.records if r.getMessage() == "memory.skipped"]
    assert skipped.fields["reason"] == "encoded_body: br"  # type: ignore[attr-defined]


async def test_the_admin_api_refuses_an_encoded_body(memtap: MemtapServer) -> None:
    body = gzip.compress(json.dumps({"owner": "o" * 24, "content": "x"}).encode())
    async with aiohttp.ClientSession() as session:
        response = await session.post(
            f"{memtap.url}/_memtap/api/memories",
            data=body,
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
        )
        answer = await response.json()
    assert response.status == 415
    assert answer["error"]["code"] == "unsupported_media_type"
