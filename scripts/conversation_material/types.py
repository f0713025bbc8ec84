"""The shapes of the material: a persona, its facts and the questions about them."""

from __future__ import annotations

from dataclasses import dataclass, field

# A question's answer may be a date instead of words: "@0" is the day the fact's turn was
# said, "@-1" the day before ("yesterday"), "@-7" a week before.
WHEN = "@0"


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    answer: str
    kind: str
    """single | when | updated | previous | multi_hop | assistant (what the assistant said:
    the evidence is the reply to the fact's turn)"""
    also: tuple[str, ...] = ()
    """Labels of further facts whose turns are evidence too (multi-hop)."""
    superseded: tuple[str, ...] = ()
    """Labels of facts this answer replaces (updated questions): context, not evidence."""


@dataclass(frozen=True, slots=True)
class Fact:
    label: str
    session: int
    user: str
    reply: str = ""
    """The assistant's answer; "" picks a generic acknowledgement."""
    questions: tuple[Question, ...] = ()


@dataclass(frozen=True, slots=True)
class Persona:
    id: str
    name: str
    start: str
    """ISO date of the first session."""
    gaps_days: tuple[int, ...]
    """Days between consecutive sessions (one entry fewer than sessions)."""
    hour: int
    """Usual hour of the day the person chats (UTC)."""
    facts: tuple[Fact, ...]
    chatter: tuple[tuple[str, str], ...] = field(default=())
    """Persona-specific fact-free turns (user, assistant), some in another language."""
    extra: tuple[tuple[str, Question], ...] = field(default=())
    """More questions about the facts above, by label (written after the facts)."""


def q(
    text: str,
    answer: str,
    kind: str = "single",
    also: tuple[str, ...] = (),
    superseded: tuple[str, ...] = (),
) -> Question:
    return Question(text, answer, kind, also, superseded)
