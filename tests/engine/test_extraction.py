"""Extraction patterns: families, polarity, role attribution, injected block, sanitising, keys."""

from __future__ import annotations

import pytest

from memtap.engine.extraction.extract import (
    MAX_CONTENT_CHARS,
    extract_facts,
    normalise,
    stable_key,
)


def contents(text: str, role: str = "user") -> list[str]:
    return [f.content for f in extract_facts(text, role)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I prefer tabs over spaces.", "Prefers tabs over spaces"),
        ("I really like Rust, but it compiles slowly", "Likes Rust"),
        ("My favourite editor is Neovim.", "Favourite editor is Neovim"),
        ("my favorite database is Postgres", "Favourite database is Postgres"),
        ("I love long walks on the beach", "Loves long walks on the beach"),
    ],
)
def test_preferences_positive(text: str, expected: str) -> None:
    facts = extract_facts(text, "user")
    assert [f.content for f in facts] == [expected]
    assert (
        facts[0].category == "preference"
        and facts[0].type == "factual"
        and facts[0].polarity == "positive"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I don't like Java because it is verbose.", "Does not like Java"),
        ("I do not enjoy meetings", "Does not enjoy meetings"),
        ("I hate YAML", "Hates YAML"),
        ("I can't stand tabs", "Cannot stand tabs"),
        ("I no longer like PHP", "Does not like PHP"),
    ],
)
def test_preferences_negative_keep_polarity(text: str, expected: str) -> None:
    facts = extract_facts(text, "user")
    assert [f.content for f in facts] == [expected]
    assert facts[0].polarity == "negative"


def test_negation_never_becomes_bare_object() -> None:
    for text in (
        "I don't like Java",
        "I never use Windows",
        "I won't use Kubernetes",
        "I hate Mondays",
    ):
        for fact in extract_facts(text, "user"):
            assert fact.polarity == "negative", text
            assert fact.content.split()[0] in {"Does", "Never", "Decided", "Hates"}, (
                fact.content
            )


@pytest.mark.parametrize(
    ("text", "expected", "polarity"),
    [
        (
            "I'll use Postgres for the backend.",
            "Decided to use Postgres for the backend",
            "positive",
        ),
        ("I chose SQLite", "Chose SQLite", "positive"),
        ("I went with React", "Went with React", "positive"),
        ("I'm going to adopt Poetry", "Decided to use Poetry", "positive"),
        ("I decided not to use Docker", "Decided not to use Docker", "negative"),
        ("I won't use Kubernetes", "Decided not to use Kubernetes", "negative"),
    ],
)
def test_decisions(text: str, expected: str, polarity: str) -> None:
    facts = extract_facts(text, "user")
    assert [f.content for f in facts] == [expected]
    assert (
        facts[0].type == "episodic"
        and facts[0].category == "decision"
        and facts[0].polarity == polarity
    )


@pytest.mark.parametrize(
    ("text", "expected", "polarity"),
    [
        ("I usually write tests first.", "Usually write tests first", "positive"),
        (
            "I always run the linter before committing",
            "Always run the linter before committing",
            "positive",
        ),
        ("I tend to work late", "Tends to work late", "positive"),
        ("I never push on Fridays", "Never push on Fridays", "negative"),
        ("I rarely use a debugger", "Rarely use a debugger", "negative"),
    ],
)
def test_habits(text: str, expected: str, polarity: str) -> None:
    facts = extract_facts(text, "user")
    assert [f.content for f in facts] == [expected]
    assert (
        facts[0].category == "habit"
        and facts[0].type == "factual"
        and facts[0].polarity == polarity
    )


@pytest.mark.parametrize(
    ("text", "expected", "polarity"),
    [
        ("I\u2019m going to use Terraform", "Decided to use Terraform", "positive"),
        ("I don\u2019t like Java", "Does not like Java", "negative"),
        ("I'm not a fan of Java", "Is not a fan of Java", "negative"),
        ("I'm a big fan of Haskell", "Is a fan of Haskell", "positive"),
        ("I'd rather use Go", "Prefers Go", "positive"),
        ("I'd rather not use ORMs", "Would rather not use ORMs", "negative"),
        ("I prefer not to use ORMs", "Prefers not to use ORMs", "negative"),
        ("I usually don't eat meat", "Usually don't eat meat", "negative"),
        ("I switched from tabs to spaces", "Switched from tabs to spaces", "positive"),
    ],
)
def test_more_forms_and_curly_quotes(text: str, expected: str, polarity: str) -> None:
    facts = extract_facts(text, "user")
    assert [(f.content, f.polarity) for f in facts] == [(expected, polarity)]


def test_several_facts_in_one_line() -> None:
    assert contents("I prefer tabs; I hate YAML. I usually test first") == [
        "Prefers tabs",
        "Hates YAML",
        "Usually test first",
    ]


def test_questions_pronouns_and_noise_extract_nothing() -> None:
    assert contents("Do I prefer tabs?") == []
    assert contents("I like it.") == []
    assert contents("I'd like a summary of this article") == []
    assert contents("What's the weather in Paris?") == []
    assert contents("") == []


def test_non_ascii_facts_have_non_empty_distinct_keys() -> None:
    a = extract_facts("I prefer 日本語のドキュメント", "user")
    b = extract_facts("I prefer 한국어 문서", "user")
    c = extract_facts("I like crème brûlée", "user")
    assert a and b and c
    keys = {a[0].key, b[0].key, c[0].key}
    assert len(keys) == 3
    for key in keys:
        assert key.split(":", 1)[1].strip("_"), key
    assert "日本語" in a[0].content and "crème brûlée" in c[0].content


def test_stable_key_falls_back_to_a_hash_for_symbol_only_text() -> None:
    key = stable_key("preference", "★★★")
    assert key.startswith("preference:") and len(key) > len("preference:") + 8
    assert stable_key("preference", "★★★") == key
    assert stable_key("preference", "Tabs  ") == stable_key("preference", "tabs")
    assert normalise("Ｔａｂｓ") == "tabs"  # NFKC folds full-width letters


def test_injected_block_is_never_extracted() -> None:
    text = (
        "<memtap:memories>\n- Prefers Emacs\n- I prefer vim\n</memtap:memories>\n"
        "Thanks. I like cats. <memtap:memories>I hate dogs"
    )
    assert contents(text) == ["Likes cats"]


def test_code_is_not_extracted() -> None:
    text = "Here:\n```python\n# I prefer globals\nx = 1\n```\nAlso `I love eval` is a string. I enjoy hiking."
    assert contents(text) == ["Enjoys hiking"]


def test_role_attribution() -> None:
    user = extract_facts("I'll use the search tool.", "user")
    assistant = extract_facts("I'll use the search tool.", "assistant")
    assert (
        user[0].content == "Decided to use the search tool" and user[0].role == "user"
    )
    assert (
        assistant[0].content.startswith("Assistant: ")
        and assistant[0].role == "assistant"
    )
    assert assistant[0].key != user[0].key and assistant[0].subject != user[0].subject


def test_sanitise_cap_and_tail_of_long_input() -> None:
    long_obj = "x" * 2000
    fact = extract_facts(f"I prefer {long_obj}", "user")[0]
    assert len(fact.content) <= MAX_CONTENT_CHARS
    text = "I prefer Go. " + "filler words here. " * 10_000 + "I like   \t cheese\n"
    assert contents(text) == ["Likes cheese"]  # only the last 64 KiB count


def test_dedupe_within_batch_and_order() -> None:
    text = "I prefer tabs. I PREFER   TABS! I like tea. I prefer tabs."
    assert contents(text) == ["Prefers tabs", "Likes tea"]


def test_subjects_for_supersession() -> None:
    tabs = extract_facts("I prefer tabs", "user")[0]
    spaces = extract_facts("I now prefer spaces", "user")[0]
    assert tabs.subject == spaces.subject == "choice:indentation"
    assert tabs.key != spaces.key
    like = extract_facts("I like Java", "user")[0]
    dislike = extract_facts("I don't like Java", "user")[0]
    assert like.subject == dislike.subject and like.key != dislike.key
    # Liking two languages is not a contradiction.
    assert extract_facts("I like Rust", "user")[0].subject != like.subject
    pg = extract_facts("I'll use Postgres", "user")[0]
    my = extract_facts("I chose MySQL", "user")[0]
    assert pg.subject == my.subject == "choice:database"
    # one current choice per domain across families
    switched = extract_facts("I switched from tabs to spaces", "user")[0]
    always = extract_facts("I always use spaces", "user")[0]
    fav = extract_facts("My favourite editor is Emacs", "user")[0]
    assert switched.subject == always.subject == "choice:indentation"
    assert (
        fav.subject
        == extract_facts("I'll use vim", "user")[0].subject
        == "choice:editor"
    )
