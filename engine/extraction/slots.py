"""Slots: the single-valued things a user has one of at a time, and the subject of a fact.

A fact that fills a slot (home city, employer, diet, answer language, …) supersedes the older
value of the same slot, whatever its polarity: "I don't live in Oslo any more" ends "Lives in
Oslo". Choices in a domain (editor, indentation, database, …) are slots too, one per domain
and scope: "tabs for Go" and "spaces for YAML" are both live; "I prefer tabs" (no scope) does
not replace either, so a shorter restatement never supersedes a richer, scoped fact.
Everything else is multi-valued: its subject is its own object, so "I like Java" and
"I don't like Java" replace each other and nothing else.
"""

from __future__ import annotations

import re

from memtap.engine.extraction.keys import normalise, stable_key
from memtap.engine.text import lexicon

SLOTS: dict[str, str] = {
    "identity.name": "the user's name",
    "identity.address_as": "how the user wants to be addressed",
    "identity.pronouns": "the user's pronouns",
    "identity.age": "the user's age",
    "identity.origin": "where the user is from",
    "location.home": "where the user lives or is based",
    "location.timezone": "the user's time zone",
    "work.employer": "who the user works for",
    "work.role": "the user's job or role",
    "work.team": "the user's team",
    "family.relationship": "married, single, engaged, …",
    "constraint.diet": "vegetarian, vegan, keto, …",
    "constraint.budget": "the user's budget",
    "instruction.language": "the language answers should be in",
    "instruction.tone": "formal, casual, direct, …",
    "instruction.length": "short, detailed, …",
}
"""Single-valued slots of the fact families (`choice.<domain>` slots come from DOMAINS)."""

DOMAINS = lexicon.CHOICE_DOMAINS
"""Mutually exclusive choices: a newer exclusive fact in the same domain supersedes the older."""

_LIST = re.compile(r",|" + lexicon.AND, re.IGNORECASE)
# "tabs over spaces for YAML in Helm charts": the scope is what follows the qualifier.
_SCOPE = re.compile(lexicon.SCOPE, re.IGNORECASE)
_UNIVERSAL = re.compile(lexicon.UNIVERSAL_SCOPE, re.IGNORECASE)


_ONE_WORD = {
    name: domain
    for domain, names in DOMAINS.items()
    for name in names
    if " " not in name
}
_SEVERAL_WORDS = [
    (name, domain) for domain, names in DOMAINS.items() for name in names if " " in name
]


def domain_of(obj: str) -> str | None:
    """The choice domain named in the first words of `obj`, if any."""
    words = normalise(obj).split("_")[:4]
    head = " " + " ".join(words) + " "
    found = [
        (head.index(f" {name} "), domain)
        for name, domain in _SEVERAL_WORDS
        if f" {name} " in head
    ]
    found += [(head.index(f" {w} "), _ONE_WORD[w]) for w in words if w in _ONE_WORD]
    return min(found)[1] if found else None


def choice_slot(obj: str, *, lists_allowed: bool = True) -> str | None:
    """`choice.<domain>[@scope]` for an exclusive choice, None when `obj` names no domain."""
    if not lists_allowed and _LIST.search(obj):
        return None  # "we use Postgres and Redis" is two facts' worth, not one choice
    domain = domain_of(obj)
    if domain is None:
        return None
    scope = _SCOPE.search(obj)
    # "Vim for everything" is the editor choice itself: a newer one replaces it.
    if scope and not _UNIVERSAL.match(scope.group("scope").strip()):
        return f"choice.{domain}@{normalise(scope.group('scope'))}"
    return f"choice.{domain}"


def favourite_slot(what: str) -> str:
    words = normalise(what).split("_")
    for name in DOMAINS:
        if name in words or name.replace("_", " ") == " ".join(words):
            return f"choice.{name}"  # "my favourite editor is vim" = a choice of editor
    return f"favourite.{normalise(what) or stable_key('', what)}"


def subject_of(slot: str | None, family: str, content_key: str) -> str:
    """The supersession subject: the slot when there is one, else the fact's own object."""
    if slot is None:
        return content_key
    if slot.startswith("choice."):
        return (
            "choice:" + slot[len("choice.") :]
        )  # the subjects stored before slots existed
    if slot.startswith("favourite."):
        return "preference:" + slot[len("favourite.") :]
    return "slot:" + slot
