"""A clause in which the user says something about themselves that no rule reads.

The rules read the phrasings they were written for; people say the same things in endless
other ways ("I go climbing 3x a week at the bouldering gym", "je vais au boulot à vélo tous
les matins", "Toda sexta eu jogo futsal"). Batches written apart from the rules showed the
rules alone keep a quarter to under a half of what people state on first sight. This is the
net under them: a clause that opens with the user as its subject (or, in Spanish and
Portuguese, with a first-person verb), says nothing about the conversation itself and has a
word that names a family (or is "I'm <who>": identity), is kept as the user said it:
`Said: "…"`.

Kept verbatim, in quotes, for three reasons: no verb has to be conjugated in five languages;
the wording cannot be read back as one of the rules' templates, so such a fact claims no
slot and never supersedes a rule's fact (`conflict.claim_of` reads nothing from a quotation);
and what is injected is exactly what the user said.

What keeps it from storing the turn's task ("I tried that and still get the error", "I'm
writing a cover letter for Google"): the clause must not be a question, hypothetical,
fiction or report (checked by the caller), must not speak to or about the assistant, point
at the conversation ("this", "that", "it"), quote anyone, use the words of debugging, asking,
planning the day or thinking aloud, or say what the user is doing or where they are right
now; and it must name a family by one of its words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from memtap.engine.languages.detect import WORD, language_of
from memtap.engine.stopwords import STOPWORDS
from memtap.engine.text import lexicon

MAX_WORDS = 30
MIN_WORDS = 3
PREFIX = 'Said: "'
Polarity = Literal["positive", "negative"]

_OPENING = re.compile(
    r"^[\W_]*" + lexicon.FILLER + r"*(?:" + lexicon.FREQUENCY + r"[,\s]+)?"
    r"(?:"
    + lexicon.PARTNER
    + lexicon.SELF_SUBJECT
    + r"(?:\b|(?<=')|\s)|"
    + lexicon.SELF_VERB
    + r"\b)",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^[\W_]*" + lexicon.FILLER + r"*", re.IGNORECASE)
_NOT_ABOUT_USER = re.compile(lexicon.NOT_ABOUT_USER, re.IGNORECASE)
_DOING_NOW = re.compile(lexicon.DOING_NOW, re.IGNORECASE)
_NEGATION = re.compile(lexicon.SELF_NEGATION, re.IGNORECASE)

_FAMILIES: dict[str, re.Pattern[str]] = {
    family: re.compile(r"\b(?:" + words + r")\b", re.IGNORECASE)
    for family, words in lexicon.FAMILY_WORDS.items()
}


@dataclass(frozen=True, slots=True)
class SelfStatement:
    family: str
    polarity: Polarity
    content: str
    """`Said: "<the clause as the user said it>"`."""
    lang: str = "en"
    """The language it was said in, by its commonest words (en | es | pt | fr | de)."""


def self_statement(
    clause: str, restored: str | None = None, after_change: str | None = None
) -> SelfStatement | None:
    """The clause as a fact the user stated about themselves, or None. `restored` is the clause
    with the subject it left out ("Single dad here" -> "I'm a single dad"): enough to open a
    self-statement when a word names its family; what is quoted is the clause as said.
    `after_change` is the family of a value the user gave up in the clause before ("I'm not
    vegan any more, …"): a clause saying "now" then states the new value ("… I eat fish
    now"), of that family, even as what the user does now."""
    if after_change is not None:
        return _new_value(clause, after_change)
    if _OPENING.match(clause) is None:
        # Only who the user is ("I'm a …") opens one: a remark that left out "I" and goes on
        # with a verb is mostly about the task ("Moved to the next step").
        if restored is None or not restored.startswith("I'm "):
            return None
        as_restored = self_statement(restored)
        if as_restored is None or _family_named(restored) is None:
            return None
        # `restored` passed every check; the quote is the clause as the user wrote it
        said = _main_clause(_LEAD.sub("", clause)).strip(" \t.,;:!-–—")
        return SelfStatement(
            as_restored.family, as_restored.polarity, _quoted(said), language_of(said)
        )
    said = _main_clause(_LEAD.sub("", clause)).strip(" \t.,;:!-–—")
    words = WORD.findall(said)
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return None
    if _NOT_ABOUT_USER.search(said) or _DOING_NOW.match(said):
        return None
    family = _family_named(said)
    if not any(_content_word(word, family) for word in words[1:]):
        return None  # "Ich liebe es", "Me encanta, de verdad": a feeling with no object
    if family is None:
        family = _family_by_grammar(said)
        if family is None:
            return None
    head = " ".join(words[:5])
    polarity: Polarity = "negative" if _NEGATION.search(head) else "positive"
    return SelfStatement(family, polarity, _quoted(said), language_of(said))


def _new_value(clause: str, family: str) -> SelfStatement | None:
    said = _LEAD.sub("", clause).strip(" \t.,;:!-–—")
    now = _NOW.search(said)
    words = WORD.findall(said)
    if now is None or not MIN_WORDS <= len(words) <= MAX_WORDS:
        return None
    # the user opens it, before or after its "now" ("ahora como pescado": a first-person verb)
    rest = _LEAD.sub("", said[now.end() :]) if now.start() == 0 else said
    opening = _OPENING.match(rest) or _FIRST_PERSON_ENDING.match(rest)
    if opening is None:
        return None
    # its verb is the user's, whatever it spells in another language ("ich esse": "esse")
    after_verb = WORD.sub("", rest[opening.end() :].lstrip(), count=1)
    if _NOT_ABOUT_USER.search(_NOW.sub(" ", after_verb)):
        return None
    if not any(_content_word(word, family) for word in words[1:]):
        return None
    polarity: Polarity = (
        "negative" if _NEGATION.search(" ".join(words[:5])) else "positive"
    )
    return SelfStatement(family, polarity, _quoted(said), language_of(said))


_NOW = re.compile(r"\b" + lexicon.NOW + r"\b", re.IGNORECASE)
_FIRST_PERSON_ENDING = re.compile(
    r"^" + lexicon.FIRST_PERSON_ENDING + r"\b", re.IGNORECASE
)
_CONSEQUENCE = re.compile(lexicon.CONSEQUENCE, re.IGNORECASE)


def _main_clause(said: str) -> str:
    cut = _CONSEQUENCE.search(said)
    return said[: cut.start()] if cut is not None and cut.start() > 0 else said


def _quoted(said: str) -> str:
    return f'{PREFIX}{said[:1].upper()}{said[1:]}"'


def _family_named(said: str) -> str | None:
    return next((name for name, names in _FAMILIES.items() if names.search(said)), None)


# "I'm <who>": with no word naming a family, the only self-statement kept (identity).
_IS = re.compile(lexicon.I_AM, re.IGNORECASE)
# How the user is right now, not who they are.
_PASSING = lexicon.PASSING


def _family_by_grammar(said: str) -> str | None:
    """With no word naming a family, only "I'm <who>" is kept (identity): what the user did or
    does without such a word was mostly the task ("We have a deadline with Acme")."""
    m = _IS.match(said)
    if m is None:
        return None
    following = m.group("next").lower().strip(".,!?")
    if following in _PASSING or following[:1].isdigit():
        return None
    return "identity"


def _content_word(word: str, family: str | None) -> bool:
    low = word.lower()
    # "Ich liebe es": the verb that names a preference is not its object ("ADHD" is).
    if low in _EMPTY_WORDS or (
        family == "preference" and _FAMILIES[family].fullmatch(word)
    ):
        return False
    return (
        any(ch.isdigit() for ch in word)
        or word[:1].isupper()
        or (len(low) >= 4 and low not in STOPWORDS)
    )


# Words that only say how much: no object.
_EMPTY_WORDS = lexicon.EMPTY_WORDS


_ANSWER_WORDS = re.compile(lexicon.ANSWER_WORDS, re.IGNORECASE)
_STANDING = re.compile(lexicon.SELF_STANDING, re.IGNORECASE)
_OPENS_AS_ORDER = re.compile(lexicon.OPENS_AS_ORDER, re.IGNORECASE)
_ABOUT_THIS = re.compile(lexicon.ABOUT_THIS, re.IGNORECASE)
_ORDER_NEGATION = re.compile(lexicon.ORDER_NEGATION, re.IGNORECASE)


def standing_instruction(clause: str) -> SelfStatement | None:
    """The clause as an instruction for every answer, or None."""
    said = _LEAD.sub("", clause).strip(" \t.,;:!-–—")
    words = WORD.findall(said)
    if not MIN_WORDS - 1 <= len(words) <= MAX_WORDS:
        return None
    if not _ANSWER_WORDS.search(said) or _ABOUT_THIS.search(said) or "?" in said:
        return None
    if not (_STANDING.search(said) or _OPENS_AS_ORDER.match(said)):
        return None
    polarity: Polarity = "negative" if _ORDER_NEGATION.search(said) else "positive"
    return SelfStatement("instruction", polarity, _quoted(said), language_of(said))
