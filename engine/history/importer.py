"""Imported turns into the outbox, once each, and what the worker made of them.

The turns take the live path from the outbox on: the one `OutboxWorker` extracts their
facts (dated at each turn's time, `Turn.created_at`), stores them and acks the rows, and
tells the engine's listeners (`TurnExtracted`), which is how an import learns its counts.

Bounded: at most `max_outstanding` imported turns wait in the outbox at once (the reader
of the file waits for the worker), and the end of an import waits for the last turns at
most `wait_s` without any progress; turns still waiting then are counted in `pending`
and applied later (the outbox is durable).

Then it waits, bounded the same way, for the episode windows' vectors: a big page of turns
leaves its windows to the background embedder, so an import used to return with its
history findable by its words only for a while (the three LoCoMo dev conversations: 1,884
windows, ~9 s; our multilingual set asked at once found 0.830 of its answers instead of
0.950, the owners not yet read in their language). Windows still waiting then are counted
in `vectors_pending` (the embedder goes on).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Final, Protocol, Self

from memtap.engine.api import EngineError
from memtap.engine.clock import now_iso
from memtap.engine.events import EngineEvents, TurnExtracted
from memtap.engine.fallbacks import describe_error
from memtap.engine.local_file import TurnLedger
from memtap.engine.types import ConversationReport, Turn

log = logging.getLogger("memtap.import")

MAX_OUTSTANDING: Final = 1000
DEFAULT_WAIT_S: Final = 30.0
VECTOR_POLL_S: Final = 0.25
"""How often the end of an import looks at the windows still waiting for a vector."""
VECTOR_WAIT_MAX_S: Final = 120.0
"""The longest an import's answer waits for the vectors, however steady their progress
(~24,000 windows on 2 cores), a count that hangs included: a client waits for the answer
(the CLI's read timeout allows for it), and an import that worked must not time out."""


class WindowVectors(Protocol):
    """The episode windows waiting for a vector (the episodes' background embedder)."""

    async def pending_count(self) -> int: ...


class ConversationImport:
    """`async with engine.conversation_import() as job: await job.add(turns) ...;
    report = await job.finish()`."""

    def __init__(
        self,
        ledger: TurnLedger,
        events: EngineEvents,
        enqueued: Callable[[int], None],
        *,
        wait_s: float = DEFAULT_WAIT_S,
        max_outstanding: int = MAX_OUTSTANDING,
        vectors: WindowVectors | None = None,
    ) -> None:
        self.ledger = ledger
        self.vectors = vectors
        self.events = events
        self.enqueued = enqueued
        """Tells the engine rows were queued (outbox depth, wake the worker)."""
        self.wait_s = wait_s
        self.max_outstanding = max_outstanding
        self.report = ConversationReport()
        self._outstanding: set[str] = set()
        self._progress = asyncio.Event()
        self._stalled = False
        """The worker applied nothing for `wait_s`: stop holding the reader back."""

    async def __aenter__(self) -> Self:
        self.events.on_turn_extracted(self._extracted)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.events.off_turn_extracted(self._extracted)

    def _extracted(self, event: TurnExtracted) -> None:
        if event.request_id in self._outstanding:
            self._outstanding.discard(event.request_id)
            self.report.memories.update(event.memory_ids)
            self.report.episodes.update(event.episode_ids)
            self._progress.set()

    async def add(self, turns: Sequence[Turn]) -> None:
        if not turns:
            return
        try:
            seqs = await self.ledger.enqueue_new(turns, now_iso())
        except EngineError:
            raise
        except Exception as exc:
            raise EngineError(f"{type(exc).__name__}: {exc}") from exc
        queued = 0
        for turn, seq in zip(turns, seqs, strict=True):
            if seq is None:
                self.report.skipped += 1
            else:
                queued += 1
                self._outstanding.add(turn.request_id)
        self.report.turns += queued
        if queued:
            self.enqueued(queued)
        if len(self._outstanding) >= self.max_outstanding and not self._stalled:
            self._stalled = not await self._drain(self.max_outstanding // 2)

    async def finish(self) -> ConversationReport:
        await self._drain(0)
        self.report.pending = len(self._outstanding)
        if (
            self.vectors is not None
            and self.wait_s > 0  # `?wait=0`: the answer at once, as for the turns
            and self.report.episodes
            and not self.report.pending
        ):
            self.report.vectors_pending = await self._settle_vectors(self.vectors)
        return self.report

    async def _settle_vectors(self, vectors: WindowVectors) -> int:
        """Wait until no window waits for a vector, or `wait_s` with none fewer waiting,
        or `VECTOR_WAIT_MAX_S` in all (the count is the store's: live turns' windows too,
        embedded as they come); how many still waited at the last count. Fail-open: a
        count that cannot be read ends the wait (0 when none was ever read)."""
        loop = asyncio.get_running_loop()
        waiting = 0
        fewest: int | None = None
        since = loop.time()
        try:
            async with asyncio.timeout(VECTOR_WAIT_MAX_S):
                while True:
                    waiting = await vectors.pending_count()
                    if waiting == 0:
                        return 0
                    if fewest is None or waiting < fewest:
                        fewest, since = waiting, loop.time()
                    elif loop.time() - since >= self.wait_s:
                        return waiting
                    await asyncio.sleep(VECTOR_POLL_S)
        except TimeoutError:
            return waiting
        except Exception as exc:  # noqa: BLE001 - the import is done; only its wait ends
            log.warning(
                "import.vectors_unknown",
                extra={"fields": {"error": describe_error(exc)}},
            )
            return waiting

    async def _drain(self, down_to: int) -> bool:
        """Wait until at most `down_to` turns are outstanding (True), or until `wait_s`
        pass with none applied (False)."""
        while len(self._outstanding) > down_to:
            self._progress.clear()
            try:
                async with asyncio.timeout(self.wait_s):
                    await self._progress.wait()
            except TimeoutError:
                return False
        return True
