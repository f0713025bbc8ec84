"""What of a request's query the vector leg embeds.

A local model's cost grows with the tokens of the text: measured with the packaged MiniLM
on this box, ~4.5 ms fixed plus ~0.22 ms a token (8 tokens 5.9 ms, 34 tokens 11.8 ms, 70
tokens 19 ms, one thread). A chat message of ~450 characters cost ~20 ms of CPU per request,
which capped the query embeddings to ~50/s per core: under load the vector leg missed its
deadline for most requests. The question is usually at the end of the message (and the
keyword leg still reads all of it), so the vector leg embeds the tail only: the same model,
the same vector space, about half the cost.
"""

from __future__ import annotations

QUERY_EMBED_CHARS = 160
"""Characters of the query's end that are embedded (~30-35 tokens of English)."""


def query_tail(text: str, max_chars: int = QUERY_EMBED_CHARS) -> str:
    """The end of `text`, at most `max_chars`, starting at a word boundary when it was cut."""
    text = text.strip()
    if len(text) <= max_chars:
        return text
    tail = text[-max_chars:]
    space = tail.find(" ")
    # Drop the cut word's end, unless the tail has no space at all (one long token).
    return tail[space + 1 :] if 0 <= space < len(tail) - 1 else tail
