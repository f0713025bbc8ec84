"""Integrity of the conversation recall set (tests/datasets/conversations/), the data
scripts/eval_conversations.py replays: sizes meet the minimums, every question's evidence
exists and holds its answer, times run forward. Not the scores: those are a benchmark."""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime, timedelta

import pytest

from tests.support.conversations import ISO_DATE, Conversation, answer_found, load_all

CONVERSATIONS = load_all()


def test_the_set_meets_its_minimums() -> None:
    assert len(CONVERSATIONS) >= 5
    assert sum(len(c.questions) for c in CONVERSATIONS) >= 300
    kinds = Counter(q.kind for c in CONVERSATIONS for q in c.questions)
    assert set(kinds) == {
        "single",
        "when",
        "updated",
        "previous",
        "multi_hop",
        "assistant",
    }
    assert kinds["when"] >= 30 and kinds["updated"] >= 20 and kinds["multi_hop"] >= 10
    for conversation in CONVERSATIONS:
        assert len(conversation.turns) >= 300, conversation.id
        assert conversation.speakers == ("user", "assistant")
        assert {t.role for t in conversation.turns} == {"user", "assistant"}
        assert len({t.session for t in conversation.turns}) >= 8, conversation.id


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=lambda c: c.id)
def test_turns_alternate_and_time_runs_forward_over_weeks(
    conversation: Conversation,
) -> None:
    times = [datetime.fromisoformat(t.ts) for t in conversation.turns]
    assert times == sorted(times)
    assert times[-1] - times[0] >= timedelta(days=60)
    assert len({t.id for t in conversation.turns}) == len(conversation.turns)
    roles = [t.role for t in conversation.turns]
    assert roles[0::2] == ["user"] * len(roles[0::2])
    assert roles[1::2] == ["assistant"] * len(roles[1::2])


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=lambda c: c.id)
def test_every_answer_is_in_its_evidence(conversation: Conversation) -> None:
    turns = {t.id: t for t in conversation.turns}
    assert len({q.id for q in conversation.questions}) == len(conversation.questions)
    for question in conversation.questions:
        assert question.evidence, question.id
        assert set(question.evidence) | set(question.superseded) <= set(turns), (
            question.id
        )
        evidence = [turns[i] for i in question.evidence]
        # What the assistant said is evidenced by its own turns, the rest by the user's.
        roles = {"assistant"} if question.kind == "assistant" else {"user"}
        assert {t.role for t in evidence} == roles, question.id
        if ISO_DATE.match(question.answer):
            # A date: the day the evidence was said, or the day before ("yesterday").
            said = date.fromisoformat(evidence[0].ts[:10])
            assert 0 <= (said - date.fromisoformat(question.answer)).days <= 1, (
                question.id
            )
            assert question.kind == "when", question.id
        else:
            text = " ".join(t.content for t in evidence)
            assert answer_found(question.answer, text), (question.id, question.answer)
        # An updated fact is said after the one it replaces.
        for old in question.superseded:
            assert turns[old].ts < evidence[0].ts, question.id


def test_the_answer_is_rarely_given_away_by_the_question() -> None:
    """Questions paraphrase: few share every answer word with their own wording."""
    questions = [
        q for c in CONVERSATIONS for q in c.questions if not ISO_DATE.match(q.answer)
    ]
    giveaways = [q.id for q in questions if answer_found(q.answer, q.question)]
    assert len(giveaways) <= len(questions) // 10, giveaways
