"""How many turns wait in this replica's outbox: what the enqueue capacity check reads."""

from __future__ import annotations

from memtap.engine.metrics import Gauge


class OutboxDepth:
    """Counted where rows come and go: read from the outbox at start, one more per live
    turn enqueued, a batch more per conversation import, fewer as the worker acks and an
    erase deletes, none after the local file was replaced. The `memtap_outbox_depth` gauge
    shows this count; nothing reads the gauge back."""

    def __init__(self, gauge: Gauge) -> None:
        self._gauge = gauge
        self.value = 0

    def set(self, rows: int) -> None:
        self.value = rows
        self._gauge.set(rows)

    def added(self, rows: int = 1) -> None:
        self.set(self.value + rows)

    def removed(self, rows: int) -> None:
        self.set(self.value - rows)

    def full(self, max_rows: int) -> bool:
        """Whether `memory.outbox_max_rows` turns wait already."""
        return self.value >= max_rows
