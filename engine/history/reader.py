"""A history upload, whatever its format, as batches of turns and line errors.

The first byte that is not white space decides: `[` is a ChatGPT export (one JSON
document, read whole up to `max_document` bytes, conversations imported oldest first so a
later fact supersedes an earlier one); anything else is JSON lines (streamed: one line in
memory at a time). Pairing into turns follows file order per owner and session.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Final

import orjson

from memtap.engine.history import chatgpt, jsonl
from memtap.engine.history.messages import (
    BadMessage,
    HistoryMessage,
    LineError,
    Owners,
    TurnPairing,
)
from memtap.engine.types import Turn

BATCH_TURNS: Final = 200
MAX_DOCUMENT_BYTES: Final = 64 * 1024 * 1024
"""The largest ChatGPT export read as one document; `memtap conversations import` sends a
larger one as one conversation per line."""


class DocumentTooLarge(Exception):
    """A one-document upload (ChatGPT export) over the limit (HTTP 413)."""


@dataclass(slots=True)
class Batch:
    turns: list[Turn] = field(default_factory=list)
    errors: list[LineError] = field(default_factory=list)


async def read_history(
    chunks: AsyncIterator[bytes],
    owners: Owners,
    *,
    max_document: int = MAX_DOCUMENT_BYTES,
    batch_turns: int = BATCH_TURNS,
) -> AsyncIterator[Batch]:
    first = b""
    async for chunk in chunks:
        first += chunk
        if first.strip():
            break
    stripped = first.lstrip()
    if not stripped:
        return
    pairing = TurnPairing()
    batch = Batch()
    if stripped[:1] == b"[":
        messages_of = _export(first, chunks, owners, max_document)
    else:
        messages_of = _lines(first, chunks, owners)
    async for messages, error, whole in messages_of:
        if error is not None:
            batch.errors.append(error)
        for message in messages:
            batch.turns += [t.turn for t in pairing.add(message)]
        if whole and messages:
            # A whole conversation (ChatGPT): its last turn is complete too.
            batch.turns += [t.turn for t in pairing.end(messages[-1])]
        if len(batch.turns) >= batch_turns or len(batch.errors) >= batch_turns:
            yield batch
            batch = Batch()
    batch.turns += [t.turn for t in pairing.close()]
    yield batch


Read = tuple[list[HistoryMessage], LineError | None, bool]
"""A line's (or conversation's) messages, its error, whether it was a whole conversation."""


async def _lines(
    first: bytes, chunks: AsyncIterator[bytes], owners: Owners
) -> AsyncIterator[Read]:
    splitter = jsonl.LineSplitter()

    def each(pieces: Iterable[tuple[int, bytes | None]]) -> list[Read]:
        out: list[Read] = []
        for number, raw in pieces:
            if raw is None:
                error = LineError(number, f"line longer than {splitter.limit} bytes")
                out.append(([], error, False))
            else:
                out.append(jsonl.read_line(raw, number, owners))
        return out

    for item in each(list(splitter.feed(first))):
        yield item
    async for chunk in chunks:
        for item in each(list(splitter.feed(chunk))):
            yield item
    for item in each(list(splitter.close())):
        yield item


async def _export(
    first: bytes, chunks: AsyncIterator[bytes], owners: Owners, limit: int
) -> AsyncIterator[Read]:
    body = bytearray(first)
    if len(body) > limit:
        raise DocumentTooLarge(_too_large(limit))
    async for chunk in chunks:
        body += chunk
        if len(body) > limit:
            raise DocumentTooLarge(_too_large(limit))
    try:
        document = await asyncio.to_thread(orjson.loads, bytes(body))
    except orjson.JSONDecodeError as exc:
        yield [], LineError(1, f"not a JSON document: {str(exc)[:120]}"), False
        return
    del body
    if not isinstance(document, list):
        yield (
            [],
            LineError(1, "a ChatGPT export is a JSON array of conversations"),
            False,
        )
        return
    # Oldest first: the worker applies turns in queue order, so a fact restated later wins.
    order = sorted(
        range(len(document)), key=lambda i: chatgpt.conversation_time(document[i])
    )
    for done, index in enumerate(order):
        try:
            messages = chatgpt.conversation_messages(document[index], index + 1, owners)
        except BadMessage as exc:
            yield [], LineError(index + 1, str(exc)), False
        else:
            yield messages, None, True
        if done % 50 == 49:
            await asyncio.sleep(0)  # a big export must not hold the event loop


def _too_large(limit: int) -> str:
    return (
        f"a ChatGPT export is read as one document of at most {limit} bytes; "
        "`memtap conversations import FILE` sends a larger one conversation by conversation"
    )
