"""The extractor the worker calls: `extraction.kind` read at each page, so a reload switches
between the rules and the model without a restart (the model's limits and session live on)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memtap.config.schema import Config
from memtap.engine.extractors.model import ModelExtractor
from memtap.engine.extractors.rules import RulesExtractor
from memtap.engine.metrics import Metrics
from memtap.engine.ports import ExtractorName, RecordStore, TurnBatch, TurnFacts


class ConfiguredExtractor:
    def __init__(
        self, config: Callable[[], Config], records: RecordStore, metrics: Metrics
    ) -> None:
        self._config = config
        self.metrics = metrics
        self.rules = RulesExtractor()
        self.model = ModelExtractor(config, self.rules, records, metrics)

    @property
    def name(self) -> ExtractorName:
        return self._config().extraction.kind

    async def extract(self, batches: Sequence[TurnBatch]) -> list[TurnFacts]:
        if self.name == "model":
            return await self.model.extract(batches)
        facts = await self.rules.extract(batches)
        self.metrics.extraction_batches.inc("rules", amount=len(batches))
        return facts

    async def close(self) -> None:
        await self.model.close()

    def status(self) -> dict[str, Any]:
        """What engine-status shows: the kind, and the model's name and spend today."""
        config = self._config().extraction
        out: dict[str, Any] = {"kind": config.kind}
        if config.kind == "model":
            out["model"] = config.model.model
            out["tokens_today"] = self.model.limits.budget.spent
            out["daily_tokens"] = config.model.daily_tokens
        return out
