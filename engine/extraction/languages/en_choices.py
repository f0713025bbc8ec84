"""English preferences, decisions and habits (the seed's three families), negative forms first
so "I don't like X" is stored as a negative fact and never as "X"."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from memtap.engine.extraction.rules import Family, Polarity, Rule, rule
from memtap.engine.extraction.slots import domain_of
from memtap.engine.languages.en import START

_I = START + r"I\s+"
_I_OR_WE = START + r"(?:I|we)\s+"
_ADV = (
    r"(?:(?:really|truly|definitely|much|now|still|actually|generally|personally|also|just|"
    r"strongly|do|would)\s+)*"
)


def _not_a_place(match: re.Match[str], obj: str) -> bool:
    """ "I moved from MySQL to Postgres" is a decision; "I moved from Oslo to Bergen" is not."""
    if (match.group("verb") or "").lower() != "moved" or match.group("thing"):
        return True  # "we moved our infra from Heroku to Render" is not people moving
    return domain_of(obj) is not None or domain_of(match.group("src") or "") is not None


def _choice(
    family: Family,
    polarity: Polarity,
    rx: str,
    template: str | Mapping[str, str],
    triggers: str,
    **options: Any,
) -> Rule:
    return rule(
        family=family,
        lang="en",
        rx=rx,
        template=template,
        triggers=triggers,
        polarity=polarity,
        group="choice",
        **options,
    )


RULES: tuple[Rule, ...] = (
    # -- preferences, negative ---------------------------------------------------------
    _choice(
        "preference",
        "negative",
        _I
        + _ADV
        + r"(?P<verb>don'?t|do\s+not|no\s+longer|never|doesn'?t)\s+"
        + _ADV
        + r"(?P<verb2>like|love|enjoy|prefer|want\s+to\s+use|care\s+for)\s+(?P<obj>.+)",
        {
            "like": "Does not like {obj}",
            "love": "Does not love {obj}",
            "enjoy": "Does not enjoy {obj}",
            "prefer": "Does not prefer {obj}",
            "want to use": "Does not want to use {obj}",
            "care for": "Does not care for {obj}",
            "": "Does not like {obj}",
        },
        "like love enjoy prefer want care",
        key_group="verb2",
        resolvable=True,
        examples=(("I don't like Java", "Does not like Java"),),
    ),
    _choice(
        "preference",
        "negative",
        _I
        + _ADV
        + r"(?P<verb>hate|dislike|detest|despise|can'?t\s+stand|cannot\s+stand|avoid)\s+(?P<obj>.+)",
        {
            "hate": "Hates {obj}",
            "dislike": "Dislikes {obj}",
            "detest": "Detests {obj}",
            "despise": "Despises {obj}",
            "can't stand": "Cannot stand {obj}",
            "cant stand": "Cannot stand {obj}",
            "cannot stand": "Cannot stand {obj}",
            "avoid": "Avoids {obj}",
            "": "Dislikes {obj}",
        },
        "hate dislike detest despise stand avoid",
        resolvable=True,
        examples=(("I hate YAML", "Hates YAML"),),
    ),
    _choice(
        "preference",
        "negative",
        _I + _ADV + r"(?P<verb>prefer|would\s+rather)\s+not\s+(?:to\s+)?(?P<obj>.+)",
        {
            "prefer": "Prefers not to {obj}",
            "would rather": "Would rather not {obj}",
            "": "Prefers not to {obj}",
        },
        "prefer rather",
        examples=(("I prefer not to use ORMs", "Prefers not to use ORMs"),),
    ),
    _choice(
        "preference",
        "negative",
        START
        + r"I(?:'m|\s+am)\s+(?P<verb>not\s+(?:a\s+|really\s+a\s+|much\s+of\s+a\s+)?fan)\s+of\s+(?P<obj>.+)",
        "Is not a fan of {obj}",
        "fan",
        resolvable=True,
        examples=(("I'm not a fan of Java", "Is not a fan of Java"),),
    ),
    _choice(
        "preference",
        "negative",
        START + r"I(?:'d|\s+would)\s+(?P<verb>rather)\s+not\s+(?:to\s+)?(?P<obj>.+)",
        "Would rather not {obj}",
        "rather",
        examples=(("I'd rather not use ORMs", "Would rather not use ORMs"),),
    ),
    # -- preferences, positive ---------------------------------------------------------
    _choice(
        "preference",
        "positive",
        START + r"I(?:'d|\s+would)\s+(?P<verb>rather)\s+(?:use\s+)?(?P<obj>.+)",
        "Prefers {obj}",
        "rather",
        choice=True,
        examples=(("I'd rather use Go", "Prefers Go"),),
    ),
    _choice(
        "preference",
        "positive",
        START
        + r"I(?:'m|\s+am)\s+(?:a\s+)?(?:big\s+|huge\s+|great\s+)?(?P<verb>fan)\s+of\s+(?P<obj>.+)",
        "Is a fan of {obj}",
        "fan",
        resolvable=True,
        examples=(("I'm a big fan of Haskell", "Is a fan of Haskell"),),
    ),
    _choice(
        "preference",
        "positive",
        START
        + r"I(?:'m|\s+am)\s+(?:a|an)\s+(?:big\s+|huge\s+|great\s+|massive\s+|die-hard\s+|lifelong\s+)?(?P<obj>[A-Z][\w.&' -]{1,40}?)\s+(?P<verb>fan|supporter|nerd|geek|lover|enthusiast)\b",
        "Is a fan of {obj}",
        "fan",
        resolvable=True,
        examples=(("I'm a huge Arsenal fan.", "Is a fan of Arsenal"),),
    ),
    _choice(
        "preference",
        "positive",
        _I + _ADV + r"(?P<verb>prefer)\s+(?P<obj>.+)",
        "Prefers {obj}",
        "prefer",
        choice=True,
        resolvable=True,
        examples=(("I prefer Go. ", "Prefers Go"),),
    ),
    _choice(
        "preference",
        "positive",
        r"\bmy\s+(?:(?:absolute|all-time)\s+)?(?P<verb>favou?rite)\s+(?P<what>[\w -]{1,40}?)\s+(?:is|are)\s+(?P<obj>.+)",
        "Favourite {what} is {obj}",
        "favourite favorite",
        choice=True,
        examples=(("My favourite tea is jasmine", "Favourite tea is jasmine"),),
    ),
    _choice(
        "preference",
        "positive",
        # "Sci-fi is my favourite genre": the same fact with the object first
        r"^(?P<obj>[\w][\w' .&+-]{0,40}?)\s+(?:is|are)\s+(?:probably\s+|definitely\s+)?my\s+(?:(?:absolute|all-time)\s+)?(?P<verb>favou?rite)\s+(?P<what>[\w -]{1,40}?)(?=\s*(?:$|[.!,;]|\bespecially\b|\bby\s+far\b))",
        "Favourite {what} is {obj}",
        "favourite favorite",
        choice=True,
        examples=(
            (
                "Sci-fi is my favourite genre, especially Le Guin.",
                "Favourite genre is sci-fi",
            ),
        ),
    ),
    _choice(
        "preference",
        "positive",
        # "Jazz is my thing, especially Coltrane"
        r"^(?P<obj>[\w][\w' .&+-]{0,40}?)\s+(?:is|are)\s+(?:totally\s+|really\s+)?my\s+(?P<verb>thing|jam|passion|obsession|happy\s+place)(?=\s*(?:$|[.!,;]))",
        "Loves {obj}",
        "thing jam passion obsession happy",
        examples=(("Jazz is my thing, especially Coltrane.", "Loves jazz"),),
    ),
    _choice(
        "decision",
        "positive",
        # "I'm going with the Fairphone": a choice being made
        START
        + r"(?:I|we)(?:'m|'re|\s+am|\s+are)\s+(?:going|gonna\s+go)\s+with\s+(?P<obj>.+)",
        "Decided to go with {obj}",
        "going gonna",
        choice=True,
        examples=(
            ("I'm going with the Fairphone.", "Decided to go with the Fairphone"),
        ),
    ),
    _choice(
        "decision",
        "positive",
        START
        + r"(?:I|we)(?:'ve|\s+have)?\s+(?P<verb>chosen|chose|decided|opted)\s+(?:to\s+)(?P<obj>(?!use\b|go\s+with\b|not\b).+)",
        {
            "decided": "Decided to {obj}",
            "opted": "Opted to {obj}",
            "": "Chose to {obj}",
        },
        "chosen chose decided opted",
        examples=(
            (
                "I've decided to learn Rust instead of C++.",
                "Decided to learn Rust instead of C++",
            ),
        ),
    ),
    _choice(
        "preference",
        "positive",
        _I + _ADV + r"(?P<verb>like|love|enjoy|adore)\s+(?P<obj>.+)",
        {
            "like": "Likes {obj}",
            "love": "Loves {obj}",
            "enjoy": "Enjoys {obj}",
            "adore": "Adores {obj}",
            "": "Likes {obj}",
        },
        "like love enjoy adore",
        resolvable=True,
        examples=(("I like Java", "Likes Java"),),
    ),
    # -- decisions, negative -----------------------------------------------------------
    _choice(
        "decision",
        "negative",
        _I
        + _ADV
        + r"(?P<verb>won'?t|will\s+not|decided\s+not\s+to|decided\s+against|am\s+not\s+going\s+to|'m\s+not\s+going\s+to)\s+"
        + r"(?:use|using|adopt|adopting|go\s+with|going\s+with|pick|choose|switch\s+to|switching\s+to)\s+(?P<obj>.+)",
        "Decided not to use {obj}",
        "won wont will decided going",
        examples=(("I won't use Kubernetes", "Decided not to use Kubernetes"),),
    ),
    _choice(
        "decision",
        "negative",
        START
        + r"I(?:'m|\s+am)\s+not\s+going\s+to\s+(?:use|adopt|go\s+with|pick|choose|switch\s+to)\s+(?P<obj>.+)",
        "Decided not to use {obj}",
        "going",
        examples=(("I'm not going to use MongoDB.", "Decided not to use MongoDB"),),
    ),
    # -- decisions, positive -----------------------------------------------------------
    _choice(
        "decision",
        "positive",
        _I_OR_WE
        + _ADV
        + r"(?P<verb>switched|moved|migrated|changed)(?P<thing>\s+(?:our|my|the|all\s+of\s+our|everything)(?:\s+[\w-]+){0,2}?)?\s+from\s+(?P<src>.+?)\s+to\s+(?P<obj>.+)",
        {
            "switched": "Switched from {src} to {obj}",
            "moved": "Moved from {src} to {obj}",
            "migrated": "Migrated from {src} to {obj}",
            "changed": "Changed from {src} to {obj}",
            "": "Switched from {src} to {obj}",
        },
        "switched moved migrated changed",
        choice=True,
        accept=_not_a_place,
        examples=(("I switched from tabs to spaces", "Switched from tabs to spaces"),),
    ),
    _choice(
        "decision",
        "positive",
        START
        + r"(?:I|we)(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|'ve\s+decided\s+to|\s+have\s+decided\s+to|\s+decided\s+to)\s+"
        + _ADV
        + r"(?P<verb>use|adopt|go\s+with|switch\s+to|pick|choose|stick\s+with|migrate\s+to|move\s+to)\s+(?P<obj>.+)",
        {
            "switch to": "Switched to {obj}",
            "migrate to": "Migrated to {obj}",
            "move to": "Moved to {obj}",
            "stick with": "Sticks with {obj}",
            "go with": "Decided to go with {obj}",
            "": "Decided to use {obj}",
        },
        "use adopt go switch pick choose stick migrate move",
        choice=True,
        accept=lambda m, obj: (
            m.group("verb").lower() != "move to" or domain_of(obj) is not None
        ),
        examples=(("I'll use vim", "Decided to use vim"),),
    ),
    _choice(
        "decision",
        "positive",
        _I_OR_WE
        + _ADV
        + r"(?P<verb>chose|picked|went\s+with|switched\s+to|selected|opted\s+for|settled\s+on|decided\s+on|"
        + r"migrated\s+to|adopted)\s+(?P<obj>.+)",
        {
            "chose": "Chose {obj}",
            "picked": "Picked {obj}",
            "went with": "Went with {obj}",
            "switched to": "Switched to {obj}",
            "selected": "Selected {obj}",
            "opted for": "Opted for {obj}",
            "settled on": "Settled on {obj}",
            "decided on": "Decided on {obj}",
            "migrated to": "Migrated to {obj}",
            "adopted": "Adopted {obj}",
            "": "Chose {obj}",
        },
        "chose picked went switched selected opted settled decided migrated adopted",
        choice=True,
        # "I adopted a dog" is family news, not a technical choice
        accept=lambda m, obj: (
            m.group("verb").lower() != "adopted"
            or domain_of(obj) is not None
            or obj[:1].isupper()
        ),
        examples=(("I chose MySQL", "Chose MySQL"),),
    ),
    # -- habits, negative --------------------------------------------------------------
    _choice(
        "habit",
        "negative",
        _I
        + r"(?P<verb>never|rarely|seldom|hardly\s+ever|don'?t\s+usually|do\s+not\s+usually|don'?t\s+ever|do\s+not\s+ever)\s+(?P<obj>.+)",
        {
            "never": "Never {obj}",
            "rarely": "Rarely {obj}",
            "seldom": "Seldom {obj}",
            "hardly ever": "Hardly ever {obj}",
            "": "Does not usually {obj}",
        },
        "never rarely seldom hardly usually ever",
        examples=(("I never use Windows", "Never use Windows"),),
    ),
    # -- habits, positive --------------------------------------------------------------
    _choice(
        "habit",
        "positive",
        # "Every morning I do 10 minutes of yoga": the routine with its time first
        r"^(?P<when>(?:every|each)\s+(?:single\s+)?(?:day|night|morning|evening|afternoon|week|weekend|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)),?\s+(?:I|we)\s+"
        + r"(?!(?:am|was|have\s+to|had|need|want|wish|hope|think|feel|can|could|will|would|should|must|might|don't)\b)(?P<verb>[a-z]+)\s+(?P<obj>.+)",
        "{verb_s} {obj} {when}",
        "every each",
        examples=(
            ("Every Friday we do pizza night.", "Does pizza night every friday"),
        ),
    ),
    _choice(
        "habit",
        "positive",
        # "I journal every night before bed": a routine named by how often, not by "usually"
        _I
        + r"(?!(?:am|was|have|had|need|want|wish|hope|think|feel|can|could|will|would|should|must|might|do|did|don't|get\s+to)\b)"
        + r"(?P<verb>[a-z]+(?:-[a-z]+)?)\s+(?P<obj>(?:[\w'-]+\s+){0,4}?(?:(?i:every|each)\s+(?:single\s+)?(?i:day|night|morning|evening|afternoon|week|weekend|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?i:on)\s+(?i:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays)|(?i:once|twice|three\s+times|four\s+times|\d+\s+times|a\s+few\s+times)\s+(?:a|per)\s+(?i:day|week|month))\b.*)",
        "{verb_s} {obj}",
        "every each mondays tuesdays wednesdays thursdays fridays saturdays sundays weekends weekdays once twice times",
        flags=0,
        examples=(("I meal-prep on Sundays.", "Meal-preps on Sundays"),),
    ),
    _choice(
        "habit",
        "positive",
        _I
        + r"(?P<verb>usually|always|often|typically|normally|generally|regularly|mostly|tend\s+to)\s+(?P<obj>.+)",
        {
            "usually": "Usually {obj}",
            "always": "Always {obj}",
            "often": "Often {obj}",
            "typically": "Typically {obj}",
            "normally": "Normally {obj}",
            "generally": "Generally {obj}",
            "regularly": "Regularly {obj}",
            "mostly": "Mostly {obj}",
            "tend to": "Tends to {obj}",
            "": "Usually {obj}",
        },
        "usually always often typically normally generally regularly mostly tend",
        choice=True,
        examples=(("I tend to work late", "Tends to work late"),),
    ),
)
