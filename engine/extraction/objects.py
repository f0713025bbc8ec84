"""The object of a fact: where it ends, what it may not be, and how it reads in third person.

The whole object is kept: lists ("peanuts, shellfish and eggs"), qualifiers ("for YAML in
Helm charts") and versions ("Python 3.8") stay; the object ends where the reasoning or the
next clause starts ("because…", "but…", "which…").
"""

from __future__ import annotations

import re

from memtap.engine.extraction.keys import sanitise
from memtap.engine.text import lexicon

MAX_OBJECT_CHARS = 300

# Where the object of a fact ends: the rest is reasoning or another clause, not the fact.
CLAUSE_END = re.compile(lexicon.CLAUSE_END, re.IGNORECASE)
# A comma ends the object unless what follows is one more item of a list or a short
# apposition ("Portland, Oregon"; "peanuts, shellfish and eggs").
_COMMA_STOP = re.compile(lexicon.COMMA_STOP, re.IGNORECASE)
_TRAILING = re.compile(
    r"(?:[\s,]+(?:"
    + "|".join(re.escape(t).replace(r"\ ", r"\s+") for t in lexicon.TRAILING)
    + r"))+\s*$",
    re.IGNORECASE,
)
_END_PUNCT = ".!?。！？…\"')]»“”,"
_WORD = re.compile(r"[\w'-]+")

SECOND_PERSON = re.compile(lexicon.SECOND_PERSON, re.IGNORECASE)
DEICTIC = re.compile(lexicon.DEICTIC, re.IGNORECASE)
_TIME = re.compile(lexicon.TIME, re.IGNORECASE)


def _last_word(text: str) -> str:
    words = _TOKEN.findall(text[-24:].lower())
    return words[-1] if words else ""


def strip_time(obj: str) -> str:
    """ "Kafka this quarter" -> "Kafka": when a state holds is not part of the state."""
    last = _last_word(obj)
    if last not in lexicon.TIME_ENDS and not (obj[-4:].isdigit()):
        return (
            obj  # the costly end-anchored search only when the object ends like a time
        )
    return _TIME.sub("", obj).strip() or obj


_END_MARKS = frozenset(";:(-–—")
_TOKEN = re.compile(r"[^\W\d_]+")


def clean_object(raw: str, stop: re.Pattern[str] | None = None) -> str:
    """The object as stated, up to where the fact ends, without trailing fillers."""
    # The split is the costly part: skip it when no word or mark that ends a fact is there.
    if (
        stop is not None
        or not _END_MARKS.isdisjoint(raw)
        or not lexicon.END_WORDS.isdisjoint(_TOKEN.findall(raw.lower()))
    ):
        raw = (stop or CLAUSE_END).split(raw, maxsplit=1)[0]
    obj = _keep_list(raw)
    obj = obj.strip().rstrip(_END_PUNCT).strip()
    previous = None
    while previous != obj:  # "Oslo now." -> "Oslo"; "vim too, honestly" -> "vim"
        previous = obj
        if _last_word(obj) in lexicon.TRAILING_ENDS:
            obj = _TRAILING.sub("", obj).strip().rstrip(_END_PUNCT).strip()
    return sanitise(obj, MAX_OBJECT_CHARS)


def _keep_list(obj: str) -> str:
    parts = obj.split(",")
    kept = [parts[0]]
    for part in parts[1:]:
        words = _WORD.findall(part)
        if not words or len(words) > 6 or _COMMA_STOP.match(part):
            break
        kept.append(part)
    return ",".join(kept)


def is_bare_pronoun(obj: str) -> bool:
    words = [w.lower() for w in _WORD.findall(obj)]
    if not words:
        return True
    if words[0] not in lexicon.PRONOUNS:
        return False
    return len(words) == 1 or all(w in lexicon.INTENSIFIERS for w in words[1:3])


def is_second_person(obj: str) -> bool:
    return SECOND_PERSON.search(obj) is not None


def is_deictic(obj: str) -> bool:
    return DEICTIC.match(obj) is not None


_FIRST_EN = re.compile(
    r"\b(?:I'm|I've|I'll|I'd|my|mine|myself|me|I|our|ours|we|us|ourselves)\b"
)
_FIRST_OTHER = re.compile(
    r"\b(?:" + "|".join(lexicon.THIRD_OTHER) + r")\b", re.IGNORECASE
)
_I_AM = re.compile(r"\bI\s+am\b")


def third_person(text: str, lang: str) -> str:
    """The user's first person turned to third ("my wife" -> "their wife")."""
    if lang == "en":
        text = _I_AM.sub("they are", text)
        return _FIRST_EN.sub(
            lambda m: lexicon.THIRD_EN.get(m.group(0).lower(), m.group(0)), text
        )
    return _FIRST_OTHER.sub(lambda m: lexicon.THIRD_OTHER[m.group(0).lower()], text)


_IRREGULAR_THIRD = {"have": "has", "do": "does", "go": "goes", "be": "is"}


def third_singular(verb: str) -> str:
    """An English base-form verb in the third person singular ("journal" -> "journals")."""
    low = verb.lower()
    if low in _IRREGULAR_THIRD:
        return _IRREGULAR_THIRD[low]
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"
