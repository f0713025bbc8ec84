"""What a retrieval has in hand when its time limit comes: the answer it gives then.

Why: on a loop that runs late (a burst of requests on one core), a retrieval that started
calm needs hops it no longer gets in time, and every timer fires one late iteration after
it is due. Without this, a retrieval cut by its limit went upstream with nothing, although
its keyword leg had read the facts long before (`bench_load.py`, 400 streams in step: 2-3 %
of requests, every one a full retrieval that started before the loop fell behind).

The retrieval offers an answer at each stage it completes: the facts found by keyword (as
when the vector leg misses its deadline), then the facts themselves (the episodes' snippets
still missing). Only what was read before the limit is offered; making the answer from it
at the limit is local work (ranking, the token budget), no read.
"""

from __future__ import annotations

from collections.abc import Callable

from memtap.engine.types import Retrieval


class PartialAnswer:
    def __init__(self) -> None:
        self._answer: Callable[[], Retrieval] | None = None
        self.stage: str | None = None
        """The last stage offered: "keyword" or "facts" (None: nothing yet)."""

    def offer(self, stage: str, answer: Callable[[], Retrieval]) -> None:
        """`answer` makes the Retrieval from what this stage read (called at most once)."""
        self.stage, self._answer = stage, answer

    def take(self) -> Retrieval | None:
        return self._answer() if self._answer is not None else None
