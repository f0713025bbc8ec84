"""Extraction by a model (`extraction.kind: model`): one call per batch of an owner's turns to
an OpenAI-compatible chat endpoint, the rules for every batch it cannot take.

For each batch (at most `max_turns_per_call` turns of one owner): the owner's related live
memories are read (a keyword search on what the turns say, filled up with the newest), the
call is admitted by the limits (daily token budget, global and per-owner call rate), sent
with a time limit, and its answer read strictly (`answer.py`). Past a limit, on any failure
(connection, timeout, a status that is not 2xx) or a malformed answer, the batch goes to the
rules at once: counted (`memtap_extraction_fallbacks_total{reason}`), logged
(`extraction.fallback`) and marked on each turn (`TurnFacts.fallback`). No turn waits for the
model and none is lost. A store that cannot give the related memories sends the batch to
the rules too (`store`); the rules' own store reads raise as always (the worker retries)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

import aiohttp

from memtap.config.schema import Config, ModelExtractionConfig
from memtap.engine.api import StoreError
from memtap.engine.clock import cutoff_for, now_iso
from memtap.engine.extractors.answer import (
    Answer,
    BadAnswer,
    Usage,
    read_answer,
    usage_of,
)
from memtap.engine.extractors.client import CallFailed, new_session, post_chat
from memtap.engine.extractors.facts import turn_facts
from memtap.engine.extractors.limits import Limits
from memtap.engine.extractors.prompt import Prompt, build_prompt
from memtap.engine.memory_rules import Live
from memtap.engine.metrics import Metrics
from memtap.engine.ports import (
    Extractor,
    ExtractorName,
    RecordStore,
    TurnBatch,
    TurnFacts,
)
from memtap.engine.text.tokens import estimate_tokens
from memtap.engine.types import ExtractedFact, Memory, Turn

log = logging.getLogger("memtap.extraction.model")

MAX_QUERY_CHARS = 2000
"""Characters of the turns' words the related-memory search reads (the newest)."""
QUIET_REASONS = frozenset(("budget", "rate_global", "rate_owner"))
"""Fallbacks by design, logged at info (a failure is a warning)."""
LOG_EVERY_S = 10.0
"""One `extraction.fallback` line per reason in this long at most (an endpoint that is down
fails every batch); the line says how many it stands for (`suppressed`). Counted always."""


class ModelExtractor:
    name: ExtractorName = "model"

    def __init__(
        self,
        config: Callable[[], Config],
        rules: Extractor,
        records: RecordStore,
        metrics: Metrics,
        limits: Limits | None = None,
        session_factory: Callable[[], aiohttp.ClientSession] = new_session,
    ) -> None:
        self._config = config
        self.rules = rules
        self.records = records
        self.metrics = metrics
        self.limits = limits if limits is not None else Limits()
        self._session_factory = session_factory
        self._session: aiohttp.ClientSession | None = None
        self._logged: dict[str, tuple[float | None, int]] = {}
        """reason -> (time.monotonic() of its last line, fallbacks not logged since)."""

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = self._session_factory()
        return self._session

    async def extract(self, batches: Sequence[TurnBatch]) -> list[TurnFacts]:
        settings = self._config().extraction.model
        gate = asyncio.Semaphore(settings.concurrency)

        async def one(batch: TurnBatch) -> list[TurnFacts]:
            async with gate:
                return await self._owner_batch(batch, settings)

        # Not a TaskGroup: a store failure must reach the worker as itself, not wrapped.
        done = await asyncio.gather(
            *(one(batch) for batch in batches), return_exceptions=True
        )
        out: list[TurnFacts] = []
        for result in done:
            if isinstance(result, BaseException):
                raise result
            out += result
        return out

    async def _owner_batch(
        self, batch: TurnBatch, settings: ModelExtractionConfig
    ) -> list[TurnFacts]:
        if not batch.owner:  # no owner, no memory: the rules keep nothing either
            return await self.rules.extract([batch])
        step = settings.max_turns_per_call
        out: list[TurnFacts] = []
        for start in range(0, len(batch.rows), step):
            part = replace(batch, rows=batch.rows[start : start + step])
            out += await self._call(part, settings)
        return out

    async def _call(
        self, batch: TurnBatch, settings: ModelExtractionConfig
    ) -> list[TurnFacts]:
        turns = [row.turn for row in batch.rows]
        if not any(_said(turn, batch.extract_from) for turn in turns):
            return self._kept(batch, [() for _ in turns], settings)
        if not settings.url or not settings.model:
            return await self._fallback(batch, "error", "no model url or name")
        try:
            memories = await self._related(batch, settings)
        except StoreError as exc:
            # The memories could not be read in time (a busy store): the rules take the
            # batch, rather than the worker retrying a page whose other calls were paid for.
            return await self._fallback(batch, "store", f"{type(exc).__name__}: {exc}")
        try:
            prompt = build_prompt(
                turns,
                memories,
                model=settings.model,
                extract_from=batch.extract_from,
                max_turn_chars=settings.max_turn_chars,
                max_output_tokens=settings.max_output_tokens,
                temperature=settings.temperature,
            )
            refused = self.limits.admit(
                batch.owner,
                prompt.estimated_tokens,
                per_minute=settings.calls_per_minute,
                owner_per_minute=settings.owner_calls_per_minute,
                daily_tokens=settings.daily_tokens,
            )
            if refused is not None:
                return await self._fallback(batch, refused, "limit reached")
            return await self._ask(batch, prompt, settings)
        except Exception as exc:  # noqa: BLE001 - whatever it was, the rules take the batch
            return await self._fallback(batch, "error", f"{type(exc).__name__}: {exc}")

    async def _ask(
        self, batch: TurnBatch, prompt: Prompt, settings: ModelExtractionConfig
    ) -> list[TurnFacts]:
        assert settings.url is not None
        started = time.perf_counter()
        try:
            body = await post_chat(
                self._client(),
                settings.url,
                settings.api_key,
                prompt.body,
                settings.timeout_s,
            )
        except CallFailed as exc:
            # A call that timed out may still be billed: its input counts.
            spent = prompt.estimated_tokens if exc.reason == "timeout" else 0
            self._spend(usage_of(exc.body), spent, 0)
            return await self._failed(batch, exc.reason, str(exc))
        self.metrics.extraction_model_duration.observe(
            (time.perf_counter() - started) * 1000
        )
        try:
            answer = read_answer(body, prompt)
        except BadAnswer as exc:
            self._spend(
                usage_of(body),
                prompt.estimated_tokens,
                estimate_tokens(body.decode("utf-8", "replace")),
            )
            return await self._failed(batch, exc.reason, str(exc))
        self._spend(answer.usage, prompt.estimated_tokens, estimate_tokens(answer.text))
        self.metrics.extraction_model_calls.inc("ok")
        facts = await asyncio.to_thread(turn_facts, list(answer.facts), prompt.turns)
        log.debug(
            "extraction.model_answered",
            extra={
                "fields": {
                    "owner": batch.owner,
                    "turns": prompt.turns,
                    "memories_sent": len(prompt.aliases),
                    "facts": sum(len(f) for f in facts),
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                }
            },
        )
        return self._kept(batch, facts, settings)

    def _spend(self, usage: Usage, estimated_in: int, estimated_out: int) -> None:
        """Charge the budget and count tokens: the answer's `usage`, else the estimates."""
        spent_in = usage.tokens_in if usage.tokens_in is not None else estimated_in
        spent_out = usage.tokens_out if usage.tokens_out is not None else estimated_out
        self.limits.budget.charge(spent_in + spent_out)
        self.metrics.extraction_model_tokens.inc("in", amount=spent_in)
        self.metrics.extraction_model_tokens.inc("out", amount=spent_out)

    def _kept(
        self,
        batch: TurnBatch,
        facts: Sequence[tuple[ExtractedFact, ...]],
        settings: ModelExtractionConfig,
    ) -> list[TurnFacts]:
        self.metrics.extraction_batches.inc("model")
        return [
            TurnFacts(row, found, "model", model=settings.model)
            for row, found in zip(batch.rows, facts, strict=True)
        ]

    async def _failed(
        self, batch: TurnBatch, reason: str, detail: str
    ) -> list[TurnFacts]:
        self.metrics.extraction_model_calls.inc("failed")
        self.metrics.extraction_model_failures.inc(reason)
        return await self._fallback(batch, reason, detail)

    async def _fallback(
        self, batch: TurnBatch, reason: str, detail: str
    ) -> list[TurnFacts]:
        self.metrics.extraction_fallbacks.inc(reason)
        now = time.monotonic()
        last, suppressed = self._logged.get(reason, (None, 0))
        if last is not None and now - last < LOG_EVERY_S:
            self._logged[reason] = (last, suppressed + 1)
        else:
            self._logged[reason] = (now, 0)
            self._log_fallback(batch, reason, detail, suppressed)
        kept = await self.rules.extract([batch])
        self.metrics.extraction_batches.inc("rules")
        return [replace(item, fallback=reason) for item in kept]

    @staticmethod
    def _log_fallback(
        batch: TurnBatch, reason: str, detail: str, suppressed: int
    ) -> None:
        log.log(
            logging.INFO if reason in QUIET_REASONS else logging.WARNING,
            "extraction.fallback",
            extra={
                "fields": {
                    "reason": reason,
                    "owner": batch.owner,
                    "turns": len(batch.rows),
                    "request_ids": [row.turn.request_id for row in batch.rows],
                    "error": detail[:200],
                    "suppressed": suppressed,
                }
            },
        )

    async def _related(
        self, batch: TurnBatch, settings: ModelExtractionConfig
    ) -> list[Memory]:
        """At most `related_memories` of the owner's live memories: those sharing words
        with the turns first, then the newest. Only the owner's: the answer may replace
        nothing else."""
        limit = settings.related_memories
        if limit <= 0:
            return []
        retention = self._config().memory.retention_days
        live = Live(
            now=now_iso(),
            cutoff=cutoff_for(retention, datetime.now(UTC)),
            owner=batch.owner,
        )
        query = " ".join(row.turn.user_text for row in batch.rows)[-MAX_QUERY_CHARS:]
        found: dict[str, Memory] = {}
        for memory, _ in await self.records.keyword(query, live, limit):
            found.setdefault(memory.id, memory)
        if len(found) < limit:
            for memory in await self.records.recent(live, limit):
                if len(found) >= limit:
                    break
                found.setdefault(memory.id, memory)
        return [m for m in found.values() if m.owner == batch.owner][:limit]


async def ask_model(
    session: aiohttp.ClientSession,
    settings: ModelExtractionConfig,
    turns: list[Turn],
    memories: list[Memory],
    extract_from: tuple[str, ...] = ("user",),
) -> tuple[Answer, list[tuple[ExtractedFact, ...]]]:
    """One call as the extractor makes it, without limits or fallback: the answer and each
    turn's facts. Raises `CallFailed` or `BadAnswer` (what `scripts/eval_extraction.py`
    counts when it measures a model)."""
    assert settings.url is not None and settings.model is not None
    prompt = build_prompt(
        turns,
        memories,
        model=settings.model,
        extract_from=extract_from,
        max_turn_chars=settings.max_turn_chars,
        max_output_tokens=settings.max_output_tokens,
        temperature=settings.temperature,
    )
    body = await post_chat(
        session, settings.url, settings.api_key, prompt.body, settings.timeout_s
    )
    answer = read_answer(body, prompt)
    return answer, await asyncio.to_thread(turn_facts, list(answer.facts), prompt.turns)


def _said(turn: Turn, extract_from: tuple[str, ...]) -> bool:
    return bool(
        ("user" in extract_from and turn.user_text.strip())
        or ("assistant" in extract_from and turn.assistant_text.strip())
    )
