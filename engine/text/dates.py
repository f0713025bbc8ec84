"""Relative dates resolved against the time a turn was said.

`resolve_dates(text, said_at, lang)` finds "yesterday", "last weekend", "two days ago",
"in 3 weeks", "on Monday", "next month" (and their forms in every language pack: `LanguagePack.dates`) and
says which calendar date each one means; `annotate` writes the date after the expression:
"Went to the coast last weekend" said on 2026-12-03 -> "Went to the coast last weekend
(2026-11-28)". Facts read months later, or imported from old conversations, then still say
when things happened.

The precision follows the expression: a day (`2026-11-28`), a week (`week of 2026-11-23`,
weeks start on Monday), a month (`2026-11`) or a year (`2025`). A weekend is its Saturday.
"N weeks ago" is a day (the same weekday N weeks back). The day is the UTC day of `said_at`:
memtap does not know the speaker's time zone.

A bare weekday ("on Monday") is the last one before the day said, unless the clause speaks
of the future ("will", "going to", "I'm flying …"), then the next one after it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache

from memtap.engine.clock import iso, parse_iso
from memtap.engine.languages.pack import DateWords
from memtap.engine.languages.registry import PACKS
from memtap.engine.types import ExtractedFact

_ALREADY_DATED = re.compile(r"\s*\((?:week of )?\d{4}(?:-\d{2}){0,2}\)")


@dataclass(frozen=True, slots=True)
class ResolvedDate:
    text: str
    """The expression as written ("last weekend")."""
    value: str
    """What it means: `2026-11-28`, `week of 2026-11-23`, `2026-11` or `2025`."""
    start: int
    end: int

    def to_json(self) -> dict[str, str]:
        return {"text": self.text, "date": self.value}


def resolve_dates(
    text: str, said_at: datetime | date, lang: str = "en", context: str | None = None
) -> list[ResolvedDate]:
    """Every relative date in `text`, in order, resolved against `said_at`. `context` (the
    clause the text came from) decides the tense of a bare weekday; default `text`."""
    if not text:
        return []
    day = said_at.date() if isinstance(said_at, datetime) else said_at
    found: list[ResolvedDate] = []
    taken: list[tuple[int, int]] = []
    languages = [lang] if lang == "en" else [lang, "en"]
    text_words: frozenset[str] | None = None
    for code in languages:
        pack = PACKS.get(code)
        words = pack.dates if pack is not None else None
        if words is None:
            continue
        anchors = _anchors(code)
        if anchors is not None:
            text_words = _words(text) if text_words is None else text_words
            if text_words.isdisjoint(anchors):
                continue  # no expression of this language can match: none holds a word
        forward = _points_forward(words, context or text)
        for kind, pattern in _patterns(code):
            for m in pattern.finditer(text):
                span = (m.start(), m.end())
                if any(s < span[1] and span[0] < e for s, e in taken):
                    continue
                value = _value(kind, m, words, day, forward)
                if value is None:
                    continue
                taken.append(span)
                found.append(ResolvedDate(m.group(0), value, *span))
    return sorted(found, key=lambda r: r.start)


def annotate(text: str, resolved: list[ResolvedDate]) -> str:
    """`text` with " (date)" written after each resolved expression (once: an expression
    already followed by a date is left as is)."""
    out: list[str] = []
    last = 0
    for item in resolved:
        out.append(text[last : item.end])
        if not _ALREADY_DATED.match(text, item.end):
            out.append(f" ({item.value})")
        last = item.end
    out.append(text[last:])
    return "".join(out)


# -- patterns -----------------------------------------------------------------------------


def _alternation(phrases: list[str], not_a_date: dict[str, str] | None = None) -> str:
    # Longest first, so "the day before yesterday" wins over "yesterday".
    ordered = sorted(phrases, key=len, reverse=True)
    parts = []
    for phrase in ordered:
        body = r"\s+".join(re.escape(w) for w in phrase.split())
        parts.append((not_a_date or {}).get(phrase, "") + body)
    return "(?:" + "|".join(parts) + ")"


def _bounded(body: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w'-])(?:{body})(?![\w-])", re.IGNORECASE)


@cache
def _patterns(code: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    words = PACKS[code].dates
    assert words is not None
    n = "(?P<n>" + _alternation(list(words.numbers)) + r"|\d{1,3})"
    unit = "(?P<unit>" + _alternation(list(words.units)) + ")"
    wd = "(?P<wd>" + _alternation(list(words.weekdays)) + ")"
    out: list[tuple[str, re.Pattern[str]]] = []
    # Periods before days: "last night" is a day word, "last week" a period; neither
    # overlaps the other, and longer phrases are tried first inside each alternation.
    out.append(("period", _bounded("(?P<p>" + _alternation(list(words.periods)) + ")")))
    for frame in words.ago:
        out.append(("ago", _bounded(frame.format(n=n, unit=unit))))
    for frame in words.ahead:
        out.append(("ahead", _bounded(frame.format(n=n, unit=unit))))
    for frame, direction in words.weekday_frames:
        out.append((f"weekday{direction:+d}", _bounded(frame.format(wd=wd))))
    out.append(
        (
            "day",
            _bounded("(?P<d>" + _alternation(list(words.days), words.not_a_date) + ")"),
        )
    )
    return tuple(out)


_WORD = re.compile(r"\w+")


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.casefold()))


@cache
def _anchors(code: str) -> frozenset[str] | None:
    """Words of which every date expression of `code` holds one: each unit and weekday
    (the "ago", "ahead" and weekday frames all name one), and of each day word and period
    the unit it names or else its longest word ("week" of "last week", "night" of "last
    night"). A text holding none is not scanned: its ~15 patterns cost ~0.1 ms a text, and
    a retrieval reads the dates of every snippet it makes (most say none). The same
    result as scanning for every text of our sets and LoCoMo dev, except spellings only
    `re`'s case folding equates ("frıday"), which are read as no date either way
    (`_value`). None (scan every text) if a frame named neither a unit nor a weekday."""
    words = PACKS[code].dates
    assert words is not None
    if any("{unit}" not in frame for frame in (*words.ago, *words.ahead)) or any(
        "{wd}" not in frame for frame, _ in words.weekday_frames
    ):
        return None
    named = [*words.units, *words.weekdays]
    anchors = {
        max(_WORD.findall(p.casefold()), key=len) for p in named if _WORD.search(p)
    }
    for phrase in (*words.days, *words.periods):
        phrase_words = _WORD.findall(phrase.casefold())
        if phrase_words:
            # The phrase's unit when it names one ("week" of "last week", not "last").
            unit = [word for word in phrase_words if word in anchors]
            anchors.add(unit[0] if unit else max(phrase_words, key=len))
    return frozenset(anchors)


def _points_forward(words: DateWords, context: str) -> bool:
    if words.bare_forward:
        return re.search(words.past, context, re.IGNORECASE) is None
    return re.search(words.future, context, re.IGNORECASE) is not None


# -- values -------------------------------------------------------------------------------


def _key(raw: str) -> str:
    return " ".join(raw.lower().split())


def _value(
    kind: str, m: re.Match[str], words: DateWords, day: date, forward: bool
) -> str | None:
    try:
        return _read(kind, m, words, day, forward)
    except KeyError:
        # The patterns ignore case as `re` folds it, the tables are keyed by `lower()`: a
        # spelling only `re` equates ("yeſterday", "frıday") is not read as a date (it
        # raised, and took the snippets' partners with it).
        return None


def _read(
    kind: str, m: re.Match[str], words: DateWords, day: date, forward: bool
) -> str | None:
    if kind == "day":
        return (day + timedelta(days=words.days[_key(m.group("d"))])).isoformat()
    if kind == "period":
        unit, direction = words.periods[_key(m.group("p"))]
        return _period(unit, direction, day)
    if kind in ("ago", "ahead"):
        raw_n = _key(m.group("n"))
        count = int(raw_n) if raw_n.isdigit() else words.numbers[raw_n]
        sign = -1 if kind == "ago" else 1
        return _shift(words.units[_key(m.group("unit"))], sign * count, day)
    weekday = words.weekdays[_key(m.group("wd"))]
    direction = int(kind.removeprefix("weekday"))
    if direction == 0:
        direction = 1 if forward else -1
    return _weekday(weekday, direction, day).isoformat()


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _month(day: date, delta: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + delta
    return index // 12, index % 12 + 1


def _period(unit: str, direction: int, day: date) -> str:
    if unit == "week":
        return f"week of {(_monday(day) + timedelta(weeks=direction)).isoformat()}"
    if unit == "weekend":
        saturday = _monday(day) + timedelta(days=5)
        if direction < 0 and day.weekday() < 5:
            # Said Monday-Friday, "last weekend" is the one just gone.
            return (saturday - timedelta(weeks=1)).isoformat()
        return (saturday + timedelta(weeks=direction)).isoformat()
    if unit == "month":
        year, month = _month(day, direction)
        return f"{year:04d}-{month:02d}"
    return f"{day.year + direction:04d}"


def _shift(unit: str, count: int, day: date) -> str | None:
    if abs(count) > 500:
        return None
    if unit == "day":
        return (day + timedelta(days=count)).isoformat()
    if unit == "week":
        return (day + timedelta(weeks=count)).isoformat()
    if unit == "month":
        year, month = _month(day, count)
        return f"{year:04d}-{month:02d}"
    return f"{day.year + count:04d}"


def _weekday(weekday: int, direction: int, day: date) -> date:
    if direction < 0:
        back = (day.weekday() - weekday) % 7 or 7
        return day - timedelta(days=back)
    ahead = (weekday - day.weekday()) % 7 or 7
    return day + timedelta(days=ahead)


def dated_fact(
    fact: ExtractedFact, said_at: str
) -> tuple[ExtractedFact, dict[str, object]]:
    """`fact` with its relative dates resolved against `said_at` (ISO 8601), and the
    provenance metadata to store with it (`{}` when nothing was resolved).

    A date in the fact's content is written into it, and into its key and subject: "went to
    the dentist yesterday" said on two days is two visits, not one restated. A date only in
    the clause goes to the metadata, and to the end of an event's content, since it is when
    the event happened ("Last Saturday I ran my first half marathon": "Ran their first half
    marathon (2026-12-05)"); a state keeps it in the metadata alone ("Since last month I
    live in Berlin": "Lives in Berlin", true now, not only then)."""
    if not said_at:
        return fact, {}
    try:
        moment = parse_iso(said_at)
    except ValueError:
        return fact, {}
    in_content = resolve_dates(fact.content, moment, fact.lang, fact.clause)
    in_clause = resolve_dates(fact.clause, moment, fact.lang) if not in_content else []
    resolved = in_content or in_clause
    if not resolved:
        return fact, {}
    meta: dict[str, object] = {
        "dates": [r.to_json() for r in resolved],
        "dates_resolved_against": iso(moment),
    }
    if not in_content and fact.family != "event":
        return fact, meta
    content = (
        annotate(fact.content, in_content)
        if in_content
        else f"{fact.content} ({', '.join(r.value for r in in_clause)})"
    )
    suffix = "@" + ",".join(r.value.removeprefix("week of ") for r in resolved)
    return (
        dataclasses.replace(
            fact, content=content, key=fact.key + suffix, subject=fact.subject + suffix
        ),
        meta,
    )
