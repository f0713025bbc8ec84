"""memtap's one timestamp form: UTC, millisecond precision, trailing `Z`
(`2026-12-03T07:26:19.123Z`). Every stored, logged or returned timestamp uses it, so
timestamps compare correctly as text (SQLite ordering, Qdrant payload ranges, admin filters).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta


def iso(moment: datetime) -> str:
    """`moment` in the canonical form (a naive datetime is taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


_last_second: tuple[int, str] = (-1, "")
"""The last whole second `epoch_iso` rendered and its text: calls come in bursts."""
_MILLIS = tuple(f".{millis:03d}Z" for millis in range(1000))
"""The tail of every timestamp: a lookup costs half of formatting it (one a log line)."""


def epoch_iso(seconds: float) -> str:
    """A Unix time in the canonical form, the date and time rendered once per second."""
    global _last_second
    whole = int(seconds)
    millis = int((seconds - whole) * 1000)
    cached = _last_second  # one reference read: a consistent pair from any thread
    if cached[0] != whole:
        cached = (whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)))
        _last_second = cached
    if 0 <= millis < 1000:
        return cached[1] + _MILLIS[millis]
    return f"{cached[1]}.{millis:03d}Z"  # before 1970: as it always rendered


def now_iso() -> str:
    return epoch_iso(time.time())


def parse_iso(value: str) -> datetime:
    """Any ISO 8601 timestamp as an aware datetime (naive = UTC). Raises ValueError."""
    moment = datetime.fromisoformat(
        value.strip().replace("Z", "+00:00").replace("z", "+00:00")
    )
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def cutoff_for(retention_days: int | None, now: datetime) -> str | None:
    """The oldest `updated_at` still inside `retention_days` (None: keep forever)."""
    return iso(now - timedelta(days=retention_days)) if retention_days else None
