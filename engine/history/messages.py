"""One message of a past conversation, and the pairing of messages into turns.

A turn is what the proxy would have captured: a user message and the assistant's reply
(every assistant message until the next user message of the same owner and session). An
assistant message with no user message before it is a turn with an empty user side.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

from memtap.engine.clock import iso, parse_iso
from memtap.engine.turn_bounds import bounded_turn
from memtap.engine.types import Turn

Role = Literal["user", "assistant"]
IGNORED_ROLES: Final = frozenset({"system", "developer", "tool", "function"})
"""Roles a turn never holds: skipped without an error (the proxy never extracts them)."""
MAX_SESSION_CHARS: Final = 256
MAX_OPEN_SESSIONS: Final = 1000
"""Sessions with a turn still open while a file is read; past that the oldest turn is
closed (bounded memory for files that interleave many sessions)."""
FUTURE_SLACK: Final = timedelta(days=1)


class BadMessage(ValueError):
    """A message that cannot be imported; the text says why (reported with its line)."""


@dataclass(frozen=True, slots=True)
class LineError:
    line: int
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message}


@dataclass(frozen=True, slots=True)
class Owners:
    """How an import finds the owner of a message: the proxy's rule for API keys (so an
    imported key maps to the owner its live traffic has), the owner-id check, and the owner
    the request named for messages that name none."""

    of_key: Callable[[str], str]
    is_valid: Callable[[str], bool]
    default: str | None = None

    def resolve(self, owner: Any, api_key: Any) -> str:
        if api_key is not None:
            if not isinstance(api_key, str) or not api_key.strip():
                raise BadMessage("api_key must be a non-empty string")
            return self.of_key(api_key.strip())
        if owner is not None:
            if not isinstance(owner, str) or not self.is_valid(owner):
                raise BadMessage("owner is not a valid owner id")
            return owner
        if self.default is None:
            raise BadMessage("owner or api_key is required")
        return self.default


@dataclass(frozen=True, slots=True)
class HistoryMessage:
    owner: str
    session: str | None
    role: Role
    content: str
    said_at: str
    """Canonical UTC timestamp (`engine/clock.py`)."""
    line: int
    model: str | None = None

    def fingerprint(self) -> bytes:
        parts = (self.owner, self.session or "", self.said_at, self.role, self.content)
        return "\x1f".join(parts).encode("utf-8", "surrogatepass")


@dataclass(frozen=True, slots=True)
class ImportedTurn:
    turn: Turn
    lines: tuple[int, ...]


def said_at_of(value: Any, now: datetime | None = None) -> str:
    """`ts` as the canonical timestamp: ISO 8601 (naive = UTC) or Unix seconds (or ms)."""
    if isinstance(value, bool) or value is None:
        raise BadMessage("ts is required (ISO 8601 or Unix seconds)")
    if isinstance(value, int | float):
        seconds = float(value) / 1000 if value > 1e11 else float(value)
        try:
            moment = datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            raise BadMessage(f"ts {value!r} is out of range") from None
    elif isinstance(value, str):
        try:
            moment = parse_iso(value)
        except ValueError:
            raise BadMessage(
                f"ts {value[:40]!r} is not an ISO 8601 timestamp"
            ) from None
    else:
        raise BadMessage("ts must be an ISO 8601 string or Unix seconds")
    if moment > (now or datetime.now(UTC)) + FUTURE_SLACK:
        raise BadMessage("ts is in the future")
    if moment.year < 1990:
        raise BadMessage("ts is before 1990")
    return iso(moment)


def text_of(content: Any) -> str:
    """A message's text: a string, or OpenAI-style parts (`{"type": "text", "text"}`)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                pieces.append(part["text"])
        return "\n".join(pieces)
    raise BadMessage("content must be a string or a list of text parts")


def session_of(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise BadMessage("session must be a string")
    session = str(value).strip()
    if not session or len(session) > MAX_SESSION_CHARS:
        raise BadMessage(f"session must be 1..{MAX_SESSION_CHARS} characters")
    return session


def request_id_of(messages: list[HistoryMessage]) -> str:
    """Deterministic: the same messages always make the same turn id (idempotent import)."""
    digest = hashlib.sha256()
    for message in messages:
        digest.update(message.fingerprint())
        digest.update(b"\x1e")
    return "import-" + digest.hexdigest()[:32]


@dataclass(slots=True)
class _Open:
    user: HistoryMessage | None
    replies: list[HistoryMessage] = field(default_factory=list)


class TurnPairing:
    """Feed messages in file order; turns come out when they are complete."""

    def __init__(self, max_open: int = MAX_OPEN_SESSIONS) -> None:
        self._open: OrderedDict[tuple[str, str | None], _Open] = OrderedDict()
        self.max_open = max_open

    def add(self, message: HistoryMessage) -> Iterator[ImportedTurn]:
        key = (message.owner, message.session)
        current = self._open.get(key)
        if message.role == "user" or current is None:
            if current is not None:
                yield _turn(current)
            self._open[key] = (
                _Open(message) if message.role == "user" else _Open(None, [message])
            )
            self._open.move_to_end(key)
            while len(self._open) > self.max_open:
                _, oldest = self._open.popitem(last=False)
                yield _turn(oldest)
        else:
            current.replies.append(message)

    def end(self, message: HistoryMessage) -> Iterator[ImportedTurn]:
        """The conversation of `message` is over: its open turn is complete."""
        item = self._open.pop((message.owner, message.session), None)
        if item is not None:
            yield _turn(item)

    def close(self) -> Iterator[ImportedTurn]:
        while self._open:
            _, item = self._open.popitem(last=False)
            yield _turn(item)


def _turn(item: _Open) -> ImportedTurn:
    messages = ([item.user] if item.user else []) + item.replies
    first = messages[0]
    models = [m.model for m in item.replies if m.model]
    turn = Turn(
        request_id=request_id_of(messages),
        owner=first.owner,
        session=first.session,
        format="openai-chat",
        user_text=item.user.content if item.user else "",
        assistant_text="\n\n".join(m.content for m in item.replies),
        model=models[-1] if models else first.model,
        created_at=first.said_at,
    )
    return ImportedTurn(bounded_turn(turn), tuple(m.line for m in messages))
