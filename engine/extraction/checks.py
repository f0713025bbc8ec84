"""The checks a rule shape's object must pass, and the slots that depend on the object, each
given a language pack (`shapes.py` names them per shape). A check reads its words from the
pack, never from code: "a name", "a place", "not the task at hand" mean the same in every
language."""

from __future__ import annotations

import re

from memtap.engine.extraction.rules import Accept, SlotOf
from memtap.engine.extraction.slots import domain_of
from memtap.engine.languages.pack import LanguagePack


# -- checks an object must pass --------------------------------------------------------------
def proper(pack: LanguagePack) -> Accept:
    return lambda m, obj: obj[:1].isupper() or obj[:1].isdigit()


def lower(pack: LanguagePack) -> Accept:
    return lambda m, obj: obj[:1].islower()


def proper_or_indefinite(pack: LanguagePack) -> Accept:
    return lambda m, obj: (
        obj[:1].isupper()
        or obj[:1].isdigit()
        or m.group("prep").lower() in pack.indefinite_preps
    )


def goal(pack: LanguagePack) -> Accept:
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


def names_a_choice(pack: LanguagePack) -> Accept:
    """The object names a choice domain (editor, database, …): "I'll move to Postgres", not
    "I'll move to Lisbon"."""
    return lambda m, obj: domain_of(obj) is not None


def choice_or_name(pack: LanguagePack) -> Accept:
    """A choice or a proper name: "I adopted Kotlin", not "I adopted a dog"."""
    return lambda m, obj: domain_of(obj) is not None or obj[:1].isupper()


def switch(pack: LanguagePack) -> Accept:
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


def _words_rx(alternatives: str) -> re.Pattern[str]:
    """Any of `alternatives` (a regex alternation) as a whole word; never matches when the
    pack has none (an empty `\b(?:)\b` would match at every word boundary)."""
    return _rx(rf"\b(?:{alternatives})\b" if alternatives else "")


def _first_word(obj: str) -> str:
    return obj.split(maxsplit=1)[0] if obj else ""


def name(pack: LanguagePack) -> Accept:
    """A name: capitalised words and the particles inside names, four words at most."""
    particles = "|".join(sorted(pack.name_particles)) or r"(?!x)x"
    name = re.compile(r"^[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|" + particles + r"))*$")
    return lambda m, obj: bool(name.match(obj)) and len(obj.split()) <= 4


def said_name(pack: LanguagePack) -> Accept:
    """ "I'm Sofia", not "I'm Fine"."""
    return lambda m, obj: _first_word(obj) not in pack.not_names


def signature(pack: LanguagePack) -> Accept:
    """A name signing the message ("Marco here", "It's Kenji again"), not "Same here"."""
    is_name = name(pack)
    return lambda m, obj: (
        _first_word(obj) not in pack.not_names
        and _first_word(obj).lower() not in pack.not_signatures
        and is_name(m, obj)
    )


def relative_named(pack: LanguagePack) -> Accept:
    """A relative's name, not a weekday or a language ("my sister Saturday")."""
    return lambda m, obj: m.group("name").lower() not in pack.not_a_name


def not_their_words(pack: LanguagePack) -> Accept:
    """A fact about the family, not what a relative thinks or says."""
    stance = _words_rx(pack.stance_verbs)
    return lambda m, obj: stance.search(obj) is None


def not_a_choice(pack: LanguagePack) -> Accept:
    """Where the user lives, not a choice ("I live in Vim")."""
    return lambda m, obj: domain_of(obj) is None


def place(pack: LanguagePack) -> Accept:
    """A place the user is in, not a choice or a state ("I'm in Love")."""
    return lambda m, obj: (
        domain_of(obj) is None and _first_word(obj) not in pack.not_places
    )


def employer_said(pack: LanguagePack) -> Accept:
    """An employer, not a task ("I work at fixing …")."""
    return lambda m, obj: _first_word(obj).lower() not in pack.verbish


def not_a_task(pack: LanguagePack) -> Accept:
    """Not the task at hand: no task verb first, nothing pointing at the conversation."""
    deictic = _words_rx(pack.deictic)
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


def role(pack: LanguagePack) -> Accept:
    """A job title, up to where a title ends ("nurse at St Mary's" -> "nurse")."""
    role_stop = re.compile(pack.role_stop, re.IGNORECASE)
    return lambda m, obj: _is_role(pack, role_stop.split(obj, maxsplit=1)[0])


def role_then_org(pack: LanguagePack) -> Accept:
    """An organisation after a job title ("a nurse at St Mary's")."""
    return lambda m, obj: (
        _is_role(pack, m.group("role")) and (obj[:1].isupper() or obj[:1].isdigit())
    )


def technical(pack: LanguagePack) -> Accept:
    technical = _rx(pack.technical)
    return lambda m, obj: technical.search(obj) is not None


def named_or_technical(pack: LanguagePack) -> Accept:
    """A thing named (a capital or a digit: "a Pixel 8") or technical ("runs linux")."""
    technical = _rx(pack.technical)
    return lambda m, obj: (
        re.search(r"[A-Z0-9]", obj) is not None or technical.search(obj) is not None
    )


def not_about_task(pack: LanguagePack) -> Accept:
    """An event of the user's life, not of the task ("just got this error")."""
    task = _words_rx(pack.task_words)
    return lambda m, obj: task.search(obj) is None


def not_pointing(pack: LanguagePack) -> Accept:
    """An event that does not end pointing at the conversation ("I just finished that")."""
    pointing = re.compile(
        r"\b(?:" + pack.pointing_end + r")\b\s*$" if pack.pointing_end else r"(?!x)x"
    )
    return lambda m, obj: pointing.search(obj) is None


def not_output(pack: LanguagePack) -> Accept:
    """A dated event that is not about a program's output ("got an error yesterday")."""
    output = _words_rx(pack.output_words)
    return lambda m, obj: output.search(obj) is None


def used(pack: LanguagePack) -> Accept:
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


def stack_fact(pack: LanguagePack) -> Accept:
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


def project(pack: LanguagePack) -> Accept:
    """A project of the user's, not the task at hand nor a chore ("I'm writing an email"); a
    loose verb ("running", "making") only for something technical."""
    off_task, technical, chores = not_task(pack), _rx(pack.technical), _rx(pack.chores)
    return lambda m, obj: (
        off_task(m, obj)
        and not chores.match(obj)
        and (
            m.group("verb").lower() not in pack.loose_verbs
            or technical.search(obj) is not None
        )
    )


def goal_said(pack: LanguagePack) -> Accept:
    """ "My goal is to run a marathon", not "my goal is simple" or "… is to ask you"."""
    return lambda m, obj: not obj.lower().startswith(pack.not_goal_starts)


def standing(pack: LanguagePack) -> Accept:
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


def not_task(pack: LanguagePack) -> Accept:
    """Not the task at hand ("I want to read this file"); a goal with a horizon ("I want to
    read 50 books this year") is a plan even with a task verb."""
    horizon, deictic = _rx(pack.horizon), _words_rx(pack.deictic)

    def check(m: re.Match[str], obj: str) -> bool:
        first = obj.split(maxsplit=1)[0].lower() if obj else ""
        planned = horizon.search(m.string) is not None
        return (planned or first not in pack.task_verbs) and not deictic.search(
            horizon.sub("", obj)
        )

    return check


# -- slots that depend on the object ---------------------------------------------------------
def diet(pack: LanguagePack) -> SlotOf:
    diets = re.compile(pack.diets, re.IGNORECASE)
    return lambda obj: "constraint.diet" if diets.match(obj) else None


def diet_named(pack: LanguagePack) -> SlotOf:
    diets = _rx(pack.diets)
    return lambda obj: "constraint.diet" if diets.search(obj) else None


def instruction(pack: LanguagePack) -> SlotOf:
    length, tone = _rx(pack.length), _rx(pack.tone)
    return lambda obj: (
        "instruction.length"
        if length.search(obj)
        else "instruction.tone"
        if tone.search(obj)
        else None
    )


def style(pack: LanguagePack) -> SlotOf:
    return lambda obj: (
        "instruction.length" if obj.startswith(pack.brief_words) else "instruction.tone"
    )
