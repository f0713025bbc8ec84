"""Per-owner operations: GDPR erase (with a receipt), export and import as JSON lines."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Final

import orjson
from aiohttp import web

from memtap.engine.api import InvalidInput
from memtap.engine.episode_types import NewEpisode
from memtap.engine.types import NewMemory
from memtap.proxy.admin import fields, validation
from memtap.proxy.admin.common import engine_of, json_response, runtime_of
from memtap.proxy.admin.query_params import export_query, wait_query

log = logging.getLogger("memtap.admin")

routes = web.RouteTableDef()

NDJSON: Final = "application/x-ndjson"
MAX_IMPORT_BYTES: Final = 256 * 1024 * 1024
IMPORT_BATCH: Final = 500
"""Lines handed to the engine at once: bounded memory for any import size."""
MAX_REPORTED_ERRORS: Final = 100


@routes.delete("/api/owners/{owner}")
async def erase_owner(request: web.Request) -> web.Response:
    owner = fields.owner_id(request.match_info["owner"])
    receipt = await engine_of(request).erase_owner(owner)
    # The request log names the owner and its memory ids: forget those entries too.
    removed = {
        **receipt.removed,
        "requests_logged": runtime_of(request).request_log.forget(owner),
    }
    # An audit line at the API level (the engine logs its own `memory.owner_erased`).
    log.info(
        "admin.owner_erased",
        extra={
            "fields": {
                "owner": owner,
                "remote": request.remote,
                "removed": removed,
            }
        },
    )
    return json_response({"owner": receipt.owner, "removed": removed})


@routes.get("/api/owners/{owner}/export")
async def export_owner(request: web.Request) -> web.StreamResponse:
    owner = fields.owner_id(request.match_info["owner"])
    with_episodes = export_query(request.query)
    engine = engine_of(request)
    memories = aiter(engine.export_owner(owner))
    # Pull the first item before sending headers, so an engine failure is still a JSON error.
    first = await anext(memories, None)
    response = web.StreamResponse(
        headers={
            "Content-Type": NDJSON,
            "Content-Disposition": f'attachment; filename="memtap-{owner}.jsonl"',
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
        }
    )
    await response.prepare(request)
    count = 0
    try:
        # Each line says its kind: memories (facts) first, then, when asked for, episodes;
        # an import reads a line without a kind as a memory (exports from before episodes).
        if first is not None:
            await response.write(
                orjson.dumps({**first.to_json(), "kind": "memory"}) + b"\n"
            )
            count += 1
            async for memory in memories:
                await response.write(
                    orjson.dumps({**memory.to_json(), "kind": "memory"}) + b"\n"
                )
                count += 1
        if with_episodes:
            async for episode in engine.export_episodes(owner):
                await response.write(
                    orjson.dumps({**episode.to_json(), "kind": "episode"}) + b"\n"
                )
                count += 1
    except ConnectionResetError:
        return response  # the client went away
    except Exception as exc:  # noqa: BLE001 - headers are sent: no JSON error possible any more
        log.error(
            "admin.export_failed",
            extra={
                "fields": {
                    "owner": owner,
                    "written": count,
                    "error_type": type(exc).__name__,
                }
            },
        )
        # Cut the connection before the final chunk: the client sees a truncated transfer,
        # never a partial export that looks complete (someone may erase after exporting).
        if request.transport is not None:
            request.transport.abort()
        return response
    await response.write_eof()
    return response


async def _lines(request: web.Request) -> AsyncIterator[bytes]:
    """The body split on newlines, never holding more than one line (plus a read chunk)."""
    # Not history.jsonl.LineSplitter: that one drops an overlong line and reads on; an
    # import refuses the whole body (413) as soon as a line outgrows the limit.
    if request.content_length is not None and request.content_length > MAX_IMPORT_BYTES:
        raise validation.PayloadTooLarge(
            f"import body is larger than {MAX_IMPORT_BYTES} bytes"
        )
    pending = b""
    total = 0
    async for chunk in request.content.iter_chunked(256 * 1024):
        total += len(chunk)
        if total > MAX_IMPORT_BYTES:
            raise validation.PayloadTooLarge(
                f"import body is larger than {MAX_IMPORT_BYTES} bytes"
            )
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line
        if len(pending) > validation.MAX_IMPORT_LINE:
            raise validation.PayloadTooLarge(
                f"an import line is longer than {validation.MAX_IMPORT_LINE} bytes"
            )
    if pending:
        yield pending


@routes.post("/api/import")
async def import_memories(request: web.Request) -> web.Response:
    engine = engine_of(request)
    wait_s = wait_query(request.query)
    created = updated = skipped = 0
    errors: list[str] = []
    batch: list[NewMemory] = []
    episodes: list[NewEpisode] = []
    episodes_created = episodes_unchanged = 0

    async def flush() -> None:
        nonlocal created, updated, skipped, episodes_created, episodes_unchanged
        if batch:
            report = await engine.import_memories(list(batch))
            created, updated, skipped = (
                created + report.created,
                updated + report.updated,
                skipped + report.skipped,
            )
            errors.extend(report.errors[: MAX_REPORTED_ERRORS - len(errors)])
            batch.clear()
        if episodes:
            new, unchanged = await engine.import_episodes(list(episodes))
            episodes_created, episodes_unchanged = (
                episodes_created + new,
                episodes_unchanged + unchanged,
            )
            episodes.clear()

    number = 0
    async for line in _lines(request):
        number += 1
        if not line.strip():
            continue
        try:
            item = validation.import_item(line, number)
        except InvalidInput as exc:
            skipped += 1
            if len(errors) < MAX_REPORTED_ERRORS:  # a file of bad lines stays cheap
                errors.append(str(exc))
            continue
        (episodes if isinstance(item, NewEpisode) else batch).append(item)  # type: ignore[arg-type]
        if len(batch) + len(episodes) >= IMPORT_BATCH:
            await flush()
    await flush()
    # A backup's episodes: the answer once they are found by meaning too (bounded).
    vectors_pending = (
        await engine.episode_vectors_settled(wait_s)
        if episodes_created and wait_s > 0
        else 0
    )
    log.info(
        "memories.imported",
        extra={"fields": {"created": created, "updated": updated, "skipped": skipped}},
    )
    return json_response(
        {
            "created": created,
            "updated": updated,
            "skipped": skipped,
            "errors": errors[:MAX_REPORTED_ERRORS],
            # Only when the body had episode lines: a memories-only import answers as ever.
            **(
                {
                    "episodes": {
                        "created": episodes_created,
                        "unchanged": episodes_unchanged,
                        "vectors_pending": vectors_pending,
                    }
                }
                if episodes_created or episodes_unchanged
                else {}
            ),
        }
    )
