"""Turns in: a live turn committed to the outbox (bounded in size, refused past the
outbox's capacity, within `ENQUEUE_TIMEOUT_S`), and conversation imports, whose turns take
the same outbox (`engine/history/importer.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from memtap.engine.api import InvalidInput, OutboxFull
from memtap.engine.clock import now_iso
from memtap.engine.events import EngineEvents
from memtap.engine.history.importer import DEFAULT_WAIT_S, ConversationImport
from memtap.engine.local_file import TurnLedger
from memtap.engine.metrics import Metrics
from memtap.engine.ports import Outbox
from memtap.engine.retrieval.admission.pending import PendingTurns
from memtap.engine.services.outbox_depth import OutboxDepth
from memtap.engine.turn_bounds import bounded_turn
from memtap.engine.types import Turn

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

ENQUEUE_TIMEOUT_S = 2.0


class TurnIntake:
    def __init__(
        self,
        *,
        holder: ConfigHolder,
        metrics: Metrics,
        outbox: Outbox,
        ledger: TurnLedger,
        events: EngineEvents,
        pending: PendingTurns,
        depth: OutboxDepth,
        wake_worker: Callable[[], None],
        settle_vectors: Callable[[float], Awaitable[int]] | None = None,
    ) -> None:
        self.holder = holder
        self.metrics = metrics
        self.outbox = outbox
        self.ledger = ledger
        self.events = events
        self.pending = pending
        self.depth = depth
        self.wake_worker = wake_worker
        self.settle_vectors = settle_vectors
        """What an import's end waits for after its turns: the windows' vectors (None:
        nothing)."""

    async def enqueue(self, turn: Turn) -> None:
        if not turn.owner:
            raise InvalidInput("owner is required", "owner")
        max_rows = self.holder.current.memory.outbox_max_rows
        if self.depth.full(max_rows):
            self.metrics.memory_fallbacks.inc("outbox_full")
            raise OutboxFull(
                f"the outbox holds memory.outbox_max_rows="
                f"{max_rows} turns already; this one is not kept"
            )
        turn = bounded_turn(turn)  # the outbox row stays bounded whoever the caller
        if turn.truncated_chars:
            self.metrics.turns_truncated.inc()
            self.metrics.turn_chars_truncated.inc(amount=turn.truncated_chars)
        now = now_iso()
        # asyncio.timeout, not wait_for: no extra task on the response's tail.
        async with asyncio.timeout(ENQUEUE_TIMEOUT_S):
            seq = await self.outbox.insert(turn, now)
        self.pending.added(turn.owner, seq)
        self.depth.added()
        self.wake_worker()

    def conversation_import(self, wait_s: float = DEFAULT_WAIT_S) -> ConversationImport:
        """Past turns in through the outbox, as live turns go."""
        return ConversationImport(
            self.ledger,
            self.events,
            self._imported,
            wait_s=wait_s,
            settle_vectors=self.settle_vectors,
        )

    def _imported(self, rows: int) -> None:
        # Not `pending`: an owner's live requests must not wait for a whole import to apply.
        self.depth.added(rows)
        self.wake_worker()
