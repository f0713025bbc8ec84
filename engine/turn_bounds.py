"""Bounded capture: a turn never holds more text than extraction can use.

`TailText` is the accumulator the response followers fold an answer into: it keeps the last
`limit` characters in at most ~2x`limit` of memory however long the stream. `bounded_turn`
applies the same cut to a whole `Turn` before it is queued (the user side comes from a
request body that is already in memory; any other caller of `enqueue_turn` is covered too).
"""

from __future__ import annotations

import dataclasses

from memtap.engine.limits import MAX_TURN_TEXT_CHARS
from memtap.engine.types import Turn


class TailText:
    """Append-only text that remembers only its last `limit` characters.

    `append` is amortised O(len(piece)): pieces are listed and joined only when they hold
    more than twice the limit, so memory stays within ~2x`limit` plus the last piece.
    `dropped` counts the characters cut from the head so far.
    """

    __slots__ = ("_limit", "_parts", "_size", "dropped")

    def __init__(self, limit: int = MAX_TURN_TEXT_CHARS) -> None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        self._limit = limit
        self._parts: list[str] = []
        self._size = 0
        self.dropped = 0

    def append(self, piece: str) -> None:
        if not piece:
            return
        self._parts.append(piece)
        self._size += len(piece)
        if self._size > 2 * self._limit:
            self._compact()

    def _compact(self) -> None:
        joined = "".join(self._parts)
        cut = len(joined) - self._limit
        if cut > 0:
            self.dropped += cut
            joined = joined[cut:]
        self._parts = [joined]
        self._size = len(joined)

    def text(self) -> str:
        """The last `limit` characters appended (all of them when fewer)."""
        if self._size > self._limit:
            self._compact()
        return "".join(self._parts)

    def __len__(self) -> int:
        return min(self._size, self._limit)


def tail(text: str, limit: int = MAX_TURN_TEXT_CHARS) -> tuple[str, int]:
    """`text`'s last `limit` characters and how many were cut."""
    cut = len(text) - limit
    return (text[cut:], cut) if cut > 0 else (text, 0)


def bounded_turn(turn: Turn, limit: int = MAX_TURN_TEXT_CHARS) -> Turn:
    """`turn` with each side cut to its tail; the cut characters are added to
    `truncated_chars` (the same object back when nothing was cut)."""
    user, user_cut = tail(turn.user_text, limit)
    assistant, assistant_cut = tail(turn.assistant_text, limit)
    before, before_cut = tail(turn.previous_assistant_text, limit)
    if not user_cut and not assistant_cut and not before_cut:
        return turn
    return dataclasses.replace(
        turn,
        user_text=user,
        assistant_text=assistant,
        previous_assistant_text=before,
        truncated_chars=turn.truncated_chars + user_cut + assistant_cut + before_cut,
    )
