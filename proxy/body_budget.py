"""How many bytes of request bodies memory holds at once (`server.max_rewrite_inflight_bytes`).

Memory reads a request body whole and parses it (up to `server.max_rewrite_body_bytes` each);
a parsed body costs several times its bytes (one of 27 MB in a million text parts took
~400 MB). The per-request cap alone let sixteen such uploads at once take 1.2 GB. Past this
budget a request gets no memory and its body streams upstream untouched, as a body past the
per-request cap does. A request holds its declared length (a chunked upload the cap while it
is read, then its size; a compressed body its decompressed size too) until it ends: its body,
rewritten or not, is held until it is sent."""

from __future__ import annotations


class BodyBudget:
    def __init__(self) -> None:
        self.held = 0
        """Bytes held by requests in flight."""

    def take(self, size: int, limit: int) -> bool:
        """Hold `size` bytes if they fit in `limit` (0: no limit), or nothing else is held."""
        if limit and self.held and self.held + size > limit:
            return False
        self.held += size
        return True

    def give_back(self, size: int) -> None:
        self.held -= size
