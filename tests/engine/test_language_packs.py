"""Language packs: every rule's own examples, a language added as one pack, and the claims
the worker stores for ranking to read."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

import pytest

from memtap.engine.claims import CLAIM_KEY, stored_claim
from memtap.engine.extraction import catalog, checks
from memtap.engine.extraction.extract import extract_facts
from memtap.engine.extraction.rules import Rule
from memtap.engine.extraction.shapes import SHAPES
from memtap.engine.extraction.subjectless import with_subject
from memtap.engine.extractors.rules import read_batches
from memtap.engine.languages.pack import DateWords, Example, LanguagePack, Phrase, words
from memtap.engine.languages.registry import PACKS
from memtap.engine.ports import OutboxRow
from memtap.engine.retrieval.present import settle
from memtap.engine.supersession.conflict import claim_of, claim_of_memory
from memtap.engine.text.dates import resolve_dates
from memtap.engine.types import Hit, Memory, Turn
from memtap.engine.worker.outbox_worker import owner_batches, plan

RULES_WITH_EXAMPLES = [r for r in catalog.ALL_RULES if r.examples]


def _id(rule: Rule) -> str:
    return f"{rule.lang}-{rule.family}-{rule.examples[0][0][:40]}"


@pytest.mark.parametrize("rule", RULES_WITH_EXAMPLES, ids=_id)
def test_every_rule_reads_its_own_examples(rule: Rule) -> None:
    for said, kept in rule.examples:
        # the rule reads the example as said, or with the subject the user left out
        # ("Moved to Denver" is read as "I moved to Denver")
        read = rule.regex.search(said) or rule.regex.search(with_subject(said) or "")
        assert read, f"the rule does not match its example {said!r}"
        contents = [f.content for f in extract_facts(said, "user")]
        assert kept in contents, (said, contents)


def test_every_rule_carries_examples() -> None:
    assert [r.regex.pattern for r in catalog.ALL_RULES if not r.examples] == []
    assert len(RULES_WITH_EXAMPLES) == len(catalog.ALL_RULES)
    for pack in PACKS.values():
        for phrase in pack.phrases:
            assert phrase.shape in SHAPES, (pack.code, phrase.shape)


# -- a language is one pack --------------------------------------------------------------------
ITALIAN = LanguagePack(
    code="it",
    stop=r"\s+(?:e\s+(?:io|mio|mia)|ma|perché|dove|da|ieri|adesso)\b|[,;:(]|\s-\s",
    role_stop=r"\s+(?:a|in|per|da|e|ma|con)\b|[,;:(]",
    roles=r"(?:ingegner[ea]|insegnante|medico|infermier[ea]|avvocat[oa]|studente|studentessa)",
    negators=words("non mai"),
    joiners=words("e"),
    dates=DateWords(
        days={"oggi": 0, "ieri": -1, "domani": 1},
        periods={},
        numbers={},
        units={},
        ago=(),
        ahead=(),
        weekdays={},
        weekday_frames=(),
        future=r"\b(?:domani|prossim[oa])\b",
    ),
    phrases=(
        Phrase("name", r"mi\s+chiamo\s+(?P<obj>.+)", "Si chiama {obj}", "chiamo"),
        Phrase(
            "home_left",
            r"non\s+vivo\s+più\s+a\s+(?P<obj>.+)",
            "Non vive più a {obj}",
            "vivo",
        ),
        Phrase(
            "home",
            r"(?:io\s+)?(?:vivo|abito)\s+a\s+(?P<obj>.+)",
            "Vive a {obj}",
            "vivo abito",
        ),
        Phrase(
            "role",
            r"sono\s+(?:un\s+|una\s+|un'\s*)?(?P<obj>"
            + r"(?:ingegner[ea]|insegnante|medico|infermier[ea]|avvocat[oa]|studente|studentessa)"
            + r")\b",
            "È {obj}",
            "sono",
            examples=(Example("Sono un'insegnante.", "È insegnante"),),
        ),
        Phrase("like", r"mi\s+piace\s+(?P<obj>.+)", "Le piace {obj}", "piace"),
    ),
)


@pytest.fixture
def italian() -> Iterator[LanguagePack]:
    catalog.register(ITALIAN)
    try:
        yield ITALIAN
    finally:
        catalog.unregister("it")


def test_a_language_is_added_by_one_pack(italian: LanguagePack) -> None:
    facts = {f.content: f for f in extract_facts("Mi chiamo Giulia e vivo a Bologna.")}
    assert set(facts) >= {"Si chiama Giulia", "Vive a Bologna"}
    home = facts["Vive a Bologna"]
    assert (home.lang, home.family, home.slot) == ("it", "location", "location.home")
    # the shape's negative form and its slot: a move supersedes the old home
    gone = extract_facts("Non vivo più a Bologna.")
    assert [(f.content, f.polarity, f.slot) for f in gone] == [
        ("Non vive più a Bologna", "negative", "location.home")
    ]
    assert gone[0].subject == home.subject
    # a positive phrase never reads a negated verb (the pack's negators)
    assert extract_facts("Non mi piace il caffè.") == []
    # its claims are read back from the stored content like any language's
    claim = claim_of("Vive a Bologna")
    assert claim is not None and claim.slot == "location.home"
    # its date words date what is said with them
    said = resolve_dates("Ieri ho cambiato lavoro", date(2026, 12, 7), "it")
    assert [(d.text, d.value) for d in said] == [("Ieri", "2026-12-06")]
    # and its examples run like every rule's
    role = next(r for r in catalog.ALL_RULES if r.lang == "it" and r.examples)
    assert role.examples == (("Sono un'insegnante.", "È insegnante"),)
    assert "È insegnante" in [f.content for f in extract_facts("Sono un'insegnante.")]


def test_the_pack_leaves_with_its_rules(italian: LanguagePack) -> None:
    catalog.unregister("it")
    assert extract_facts("Mi chiamo Giulia.") == []
    catalog.register(italian)
    assert [f.content for f in extract_facts("Mi chiamo Giulia.")] == [
        "Si chiama Giulia"
    ]


# -- the claims the worker stores ------------------------------------------------------------
def _memory(
    mid: str, content: str, updated_at: str, metadata: dict[str, object]
) -> Memory:
    return Memory(
        mid, "o", None, "factual", None, content, dict(metadata), updated_at, updated_at
    )


def _hit(memory: Memory) -> Hit:
    return Hit(memory=memory, score=1.0, tier="keyword", tokens=5)


def test_the_worker_stores_each_facts_claim() -> None:
    turn = Turn(
        "r1", "owner", None, "openai_chat", "I live in Oslo and I love sushi.", "ok"
    )
    extracted = read_batches(owner_batches([OutboxRow(1, turn, 0)], ("user",)))
    [planned] = plan(extracted)
    metas = {fact.content: meta for fact, meta in planned.facts}
    home = metas["Lives in Oslo"][CLAIM_KEY]
    assert home["subject"] == "slot:location.home" and home["slot"] == "location.home"
    stored = _memory(
        "m1", "Lives in Oslo", "2026-01-01T00:00:00Z", metas["Lives in Oslo"]
    )
    assert stored_claim(stored) == (True, claim_of("Lives in Oslo"))


def test_ranking_reads_stored_claims_and_reads_older_rows_through_the_engine() -> None:
    older = _memory("a", "Lives in Oslo", "2026-01-01T00:00:00Z", {})
    newer_meta = {CLAIM_KEY: {}}
    newer = _memory("b", "Lives in Bergen", "2026-02-01T00:00:00Z", newer_meta)
    # without a stored claim and without a reader, nothing conflicts
    assert [h.memory.id for h in settle([_hit(older), _hit(newer)], "where?").hits] == [
        "a",
        "b",
    ]
    # the engine's reader reads a row written before claims were stored
    settled = settle([_hit(older), _hit(newer)], "where?", claim_of_memory)
    assert [h.memory.id for h in settled.hits] == ["b"] and settled.dropped == ["a"]
    # a stored claim is read as stored: no reader needed
    stamped = [
        _memory(m.id, m.content, m.updated_at, {CLAIM_KEY: _stamp(m.content)})
        for m in (older, newer)
    ]
    settled = settle([_hit(m) for m in stamped], "where?")
    assert [h.memory.id for h in settled.hits] == ["b"] and settled.dropped == ["a"]


def test_a_stored_claim_of_another_content_is_read_again() -> None:
    edited = _memory(
        "a", "Lives in Bergen", "2026-01-01T00:00:00Z", {CLAIM_KEY: _stamp("Likes tea")}
    )
    assert stored_claim(edited) == (False, None)
    assert claim_of_memory(edited) == claim_of("Lives in Bergen")


def _stamp(content: str) -> dict[str, object]:
    from memtap.engine.claims import claim_metadata

    return claim_metadata(claim_of(content), content)


def test_a_check_over_words_a_pack_leaves_empty_matches_nothing() -> None:
    """A pack without deictic words ("this file") still accepts a planned task: the empty
    alternation must not match at every word boundary."""
    assert not PACKS["de"].deictic
    said = re.match(r".*", "Ich will Helix lernen")
    assert said is not None
    assert checks.not_task(PACKS["de"])(said, "Helix lernen")
    this_file = re.match(r".*", "read this file")
    assert this_file is not None
    assert not checks.not_task(PACKS["en"])(this_file, "read this file")
