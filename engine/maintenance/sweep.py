"""The retention sweep: really delete expired and out-of-retention memories, and their
vectors, in batches (each its own short write)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

from memtap.engine.clock import cutoff_for, now_iso
from memtap.engine.ports import RecordStore

log = logging.getLogger("memtap.engine")

BATCH = 5000


async def run_sweep(
    records: RecordStore,
    retention_days: int | None,
    forget_vectors: Callable[[Sequence[str]], Awaitable[None]],
) -> int:
    """Returns how many memories were deleted."""
    cutoff = cutoff_for(retention_days, datetime.now(UTC))
    total = 0
    while True:
        ids = await records.sweep(now_iso(), cutoff, BATCH)
        total += len(ids)
        await forget_vectors(ids)
        if len(ids) < BATCH:
            break
    if total:
        log.info(
            "memory.swept",
            extra={"fields": {"deleted": total, "store": records.name}},
        )
    return total
