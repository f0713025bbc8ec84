"""The rule shapes, written once: each `Phrase` of a language pack becomes one rule.

A shape is what every language's way of saying one kind of fact shares: its family,
polarity, slot, exclusive group and the checks its object must pass. The phrase brings the
language's words (regular expression, template, triggers). A language is a pack
(`engine/languages/`) registered in `catalog`; no code of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memtap.engine.extraction.rules import Accept, Family, Polarity, Rule, SlotOf, rule
from memtap.engine.extraction.slots import domain_of
from memtap.engine.languages.pack import LanguagePack, Phrase

START = r"(?:^|(?<=[\s,;:(\"'¿¡]))"
"""Where a phrase may start: the clause's start or after a space or an opening mark."""
NAME_STOP = re.compile(
    r"\s+(?:y|e|et|und|and|pero|mas|mais|aber|from|aus|de\s+\d)\b|[,;.!(]",
    re.IGNORECASE,
)
"""Where a name ends, in every language ("Me llamo Ana y …", "Ich heiße Jan aus Köln")."""

Check = Callable[[LanguagePack], Accept]
SlotRule = Callable[[LanguagePack], SlotOf]


@dataclass(frozen=True, slots=True)
class Shape:
    family: Family
    polarity: Polarity = "positive"
    slot: str | SlotRule | None = None
    group: str = ""
    choice: bool = False
    check: Check | None = None
    stop: str = "object"
    """"object" (the pack's `stop`), "role" (`role_stop`) or "name" (`NAME_STOP`)."""


# -- checks an object must pass --------------------------------------------------------------
def _proper(pack: LanguagePack) -> Accept:
    return lambda m, obj: obj[:1].isupper() or obj[:1].isdigit()


def _lower(pack: LanguagePack) -> Accept:
    return lambda m, obj: obj[:1].islower()


def _proper_or_indefinite(pack: LanguagePack) -> Accept:
    return lambda m, obj: (
        obj[:1].isupper()
        or obj[:1].isdigit()
        or m.group("prep").lower() in pack.indefinite_preps
    )


def _goal(pack: LanguagePack) -> Accept:
    """A goal is an infinitive ("quiero aprender alemán"), not a question ("quiero saber")."""

    def first_verb(m: re.Match[str], obj: str) -> bool:
        first = obj.split(maxsplit=1)[0].lower() if obj else ""
        return first.endswith(pack.goal_verb_endings) and first not in pack.not_goals

    def last_verb(m: re.Match[str], obj: str) -> bool:
        words = obj.split()
        return (
            bool(words)
            and words[-1].lower().endswith(pack.goal_verb_endings)
            and words[-1].lower() not in pack.not_goals
        )

    return last_verb if pack.goal_verb_last else first_verb


def _names_a_choice(pack: LanguagePack) -> Accept:
    """The object names a choice domain (editor, database, …): "I'll move to Postgres", not
    "I'll move to Lisbon"."""
    return lambda m, obj: domain_of(obj) is not None


def _choice_or_name(pack: LanguagePack) -> Accept:
    """A choice or a proper name: "I adopted Kotlin", not "I adopted a dog"."""
    return lambda m, obj: domain_of(obj) is not None or obj[:1].isupper()


def _switch(pack: LanguagePack) -> Accept:
    """A move from one choice to another ("moved from MySQL to Postgres"), or of a thing the
    user names ("moved our infra from Heroku to Render"), not of the user (from Oslo to
    Bergen)."""
    return lambda m, obj: (
        bool(m.groupdict().get("thing"))
        or domain_of(obj) is not None
        or domain_of(m.groupdict().get("src") or "") is not None
    )


def _rx(text: str) -> re.Pattern[str]:
    return re.compile(text or r"(?!x)x", re.IGNORECASE)


def _technical(pack: LanguagePack) -> Accept:
    technical = _rx(pack.technical)
    return lambda m, obj: technical.search(obj) is not None


def _standing(pack: LanguagePack) -> Accept:
    """A style or behaviour instruction, or any instruction said to hold from now on."""
    style, behaviour, standing = (
        _rx(pack.style),
        _rx(pack.behaviour),
        _rx(pack.standing),
    )
    return lambda m, obj: (
        style.search(obj) is not None
        or behaviour.match(obj) is not None
        or standing.search(m.string) is not None
    )


def _not_task(pack: LanguagePack) -> Accept:
    """Not the task at hand ("I want to read this file"); a goal with a horizon ("I want to
    read 50 books this year") is a plan even with a task verb."""
    horizon, deictic = _rx(pack.horizon), _rx(r"\b(?:" + pack.deictic + r")\b")

    def check(m: re.Match[str], obj: str) -> bool:
        first = obj.split(maxsplit=1)[0].lower() if obj else ""
        planned = horizon.search(m.string) is not None
        return (planned or first not in pack.task_verbs) and not deictic.search(
            horizon.sub("", obj)
        )

    return check


# -- slots that depend on the object ---------------------------------------------------------
def _diet(pack: LanguagePack) -> SlotOf:
    diets = re.compile(pack.diets, re.IGNORECASE)
    return lambda obj: "constraint.diet" if diets.match(obj) else None


def _diet_named(pack: LanguagePack) -> SlotOf:
    diets = _rx(pack.diets)
    return lambda obj: "constraint.diet" if diets.search(obj) else None


def _instruction(pack: LanguagePack) -> SlotOf:
    length, tone = _rx(pack.length), _rx(pack.tone)
    return lambda obj: (
        "instruction.length"
        if length.search(obj)
        else "instruction.tone"
        if tone.search(obj)
        else None
    )


def _style(pack: LanguagePack) -> SlotOf:
    return lambda obj: (
        "instruction.length" if obj.startswith(pack.brief_words) else "instruction.tone"
    )


SHAPES: dict[str, Shape] = {
    # identity
    "name": Shape("identity", slot="identity.name", check=_proper, stop="name"),
    "address_as": Shape("identity", slot="identity.address_as"),
    "origin": Shape("identity", slot="identity.origin", check=_proper),
    "age": Shape("identity", slot="identity.age"),
    # location
    "home": Shape("location", slot="location.home"),
    "home_left": Shape("location", "negative", slot="location.home"),
    # work
    "employer": Shape("work", slot="work.employer", group="employer", check=_proper),
    "employer_any": Shape("work", slot="work.employer", group="employer"),
    "employer_or_indefinite": Shape(
        "work", slot="work.employer", group="employer", check=_proper_or_indefinite
    ),
    "employer_left": Shape("work", "negative", slot="work.employer", group="employer"),
    "role": Shape("work", slot="work.role", group="role", stop="role"),
    "role_as": Shape("work", slot="work.role", group="role"),
    "field": Shape("work", group="field"),
    "field_common": Shape("work", group="field", check=_lower),
    # family and pets
    "relative": Shape("family"),
    "no_relative": Shape("family", "negative"),
    "relationship": Shape("family", slot="family.relationship", group="relationship"),
    "parent": Shape("family", group="parent"),
    # constraints
    "allergy": Shape("constraint", group="allergy"),
    "diet": Shape("constraint", slot=_diet, group="diet"),
    "diet_left": Shape("constraint", "negative", slot="constraint.diet", group="diet"),
    "food_refused": Shape("constraint", "negative", group="food"),
    "budget": Shape("constraint", slot="constraint.budget", group="budget"),
    "budget_other": Shape("constraint", group="budget"),
    "diet_named": Shape("constraint", slot="constraint.diet", group="diet"),
    "diet_said": Shape("constraint", slot=_diet_named, group="diet"),
    "diet_other": Shape("constraint", group="diet"),
    "refused": Shape("constraint", "negative", group="choice"),
    "device": Shape("constraint", group="device"),
    "physical_refused": Shape("constraint", "negative", group="physical"),
    "time": Shape("constraint", group="time"),
    "platform_technical": Shape("constraint", group="platform", check=_technical),
    "platform_refused_technical": Shape(
        "constraint", "negative", group="platform", check=_technical
    ),
    "platform_choice": Shape("constraint", group="platform", choice=True),
    "platform": Shape("constraint", group="platform"),
    "platform_refused": Shape("constraint", "negative", group="platform"),
    "health": Shape("constraint", group="health"),
    # standing instructions
    "reply_language": Shape(
        "instruction", slot="instruction.language", group="instruction"
    ),
    "reply_language_refused": Shape(
        "instruction", "negative", slot="instruction.language", group="instruction"
    ),
    "ban": Shape("instruction", "negative", group="instruction"),
    "ban_standing": Shape(
        "instruction",
        "negative",
        slot=_instruction,
        group="instruction",
        check=_standing,
    ),
    "standing": Shape(
        "instruction", slot=_instruction, group="instruction", check=_standing
    ),
    "instruct": Shape("instruction", slot=_instruction, group="instruction"),
    "style": Shape("instruction", slot=_style, group="instruction"),
    "form_of_address": Shape(
        "instruction", slot="instruction.tone", group="instruction"
    ),
    # stack and projects
    "stack": Shape("stack"),
    "stack_choice": Shape("stack", choice=True),
    "stack_refused": Shape("stack", "negative", choice=True),
    "project": Shape("stack", group="project"),
    "project_plan": Shape("stack", group="project", check=_not_task),
    # goals, events, preferences
    "goal": Shape("goal"),
    "goal_verb": Shape("goal", check=_goal),
    "goal_plan": Shape("goal", check=_not_task),
    "event": Shape("event"),
    "like": Shape("preference", group="choice"),
    "dislike": Shape("preference", "negative", group="choice"),
    "prefer": Shape("preference", group="choice", choice=True),
    # decisions and habits
    "decide": Shape("decision", group="choice", choice=True),
    "decide_to": Shape("decision", group="choice"),
    "decide_in_domain": Shape(
        "decision", group="choice", choice=True, check=_names_a_choice
    ),
    "decide_named": Shape(
        "decision", group="choice", choice=True, check=_choice_or_name
    ),
    "switch": Shape("decision", group="choice", choice=True, check=_switch),
    "decide_against": Shape("decision", "negative", group="choice"),
    "habit": Shape("habit", group="choice"),
    "routine": Shape("habit"),
    "habit_choice": Shape("habit", group="choice", choice=True),
    "habit_never": Shape("habit", "negative", group="choice"),
}


def rules_of(pack: LanguagePack) -> tuple[Rule, ...]:
    """Every phrase of `pack` as a rule, in the pack's order."""
    stops: dict[str, re.Pattern[str] | None] = {
        "object": re.compile(pack.stop, re.IGNORECASE) if pack.stop else None,
        "role": re.compile(pack.role_stop, re.IGNORECASE),
        "place": re.compile(pack.place_stop or pack.stop, re.IGNORECASE)
        if pack.place_stop or pack.stop
        else None,
        "name": NAME_STOP,
    }
    foreign = re.compile(pack.foreign, re.IGNORECASE) if pack.foreign else None
    return tuple(_rule(pack, phrase, stops, foreign) for phrase in pack.phrases)


def _rule(
    pack: LanguagePack,
    phrase: Phrase,
    stops: dict[str, re.Pattern[str] | None],
    foreign: re.Pattern[str] | None,
) -> Rule:
    shape = SHAPES[phrase.shape]
    slot = shape.slot(pack) if callable(shape.slot) else shape.slot
    accept = shape.check(pack) if shape.check is not None else None
    if foreign is not None:
        accept = _ours(foreign, accept)
    return rule(
        pack.code,
        shape.family,
        phrase.rx if phrase.own_start else START + phrase.rx,
        phrase.template,
        phrase.triggers,
        shape.polarity,
        slot=slot,
        group=shape.group,
        choice=shape.choice,
        accept=accept,
        stop=stops[phrase.stop or shape.stop],
        keep_case=phrase.keep_case,
        examples=tuple((e.said, e.kept) for e in phrase.examples),
        key_group=phrase.key,
        resolvable=phrase.resolvable,
        flags=0 if phrase.case_sensitive else re.IGNORECASE,
    )


def _ours(foreign: re.Pattern[str], accept: Accept | None) -> Accept:
    # Spanish and Portuguese share verbs ("usamos", "uso"): a clause that reads as the other
    # language is not ours.
    def check(match: re.Match[str], obj: str) -> bool:
        if foreign.search(match.string):
            return False
        return accept is None or accept(match, obj)

    return check
