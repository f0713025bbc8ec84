"""What each user turn was given, so every step of its tool loop is given the same.

An agent's user turn is several requests: the person's message, then one request per round
of tool results. Each step's request is the previous one's plus the new tool items, and a
provider's prompt cache hits only if memtap's block is the same, byte for byte, on every
step. The same words do not always retrieve the same block: the turn's first step was
extracted in between (what the person just said is a memory now, or re-dated an old one),
another request wrote, a time limit cut one retrieval short.

So the inject addon keeps, per owner and turn (`ConversationView.turn_key`), which memories
the turn's first step injected and how (ids, a digest of each content and the date its line
carried: no memory text). A step that continues the
turn retrieves again (an erased, deleted or edited memory is never shown from here) and
shows, in the first step's order and words, those of the first step's memories that are
still found, unchanged; nothing the turn itself taught is added. A first step that found
nothing makes every later step find nothing.

A Responses conversation the provider keeps (`previous_response_id`, `conversation`) sends a
tool step without the person's words: the response a step produced (or the conversation it
added to) names its turn and its query, so the next step retrieves for the same words.

In memory, per process, bounded (least recently used go first): a miss (another replica, a
restart, an evicted turn) only means one step retrieves afresh.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, TypeVar

from memtap.engine.memory_block import MemoryLine

K = TypeVar("K")
V = TypeVar("V")

MAX_TURNS = 2048
"""Turns remembered (each: a few ids and lines, about the size of one injected block)."""
MAX_RESPONSES = 4096
"""Stored responses remembered as the continuation of a turn (ids and a query each)."""


@dataclass(frozen=True, slots=True)
class Shown:
    """One memory as a turn's first step showed it (no memory text is kept here)."""

    memory_id: str
    digest: str
    """Of the memory's content then: a memory edited since is shown as it is now."""
    date: str | None
    """The date its line carried: a memory re-dated since (the turn restated it) keeps it."""

    @classmethod
    def of(cls, memory_id: str, content: str, line: MemoryLine) -> Shown:
        return cls(memory_id, content_digest(content), line.date)


def content_digest(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class TurnRef:
    """A user turn: its key and the person's words, what retrieval reads on every step."""

    key: str
    query: str


class _Lru(Generic[K, V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class TurnMemory:
    def __init__(
        self, max_turns: int = MAX_TURNS, max_responses: int = MAX_RESPONSES
    ) -> None:
        self._turns: _Lru[tuple[str, str], tuple[Shown, ...]] = _Lru(max_turns)
        self._responses: _Lru[tuple[str, str], TurnRef] = _Lru(max_responses)

    def first_step(self, owner: str, turn_key: str) -> tuple[Shown, ...] | None:
        """What the turn's first step showed (maybe nothing); None when unknown."""
        return self._turns.get((owner, turn_key))

    def shown(self, owner: str, turn_key: str, shown: tuple[Shown, ...]) -> None:
        """The turn's first step (or the first this process saw) showed `shown`."""
        self._turns.put((owner, turn_key), shown)

    def answered(self, owner: str, state: str, turn: TurnRef) -> None:
        """The provider stored a step of `turn` as `state` (a response id, or
        `conversation:<id>`)."""
        self._responses.put((owner, state), turn)

    def turn_after(self, owner: str, state: str) -> TurnRef | None:
        """The turn a request continuing `state` belongs to, when known."""
        return self._responses.get((owner, state))
