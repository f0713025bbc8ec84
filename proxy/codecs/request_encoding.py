"""A request body sent with a `Content-Encoding`, read for memory.

memtap's server does not decompress request bodies: what the client sent goes upstream as
it was sent, bytes and headers, whenever memory leaves the request alone. Memory reads a
gzip or deflate body decompressed (bounded), and a body it rewrites goes upstream plain,
without the `Content-Encoding` that no longer describes it."""

from __future__ import annotations

import zlib

from memtap.proxy.codecs.followers import ZLIB_WBITS, plain_encoding, zlib_wbits


def decoded_body(body: bytes, content_encoding: str | None, limit: int) -> bytes | None:
    """`body` as it reads: decompressed when sent gzip or deflate, at most `limit` bytes.
    None when memtap cannot read it (another encoding, a chain of them, a broken stream, more
    than `limit` bytes once decompressed): memory then leaves the request alone."""
    if plain_encoding(content_encoding):
        return body
    wbits = zlib_wbits(content_encoding)
    if wbits is None:
        return None
    parts: list[bytes] = []
    size = 0
    rest = body
    while True:  # gzip may hold several members, one after the other (RFC 1952)
        decoder = zlib.decompressobj(wbits=wbits)
        try:
            part = decoder.decompress(rest, limit + 1 - size)
        except zlib.error:
            return None
        size += len(part)
        if size > limit or decoder.unconsumed_tail or not decoder.eof:
            return None
        parts.append(part)
        rest = decoder.unused_data
        if not rest:
            return b"".join(parts)
        if wbits == ZLIB_WBITS["deflate"]:
            return None  # bytes after a deflate stream: not a body
