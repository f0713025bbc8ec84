"""The engine's episode side: one object the `Engine` and the outbox worker call, over one
`EpisodeStore`. Everything here fails open towards the request and the facts: a failing
episode store costs the snippets (logged, counted as `episode_store` fallbacks), never a
request, a fact or an outbox row."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from memtap.engine.api import InvalidInput, NotFound
from memtap.engine.clock import cutoff_for, iso, now_iso, parse_iso
from memtap.engine.episode_types import (
    ASSISTANT_EPISODE_CHARS,
    Episode,
    EpisodeListQuery,
    EpisodePage,
    EpisodeRole,
    NewEpisode,
)
from memtap.engine.episodes.fused import fuse_with_episodes
from memtap.engine.episodes.recall import (
    EpisodeRecall,
    abandon,
    forget_texts,
    recall_episodes,
)
from memtap.engine.episodes.settle import settle_window_vectors
from memtap.engine.fallbacks import describe_error
from memtap.engine.maintenance.backfill import VectorBackfill
from memtap.engine.metrics import Metrics
from memtap.engine.ports import EpisodeStore, OutboxRow
from memtap.engine.retrieval.deadline import RetrievalClock, episodes_deadline_s
from memtap.engine.retrieval.gate import VectorGate
from memtap.engine.retrieval.partial import PartialAnswer
from memtap.engine.types import Retrieval, RetrievalRequest, reads_vectors

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder
    from memtap.config.schema import EpisodesConfig, MemoryConfig

log = logging.getLogger("memtap.episodes")


def no_snippets(**why: Any) -> EpisodeRecall:
    """The recall that did not happen, and why (the resolution's `episodes.fallbacks`)."""
    return EpisodeRecall(resolution={"fallbacks": [{"tier": "episodes", **why}]})


WRITE_TIMEOUT_S = 5.0
QUIET_PAGE_ROWS = 4
"""A worker page of at most this many turns has its windows embedded before it is done."""
QUIET_PAGE_WINDOWS = 32
"""At most this many windows embedded then (the oldest waiting first)."""
SWEEP_BATCH = 5000


class _Backlog:
    """The episode store's windows waiting for a vector, as the backfill loop sees them."""

    def __init__(self, store: EpisodeStore) -> None:
        self.store = store
        self.running = asyncio.Lock()
        """One batch at a time: two would read the same windows and cache them twice."""

    async def backfill(
        self, owner: str | None, max_items: int, *, load_second: bool = True
    ) -> int:
        async with self.running:
            return await self.store.embed_pending(max_items, load_second=load_second)

    async def pending_count(self) -> int:
        return await self.store.pending_vectors()


def turn_episodes(row: OutboxRow, cfg: EpisodesConfig) -> list[NewEpisode]:
    """The episodes one captured turn holds, in the order they were said: with
    `keep_assistant`, the assistant message the user answered (a millisecond before); the
    new user message (the capture gives only the last user turn, never the re-sent
    history); with `keep_assistant`, the reply (a millisecond after). An assistant message
    keeps its head (`ASSISTANT_EPISODE_CHARS`), cut the same way wherever it is seen, so the
    reply of one turn and the same text re-sent before the next user message are one
    episode (ids come from the content)."""
    turn = row.turn
    said_at = turn.created_at or now_iso()
    sources: list[tuple[EpisodeRole, str, int]] = [("user", turn.user_text, 0)]
    if cfg.keep_assistant:
        sources.insert(0, ("assistant", turn.previous_assistant_text, -1))
        sources.append(("assistant", turn.assistant_text, 1))
    out = []
    for role, text, offset_ms in sources:
        if role == "assistant":
            text = text[:ASSISTANT_EPISODE_CHARS]
        if text and text.strip():
            out.append(
                NewEpisode(
                    owner=turn.owner,
                    session=turn.session,
                    role=role,
                    content=text,
                    said_at=_shifted(said_at, offset_ms),
                    request_id=turn.request_id,
                    format=turn.format,
                )
            )
    return out


def _shifted(said_at: str, offset_ms: int) -> str:
    if not offset_ms:
        return said_at
    try:
        return iso(parse_iso(said_at) + timedelta(milliseconds=offset_ms))
    except ValueError:
        return said_at


class EpisodeService:
    def __init__(
        self, store: EpisodeStore, holder: ConfigHolder, metrics: Metrics
    ) -> None:
        self.store = store
        self.holder = holder
        self.metrics = metrics
        self.backlog = _Backlog(store)
        self.embedder = VectorBackfill(
            self.backlog, lambda: holder.current.memory.backfill_interval_s
        )
        """Window vectors, off the request path, in batches (`maintenance/backfill.py`)."""
        self.last_error: str | None = None

    @property
    def config(self) -> EpisodesConfig:
        return self.holder.current.memory.episodes

    def start(self) -> None:
        self.embedder.start()

    async def stop(self) -> None:
        await self.embedder.stop()
        await self.store.close()

    def _failed(self, what: str, exc: BaseException) -> None:
        self.last_error = describe_error(exc)
        self.metrics.memory_fallbacks.inc("episode_store")
        log.warning(
            "episodes.failed", extra={"fields": {"op": what, "error": self.last_error}}
        )

    # -- the worker's side ----------------------------------------------------------------
    async def store_turns(
        self, rows: Sequence[OutboxRow]
    ) -> dict[int, tuple[str, ...]]:
        """Store the page's episodes in one write; outbox seq -> episode ids. Fail-open:
        {} when the store fails (the facts go on)."""
        cfg = self.config
        if not cfg.enabled:
            return {}
        per_row = [(row.seq, turn_episodes(row, cfg)) for row in rows if row.turn.owner]
        flat = [e for _, eps in per_row for e in eps]
        if not flat:
            return {}
        try:
            async with asyncio.timeout(WRITE_TIMEOUT_S):
                writes = await self.store.add(flat, now_iso(), cfg.max_per_owner)
        except Exception as exc:  # noqa: BLE001 - episodes never cost a fact
            self._failed("add", exc)
            return {}
        ids = {w.id for w in writes}
        out: dict[int, tuple[str, ...]] = {}
        for seq, eps in per_row:
            out[seq] = tuple(e.id for e in eps if e.id in ids)
        if any(w.created for w in writes):
            await self._embed_quiet_page(len(rows))
            self.embedder.wake()
        return out

    async def _embed_quiet_page(self, rows: int) -> None:
        """A page of a few turns (the worker keeps up) has its windows embedded before the
        worker reports its turns done: a request that waits for its owner's last turn
        (read-your-own-writes) then finds a turn kept only as an episode by meaning too —
        without a vector, a window the keyword arm finds is floored out (no cosine). A
        bigger page (a burst) leaves them to the backfill, as do strategies that read no
        vectors; the work is the backfill's own, done sooner. Fail-open."""
        strategy = self.holder.current.memory.strategy
        if (
            rows > QUIET_PAGE_ROWS
            or not reads_vectors(strategy)
            or self.backlog.running.locked()  # the backfill is at it already
        ):
            return
        try:
            async with asyncio.timeout(WRITE_TIMEOUT_S):
                # Never the multilingual model's load: a first message in German would
                # hold its turn ~1.3 s, past what a request waits for its own writes.
                await self.backlog.backfill(None, QUIET_PAGE_WINDOWS, load_second=False)
        except Exception as exc:  # noqa: BLE001 - the backfill embeds them later
            self._failed("embed", exc)

    # -- retrieval --------------------------------------------------------------------------
    async def retrieve(
        self,
        facts: Awaitable[Retrieval],
        req: RetrievalRequest,
        clock: RetrievalClock | None = None,
        gate: VectorGate | None = None,
        *,
        shed: dict[str, Any] | None = None,
        partial: PartialAnswer | None = None,
        own_turns: Callable[[], Awaitable[None]] | None = None,
    ) -> Retrieval:
        """The facts' retrieval and the episodes' recall side by side, fused (`gate`:
        whether the vector arm runs, decided by the facts' keyword leg). `shed`: why no
        recall runs (memtap saturated): the facts go alone. `own_turns`: waits (bounded)
        until the owner's turns that completed before the request are stored whole, their
        episodes and vectors too (read-your-own-writes for a turn no fact came from)."""
        cfg = self.holder.current.memory
        if not cfg.episodes.enabled:
            return await facts
        if shed is not None:
            fact_retrieval = await facts
            self.metrics.memory_fallbacks.inc("episodes_shed")
            recall = no_snippets(**shed)
            return fuse_with_episodes(fact_retrieval, recall, req, cfg)

        async def recall_after_own_turns() -> EpisodeRecall:
            if own_turns is not None:
                await own_turns()
            return await recall_episodes(self.store, cfg, req, clock, gate)

        recall_task = asyncio.ensure_future(recall_after_own_turns())
        try:
            fact_retrieval = await facts
        except BaseException:
            abandon(recall_task)
            raise
        if (
            partial is not None
        ):  # the time limit may come while the snippets are awaited
            partial.offer(
                "facts",
                lambda: fuse_with_episodes(
                    fact_retrieval, no_snippets(reason="time_limit"), req, cfg
                ),
            )
        try:
            if clock is None or recall_task.done():
                recall = await recall_task
            else:
                recall = await self._recall_until_deadline(recall_task, cfg, clock)
        except asyncio.CancelledError:
            abandon(recall_task)  # the shield keeps the request's cancel from it
            raise
        except Exception as exc:  # noqa: BLE001 - fail-open: the facts alone answer
            recall = self._recall_failed(exc)
        return fuse_with_episodes(fact_retrieval, recall, req, cfg)

    async def _recall_until_deadline(
        self,
        recall_task: asyncio.Future[EpisodeRecall],
        cfg: MemoryConfig,
        clock: RetrievalClock,
    ) -> EpisodeRecall:
        """The facts are ready: they wait for the snippets only so long, or the request's
        limit would take both (a timed-out leg costs itself alone)."""
        left_s = episodes_deadline_s(cfg, clock)
        if left_s == 0:
            # Past the deadline already: a timer of 0 would still cost the facts an
            # iteration or two of a late loop (the cancel, then the wake-up).
            return self._episodes_timeout(recall_task, clock)
        deadline = asyncio.timeout(left_s)
        try:
            # Shielded: the facts go at the deadline, not after the recall's tasks have
            # unwound their cancellation (an iteration each on a late loop).
            async with deadline:
                return await asyncio.shield(recall_task)
        except TimeoutError:
            if not deadline.expired():
                raise  # the recall's own, not the deadline
            return self._episodes_timeout(recall_task, clock)

    def _episodes_timeout(
        self, recall_task: asyncio.Future[EpisodeRecall], clock: RetrievalClock
    ) -> EpisodeRecall:
        abandon(recall_task)
        self.metrics.memory_fallbacks.inc("episodes_timeout")
        return no_snippets(
            reason="episodes_timeout", waited_ms=round(clock.elapsed_s() * 1000, 1)
        )

    def _recall_failed(self, exc: BaseException) -> EpisodeRecall:
        self._failed("recall", exc)
        return no_snippets(reason=describe_error(exc))

    # -- admin ------------------------------------------------------------------------------
    async def list_page(self, query: EpisodeListQuery) -> EpisodePage:
        if not (1 <= query.limit <= 1000) or query.offset < 0:
            raise InvalidInput("limit must be 1..1000 and offset >= 0", "limit")
        return await self.store.list_page(query)

    async def get(self, episode_id: str) -> Episode:
        found = await self.store.get(episode_id)
        if found is None:
            raise NotFound(f"episode {episode_id!r} not found")
        return found

    async def delete(self, episode_id: str) -> None:
        if not await self.store.delete(episode_id):
            raise NotFound(f"episode {episode_id!r} not found")
        forget_texts()

    async def erase_owner(self, owner: str) -> int:
        try:
            return await self.store.erase_owner(owner)
        finally:
            forget_texts()

    async def sweep(self) -> int:
        memory = self.holder.current.memory
        days = memory.episodes.retention_days or memory.retention_days
        cutoff = cutoff_for(days, datetime.now(UTC))
        if cutoff is None:
            return 0
        total = 0
        while True:
            removed = await self.store.sweep(cutoff, SWEEP_BATCH)
            total += removed
            if removed < SWEEP_BATCH:
                break
        if total:
            forget_texts()
            log.info("episodes.swept", extra={"fields": {"deleted": total}})
        return total

    def export_owner(self, owner: str) -> AsyncIterator[Episode]:
        return self.store.export_owner(owner)

    async def vectors_settled(self, wait_s: float) -> int:
        """Wait (bounded: `episodes/settle.py`) until the windows written so far have their
        vectors; how many still wait. At once when retrieval reads no vectors (keyword,
        recent): the words find them already."""
        if not reads_vectors(self.holder.current.memory.strategy):
            return 0
        return await settle_window_vectors(self.backlog, wait_s)

    async def import_episodes(self, items: Sequence[NewEpisode]) -> tuple[int, int]:
        """(created, already there). Imports ignore the per-owner cap's eviction order: the
        cap still applies after each batch."""
        writes = await self.store.add(items, now_iso(), self.config.max_per_owner)
        created = sum(1 for w in writes if w.created)
        if created:
            self.embedder.wake()
        return created, len(writes) - created

    async def status(self) -> dict[str, Any]:
        try:
            counts: dict[str, Any] = dict(await self.store.counts())
        except Exception as exc:  # noqa: BLE001
            counts = {"error": describe_error(exc)}
        return {
            "enabled": self.config.enabled,
            "store": self.store.name,
            **counts,
            "embedder": self.embedder.status.to_json(),
            "last_error": self.last_error,
        }
