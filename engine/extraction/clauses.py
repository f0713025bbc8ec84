"""Sentences and clauses of what the user says, and the clauses that state no fact.

No facts come from questions, hypotheticals ("if I…", "suppose…", "imagine…"), conditional
wishes ("I would move to Berlin"), fiction ("in this story I…"), reported speech ("my boss
says I…") or requests to produce or transform text ("translate…", "write a story where…",
"summarise this"). A request that points at its material ("translate this", "the text below",
a colon) makes the whole message material; otherwise the request and what follows it are.
"""

from __future__ import annotations

import re
from typing import Literal

from memtap.engine.text import lexicon
from memtap.engine.text.sentences import sentences as split_sentences

NonFact = Literal["question", "hypothetical", "reported", "request", "fiction"]

_PARENTHESIS = re.compile(r"\(([^()]{3,200})\)")
_CLAUSE_SPLIT = re.compile(
    r"\s*;\s*|(?<!\bme),?\s+(?:" + "|".join(sorted(lexicon.JOINERS)) + r")\s+"
    r"(?!I\s+(?:are|were|both|have\s+both)\b)(?="
    + lexicon.SUBJECT
    + r"\b|"
    + lexicon.FIRST_PERSON_VERB
    + r"\b)"
    r"|,\s+(?=" + lexicon.SUBJECT + r"\b)"
    # "Ya no soy vegana, ahora como pescado": the new value after the one given up
    r"|,\s+(?="
    + lexicon.NOW
    + r"\s+(?:"
    + lexicon.FIRST_PERSON_ENDING
    + r"|"
    + lexicon.FIRST_PERSON_VERB
    + r"|\w+\s+"
    + lexicon.INVERTED_SUBJECT
    + r")\b)"
    # a question after a statement ("…, what would you pick?", "…, tu connais un bouchon ?")
    r"|,\s+(?=" + lexicon.QUESTION_TAIL + r")|(?:,|\s)\s*(?=¿)"
    r"|,\s+(?=any\s)|\s+[—–]\s+(?=[^—–]*\?\s*$)",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(lexicon.QUESTION_START, re.IGNORECASE)
_HYPOTHETICAL = re.compile(lexicon.HYPOTHETICAL, re.IGNORECASE)
_CONDITIONAL = re.compile(lexicon.CONDITIONAL, re.IGNORECASE)
_FICTION = re.compile(lexicon.FICTION, re.IGNORECASE)
_REPORTED = re.compile(lexicon.REPORTED, re.IGNORECASE)
_SPEAKER_I = re.compile(lexicon.SPEAKER_I, re.IGNORECASE)
_REQUEST = re.compile(lexicon.REQUEST, re.IGNORECASE)
_REQUEST_INSIDE = re.compile(lexicon.REQUEST_INSIDE, re.IGNORECASE)
_POINTS_AT_MATERIAL = re.compile(lexicon.POINTS_AT_MATERIAL, re.IGNORECASE)


_STANDING = re.compile(lexicon.REQUEST_STANDING, re.IGNORECASE)
_CREATIVE = re.compile(lexicon.CREATIVE, re.IGNORECASE)


_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def words_of(text: str) -> set[str]:
    """Lower-case letter-only words of `text` (what the prefilters and the rule index look at)."""
    return set(_WORD.findall(text.lower()))


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def sentences(text: str) -> list[str]:
    """The engine's sentences, a semicolon ending one ("I live in Oslo; I work at Acme")."""
    return split_sentences(text, semicolons=True)


def asides(sentence: str) -> list[str]:
    """What `sentence` says in parentheses, each read as one more sentence ("Book the call
    for 10 my time (I'm in Manaus)"); the sentence keeps it too."""
    if "(" not in sentence:
        return []
    return [
        inner.strip()
        for inner in _PARENTHESIS.findall(sentence)
        if len(inner.split()) >= 2
    ]


def clauses(sentence: str, words: set[str] | None = None) -> list[str]:
    """A sentence cut where a new subject starts ("…, and I live in Leeds")."""
    if (
        "," not in sentence
        and ";" not in sentence
        and "—" not in sentence
        and "–" not in sentence
        and "¿" not in sentence
        and lexicon.JOINERS.isdisjoint(words if words is not None else _words(sentence))
    ):
        return [sentence]
    return [c.strip(" ,") for c in _CLAUSE_SPLIT.split(sentence) if c and c.strip(" ,")]


RequestScope = Literal["all", "from_here", "sentence"]


def request_kind(sentence: str, words: set[str] | None = None) -> RequestScope | None:
    """Whether `sentence` asks for text to be produced or transformed, and how much of the
    message is its material: "all" (the request points at it: "translate this:"),
    "from_here" (fiction: the request and the details that follow it), or "sentence"."""
    if lexicon.REQUEST_WORDS.isdisjoint(
        words if words is not None else _words(sentence)
    ):
        return None
    if _STANDING.search(sentence):
        return None  # "Please write all code with type hints" is an instruction, not a task
    if _REQUEST.match(sentence) or _REQUEST_INSIDE.search(sentence):
        if _POINTS_AT_MATERIAL.search(sentence):
            return "all"
        if _CREATIVE.search(sentence):
            return "from_here"
        return "sentence"
    return None


def reports(clause: str, words: set[str] | None = None) -> bool:
    """Whether `clause` introduces somebody else's words ("my boss says", "Mein Chef sagt"):
    the clause after it is reported speech."""
    if lexicon.REPORTED_WORDS.isdisjoint(
        words if words is not None else _words(clause)
    ):
        return False
    for m in _REPORTED.finditer(clause):
        if not _SPEAKER_I.search(clause[: m.start()]):
            return True
    return False


def non_fact(
    clause: str, fact_start: int = 0, words: set[str] | None = None
) -> NonFact | None:
    """Why `clause` states no fact about the user, None if it may. `fact_start` is where a
    candidate fact begins: reported speech only counts when it comes before the fact."""
    stripped = clause.rstrip()
    if (
        stripped.endswith("?")
        or stripped.startswith("¿")
        or _QUESTION_START.match(stripped)
    ):
        return "question"
    if words is None:
        words = _words(stripped)
    if not lexicon.HYPOTHETICAL_WORDS.isdisjoint(words) and (
        _HYPOTHETICAL.match(stripped) or _CONDITIONAL.search(stripped)
    ):
        return "hypothetical"
    if not lexicon.FICTION_WORDS.isdisjoint(words) and _FICTION.search(stripped):
        return "fiction"
    if lexicon.REPORTED_WORDS.isdisjoint(words):
        return None
    for m in _REPORTED.finditer(stripped):
        if m.start() <= fact_start and not _SPEAKER_I.search(stripped[: m.start()]):
            return "reported"
    return None
