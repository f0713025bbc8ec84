"""memtap's one timestamp form, rendered cheaply: the cached second must never leak into
another second, and `now_iso` must be what `iso(datetime.now(UTC))` says."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from memtap.engine.clock import epoch_iso, iso, now_iso, parse_iso


def test_epoch_iso_renders_each_second_even_out_of_order():
    assert [
        epoch_iso(t) for t in (1_700_000_000.5, 1_700_000_001, 1_700_000_000.0625)
    ] == [
        "2023-11-14T22:13:20.500Z",
        "2023-11-14T22:13:21.000Z",
        "2023-11-14T22:13:20.062Z",
    ]


def test_now_iso_agrees_with_the_datetime_rendering():
    before = iso(datetime.now(UTC))
    now = now_iso()
    after = iso(datetime.now(UTC))
    # Within a millisecond of it (datetime rounds microseconds, the text truncates).
    low, high = parse_iso(before).timestamp(), parse_iso(after).timestamp()
    assert low - 0.002 <= parse_iso(now).timestamp() <= high + 0.002
    assert len(now) == len("2026-12-03T07:26:19.123Z") and now.endswith("Z")
    assert abs(parse_iso(now).timestamp() - time.time()) < 5
