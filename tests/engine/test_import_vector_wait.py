"""An import's answer waits for the episode windows' vectors, bounded like its wait for the
turns: `wait_s` with no fewer windows waiting, two minutes in all (`engine/episodes/settle.py`,
called by `engine/history/importer.py` and the backup import). The embedder is stood in for by
a scripted count: what is tested is the wait, not it (the whole path runs in
`tests/e2e/test_across_languages.py`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any, cast

from memtap.engine.episodes import settle
from memtap.engine.episodes.settle import settle_window_vectors
from memtap.engine.history.importer import ConversationImport


class Counts:
    """`pending_count` answers the next of `counts`, then the last one for ever."""

    def __init__(self, *counts: int | Exception) -> None:
        self._next: Iterator[int | Exception] = iter(counts)
        self._last: int | Exception = counts[-1]
        self.asked = 0

    async def pending_count(self) -> int:
        self.asked += 1
        value = next(self._next, self._last)
        if isinstance(value, Exception):
            raise value
        return value


class Hangs(Counts):
    """A count that never answers (a store that hangs)."""

    async def pending_count(self) -> int:
        self.asked += 1
        await asyncio.Event().wait()
        return 0


async def test_it_ends_when_no_window_waits(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(settle, "POLL_S", 0.01)
    counts = Counts(40, 12, 3, 0)
    assert await settle_window_vectors(counts, wait_s=5) == 0
    assert counts.asked == 4


async def test_it_waits_as_long_as_fewer_windows_wait(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(settle, "POLL_S", 0.01)
    # Slower than `wait_s` in all, but each look finds fewer: no give-up before 0.
    counts = Counts(*range(30, -1, -1))
    started = time.monotonic()
    assert await settle_window_vectors(counts, wait_s=0.1) == 0
    assert time.monotonic() - started >= 0.25


async def test_it_gives_up_after_wait_s_without_progress(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(settle, "POLL_S", 0.01)
    counts = Counts(9, 7, 7)  # the embedder stopped (a model failing): 7 for ever
    started = time.monotonic()
    assert await settle_window_vectors(counts, wait_s=0.2) == 7
    assert 0.2 <= time.monotonic() - started < 2.0


async def test_a_count_that_cannot_be_read_ends_the_wait(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(settle, "POLL_S", 0.01)
    counts = Counts(5, RuntimeError("store gone"))
    assert await settle_window_vectors(counts, wait_s=5) == 5  # the last count
    never = Counts(RuntimeError("store gone"))
    assert await settle_window_vectors(never, wait_s=5) == 0


async def test_it_waits_two_minutes_at_most_however_steady_the_progress(
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(settle, "POLL_S", 0.01)
    monkeypatch.setattr(settle, "WAIT_MAX_S", 0.15)
    counts = Counts(*range(10_000, 0, -1))  # fewer at every look, never 0
    started = time.monotonic()
    left = await settle_window_vectors(counts, wait_s=5)
    assert 0 < left < 10_000
    assert 0.15 <= time.monotonic() - started < 2.0


async def test_a_count_that_hangs_is_cut_at_the_bound(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(settle, "WAIT_MAX_S", 0.1)
    hangs = Hangs(0)
    started = time.monotonic()
    assert await settle_window_vectors(hangs, wait_s=30) == 0
    assert time.monotonic() - started < 2.0


class Settle:
    """The import's wait for the vectors, recording what it was asked."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    async def __call__(self, wait_s: float) -> int:
        self.asked.append(wait_s)
        return 0


def _job(settle_vectors: Settle, wait_s: float) -> ConversationImport:
    # The end of an import reads nothing of the ledger or the events.
    none = cast(Any, None)
    return ConversationImport(
        none, none, lambda _: None, wait_s=wait_s, settle_vectors=settle_vectors
    )


async def test_finish_waits_only_for_the_windows_of_an_import_that_wrote_some() -> None:
    # With every turn applied and episodes written, the wait runs, bounded by `wait_s`.
    waits = Settle()
    job = _job(waits, wait_s=5)
    job.report.episodes.add("e1")
    assert (await job.finish()).vectors_pending == 0 and waits.asked == [5]
    # No episode written (facts only, or everything skipped): nothing to wait for.
    waits = Settle()
    assert (await _job(waits, wait_s=5).finish()).vectors_pending == 0
    assert waits.asked == []
    # `?wait=0`: the answer at once.
    job = _job(waits, wait_s=0)
    job.report.episodes.add("e1")
    await job.finish()
    assert waits.asked == []
    # Turns still queued when the turns' wait ended: their windows are not written yet.
    job = _job(waits, wait_s=0.05)
    job.report.episodes.add("e1")
    job._outstanding.add("import-1")
    report = await job.finish()
    assert report.pending == 1 and waits.asked == []


async def test_no_wait_when_retrieval_reads_no_vectors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A keyword (or recent) strategy finds the history by its words at once: the import's
    answer does not wait for vectors it never reads, though windows wait for them."""
    from memtap.config.holder import ConfigHolder
    from memtap.config.schema import Config, MemoryConfig
    from memtap.engine.episode_types import NewEpisode
    from memtap.engine.episodes.service import EpisodeService
    from memtap.engine.metrics import Metrics
    from memtap.engine.sqlite import migrations
    from memtap.engine.sqlite.database import Database
    from memtap.engine.sqlite.driver import choose_driver
    from memtap.engine.sqlite.episodes import SqliteEpisodeStore
    from tests.support.hash_embedder import HashEmbedder

    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    store = SqliteEpisodeStore(db, source=lambda: HashEmbedder())
    try:
        await store.add(
            [
                NewEpisode(
                    owner="o",
                    session=None,
                    role="user",
                    content="We moved to Leeds in March.",
                    said_at="2026-03-02T10:00:00.000Z",
                )
            ],
            "2026-03-02T10:00:00.000Z",
            1000,
        )
        assert await store.pending_vectors() == 1
        for strategy, waits in (
            ("keyword", False),
            ("recent", False),
            ("hybrid", True),
        ):
            holder = ConfigHolder(Config(memory=MemoryConfig(strategy=strategy)))
            service = EpisodeService(store, holder, Metrics())
            started = time.monotonic()
            left = await service.vectors_settled(0.2)  # nothing embeds them here
            assert (left == 1) is waits, strategy
            assert (time.monotonic() - started >= 0.2) is waits, strategy
    finally:
        await db.close()
