"""Relay an upstream body to the client chunk by chunk, then let observers see each chunk.

Ordering guarantees callers rely on:
- every chunk is written to the client as soon as it arrives (no buffering, no re-encoding);
  `response_chunk` observers see it right after the write;
- `response_done` is awaited BEFORE the client can see the end of the body: before the
  terminating chunk (`write_eof`) of a chunked response, and, for a response with a
  Content-Length, before the last chunk is written (observers see that chunk first). A client
  that got the whole body therefore knows the turn was persisted.
"""

from __future__ import annotations

import asyncio
import time
from typing import Literal

import aiohttp
from aiohttp import web

from memtap.proxy.flow import Flow
from memtap.proxy.pipeline import Pipeline
from memtap.proxy.upstream import IdleWatchdog


class UpstreamBodyError(Exception):
    """The upstream body broke off (reset, timeout, fewer bytes than Content-Length)."""

    def __init__(
        self, message: str, kind: Literal["timeout", "protocol"] = "protocol"
    ) -> None:
        super().__init__(message)
        self.kind = kind


async def _done(flow: Flow, pipeline: Pipeline) -> None:
    if not pipeline.has_done_hooks:
        return  # nothing to commit: skip the shield's extra task on the hot path
    # Shielded: a client that disconnects during the commit must not abort a turn whose
    # upstream response already completed.
    await asyncio.shield(pipeline.response_done(flow))


def _first_byte(flow: Flow) -> None:
    if flow.ttfb_ms is None:
        flow.ttfb_ms = (time.monotonic() - flow.started) * 1000.0


async def relay_body(
    upstream: aiohttp.ClientResponse,
    client: web.StreamResponse,
    flow: Flow,
    pipeline: Pipeline,
    expected_length: int | None,
    watchdog: IdleWatchdog | None = None,
) -> None:
    """Copy the body; return after the client was sent the end of it.

    `expected_length` is the body size the client was promised (Content-Length; 0 for
    HEAD/204/304), or None for a chunked / close-delimited body. Raises `UpstreamBodyError`
    when the upstream fails mid-body or `watchdog` (which cancels this task when the body
    makes no progress) fired; client-side errors (disconnect) propagate as they are.
    """
    try:
        await _relay(upstream, client, flow, pipeline, expected_length, watchdog)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if (
            watchdog is not None
            and watchdog.fired
            and task is not None
            and task.uncancel() == 0
        ):
            raise UpstreamBodyError(
                "upstream went silent mid-body (timeout_s)", "timeout"
            ) from None
        raise


async def _relay(
    upstream: aiohttp.ClientResponse,
    client: web.StreamResponse,
    flow: Flow,
    pipeline: Pipeline,
    expected_length: int | None,
    watchdog: IdleWatchdog | None,
) -> None:
    remaining = expected_length
    if remaining == 0:
        await _done(flow, pipeline)
        _first_byte(flow)
        await client.write_eof()
        flow.completed = True
        return
    # Per chunk: one read, one write and plain attribute updates; observers are only called
    # when the pipeline has any, the watchdog's touch is a timestamp (no timer operation).
    readany = upstream.content.readany
    write = client.write
    observe = pipeline.response_chunk if pipeline.has_chunk_observers else None
    touch = watchdog.touch if watchdog is not None else None
    sent = 0
    try:
        while True:
            try:
                chunk = await readany()
            except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError) as exc:
                raise UpstreamBodyError(f"upstream body broke off: {exc!r}") from exc
            if touch is not None:
                touch()
            if not chunk:
                break
            size = len(chunk)
            if remaining is not None and size >= remaining:
                # The chunk that completes the body: observe and commit, then deliver.
                if observe is not None:
                    observe(flow, chunk)
                await _done(flow, pipeline)
                _first_byte(flow)
                await write(chunk)
                sent += size
                await client.write_eof()
                flow.completed = True
                return
            if not sent:
                _first_byte(flow)
            await write(chunk)
            sent += size
            if observe is not None:
                observe(flow, chunk)
            if remaining is not None:
                remaining -= size
    finally:
        flow.bytes_out += sent
    if remaining:
        raise UpstreamBodyError(
            f"upstream body ended {remaining} bytes short of Content-Length"
        )
    await _done(flow, pipeline)
    _first_byte(flow)
    await client.write_eof()
    flow.completed = True
