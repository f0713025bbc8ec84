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

from memtap.engine.extraction import checks
from memtap.engine.extraction.rules import Accept, Family, Polarity, Rule, SlotOf, rule
from memtap.engine.languages.pack import LanguagePack, Phrase
from memtap.engine.text import lexicon

START = r"(?:^|(?<=[\s,;:(\"'¿¡]))"
"""Where a phrase may start: the clause's start or after a space or an opening mark."""
NAME_STOP = re.compile(lexicon.NAME_STOP, re.IGNORECASE)
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


SHAPES: dict[str, Shape] = {
    # identity
    "name": Shape("identity", slot="identity.name", check=checks.proper, stop="name"),
    "address_as": Shape("identity", slot="identity.address_as"),
    "origin": Shape("identity", slot="identity.origin", check=checks.proper),
    "age": Shape("identity", slot="identity.age"),
    "full_name": Shape("identity", slot="identity.name", check=checks.name),
    "name_said": Shape("identity", slot="identity.name", check=checks.said_name),
    "signature": Shape("identity", slot="identity.name", check=checks.signature),
    "address_refused": Shape("identity", "negative", group="address"),
    "address_as_said": Shape("identity", slot="identity.address_as", group="address"),
    "pronouns": Shape("identity", slot="identity.pronouns"),
    "trait": Shape("identity", group="trait"),
    "speaks": Shape("identity", group="speaks"),
    "age_said": Shape("identity", slot="identity.age", group="age"),
    "identity": Shape("identity"),
    # location
    "home": Shape("location", slot="location.home"),
    "home_left": Shape("location", "negative", slot="location.home"),
    "home_named": Shape("location", slot="location.home", check=checks.proper),
    "home_lived": Shape("location", slot="location.home", check=checks.not_a_choice),
    "timezone": Shape("location", slot="location.timezone", group="timezone"),
    "whereabouts": Shape("location", group="whereabouts", check=checks.proper),
    "whereabouts_place": Shape("location", group="whereabouts", check=checks.place),
    # work
    "employer": Shape(
        "work", slot="work.employer", group="employer", check=checks.proper
    ),
    "employer_any": Shape("work", slot="work.employer", group="employer"),
    "employer_or_indefinite": Shape(
        "work",
        slot="work.employer",
        group="employer",
        check=checks.proper_or_indefinite,
    ),
    "employer_left": Shape("work", "negative", slot="work.employer", group="employer"),
    "role": Shape("work", slot="work.role", group="role", stop="role"),
    "role_checked": Shape("work", slot="work.role", group="role", check=checks.role),
    "past_role": Shape("work", group="past_role", check=checks.role),
    "employer_left_named": Shape(
        "work", "negative", slot="work.employer", group="employer", check=checks.proper
    ),
    "employer_after_role": Shape(
        "work", slot="work.employer", group="employer", check=checks.role_then_org
    ),
    "employer_work": Shape(
        "work", slot="work.employer", group="employer", check=checks.employer_said
    ),
    "employer_other": Shape("work", group="employer2"),
    "team": Shape("work", slot="work.team", group="team"),
    "team_other": Shape("work", group="team"),
    "business": Shape("work", group="business"),
    "field_not_task": Shape("work", group="field", check=checks.not_a_task),
    "role_as": Shape("work", slot="work.role", group="role"),
    "field": Shape("work", group="field"),
    "field_common": Shape("work", group="field", check=checks.lower),
    # family and pets
    "relative": Shape("family"),
    "relative_said": Shape("family", check=checks.not_their_words),
    "named_relative": Shape("family", group="family_name", check=checks.relative_named),
    "sibling": Shape("family", group="sibling"),
    "family_pair": Shape("family", group="family_pair"),
    "family_other": Shape("family", group="family"),
    "family_count": Shape("family", group="family_count"),
    "no_relative": Shape("family", "negative"),
    "relationship": Shape("family", slot="family.relationship", group="relationship"),
    "parent": Shape("family", group="parent"),
    # constraints
    "allergy": Shape("constraint", group="allergy"),
    "diet": Shape("constraint", slot=checks.diet, group="diet"),
    "diet_left": Shape("constraint", "negative", slot="constraint.diet", group="diet"),
    "food_refused": Shape("constraint", "negative", group="food"),
    "budget": Shape("constraint", slot="constraint.budget", group="budget"),
    "budget_other": Shape("constraint", group="budget"),
    "diet_named": Shape("constraint", slot="constraint.diet", group="diet"),
    "diet_said": Shape("constraint", slot=checks.diet_named, group="diet"),
    "diet_other": Shape("constraint", group="diet"),
    "refused": Shape("constraint", "negative", group="choice"),
    "device": Shape("constraint", group="device"),
    "physical_refused": Shape("constraint", "negative", group="physical"),
    "time": Shape("constraint", group="time"),
    "platform_technical": Shape("constraint", group="platform", check=checks.technical),
    "platform_refused_technical": Shape(
        "constraint", "negative", group="platform", check=checks.technical
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
        slot=checks.instruction,
        group="instruction",
        check=checks.standing,
    ),
    "standing": Shape(
        "instruction",
        slot=checks.instruction,
        group="instruction",
        check=checks.standing,
    ),
    "instruct": Shape("instruction", slot=checks.instruction, group="instruction"),
    "style": Shape("instruction", slot=checks.style, group="instruction"),
    "form_of_address": Shape(
        "instruction", slot="instruction.tone", group="instruction"
    ),
    # stack and projects
    "stack": Shape("stack"),
    "stack_choice": Shape("stack", choice=True),
    "stack_refused": Shape("stack", "negative", choice=True),
    "stack_refused_technical": Shape(
        "stack", "negative", choice=True, check=checks.technical
    ),
    "device_named": Shape(
        "stack", slot="device.{what}", check=checks.named_or_technical
    ),
    "stack_named": Shape("stack", check=checks.named_or_technical),
    "stack_used": Shape("stack", choice=True, check=checks.used),
    "stack_fact": Shape("stack", check=checks.stack_fact),
    "project_built": Shape("stack", group="project", check=checks.project),
    "project": Shape("stack", group="project"),
    "project_plan": Shape("stack", group="project", check=checks.not_task),
    # goals, events, preferences
    "goal": Shape("goal"),
    "goal_verb": Shape("goal", check=checks.goal),
    "goal_plan": Shape("goal", check=checks.not_task),
    "goal_named": Shape("goal", check=checks.goal_said),
    "event": Shape("event"),
    "event_not_task": Shape("event", check=checks.not_about_task),
    "event_not_pointing": Shape("event", check=checks.not_pointing),
    "event_dated": Shape("event", check=checks.not_output),
    "like": Shape("preference", group="choice"),
    "dislike": Shape("preference", "negative", group="choice"),
    "prefer": Shape("preference", group="choice", choice=True),
    # decisions and habits
    "decide": Shape("decision", group="choice", choice=True),
    "decide_to": Shape("decision", group="choice"),
    "decide_in_domain": Shape(
        "decision", group="choice", choice=True, check=checks.names_a_choice
    ),
    "decide_named": Shape(
        "decision", group="choice", choice=True, check=checks.choice_or_name
    ),
    "switch": Shape("decision", group="choice", choice=True, check=checks.switch),
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
        "name": re.compile(pack.name_stop, re.IGNORECASE)
        if pack.name_stop
        else NAME_STOP,
        "statement": re.compile(pack.statement_stop or pack.stop, re.IGNORECASE)
        if pack.statement_stop or pack.stop
        else None,
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
        presupposed=phrase.presupposed,
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
