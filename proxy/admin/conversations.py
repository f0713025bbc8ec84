"""POST /api/import/conversations: past conversations in, as if they had passed through.

The body is JSON lines of messages (`{owner | api_key, session, role, content, ts}`, or one
ChatGPT conversation a line) or a ChatGPT data export (`conversations.json`, one JSON
document up to `MAX_DOCUMENT_BYTES`, else 413). `?owner=` or `?api_key=` names the owner of
messages that name none (an export names none). An API key becomes its owner id by the
proxy's own rule (`proxy/headers.py:owner_id_for_key`); the key itself is never stored or
logged. Lines that cannot be read are listed with their number; the others are imported.

The answer waits (bounded by `?wait=` seconds without progress, default 30) for the worker
to extract the imported turns, then (bounded the same way) for the episode windows'
vectors: `{"turns", "memories", "episodes", "skipped", "errors": [{line, message}],
"error_count", "pending", "vectors_pending"}`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from typing import Final

from aiohttp import web

from memtap.engine.api import InvalidInput
from memtap.engine.history.messages import BadMessage, LineError, Owners
from memtap.engine.history.reader import (
    MAX_DOCUMENT_BYTES,
    DocumentTooLarge,
    read_history,
)
from memtap.proxy.admin import validation
from memtap.proxy.admin.common import engine_of, json_response
from memtap.proxy.admin.query_params import wait_query
from memtap.proxy.headers import owner_id_for_key
from memtap.proxy.owners import is_owner_id

log = logging.getLogger("memtap.admin")

routes = web.RouteTableDef()

CHUNK_BYTES: Final = 256 * 1024
MAX_REPORTED_ERRORS: Final = 100


def _owners(query: Mapping[str, str]) -> Owners:
    owners = Owners(owner_id_for_key, is_owner_id)
    owner, api_key = query.get("owner"), query.get("api_key")
    if owner is None and api_key is None:
        return owners
    try:
        default = owners.resolve(owner, api_key)
    except BadMessage as exc:
        raise InvalidInput(str(exc), "api_key" if api_key is not None else "owner")
    return Owners(owner_id_for_key, is_owner_id, default)


@routes.post("/api/import/conversations")
async def import_conversations(request: web.Request) -> web.Response:
    engine = engine_of(request)
    owners = _owners(request.query)
    wait_s = wait_query(request.query)
    chunks: AsyncIterator[bytes] = aiter(request.content.iter_chunked(CHUNK_BYTES))
    errors: list[LineError] = []
    error_count = 0
    try:
        async with engine.conversation_import(wait_s) as job:
            async for batch in read_history(
                chunks, owners, max_document=MAX_DOCUMENT_BYTES
            ):
                error_count += len(batch.errors)
                errors += batch.errors[: MAX_REPORTED_ERRORS - len(errors)]
                await job.add(batch.turns)
            report = await job.finish()
    except DocumentTooLarge as exc:
        raise validation.PayloadTooLarge(str(exc)) from None
    body = {
        "turns": report.turns,
        "memories": len(report.memories),
        "episodes": len(report.episodes),
        "skipped": report.skipped,
        "errors": [e.to_json() for e in errors],
        "error_count": error_count,
        "pending": report.pending,
        "vectors_pending": report.vectors_pending,
    }
    log.info(
        "admin.conversations_imported",
        extra={"fields": {k: v for k, v in body.items() if k != "errors"}},
    )
    return json_response(body)
