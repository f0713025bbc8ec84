"""Reindex: embed every memory that waits for a vector, in resumable batches.

Progress lives in the database (`memories.needs_reindex`), not in memory: a reindex that is
interrupted (crash, Ctrl-C, a `limit`) resumes where it stopped on the next run, and batches
interleave with normal traffic because each one is its own short write transaction.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger("memtap.reindex")

DEFAULT_BATCH = 64


class Backfillable(Protocol):
    async def mark_all_pending(self) -> int: ...

    async def backfill(self, owner: str | None, max_items: int) -> int:
        """Embed and store up to `max_items` pending memories; returns how many were handled."""
        ...

    async def pending_count(self) -> int: ...


@dataclass(frozen=True, slots=True)
class ReindexProgress:
    done: int
    pending: int
    batches: int
    seconds: float
    finished: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "started": True,
            "done": self.done,
            "pending": self.pending,
            "batches": self.batches,
            "seconds": self.seconds,
            "finished": self.finished,
        }


async def run_reindex(
    tier: Backfillable,
    *,
    limit: int | None = None,
    force: bool = False,
    batch_size: int = DEFAULT_BATCH,
    on_progress: Callable[[ReindexProgress], None] | None = None,
) -> ReindexProgress:
    """Embed pending memories (all memories with `force`), at most `limit` this call."""
    started = time.perf_counter()
    if force:
        await tier.mark_all_pending()
    done = batches = 0
    while limit is None or done < limit:
        want = batch_size if limit is None else min(batch_size, limit - done)
        handled = await tier.backfill(None, want)
        if handled == 0:
            break
        done += handled
        batches += 1
        if on_progress is not None:
            on_progress(
                ReindexProgress(
                    done,
                    await tier.pending_count(),
                    batches,
                    round(time.perf_counter() - started, 3),
                    False,
                )
            )
    pending = await tier.pending_count()
    progress = ReindexProgress(
        done, pending, batches, round(time.perf_counter() - started, 3), pending == 0
    )
    log.info("vector.reindexed", extra={"fields": progress.to_json()})
    return progress
