"""Reading the claim a stored memory makes (`supersession.conflict.claim_of`): the first-word
index of the reverse templates finds exactly what trying every template finds, and the
claims cache stays bounded."""

from __future__ import annotations

import re

import pytest

from memtap.engine.extraction.catalog import ALL_RULES
from memtap.engine.supersession import conflict

_FIELD = re.compile(r"\{(\w+)\}")


def _every_template_filled() -> list[str]:
    """Each rule's stored-form templates with their fields filled, as written and in the
    spellings a client or an import may use (case, spacing, the Turkish dotted capital)."""
    out: list[str] = []
    for rule in ALL_RULES:
        for template in dict.fromkeys(rule.templates.values()):
            text = _FIELD.sub(
                lambda m: "green tea" if m.group(1) == "obj" else "cooking", template
            )
            out += [
                text,
                text.lower(),
                text.upper(),
                text.replace(" ", "  \t"),
                " " + text,
                text.replace("I", "İ").replace("i", "ı"),
            ]
    return out


def _brute_force(text: str) -> list[object]:
    return [r for r in conflict._REVERSES if r.regex.fullmatch(text)]


def test_the_first_word_index_finds_what_every_template_finds() -> None:
    texts = _every_template_filled() + [
        "",
        "   ",
        "Prefers green tea for breakfast",
        "Lives in Berlin",
        "the user is a nurse",
        "Name is Ana",
        "Ist Lehrerin",
        "Não gosta de café",
        "My favourite tea is jasmine",
    ]
    matched = 0
    for text in texts:
        expected = _brute_force(text)
        assert conflict._reverses_matching(text) == expected, text
        matched += bool(expected)
    # The corpus exercises the index: most filled templates are read back by some reverse.
    assert matched > len(texts) // 2


def test_the_index_tries_far_fewer_templates_than_all() -> None:
    tried = len(conflict._BY_LEAD.get("lives", conflict._UNLED))
    assert 0 < tried < len(conflict._REVERSES) // 5


def test_claims_of_long_contents_are_read_each_time_not_kept() -> None:
    conflict._cached_claim.cache_clear()
    short = "Lives in Berlin"
    long = "Lives in " + "a very long place name " * 40
    assert len(long) > conflict.CLAIM_CACHE_MAX_CHARS
    first = conflict.claim_of(short)
    assert first is not None and first.slot == "location.home"
    assert conflict.claim_of(long) == conflict.claim_of(long)
    info = conflict._cached_claim.cache_info()
    assert info.currsize == 1  # the short content only
    assert conflict.claim_of(short) is first  # from the cache


@pytest.mark.parametrize(
    "content",
    ["Prefers green tea for breakfast", "My favourite tea is jasmine", "Is a nurse"],
)
def test_a_cached_claim_is_the_claim_read(content: str) -> None:
    conflict._cached_claim.cache_clear()
    assert conflict.claim_of(content) == conflict._read_claim(content)
    assert conflict.claim_of(content) == conflict._read_claim(content)


@pytest.mark.parametrize("their", ["their", "THEIR", "theır", "THEİR", "Them", "thEy"])
def test_third_person_words_in_any_spelling_are_read(their: str) -> None:
    # The third-person regex ignores case (dotted and dotless i included): every word it
    # finds must have its first-person form, or reading the claim raises.
    conflict._cached_claim.cache_clear()
    content = f"Lives with {their} sister"
    plain = f"Lives with {their.lower().replace('ı', 'i').replace('i̇', 'i')} sister"
    read, expected = conflict.claim_of(content), conflict.claim_of(plain)
    assert read is not None and expected is not None
    assert (read.subject, read.slot, read.polarity) == (
        expected.subject,
        expected.slot,
        expected.polarity,
    )
    assert conflict._first_person(content)[0].startswith("I live with ")
