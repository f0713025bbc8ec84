"""Waiting, bounded, for episode windows' vectors: what an import's answer does before it
says the history is in (`POST /api/import/conversations`, a backup's episodes through
`POST /api/import`).

A big write leaves its windows to the background embedder (`maintenance/backfill.py`): until
it reaches them they are found by their words only, and an owner who writes another language
is not yet read in it. Imports used to answer at once: our multilingual set, imported and
asked at once, found 0.830 of its answers instead of 0.950 (LoCoMo dev 0.878 against 0.881;
its three conversations are 1,884 windows, ~9 s on 2 cores)."""

from __future__ import annotations

import asyncio
import logging
from typing import Final, Protocol

from memtap.engine.fallbacks import describe_error

log = logging.getLogger("memtap.import")

POLL_S: Final = 0.25
"""How often the wait looks at the windows still waiting for a vector."""
WAIT_MAX_S: Final = 120.0
"""The longest a wait lasts, however steady the progress (~24,000 windows on 2 cores), a
count that hangs included: a client waits for the answer (the CLI's read timeout allows for
it), and an import that worked must not time out."""


class WindowVectors(Protocol):
    """The episode windows waiting for a vector (the episodes' background embedder)."""

    async def pending_count(self) -> int: ...


async def settle_window_vectors(vectors: WindowVectors, wait_s: float) -> int:
    """Wait until no window waits for a vector, or `wait_s` with none fewer waiting, or
    `WAIT_MAX_S` in all (the count is the store's: live turns' windows too, embedded as they
    come); how many still waited at the last count. Fail-open: a count that cannot be read
    ends the wait (0 when none was ever read)."""
    loop = asyncio.get_running_loop()
    waiting = 0
    fewest: int | None = None
    since = loop.time()
    try:
        async with asyncio.timeout(WAIT_MAX_S):
            while True:
                waiting = await vectors.pending_count()
                if waiting == 0:
                    return 0
                if fewest is None or waiting < fewest:
                    fewest, since = waiting, loop.time()
                elif loop.time() - since >= wait_s:
                    return waiting
                await asyncio.sleep(POLL_S)
    except TimeoutError:
        return waiting
    except Exception as exc:  # noqa: BLE001 - the import is done; only its wait ends
        log.warning(
            "import.vectors_unknown", extra={"fields": {"error": describe_error(exc)}}
        )
        return waiting
