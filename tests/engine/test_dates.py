"""Relative dates resolved against the day a turn was said (engine/text/dates.py)."""

from __future__ import annotations

from datetime import date

import pytest

from memtap.engine.extraction.extract import extract_facts
from memtap.engine.text.dates import annotate, dated_fact, resolve_dates

THURSDAY = date(2026, 12, 3)
SUNDAY = date(2026, 12, 6)

CASES = [
    # (lang, text, expected resolved values)
    ("en", "I went to the dentist yesterday", ["2026-12-02"]),
    ("en", "today", ["2026-12-03"]),
    ("en", "tomorrow", ["2026-12-04"]),
    ("en", "the day before yesterday", ["2026-12-01"]),
    ("en", "the day after tomorrow", ["2026-12-05"]),
    ("en", "last week", ["week of 2026-11-23"]),
    ("en", "this week", ["week of 2026-11-30"]),
    ("en", "next week", ["week of 2026-12-07"]),
    ("en", "Went to the coast last weekend", ["2026-11-28"]),
    ("en", "this weekend", ["2026-12-05"]),
    ("en", "next weekend", ["2026-12-12"]),
    ("en", "last month", ["2026-11"]),
    ("en", "next month", ["2027-01"]),
    ("en", "last year", ["2025"]),
    ("en", "next year", ["2027"]),
    ("en", "on Monday", ["2026-11-30"]),
    ("en", "I will see her on Monday", ["2026-12-07"]),
    ("en", "I'm flying to Lisbon on Friday", ["2026-12-04"]),
    ("en", "last Monday", ["2026-11-30"]),
    ("en", "next Thursday", ["2026-12-10"]),
    ("en", "two days ago", ["2026-12-01"]),
    ("en", "3 weeks ago", ["2026-11-12"]),
    ("en", "a month ago", ["2026-11"]),
    ("en", "a couple of years ago", ["2024"]),
    ("en", "in 3 weeks", ["2026-12-24"]),
    ("en", "in two days", ["2026-12-05"]),
    ("en", "in a month", ["2027-01"]),
    ("en", "yesterday and in 2 days", ["2026-12-02", "2026-12-05"]),
    ("es", "Ayer fui al dentista", ["2026-12-02"]),
    ("es", "hoy", ["2026-12-03"]),
    ("es", "mañana", ["2026-12-04"]),
    ("es", "anteayer", ["2026-12-01"]),
    ("es", "la semana pasada", ["week of 2026-11-23"]),
    ("es", "el fin de semana pasado", ["2026-11-28"]),
    ("es", "el mes que viene", ["2027-01"]),
    ("es", "el año pasado", ["2025"]),
    ("es", "hace dos días", ["2026-12-01"]),
    ("es", "dentro de 3 semanas", ["2026-12-24"]),
    ("es", "el lunes", ["2026-11-30"]),
    ("es", "voy a verla el lunes", ["2026-12-07"]),
    ("es", "el próximo viernes", ["2026-12-04"]),
    ("pt", "Ontem fui ao médico", ["2026-12-02"]),
    ("pt", "amanhã", ["2026-12-04"]),
    ("pt", "semana passada", ["week of 2026-11-23"]),
    ("pt", "no fim de semana passado", ["2026-11-28"]),
    ("pt", "mês que vem", ["2027-01"]),
    ("pt", "há 3 semanas", ["2026-11-12"]),
    ("pt", "dois dias atrás", ["2026-12-01"]),
    ("pt", "daqui a duas semanas", ["2026-12-17"]),
    ("pt", "na segunda", ["2026-11-30"]),
    ("fr", "Hier je suis allé au cinéma", ["2026-12-02"]),
    ("fr", "aujourd'hui", ["2026-12-03"]),
    ("fr", "demain", ["2026-12-04"]),
    ("fr", "la semaine dernière", ["week of 2026-11-23"]),
    ("fr", "le week-end dernier", ["2026-11-28"]),
    ("fr", "le mois prochain", ["2027-01"]),
    ("fr", "l'année dernière", ["2025"]),
    ("fr", "il y a deux jours", ["2026-12-01"]),
    ("fr", "dans 3 semaines", ["2026-12-24"]),
    ("fr", "lundi dernier", ["2026-11-30"]),
    ("fr", "je vais la voir lundi", ["2026-12-07"]),
    ("de", "Gestern war ich beim Zahnarzt", ["2026-12-02"]),
    ("de", "heute", ["2026-12-03"]),
    ("de", "morgen", ["2026-12-04"]),
    ("de", "vorgestern", ["2026-12-01"]),
    ("de", "letzte Woche", ["week of 2026-11-23"]),
    ("de", "letztes Wochenende", ["2026-11-28"]),
    ("de", "nächsten Monat", ["2027-01"]),
    ("de", "letztes Jahr", ["2025"]),
    ("de", "vor zwei Tagen", ["2026-12-01"]),
    ("de", "in 3 Wochen", ["2026-12-24"]),
    ("de", "am Montag fliege ich", ["2026-12-07"]),
    ("de", "am Montag bin ich geflogen", ["2026-11-30"]),
    ("de", "letzten Freitag", ["2026-11-27"]),
]


@pytest.mark.parametrize(("lang", "text", "expected"), CASES)
def test_expression(lang: str, text: str, expected: list[str]) -> None:
    assert [r.value for r in resolve_dates(text, THURSDAY, lang)] == expected


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "I moved in 2020"),
        ("en", "I go to the gym on Mondays"),
        ("en", "I love the weekend"),
        ("es", "por la mañana corro"),
        ("es", "los lunes juego al tenis"),
        ("pt", "a segunda vez"),
        ("fr", "le lundi je cours"),
        ("de", "am Morgen laufe ich"),
        ("de", "Guten Morgen"),
    ],
)
def test_not_a_relative_date(lang: str, text: str) -> None:
    assert resolve_dates(text, THURSDAY, lang) == []


def test_weekend_said_on_a_weekend_is_the_one_before() -> None:
    assert [r.value for r in resolve_dates("last weekend", SUNDAY)] == ["2026-11-28"]
    assert [r.value for r in resolve_dates("this weekend", SUNDAY)] == ["2026-12-05"]


def test_month_arithmetic_crosses_years() -> None:
    january = date(2027, 1, 31)
    assert [r.value for r in resolve_dates("last month", january)] == ["2026-12"]
    assert [r.value for r in resolve_dates("in 13 months", january)] == ["2028-02"]


def test_annotate_writes_each_date_after_its_expression_once() -> None:
    text = "Went to the coast last weekend with friends"
    resolved = resolve_dates(text, THURSDAY)
    once = annotate(text, resolved)
    assert once == "Went to the coast last weekend (2026-11-28) with friends"
    assert annotate(once, resolve_dates(once, THURSDAY)) == once


def test_dated_fact_changes_content_key_and_subject() -> None:
    [fact] = [
        f
        for f in extract_facts("I went to the dentist yesterday.")
        if f.family == "event"
    ]
    dated, meta = dated_fact(fact, "2026-12-03T23:59:00Z")
    assert dated.content == "Went to the dentist yesterday (2026-12-02)"
    assert dated.key == fact.key + "@2026-12-02" and dated.subject.endswith(
        "@2026-12-02"
    )
    assert meta == {
        "dates": [{"text": "yesterday", "date": "2026-12-02"}],
        "dates_resolved_against": "2026-12-03T23:59:00.000Z",
    }
    # The same words said another day are another visit, not the same one restated.
    other, _ = dated_fact(fact, "2026-12-10T08:00:00Z")
    assert other.key != dated.key


def test_an_events_date_said_outside_its_content_is_written_after_it() -> None:
    """An event's clause date is when it happened: "Last Saturday I ran…" is kept as
    "Ran their first half marathon (2026-12-05)", so a fact injected alone, dated by the
    day it was said, still answers "when". A state keeps its clause date in the metadata
    only: "Since last month I live in Berlin" is true now, not only then."""
    [event] = extract_facts("Last Saturday I ran my first half marathon.")
    dated, meta = dated_fact(event, "2026-12-07T10:00:00Z")
    assert dated.content == "Ran their first half marathon (2026-12-05)"
    assert dated.key == event.key + "@2026-12-05"
    assert meta["dates"] == [{"text": "Last Saturday", "date": "2026-12-05"}]
    [state] = extract_facts("Since last month I live in Berlin.")
    kept, meta = dated_fact(state, "2026-12-07T10:00:00Z")
    assert kept.content == "Lives in Berlin" and kept.key == state.key
    assert meta["dates"] == [{"text": "last month", "date": "2026-11"}]


def test_dated_fact_without_time_or_dates_is_unchanged() -> None:
    [fact] = extract_facts("I love hiking.")
    assert dated_fact(fact, "2026-12-03T10:00:00Z") == (fact, {})
    assert dated_fact(fact, "") == (fact, {})
    assert dated_fact(fact, "not a time") == (fact, {})


# -- the words a text must hold to be scanned ---------------------------------------------
def _every_phrase() -> list[tuple[str, str]]:
    """Each day word, period, unit and weekday of every pack, alone and in a sentence, in
    three cases; and every expression of CASES."""
    from memtap.engine.languages.registry import PACKS

    out = [(lang, text) for lang, text, _ in CASES]
    for code, pack in PACKS.items():
        words = pack.dates
        if words is None:
            continue
        for phrase in (*words.days, *words.periods, *words.weekdays):
            for said in (phrase, phrase.upper(), f"Well, {phrase.title()} I was out."):
                out.append((code, said))
        for unit in words.units:
            out += [(code, f"3 {unit} ago, in 2 {unit}"), (code, f"hace 2 {unit}")]
    return out


@pytest.mark.parametrize("day", [THURSDAY, SUNDAY])
def test_a_text_is_read_the_same_with_or_without_its_words_checked_first(
    monkeypatch: pytest.MonkeyPatch, day: date
) -> None:
    """The check before the scan (`_anchors`) only skips texts no pattern could match."""
    from memtap.engine.text import dates

    cases = _every_phrase()
    checked = [resolve_dates(text, day, lang) for lang, text in cases]
    monkeypatch.setattr(dates, "_anchors", lambda code: None)
    assert checked == [resolve_dates(text, day, lang) for lang, text in cases]
    # Most are dates in their language ("3 semanas ago" is none): the scan ran on them.
    assert sum(1 for found in checked if found) > 0.7 * len(cases)


def test_a_text_without_a_date_word_is_not_scanned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memtap.engine.text import dates

    def scanned(code: str) -> None:
        raise AssertionError(f"scanned for {code}")

    monkeypatch.setattr(dates, "_patterns", scanned)
    # "last" and "this" are in most texts: the words checked are the units and day words.
    assert resolve_dates("This is the last of the cake, Sam.", THURSDAY, "en") == []
    assert resolve_dates("Das ist das letzte Stück.", THURSDAY, "de") == []
    with pytest.raises(AssertionError, match="scanned for en"):
        resolve_dates("I went out last night.", THURSDAY, "en")


def test_a_spelling_only_the_patterns_fold_is_no_date() -> None:
    """`re` folds "ſ" (long s) to "s", the day words' table is keyed by `lower()`: such a
    match reads as no date instead of raising (which took a retrieval's partners)."""
    from memtap.engine.episodes.render import dated_in_words

    assert resolve_dates("I went yeſterday", THURSDAY) == []
    said = "2026-12-03T10:00:00.000Z"
    assert dated_in_words("I went yeſterday.", said) == "I went yeſterday."
