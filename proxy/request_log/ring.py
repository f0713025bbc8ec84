"""The request log: the recent requests that went through memory, in a bounded ring.

One entry per request to a memory endpoint (what memtap injected, what the turn's extraction
wrote, and why nothing was when nothing was), looked up by the id of its `request.done` line.
Never any prompt or response text: ids, counts and reasons only. Kept in memory; the oldest
entry goes when the ring is full (`admin.request_log_size`, 0 keeps none). With
`admin.request_log_store: database` every change is also written to the engine's local file
(`proxy/request_log/store.py`) and the ring is refilled from it at start.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memtap.engine.events import TurnExtracted

# Extraction that finishes before its request's entry is written (a fast worker, a slow
# client) waits here; bounded so that turns of unlogged requests cannot pile up.
_EARLY_LIMIT = 256


@dataclass(slots=True)
class RequestRecord:
    """One entry; not changed once made (a change is a new record, `dataclasses.replace`).
    Not frozen: a frozen dataclass's __init__ sets each field through object.__setattr__,
    and one record is made per request (~3 us instead of ~1)."""

    request_id: str
    ts: str
    owner: str | None
    format: str | None
    model: str | None
    status: int | None
    injected: tuple[str, ...]
    extracted: tuple[str, ...] | None
    """None while the turn waits in the outbox (or when no turn was captured)."""
    skipped_reason: str | None
    captured: bool = False
    """A turn went to the outbox: `extracted` fills in when the worker has handled it."""
    extractor: str | None = None
    """Which extractor kept the turn's facts (rules | model), once the worker handled it."""
    extractor_fallback: str | None = None
    """Why the configured model did not extract the turn (the rules did), e.g. `timeout`."""

    def as_json(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "ts": self.ts,
            "owner": self.owner,
            "format": self.format,
            "model": self.model,
            "status": self.status,
            "injected": list(self.injected),
            "extracted": [] if self.extracted is None else list(self.extracted),
            "extraction": self.extraction_state,
            "extractor": self.extractor,
            "extractor_fallback": self.extractor_fallback,
            "skipped_reason": self.skipped_reason,
        }

    def to_stored(self) -> dict[str, Any]:
        """The record as kept in the database (round-trips through `from_stored`)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> RequestRecord:
        extracted = data.get("extracted")
        return cls(
            request_id=str(data["request_id"]),
            ts=str(data["ts"]),
            owner=data.get("owner"),
            format=data.get("format"),
            model=data.get("model"),
            status=data.get("status"),
            injected=tuple(data.get("injected") or ()),
            extracted=None if extracted is None else tuple(extracted),
            skipped_reason=data.get("skipped_reason"),
            captured=bool(data.get("captured", False)),
            extractor=data.get("extractor"),
            extractor_fallback=data.get("extractor_fallback"),
        )

    @property
    def extraction_state(self) -> str:
        """`pending` (turn in the outbox), `done` (worker finished) or `none` (no turn)."""
        if not self.captured:
            return "none"
        return "pending" if self.extracted is None else "done"


class RequestLog:
    """Not thread-safe: used from the event loop only (addon hooks, worker, admin API)."""

    def __init__(self) -> None:
        self._records: OrderedDict[str, RequestRecord] = OrderedDict()
        self._early: OrderedDict[str, TurnExtracted] = OrderedDict()
        self.on_change: Callable[[RequestRecord], None] | None = None
        """Told of every entry written or completed (the database store listens)."""

    def restore(self, records: list[RequestRecord], size: int) -> None:
        """Refill the ring with stored entries (oldest first), before any new one."""
        for record in records:
            self._records.setdefault(record.request_id, record)
        while len(self._records) > max(0, size):
            self._records.popitem(last=False)

    def add(self, record: RequestRecord, size: int) -> None:
        early = self._early.pop(record.request_id, None)
        if early is not None and record.captured:
            record = _with_extraction(record, early)
        self._records[record.request_id] = record
        while len(self._records) > max(0, size):
            self._records.popitem(last=False)
        if self.on_change is not None and size > 0:
            self.on_change(record)

    def turn_extracted(self, event: TurnExtracted) -> None:
        record = self._records.get(event.request_id)
        if record is None:
            self._early[event.request_id] = event
            while len(self._early) > _EARLY_LIMIT:
                self._early.popitem(last=False)
            return
        updated = _with_extraction(record, event)
        self._records[event.request_id] = updated
        if self.on_change is not None:
            self.on_change(updated)

    def forget(self, owner: str) -> int:
        """Drop every entry of `owner` (an erased owner); returns how many."""
        gone = [rid for rid, record in self._records.items() if record.owner == owner]
        for request_id in gone:
            del self._records[request_id]
        return len(gone)

    def get(self, request_id: str) -> RequestRecord | None:
        return self._records.get(request_id)

    def recent(self, owner: str | None = None, limit: int = 50) -> list[RequestRecord]:
        """Newest first, optionally of one owner."""
        out: list[RequestRecord] = []
        for record in reversed(self._records.values()):
            if owner is not None and record.owner != owner:
                continue
            out.append(record)
            if len(out) >= limit:
                break
        return out

    def __len__(self) -> int:
        return len(self._records)


def _with_extraction(record: RequestRecord, event: TurnExtracted) -> RequestRecord:
    reason = record.skipped_reason
    if not event.memory_ids and reason is None:
        reason = "no_facts_in_turn"
    return dataclasses.replace(
        record,
        extracted=event.memory_ids,
        skipped_reason=reason,
        extractor=event.extractor,
        extractor_fallback=event.fallback,
    )
