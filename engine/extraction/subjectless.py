"""English clauses that leave out their subject ("Just moved to Denver", "can't do gluten",
"not a coffee person", "huge Ghibli nerd here"): the user speaking about themselves in the
terse way people type. The rules read a subject; `with_subject` gives the clause back with
the one it left out, or None when it is not such a clause.

Only what states something about the speaker opens such a clause, each with the words that
make it a statement: a few past tenses ("moved to Denver", "got married"), stative verbs
("work at", "live in", "hate cilantro"), plans in -ing ("training for"), the adjectives of
the constraint and identity rules ("allergic to", "vegan" ending its clause), who signs with
"here", and what is the user's own said without "my" ("pronouns are they/them"). Verbs that
also read as an order ("use", "run", "write") never do, so "Use Postgres for this" stays a
request, and searches or titles ("Vegan lasagna recipe", "Love Island recap") stay what they
are.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memtap.engine.languages import en
from memtap.engine.languages.registry import PACKS
from memtap.engine.text import lexicon

_PAST_OR_STATIVE = re.compile(en.PAST_OR_STATIVE, re.IGNORECASE)
_STATE = re.compile(en.STATE, re.IGNORECASE)
_BORN = re.compile(r"^" + en.SUBJECTLESS_FILLERS + r"(?=born\b)", re.IGNORECASE)
_OWN = re.compile(en.OWN, re.IGNORECASE)
_BEEN = re.compile(r"^" + en.SUBJECTLESS_FILLERS + r"(?=been\b)", re.IGNORECASE)
_HERE = re.compile(en.HERE, re.IGNORECASE)
_NOT_WHO = re.compile(en.NOT_WHO, re.IGNORECASE)
_NAME = re.compile(r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?")
_HAS_SUBJECT = re.compile(en.HAS_SUBJECT)


def with_subject(clause: str) -> str | None:
    """`clause` with the "I" (or "I'm", "I was") it left out, or None."""
    if _HAS_SUBJECT.match(clause):
        return None
    here = _HERE.match(clause)
    if (
        here is not None
        and not _NOT_WHO.match(here.group("who"))
        and not _NAME.fullmatch(here.group("who"))
    ):
        who = _lower_opening(here.group("who"))
        article = (
            ""
            if re.match(r"(?:a|an|the)\s", who, re.IGNORECASE)
            else ("an " if who[:1].lower() in "aeiou" else "a ")
        )
        return f"I'm {article}{who}{clause[here.end() :]}"
    for pattern, subject in (
        (_BORN, "I was "),
        (_BEEN, "I've "),
        (_PAST_OR_STATIVE, "I "),
        (_STATE, "I'm "),
        (_OWN, "my "),
    ):
        m = pattern.match(clause)
        if m is not None:
            return subject + _lower_opening(clause[m.end() :])
    return None


def _lower_opening(text: str) -> str:
    """`text` without the capital it had for opening the message ("Data engineer", "Moved to
    Denver"); a name or an acronym keeps its case."""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def in_subject_order(clause: str) -> str | None:
    """A clause whose subject follows its verb because something else opens it (German
    verb-second: "Inzwischen bevorzuge ich Helix statt Vim", "Seit 2020 arbeite ich bei
    SAP"), in subject order without what opened it ("ich bevorzuge Helix statt Vim"), for
    every pack that names `inverted_subjects`; None otherwise. What opened it is a time or a
    place, which a fact leaves out anyway."""
    lower = clause.lower()
    for pack in PACKS.values():
        if pack.inverted_subjects and any(
            w in lower for w in _words_of(pack.inverted_subjects)
        ):  # a substring test spares the regex on nearly every clause
            m = _inverted(pack.inverted_subjects).match(clause)
            if (
                m is not None
                and m.group("verb") not in _NOT_VERBS
                and m.group("rest").strip(" .!?,;")
            ):
                return f"{m.group('subject')} {m.group('verb')}{m.group('rest')}"
    return None


_NOT_VERBS = lexicon.JOINERS | lexicon.END_WORDS
"""Lower-case words before the subject that are no verb ("Meine Frau und ich wohnen")."""


@lru_cache(maxsize=8)
def _words_of(subjects: str) -> tuple[str, ...]:
    return tuple(w for w in re.findall(r"[^\W\d_]+", subjects.lower()) if len(w) > 1)


@lru_cache(maxsize=8)
def _inverted(subjects: str) -> re.Pattern[str]:
    # one to three words before a lower-case verb (nouns are capitalised), then the subject;
    # the words before may not be a subject themselves ("Meine Frau und ich wohnen …")
    return re.compile(
        r"^[\W_]*(?:(?!(?i:" + subjects + r")\b)[\w-]+\s+){1,3}?"
        r"(?P<verb>[a-zäöüß]+)\s+(?P<subject>(?i:" + subjects + r"))\b(?P<rest>.*)$"
    )
