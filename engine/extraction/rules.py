"""What a fact rule is, and the index that picks the few rules worth trying on a clause.

A rule is one regular expression in one language with a named group `obj` (what the fact is
about), a template that turns the match into the stored third-person content, the family and
polarity of the fact, and the slot it fills. Rules are tried only on clauses that contain one
of their trigger words, which keeps extraction at thousands of turns a second with hundreds of
rules in five languages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from memtap.engine.extraction.keys import normalise
from memtap.engine.extraction.slots import choice_slot, favourite_slot
from memtap.engine.types import MemoryType

Family = Literal[
    "identity",
    "location",
    "work",
    "family",
    "constraint",
    "instruction",
    "stack",
    "goal",
    "event",
    "preference",
    "decision",
    "habit",
]
FAMILIES: tuple[Family, ...] = (
    "identity",
    "location",
    "work",
    "family",
    "constraint",
    "instruction",
    "stack",
    "goal",
    "event",
    "preference",
    "decision",
    "habit",
)
Polarity = Literal["positive", "negative"]
Accept = Callable[[re.Match[str], str], bool]
"""(match, cleaned object) -> keep the fact?"""
SlotOf = Callable[[str], "str | None"]
"""cleaned object -> slot"""

TYPE_OF: dict[str, MemoryType] = {
    "decision": "episodic",
    "event": "episodic",
    "instruction": "procedural",
}
_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Rule:
    lang: str
    family: Family
    polarity: Polarity
    regex: re.Pattern[str]
    templates: Mapping[str, str]
    """value of `key_group` (lower case, spaces collapsed) -> template; "" = default.
    Templates name groups of the regex: {obj}, {what}, {src}, {prep}, {verb}."""
    triggers: frozenset[str]
    slot: str | SlotOf | None = None
    choice: bool = False
    """The object's choice domain (editor, database, …) is the slot when it names one."""
    group: str = ""
    """At most one fact per group and clause (negative forms come first); "" = the family."""
    key_group: str = "verb"
    accept: Accept | None = None
    stop: re.Pattern[str] | None = None
    """Where the object ends (default objects.CLAUSE_END)."""
    resolvable: bool = False
    """The object can stand for a later "it"/"them" ("I got a Steam Deck. I love it.")."""
    keep_case: bool = False
    """Do not capitalise the content's first letter (German nouns, names)."""
    presupposed: bool = False
    """What the rule reads holds even in a question ("Gift ideas for my sister Hannah?")."""
    examples: tuple[tuple[str, str], ...] = ()
    """(what the user says, the content kept): run as tests (tests/engine/test_rule_examples.py)."""

    @property
    def type(self) -> MemoryType:
        return TYPE_OF.get(self.family, "factual")

    @property
    def exclusive_group(self) -> str:
        return self.group or self.family

    def slot_for(self, obj: str, what: str | None = None) -> str | None:
        """The single-valued slot a fact of this rule with object `obj` fills (None: the fact
        is multi-valued). `what` is the `{what}` group of "my favourite X is Y" rules."""
        if callable(self.slot):
            return self.slot(obj)
        if self.slot is not None and "{what}" in self.slot:
            # one slot per thing named: "my laptop is …" and "my phone is …" are two
            return self.slot.format(what=normalise(what)) if what else None
        if self.slot is not None:
            return self.slot
        if self.choice:
            if what:
                return favourite_slot(what)
            return choice_slot(obj, lists_allowed=self.family != "stack")
        return None

    def template_for(self, key: str) -> str:
        key = " ".join(key.lower().replace("’", "'").split())
        return (
            self.templates.get(key)
            or self.templates.get(key.replace("'", ""))
            or self.templates[""]
        )


def rule(
    lang: str,
    family: Family,
    rx: str,
    template: str | Mapping[str, str],
    triggers: str,
    polarity: Polarity = "positive",
    *,
    flags: int = re.IGNORECASE,
    **options: Any,
) -> Rule:
    templates = {"": template} if isinstance(template, str) else dict(template)
    return Rule(
        lang=lang,
        family=family,
        polarity=polarity,
        regex=re.compile(rx, flags),
        templates=templates,
        triggers=frozenset(triggers.lower().split()),
        **options,
    )


def tokens(text: str) -> set[str]:
    """Lower-case word tokens (letters only) of a clause, for the trigger index."""
    return set(_TOKEN.findall(text.lower()))


class RuleIndex:
    """Rules by trigger word; `candidates` keeps the rules' priority order."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules: tuple[Rule, ...] = ()
        self._by_word: dict[str, list[int]] = {}
        self.load(rules)

    def load(self, rules: Iterable[Rule]) -> None:
        """Index `rules` instead of the rules indexed so far."""
        self.rules = tuple(rules)
        self._by_word = {}
        for position, r in enumerate(self.rules):
            if not r.triggers:
                raise ValueError(f"rule without triggers: {r.regex.pattern}")
            for word in r.triggers:
                self._by_word.setdefault(word, []).append(position)

    def candidates(self, words: set[str]) -> list[Rule]:
        positions: set[int] = set()
        for word in words:
            hit = self._by_word.get(word)
            if hit:
                positions.update(hit)
        return [self.rules[p] for p in sorted(positions)]
