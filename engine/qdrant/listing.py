"""Reading the record collection page by page: the admin listing (newest first, with its
total) and an owner's export. Functions over `QdrantPoints`, run by
`memories.QdrantMemoryStore`."""

from __future__ import annotations

from collections.abc import AsyncIterator

from qdrant_client import AsyncQdrantClient, models

from memtap.engine.qdrant.filters import list_filter, owner_filter
from memtap.engine.qdrant.payload import payload_to_memory
from memtap.engine.qdrant.points import QdrantPoints
from memtap.engine.types import ListQuery, Memory, Page

PAGE = 256
"""Points read per scroll of an export."""


async def list_page(points: QdrantPoints, query: ListQuery) -> Page:
    """Admin listing: newest first, with total (offset paging, as the admin API uses)."""
    flt = list_filter(query)
    name = points.collection.name
    total = await points.call(
        "count", lambda c: c.count(name, count_filter=flt, exact=True)
    )
    records = await points.scroll(
        flt, query.offset + query.limit, order_desc="created_at_ts"
    )
    items = tuple(payload_to_memory(r.payload or {}) for r in records[query.offset :])
    return Page(items=items, total=int(total.count))


async def export_owner(points: QdrantPoints, owner: str) -> AsyncIterator[Memory]:
    name, flt = points.collection.name, owner_filter(owner)
    offset: models.ExtendedPointId | None = None
    while True:

        async def page(
            c: AsyncQdrantClient, start: models.ExtendedPointId | None = offset
        ) -> tuple[list[models.Record], models.ExtendedPointId | None]:
            return await c.scroll(
                name, scroll_filter=flt, limit=PAGE, offset=start, with_payload=True
            )

        records, offset = await points.call("scroll", page)
        for record in records:
            yield payload_to_memory(record.payload or {})
        if offset is None:
            return
