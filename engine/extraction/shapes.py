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


def _first_word(obj: str) -> str:
    return obj.split(maxsplit=1)[0] if obj else ""


def _name(pack: LanguagePack) -> Accept:
    """A name: capitalised words and the particles inside names, four words at most."""
    particles = "|".join(sorted(pack.name_particles)) or r"(?!x)x"
    name = re.compile(r"^[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|" + particles + r"))*$")
    return lambda m, obj: bool(name.match(obj)) and len(obj.split()) <= 4


def _said_name(pack: LanguagePack) -> Accept:
    """ "I'm Sofia", not "I'm Fine"."""
    return lambda m, obj: _first_word(obj) not in pack.not_names


def _signature(pack: LanguagePack) -> Accept:
    """A name signing the message ("Marco here", "It's Kenji again"), not "Same here"."""
    name = _name(pack)
    return lambda m, obj: (
        _first_word(obj) not in pack.not_names
        and _first_word(obj).lower() not in pack.not_signatures
        and name(m, obj)
    )


def _relative_named(pack: LanguagePack) -> Accept:
    """A relative's name, not a weekday or a language ("my sister Saturday")."""
    return lambda m, obj: m.group("name").lower() not in pack.not_a_name


def _not_their_words(pack: LanguagePack) -> Accept:
    """A fact about the family, not what a relative thinks or says."""
    stance = _rx(r"\b(?:" + pack.stance_verbs + r")\b" if pack.stance_verbs else "")
    return lambda m, obj: stance.search(obj) is None


def _not_a_choice(pack: LanguagePack) -> Accept:
    """Where the user lives, not a choice ("I live in Vim")."""
    return lambda m, obj: domain_of(obj) is None


def _place(pack: LanguagePack) -> Accept:
    """A place the user is in, not a choice or a state ("I'm in Love")."""
    return lambda m, obj: (
        domain_of(obj) is None and _first_word(obj) not in pack.not_places
    )


def _employer_said(pack: LanguagePack) -> Accept:
    """An employer, not a task ("I work at fixing …")."""
    return lambda m, obj: _first_word(obj).lower() not in pack.verbish


def _not_a_task(pack: LanguagePack) -> Accept:
    """Not the task at hand: no task verb first, nothing pointing at the conversation."""
    deictic = _rx(r"\b(?:" + pack.deictic + r")\b" if pack.deictic else "")
    return lambda m, obj: (
        not (
            _first_word(obj).lower() in pack.task_verbs
            or deictic.search(obj) is not None
        )
    )


def _is_role(pack: LanguagePack, phrase: str) -> bool:
    words = [
        w for w in re.findall(r"[a-z][\w-]*", phrase.lower()) if w not in pack.articles
    ]
    if not words or len(words) > 6:
        return False
    last = words[-1]
    if last in pack.not_roles or _rx(pack.not_a_job).search(phrase):
        return False  # "a terrible cook", "an amateur photographer" are not jobs
    return last in pack.role_words or (
        bool(pack.role_suffixes) and last.endswith(pack.role_suffixes)
    )


def _role(pack: LanguagePack) -> Accept:
    """A job title, up to where a title ends ("nurse at St Mary's" -> "nurse")."""
    role_stop = re.compile(pack.role_stop, re.IGNORECASE)
    return lambda m, obj: _is_role(pack, role_stop.split(obj, maxsplit=1)[0])


def _role_then_org(pack: LanguagePack) -> Accept:
    """An organisation after a job title ("a nurse at St Mary's")."""
    return lambda m, obj: (
        _is_role(pack, m.group("role")) and (obj[:1].isupper() or obj[:1].isdigit())
    )


def _technical(pack: LanguagePack) -> Accept:
    technical = _rx(pack.technical)
    return lambda m, obj: technical.search(obj) is not None


def _named_or_technical(pack: LanguagePack) -> Accept:
    """A thing named (a capital or a digit: "a Pixel 8") or technical ("runs linux")."""
    technical = _rx(pack.technical)
    return lambda m, obj: (
        re.search(r"[A-Z0-9]", obj) is not None or technical.search(obj) is not None
    )


def _not_about_task(pack: LanguagePack) -> Accept:
    """An event of the user's life, not of the task ("just got this error")."""
    task = _rx(r"\b(?:" + pack.task_words + r")\b" if pack.task_words else "")
    return lambda m, obj: task.search(obj) is None


def _not_pointing(pack: LanguagePack) -> Accept:
    """An event that does not end pointing at the conversation ("I just finished that")."""
    pointing = re.compile(
        r"\b(?:" + pack.pointing_end + r")\b\s*$" if pack.pointing_end else r"(?!x)x"
    )
    return lambda m, obj: pointing.search(obj) is None


def _not_output(pack: LanguagePack) -> Accept:
    """A dated event that is not about a program's output ("got an error yesterday")."""
    output = _rx(r"\b(?:" + pack.output_words + r")\b" if pack.output_words else "")
    return lambda m, obj: output.search(obj) is None


def _used(pack: LanguagePack) -> Accept:
    """What the user uses ("I use Vim"), or builds or runs on something technical ("we deploy
    to Fly.io"), but no aid ("I use a screen reader")."""
    technical, aids = _rx(pack.technical), _rx(pack.aids)
    return lambda m, obj: (
        (
            m.group("verb").lower().startswith(pack.use_verbs)
            or technical.search(obj) is not None
        )
        and not aids.match(obj)
    )


def _stack_fact(pack: LanguagePack) -> Accept:
    """A fact of the stack ("Our backend is a Django monolith"), not a passing state ("the
    data is wrong", "our API is down")."""
    technical, passing = _rx(pack.technical), _rx(pack.passing_states)
    return lambda m, obj: (
        not passing.match(obj)
        and (
            m.group("verb").lower() not in pack.being_verbs
            or re.search(r"[A-Z0-9]", obj) is not None
            or technical.search(obj) is not None
        )
    )


def _project(pack: LanguagePack) -> Accept:
    """A project of the user's, not the task at hand nor a chore ("I'm writing an email"); a
    loose verb ("running", "making") only for something technical."""
    not_task, technical, chores = _not_task(pack), _rx(pack.technical), _rx(pack.chores)
    return lambda m, obj: (
        not_task(m, obj)
        and not chores.match(obj)
        and (
            m.group("verb").lower() not in pack.loose_verbs
            or technical.search(obj) is not None
        )
    )


def _goal_said(pack: LanguagePack) -> Accept:
    """ "My goal is to run a marathon", not "my goal is simple" or "… is to ask you"."""
    return lambda m, obj: not obj.lower().startswith(pack.not_goal_starts)


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
    "full_name": Shape("identity", slot="identity.name", check=_name),
    "name_said": Shape("identity", slot="identity.name", check=_said_name),
    "signature": Shape("identity", slot="identity.name", check=_signature),
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
    "home_named": Shape("location", slot="location.home", check=_proper),
    "home_lived": Shape("location", slot="location.home", check=_not_a_choice),
    "timezone": Shape("location", slot="location.timezone", group="timezone"),
    "whereabouts": Shape("location", group="whereabouts", check=_proper),
    "whereabouts_place": Shape("location", group="whereabouts", check=_place),
    # work
    "employer": Shape("work", slot="work.employer", group="employer", check=_proper),
    "employer_any": Shape("work", slot="work.employer", group="employer"),
    "employer_or_indefinite": Shape(
        "work", slot="work.employer", group="employer", check=_proper_or_indefinite
    ),
    "employer_left": Shape("work", "negative", slot="work.employer", group="employer"),
    "role": Shape("work", slot="work.role", group="role", stop="role"),
    "role_checked": Shape("work", slot="work.role", group="role", check=_role),
    "past_role": Shape("work", group="past_role", check=_role),
    "employer_left_named": Shape(
        "work", "negative", slot="work.employer", group="employer", check=_proper
    ),
    "employer_after_role": Shape(
        "work", slot="work.employer", group="employer", check=_role_then_org
    ),
    "employer_work": Shape(
        "work", slot="work.employer", group="employer", check=_employer_said
    ),
    "employer_other": Shape("work", group="employer2"),
    "team": Shape("work", slot="work.team", group="team"),
    "team_other": Shape("work", group="team"),
    "business": Shape("work", group="business"),
    "field_not_task": Shape("work", group="field", check=_not_a_task),
    "role_as": Shape("work", slot="work.role", group="role"),
    "field": Shape("work", group="field"),
    "field_common": Shape("work", group="field", check=_lower),
    # family and pets
    "relative": Shape("family"),
    "relative_said": Shape("family", check=_not_their_words),
    "named_relative": Shape("family", group="family_name", check=_relative_named),
    "sibling": Shape("family", group="sibling"),
    "family_pair": Shape("family", group="family_pair"),
    "family_other": Shape("family", group="family"),
    "family_count": Shape("family", group="family_count"),
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
    "stack_refused_technical": Shape(
        "stack", "negative", choice=True, check=_technical
    ),
    "device_named": Shape("stack", slot="device.{what}", check=_named_or_technical),
    "stack_named": Shape("stack", check=_named_or_technical),
    "stack_used": Shape("stack", choice=True, check=_used),
    "stack_fact": Shape("stack", check=_stack_fact),
    "project_built": Shape("stack", group="project", check=_project),
    "project": Shape("stack", group="project"),
    "project_plan": Shape("stack", group="project", check=_not_task),
    # goals, events, preferences
    "goal": Shape("goal"),
    "goal_verb": Shape("goal", check=_goal),
    "goal_plan": Shape("goal", check=_not_task),
    "goal_named": Shape("goal", check=_goal_said),
    "event": Shape("event"),
    "event_not_task": Shape("event", check=_not_about_task),
    "event_not_pointing": Shape("event", check=_not_pointing),
    "event_dated": Shape("event", check=_not_output),
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
