"""What the engine did in the background, for whoever listens (the proxy's request log).

The runtime owns one `EngineEvents` and hands it to the engine it opens; listeners subscribe
to the hub, not to an engine, so they survive the engine being (re)opened. The engine never
learns who listens: it only publishes.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("memtap.engine.events")


@dataclass(frozen=True, slots=True)
class TurnExtracted:
    """The outbox worker finished one turn (the `memory.extracted` log line, also when
    nothing was extracted: then `memory_ids` is empty)."""

    request_id: str
    owner: str
    memory_ids: tuple[str, ...]
    episode_ids: tuple[str, ...] = ()
    """The turn's episodes (stored now, or already stored: a re-sent message)."""
    extractor: str = "rules"
    """Which extractor kept the turn's facts: rules | model."""
    fallback: str | None = None
    """Why the configured model did not (the rules did instead), e.g. `timeout`."""


TurnExtractedListener = Callable[[TurnExtracted], None]


class EngineEvents:
    def __init__(self) -> None:
        self._turn_extracted: list[TurnExtractedListener] = []

    def on_turn_extracted(self, listener: TurnExtractedListener) -> None:
        self._turn_extracted.append(listener)

    def off_turn_extracted(self, listener: TurnExtractedListener) -> None:
        """Stop telling `listener` (a conversation import that finished waiting)."""
        with contextlib.suppress(ValueError):
            self._turn_extracted.remove(listener)

    def turn_extracted(self, event: TurnExtracted) -> None:
        for listener in tuple(self._turn_extracted):  # one may unsubscribe meanwhile
            try:
                listener(event)
            except Exception as exc:  # noqa: BLE001 - a listener must never stop the worker
                log.warning(
                    "engine.listener_failed",
                    extra={"fields": {"event": "turn_extracted", "error": repr(exc)}},
                )
