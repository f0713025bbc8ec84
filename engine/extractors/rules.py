"""The rules behind the `Extractor` port: `engine/extraction/extract.py` on each turn's text,
off the event loop, exactly as the outbox worker read turns before the port existed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from memtap.engine.extraction.extract import extract_facts
from memtap.engine.ports import ExtractorName, OutboxRow, TurnBatch, TurnFacts
from memtap.engine.types import ExtractedFact


def rule_facts(
    row: OutboxRow, extract_from: tuple[str, ...]
) -> tuple[ExtractedFact, ...]:
    """Pure: the facts the rules read in one turn, user before assistant, one per key."""
    turn = row.turn
    if not turn.owner:
        return ()
    sources: list[tuple[str, str]] = []
    if "user" in extract_from:
        sources.append(("user", turn.user_text))
    if "assistant" in extract_from:
        sources.append(("assistant", turn.assistant_text))
    seen: set[str] = set()
    facts: list[ExtractedFact] = []
    for role, text in sources:
        for fact in extract_facts(text, role):  # type: ignore[arg-type]
            if fact.key in seen:
                continue
            seen.add(fact.key)
            facts.append(fact)
    return tuple(facts)


def read_batches(batches: Sequence[TurnBatch]) -> list[TurnFacts]:
    return [
        TurnFacts(row, rule_facts(row, batch.extract_from), "rules")
        for batch in batches
        for row in batch.rows
    ]


class RulesExtractor:
    """memtap's offline default: no call leaves the machine."""

    name: ExtractorName = "rules"

    async def extract(self, batches: Sequence[TurnBatch]) -> list[TurnFacts]:
        # One hop to a thread for the whole page: the rules are CPU work.
        return await asyncio.to_thread(read_batches, batches)
