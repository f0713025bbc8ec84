"""What states no fact about the user creates nothing: each non-fact kind of issue 12, bare
pronouns (unless the previous fact resolves them) and second-person objects."""

from __future__ import annotations

import pytest

from memtap.engine.extraction.clauses import non_fact, request_kind
from memtap.engine.extraction.extract import extract_facts


def contents(text: str) -> list[str]:
    return [f.content for f in extract_facts(text, "user")]


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (
            "code block",
            "```python\n# I prefer globals\nname = 'I live in Paris'\n```\nwhy does this fail?",
        ),
        (
            "indented code",
            "    I_LIVE_IN = 'Paris'\n    I_WORK_AT = 'Acme'\nWhat does this do?",
        ),
        (
            "block quote",
            "> I live in Paris and I hate the metro\nwhat do you think of this reply?",
        ),
        (
            "quotation",
            'My favourite line is "I live my life a quarter mile at a time".',
        ),
        (
            "quotation",
            "He wrote \u201cI'm allergic to Mondays\u201d on the whiteboard.",
        ),
        (
            "pasted email",
            "Can you improve this?\n\nDear Mark,\nI live in Bristol now and I work at Arup.\nBest regards,\nJane",
        ),
        (
            "email headers",
            "From: anna@example.com\nTo: team@example.com\nSubject: Offsite\nI'm vegetarian.",
        ),
        (
            "quoted reply",
            "On Tue, Mar 3, 2025 at 9:14 AM Bob wrote:\n> I work at Oracle",
        ),
        (
            "pasted log",
            "2024-05-02 10:31:22 ERROR I prefer not to start\n2024-05-02 10:31:23 INFO retrying",
        ),
        (
            "traceback",
            'Traceback (most recent call last):\n  File "app.py", line 3\nValueError: I love you',
        ),
        (
            "transcript",
            "Customer: I live in Ohio\nAgent: Sorry to hear that\nHow should the agent reply?",
        ),
        (
            "payload after a colon",
            "Here is the message I got:\nI live in Boston now and I work at MIT.",
        ),
        ("question", "Should I use Postgres or MySQL for this?"),
        ("question without a mark", "how do I make my dog stop barking at night"),
        ("hypothetical", "If I lived in Tokyo, how much would rent cost?"),
        ("hypothetical", "Suppose I'm a vegetarian with a nut allergy; plan my meals."),
        (
            "hypothetical",
            "Imagine I work at Google. What would my first week look like?",
        ),
        ("conditional", "I would move to Canada if I could get a visa."),
        ("fiction", "In this story I am a detective who lives in 1920s Chicago."),
        ("request", "Translate to French: I live in Paris and I love my cat."),
        ("request", "Write a short story where I'm a dragon who lives in a volcano."),
        (
            "request",
            "Summarise this: I am a software engineer with 10 years of experience.",
        ),
        (
            "request",
            "Can you proofread my cover letter? I am a passionate marketer based in Chicago.",
        ),
        ("request", "Translate 'I am allergic to nuts' into German."),
        ("reported speech", "My manager says I prefer working alone."),
        ("reported speech", "He told me I'm a terrible driver."),
        ("other person's preference", "My manager prefers Java for everything."),
        ("other person's preference", "My coworker loves Kubernetes way too much."),
        ("second person", "I love your answers, they're so clear!"),
        ("second person", "I like your suggestion about the cache."),
        ("bare pronoun", "I love it!"),
        ("bare pronoun", "I hate when that happens."),
        ("deictic", "I like that idea."),
        ("deictic", "I prefer the first one."),
        ("task", "I want to know how to reverse a list in Python."),
        ("task", "I'm trying to fix this bug in my parser."),
    ],
)
def test_non_facts_create_nothing(kind: str, text: str) -> None:
    assert contents(text) == [], kind


def test_facts_around_non_facts_are_kept() -> None:
    assert contents("I live in Oslo, what's the weather like in May?") == [
        "Lives in Oslo"
    ]
    assert contents("I'm a teacher. Write a poem about autumn for my class.") == [
        "Is a teacher"
    ]
    assert contents("Since I'm vegan, what can I cook tonight?") == ["Is vegan"]
    assert contents('I use "black" for formatting.') == ['Uses "black" for formatting']


def test_a_pronoun_resolved_by_the_previous_fact() -> None:
    assert contents("I just got a new espresso machine. I love it.") == [
        "Just got a new espresso machine",
        "Loves the new espresso machine",
    ]
    assert contents("I love it.") == []


def test_second_person_is_the_assistant_in_instructions() -> None:
    assert contents("Don't use bullet points in your answers.") == [
        "Does not want the assistant to use bullet points in its answers"
    ]


@pytest.mark.parametrize(
    ("clause", "kind"),
    [
        ("Do I need a visa?", "question"),
        ("What if I moved to Spain", "hypothetical"),
        ("I would move to Canada", "hypothetical"),
        ("In this story I am a pilot", "fiction"),
        ("My mom thinks I live in a dangerous neighbourhood", "reported"),
        ("I live in Oslo", None),
        ("I'd like to learn Rust", None),
    ],
)
def test_clause_kinds(clause: str, kind: str | None) -> None:
    assert non_fact(clause, fact_start=len(clause)) == kind


def test_request_scope() -> None:
    assert request_kind("Translate this into Spanish") == "all"
    assert request_kind("Write a story where I'm a pilot") == "from_here"
    assert request_kind("Write a function that parses dates") == "sentence"
    assert request_kind("I live in Oslo") is None
