"""Imported turns into the outbox, once each, and what the worker made of them.

The turns take the live path from the outbox on: the one `OutboxWorker` extracts their
facts (dated at each turn's time, `Turn.created_at`), stores them and acks the rows, and
tells the engine's listeners (`TurnExtracted`), which is how an import learns its counts.

Bounded: at most `max_outstanding` imported turns wait in the outbox at once (the reader
of the file waits for the worker), and the end of an import waits for the last turns at
most `wait_s` without any progress; turns still waiting then are counted in `pending`
and applied later (the outbox is durable).

Then it waits, bounded the same way, for the episode windows' vectors
(`episodes/settle.py`); windows still waiting then are counted in `vectors_pending` (the
embedder goes on).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType
from typing import Final, Self

from memtap.engine.api import EngineError
from memtap.engine.clock import now_iso
from memtap.engine.events import EngineEvents, TurnExtracted
from memtap.engine.local_file import TurnLedger
from memtap.engine.types import ConversationReport, Turn

MAX_OUTSTANDING: Final = 1000
DEFAULT_WAIT_S: Final = 30.0


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
        settle_vectors: Callable[[float], Awaitable[int]] | None = None,
    ) -> None:
        self.ledger = ledger
        self.settle_vectors = settle_vectors
        """Waits, bounded by its argument, for the windows' vectors; how many still wait."""
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
            self.settle_vectors is not None
            and self.report.episodes
            and not self.report.pending
            and self.wait_s > 0  # `?wait=0`: the answer at once, as for the turns
        ):
            self.report.vectors_pending = await self.settle_vectors(self.wait_s)
        return self.report

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
