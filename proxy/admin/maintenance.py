"""Maintenance: summarize (compact old memories, originals kept as superseded history; undo
one with summarize/restore) and
reindex (resumable: each call processes at most `limit` memories and reports what remains)."""

from __future__ import annotations

import logging

from aiohttp import web

from memtap.proxy.admin import validation
from memtap.proxy.admin.common import engine_of, json_response, runtime_of

log = logging.getLogger("memtap.admin")

routes = web.RouteTableDef()

DEFAULT_SUMMARIZE_DAYS = 30


@routes.post("/api/summarize")
async def summarize(request: web.Request) -> web.Response:
    configured = runtime_of(request).config.current.memory.summarize_after_days
    body = await validation.read_json_object(request, allow_empty=True)
    parsed = validation.summarize_request(
        body, configured if configured is not None else DEFAULT_SUMMARIZE_DAYS
    )
    result = await engine_of(request).summarize(
        parsed.older_than_days, parsed.owner, parsed.dry_run
    )
    log.info(
        "memories.summarized",
        extra={
            "fields": {
                "older_than_days": parsed.older_than_days,
                "owner": parsed.owner,
                "dry_run": parsed.dry_run,
            }
        },
    )
    return json_response(result)


@routes.post("/api/summarize/restore")
async def restore_summary(request: web.Request) -> web.Response:
    """Undo one compaction: `{"summary_id"}` → the original memory, live again."""
    body = await validation.read_json_object(request)
    summary_id = validation.restore_request(body)
    original = await engine_of(request).restore_summary(summary_id)
    log.info(
        "memories.summary_restored",
        extra={"fields": {"summary_id": summary_id, "original_id": original.id}},
    )
    return json_response(original.to_json())


@routes.post("/api/reindex")
async def reindex(request: web.Request) -> web.Response:
    parsed = validation.reindex_request(
        await validation.read_json_object(request, allow_empty=True)
    )
    return json_response(
        await engine_of(request).reindex(limit=parsed.limit, force=parsed.force)
    )
