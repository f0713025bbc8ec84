"""What one retrieval request asks for once the configured defaults fill its gaps: strategy,
scope, token budget, item cap, candidate pool and the live-row filter (`retrieve.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from memtap.config.schema import MemoryConfig
from memtap.engine.clock import cutoff_for, iso
from memtap.engine.memory_rules import Live
from memtap.engine.retrieval.budget import clamp_budget
from memtap.engine.types import RetrievalRequest

MAX_LIMIT = 100


@dataclass(frozen=True, slots=True)
class RetrievalPlan:
    strategy: str
    scope: str
    budget: int
    """`max_tokens`, clamped."""
    max_items: int
    pool: int
    """Candidates each ranking contributes: `top_k`, at least `max_items`."""
    live: Live

    def resolution(self, cfg: MemoryConfig) -> dict[str, Any]:
        """The start of `Retrieval.resolution` (what preview and logs show)."""
        return {
            "strategy": self.strategy,
            "scope": self.scope,
            "max_tokens": self.budget,
            "tiers": [],
            "fallbacks": [],
            "timings_ms": {},
            "floor": {"min_score": cfg.min_score, "min_similarity": cfg.min_similarity},
        }


def plan_retrieval(req: RetrievalRequest, cfg: MemoryConfig) -> RetrievalPlan:
    scope = req.scope or cfg.scope
    max_items = max(
        1, min(MAX_LIMIT, req.limit if req.limit is not None else cfg.max_items)
    )
    now = datetime.now(UTC)
    return RetrievalPlan(
        strategy=req.strategy or cfg.strategy,
        scope=scope,
        budget=clamp_budget(
            req.max_tokens if req.max_tokens is not None else cfg.max_tokens
        ),
        max_items=max_items,
        pool=max(cfg.top_k, max_items),
        live=Live(
            now=iso(now),
            cutoff=cutoff_for(cfg.retention_days, now),
            owner=None if scope == "global" else req.owner,
            session=req.session,
            match_session=scope == "session",
        ),
    )
