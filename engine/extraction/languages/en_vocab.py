"""What the English rule modules share: vocabularies (jobs, relatives, pets, languages, styles),
the checks that accept or refuse a match, and where objects end."""

from __future__ import annotations

import re
from typing import Any

from memtap.engine.extraction.rules import Rule, rule
from memtap.engine.languages import en

_CAP = (
    r"(?=[A-Z0-9])"  # a proper name follows (checked case-sensitively by `is_proper`)
)
_NAME = re.compile(
    r"^[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|de|da|van|von|der|del|la|le|al|bin|ben))*$"
)


# The English words these checks read (engine/languages/en.py).
_ROLE_WORDS = en.ROLE_WORDS
NOT_NAMES = en.NOT_NAMES
NOT_PLACES = en.NOT_PLACES
_ROLE_SUFFIXES = en.ROLE_SUFFIXES
_NOT_A_JOB = re.compile(en.NOT_A_JOB, re.IGNORECASE)
_NOT_ROLES = en.NOT_ROLES
REL = en.REL
PET = en.PET
REL_TRIGGERS = en.REL_TRIGGERS
PET_TRIGGERS = en.PET_TRIGGERS
LANGS = en.LANGS
LANG_TRIGGERS = en.LANG_TRIGGERS
_TECH = re.compile(en.TECH, re.IGNORECASE)
LOOSE_VERBS = en.LOOSE_VERBS
VERBISH = en.VERBISH
_TASK_VERBS = en.TASK_VERBS
_HORIZON = re.compile(en.HORIZON, re.IGNORECASE)
_WHEN = en.WHEN
ROLE_STOP = re.compile(en.ROLE_STOP, re.IGNORECASE)
OBJ_STOP = re.compile(en.OBJ_STOP, re.IGNORECASE)
NAME_STOP = re.compile(en.NAME_STOP, re.IGNORECASE)
PLACE_STOP = re.compile(en.PLACE_STOP, re.IGNORECASE)
NOT_ANY_MORE = en.NOT_ANY_MORE


def is_proper(match: re.Match[str], obj: str) -> bool:
    return obj[:1].isupper() or obj[:1].isdigit()


def is_name(match: re.Match[str], obj: str) -> bool:
    return bool(_NAME.match(obj)) and len(obj.split()) <= 4


def _role_word(phrase: str) -> bool:
    words = [
        w
        for w in re.findall(r"[a-z][\w-]*", phrase.lower())
        if w not in {"a", "an", "the"}
    ]
    if not words or len(words) > 6:
        return False
    last = words[-1]
    if last in _NOT_ROLES or _NOT_A_JOB.search(phrase):
        return False  # "a terrible cook", "an amateur photographer" are not jobs
    return last in _ROLE_WORDS or last.endswith(_ROLE_SUFFIXES)


def is_role(match: re.Match[str], obj: str) -> bool:
    return _role_word(ROLE_STOP.split(obj, maxsplit=1)[0])


def role_then_org(match: re.Match[str], obj: str) -> bool:
    return _role_word(match.group("role")) and is_proper(match, obj)


def is_task(obj: str) -> bool:
    """An object about the task at hand ("fix this bug", "know how"), not a durable fact."""
    first = obj.split(maxsplit=1)[0].lower() if obj else ""
    return (
        first in _TASK_VERBS
        or re.search(r"\b(?:this|that|it|these|those)\b", obj, re.IGNORECASE)
        is not None
    )


def not_task(match: re.Match[str], obj: str) -> bool:
    """Not a task for the assistant ("I want to read this file"); a goal with a horizon
    ("I want to read 50 books this year") is a plan even with a task verb."""
    horizon = _HORIZON.search(match.string) is not None
    obj_without_time = _HORIZON.sub("", obj)
    first = obj.split(maxsplit=1)[0].lower() if obj else ""
    return (horizon or first not in _TASK_VERBS) and not re.search(
        r"\b(?:this|that|it|these|those)\b", obj_without_time, re.IGNORECASE
    )


def is_technical(match: re.Match[str], obj: str) -> bool:
    return _TECH.search(obj) is not None


def en_rule(
    family: str,
    rx: str,
    template: object,
    triggers: str,
    polarity: str = "positive",
    **options: Any,
) -> Rule:
    return rule("en", family, rx, template, triggers, polarity, **options)  # type: ignore[arg-type]
